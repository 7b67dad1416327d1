// `ccsim explain`: teach the alpha-beta cost of one algorithm, or compare all of an op's algorithms.
#pragma once
#include <CLI/CLI.hpp>

namespace ccsim::cli {
void add_explain_command(CLI::App& app);
}
