// `ccsim bench`: time one collective on a generated (or shipped) machine and print one key=value line
// with the simulated time, wall time, events per second and peak memory (used by scripts/bench.sh).
#pragma once
#include <CLI/CLI.hpp>

namespace ccsim::cli {
void add_bench_command(CLI::App& app);
}
