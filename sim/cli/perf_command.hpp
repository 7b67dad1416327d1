// nccl-tests mode: `ccsim all_reduce_perf -b 8 -e 128M -f 2 -g 8` (or a symlink named all_reduce_perf)
// takes nccl-tests' flags with nccl-tests' meaning and prints nccl-tests' output shape, so a script that
// runs and parses all_reduce_perf reads a prediction instead.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ccsim::cli {

struct PerfInvocation {
  std::string program; // "all_reduce_perf"
  int first_arg = 1;   // index in argv of the first nccl-tests flag
  // A launcher's words typed before the test (`ccsim srun -N 2 --ntasks-per-node=8 all_reduce_perf ...`, an sbatch
  // script's line pasted): argv[launcher_first .. first_arg - 1), the test's own path last; 0 when none.
  int launcher_first = 0;
  // A line of a batch script (`ccsim sbatch job.sbatch`, sbatch_command.cpp): where it is ("job.sbatch line 14"),
  // named before the program in an error; header lines naming it; and the string the output is appended to
  // instead of stdout, so that a script's predictions print together or not at all. Empty/null otherwise.
  std::string context;
  std::vector<std::string> notes;
  std::string* out = nullptr;
};

// The nccl-tests binary ccsim is asked to be: argv[0]'s file name (a symlink) or argv[1], or the test a launcher
// line in argv[1..] starts (srun, mpirun, mpiexec); nullopt when none names one. A launcher line that starts no
// nccl-tests program is an Error naming the launcher.
std::optional<PerfInvocation> perf_invocation(int argc, char** argv);
// Parses, predicts and prints; returns the exit status (2 with one line on stderr for bad input).
int perf_main(const PerfInvocation& inv, int argc, char** argv);

} // namespace ccsim::cli
