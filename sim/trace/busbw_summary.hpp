// Busbw-only summary tables (a book's or a blog's markdown table of nccl-tests results at one size):
//   | collective                       | algo | busbw     |
//   | all-reduce, `NCCL_NVLS_ENABLE=1` | NVLS | 480.0GBps |
// with the size and GPU count in the `# ` command lines above it (`all_reduce_perf -b 16G -e 16G -g 8`).
// Each table row is one run: its collective, the NCCL_* settings written in its cell (facts the prediction
// applies), the algorithm the table says NCCL used (a note), and one measured row whose time and algbw
// are derived from busbw by nccl-tests' own definitions (busbw = algbw x 2(n-1)/n or (n-1)/n).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::trace {

// The runs of a busbw-only summary; nullopt when `text` holds nccl-tests rows or no such table. Throws
// ccsim::Error naming `origin` when the table is there but its size or rank count cannot be told.
std::optional<std::vector<Trace>> parse_busbw_summary(std::string_view text, const std::string& origin, const Hints& hints = {});

} // namespace ccsim::trace
