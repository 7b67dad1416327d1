// Reading ccsim's own output back as a trace (its table, --format csv, --format json), so that `ccsim
// compare` and `calibrate` take a prediction as readily as an nccl-tests log. ccsim's nccl-tests mode
// (`ccsim all_reduce_perf`) prints nccl-tests' shape and goes through parse_trace like any real log.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::trace {

// The trace in `text` when it is ccsim's table, CSV or JSON output (the collective and rank count come
// from what ccsim wrote; hints fill gaps or, with force, win); nullopt when it is something else.
// Throws Error "<origin>:<line>: ..." when it starts like ccsim output but is malformed.
std::optional<Trace> parse_ccsim_output(std::string_view text, const std::string& origin, const Hints& hints = {});

} // namespace ccsim::trace
