// A schedule written out for people (GOAL-like text) or programs (JSON), step by step per rank.
#pragma once
#include <string>

#include "sim/schedule/schedule.hpp"

namespace ccsim::schedule {

// format: "text" or "json"; elt_size turns element counts into bytes. Throws Error for other formats
// or for schedules too large to print (more than 200k actions).
std::string dump_schedule(const Schedule& s, const std::string& format, std::uint64_t elt_size);

} // namespace ccsim::schedule
