// Shared by the libFuzzer harnesses: an input either parses or is refused with ccsim::Error (what the
// CLI turns into one line and exit 2). Any other exception escapes, and libFuzzer reports it as a crash,
// as it does every sanitizer report.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/core/error.hpp"
#include "sim/topology/routing.hpp"

#define CCSIM_FUZZ_TARGET(...)                                                    \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    const std::string_view input(reinterpret_cast<const char*>(data), size);     \
    try {                                                                         \
      __VA_ARGS__                                                                 \
    } catch (const ccsim::Error&) {                                               \
    }                                                                             \
    return 0;                                                                     \
  }

namespace ccsim::fuzz {

// True when every run of digits in `text` is at most `limit`: harnesses skip inputs that would only
// build a huge (valid) machine, which measures speed, not robustness.
inline bool numbers_at_most(std::string_view text, std::uint64_t limit) {
  std::uint64_t v = 0;
  bool in = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      v = in ? v * 10 + static_cast<std::uint64_t>(c - '0') : static_cast<std::uint64_t>(c - '0');
      in = true;
      if (v > limit) return false;
    } else {
      in = false;
    }
  }
  return true;
}

// What every imported machine gets: a route from its first GPU to its last (machines of up to 512 GPUs; a
// larger valid one measures speed).
inline void route_ends(const topology::Topology& t) {
  if (t.num_gpus() < 1 || t.num_gpus() > 512) return;
  topology::Router r(t);
  (void)r.route(t.gpu_node(0), t.gpu_node(t.num_gpus() - 1));
}

} // namespace ccsim::fuzz
