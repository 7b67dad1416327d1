// nccl-tests mode: `ccsim all_reduce_perf -b 8 -e 128M -f 2 -g 8` (or a symlink named all_reduce_perf)
// takes nccl-tests' flags with nccl-tests' meaning and prints nccl-tests' output shape, so a script that
// runs and parses all_reduce_perf reads a prediction instead.
#pragma once
#include <optional>
#include <string>

namespace ccsim::cli {

struct PerfInvocation {
  std::string program; // "all_reduce_perf"
  int first_arg = 1;   // index in argv of the first nccl-tests flag
};

// The nccl-tests binary ccsim is asked to be: argv[0]'s file name (a symlink) or argv[1]; nullopt when
// neither names one.
std::optional<PerfInvocation> perf_invocation(int argc, char** argv);
// Parses, predicts and prints; returns the exit status (2 with one line on stderr for bad input).
int perf_main(const PerfInvocation& inv, int argc, char** argv);

} // namespace ccsim::cli
