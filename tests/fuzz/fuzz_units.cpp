// Size, time, bandwidth and whole-number strings as flags and files write them; values that parse
// must format and parse back.
#include "sim/core/units.hpp"
#include "fuzz_common.hpp"

namespace {
template <typename F>
void quietly(F f) {
  try {
    f();
  } catch (const ccsim::Error&) {
  }
}
} // namespace

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  quietly([&] { (void)format_size(parse_size(input, "-b")); });
  quietly([&] { (void)format_duration(parse_duration(input, "--alpha")); });
  quietly([&] {
    const Bandwidth bw = parse_bandwidth(input, "--bw");
    (void)parse_bandwidth(format_bandwidth(bw), "round trip");
  });
  quietly([&] { (void)parse_whole(input, "--ranks", -1000, 1000000); });
})
