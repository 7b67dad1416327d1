// `ccsim sbatch [SBATCH OPTIONS] job.sbatch [CCSIM FLAGS]`: the nccl-tests lines of a Slurm batch script, each
// predicted as `ccsim srun ... all_reduce_perf ...` would, with the job's #SBATCH allocation, exports and variables.
#pragma once

namespace ccsim::cli {

// argv[1] is "sbatch". Prints one nccl-tests prediction per test line of the script (all or nothing); returns the exit
// status (2 with one line on stderr naming the script and its line for what it cannot resolve).
int sbatch_main(int argc, char** argv);

} // namespace ccsim::cli
