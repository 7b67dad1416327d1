// ccsim scenario's output: one row per simulated training step (and the multi-iteration comparison),
// as a table or JSON.
#pragma once
#include <string>

#include "sim/scenario/run.hpp"

namespace ccsim::report {

std::string scenario_table(const scenario::Report& r);
std::string scenario_json(const scenario::Report& r);

} // namespace ccsim::report
