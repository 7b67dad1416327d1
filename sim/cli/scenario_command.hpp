// `ccsim scenario FILE [--format table|json] [--topo NAME] [--output FILE]`: simulate a training step.
#pragma once
#include <CLI/CLI.hpp>

namespace ccsim::cli {
void add_scenario_command(CLI::App& app);
}
