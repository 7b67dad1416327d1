// `ccsim topo show|gen|list`: inspect a machine, or generate one as JSON.
#pragma once
#include <CLI/CLI.hpp>

namespace ccsim::cli {
void add_topo_command(CLI::App& app);
}
