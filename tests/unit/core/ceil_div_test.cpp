#include <cstdint>
#include <limits>

#include <doctest/doctest.h>

#include "sim/core/ceil_div.hpp"

using ccsim::ceil_div;

TEST_CASE("ceil_div rounds a quotient with a remainder up and leaves an exact one alone") {
  CHECK(ceil_div<std::uint64_t>(0, 7) == 0);
  CHECK(ceil_div<std::uint64_t>(1, 7) == 1);
  CHECK(ceil_div<std::uint64_t>(7, 7) == 1);
  CHECK(ceil_div<std::uint64_t>(8, 7) == 2);
  CHECK(ceil_div<std::uint64_t>(14, 7) == 2);
  CHECK(ceil_div<std::uint64_t>(5, 1) == 5);
  CHECK(ceil_div<std::uint64_t>(3, 10) == 1);
  // 100 elements over 8 ranks: blocks of 12.5, so 13 (8 x 13 = 104 >= 100 > 8 x 12 = 96).
  CHECK(ceil_div<std::uint64_t>(100, 8) == 13);
  CHECK(ceil_div<int>(10, 4) == 3);
  CHECK(ceil_div<std::int64_t>(0, 3) == 0);
}

TEST_CASE("ceil_div is exact at the top of the range, where (a + b - 1) / b wraps") {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max(); // 2^64 - 1, odd
  CHECK(ceil_div(max, std::uint64_t{1}) == max);
  CHECK(ceil_div(max, std::uint64_t{2}) == std::uint64_t{1} << 63); // (2^64 - 1) / 2 = 2^63 - 0.5
  CHECK(ceil_div(max, max) == 1);
  CHECK(ceil_div(max - 1, max) == 1);
  // 2^64 - 1 = 3 x 5 x 17 x 257 x 641 x 65537 x 6700417: exact divisions stay exact.
  CHECK(ceil_div(max, std::uint64_t{3}) == 6'148'914'691'236'517'205ULL);
  CHECK(ceil_div(max - 1, std::uint64_t{3}) == 6'148'914'691'236'517'205ULL);
  constexpr std::int64_t imax = std::numeric_limits<std::int64_t>::max(); // 2^63 - 1
  CHECK(ceil_div(imax, std::int64_t{2}) == std::int64_t{1} << 62);
  CHECK(ceil_div(imax, imax) == 1);
}
