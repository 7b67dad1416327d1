// ccsim scenario's output for a hybrid-parallel step: the configuration, the step time and its
// breakdown (compute, exposed communication per kind, pipeline bubble, data-parallel tail), memory per
// GPU, as a table or JSON; and the step as a Chrome trace (--timeline).
#pragma once
#include <string>

#include "sim/scenario/hybrid_step.hpp"
#include "sim/scenario/scenario.hpp"

namespace ccsim::report {

std::string hybrid_table(const scenario::Scenario& s, const std::string& topology, const scenario::HybridResult& r);
std::string hybrid_json(const scenario::Scenario& s, const std::string& topology, const scenario::HybridResult& r);
// One process per pipeline stage of the first replica (tracks: compute, tp, cp, ep, zero3, pp wait,
// pp send) and one for its data-parallel streams; timestamps in microseconds as the other timelines.
std::string hybrid_timeline(const scenario::Scenario& s, const scenario::HybridResult& r);

} // namespace ccsim::report
