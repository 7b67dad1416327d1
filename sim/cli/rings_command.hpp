// `ccsim rings`: search and rank ring orders, pick channel sets, explain why an order is slow.
#pragma once
#include <CLI/CLI.hpp>

namespace ccsim::cli {
void add_rings_command(CLI::App& app);
} // namespace ccsim::cli
