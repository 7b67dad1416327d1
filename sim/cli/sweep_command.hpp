#pragma once
#include <CLI/CLI.hpp>

namespace ccsim::cli {

// `ccsim sweep plan.json [-o FILE] [--format csv|jsonl] [-j N] [--stats]` (docs/sweep.md).
void add_sweep_command(CLI::App& app);

} // namespace ccsim::cli
