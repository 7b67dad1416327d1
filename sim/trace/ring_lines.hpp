// NCCL INFO ring/channel lines ("Ring 00 : 3[3] -> 2[2] via P2P/IPC", "Channel 00/02 :  0 1 2 3") and the
// checked whole numbers they and nccl-tests' tables carry (used by parse_trace).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::trace {

// Digits of `t` from `pos` on (possibly none).
std::string_view digits_at(std::string_view t, std::size_t pos);

// A rank or device number from a trace: out of range is an error naming the line, not a wrap.
int checked_int(std::string_view t, const char* what, const std::string& where);

// The hops of one NCCL INFO Ring/Channel line appended to `out`; false when the line is something else.
bool parse_ring_line(const std::string& line, std::vector<RingHop>& out, const std::string& where);

} // namespace ccsim::trace
