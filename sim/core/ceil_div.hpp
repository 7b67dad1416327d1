// Integer division rounded up: how many blocks, chunks, steps or buckets of size b hold a things.
#pragma once
#include <concepts>

namespace ccsim {

// ceil(a / b) for a >= 0 and b > 0, exact over T's whole range: the quotient plus one when a remainder is left,
// so it never wraps the way (a + b - 1) / b does near the top (that gives 0 for a = UINT64_MAX, b = 2; this
// gives 2^63). b = 0 is the caller's bug, as with `/`: callers validate divisors where they read them.
template <std::integral T>
constexpr T ceil_div(T a, T b) {
  return static_cast<T>(a / b + (a % b != 0 ? 1 : 0));
}

} // namespace ccsim
