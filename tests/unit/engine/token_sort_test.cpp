// The flow model's token sort: the same order as std::stable_sort by token, on short and long lists.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "sim/engine/token_sort.hpp"

using ccsim::engine::sort_by_token;
using ccsim::engine::TokenFlow;

TEST_CASE("token sort: orders by token like a stable sort, short lists and radix-sorted long ones") {
  std::mt19937_64 rng(7);
  for (std::size_t n : {0u, 1u, 5u, 64u, 65u, 1000u, 5000u}) {
    for (int spread : {0, 1, 2}) { // tokens: rank pairs up to 1023, up to 2^20, arbitrary 64-bit
      std::vector<TokenFlow> v;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t src = rng() % (spread == 0 ? 1024 : 1u << 20), dst = rng() % 1024;
        const std::uint64_t token = spread == 2 ? rng() : (src << 32 | dst);
        v.emplace_back(token, static_cast<std::uint32_t>(i));
      }
      auto expect = v;
      std::stable_sort(expect.begin(), expect.end(), [](const TokenFlow& a, const TokenFlow& b) { return a.first < b.first; });
      std::vector<TokenFlow> scratch;
      sort_by_token(v, scratch);
      CHECK(v == expect); // indices are unique and increasing in input order, so stable = (token, index) order
    }
  }
}

TEST_CASE("token sort: every sender once (a ring step), and one sender twice among distinct ones") {
  std::mt19937_64 rng(11);
  for (std::size_t n : {65u, 1000u, 2048u}) {
    for (int variant : {0, 1, 2}) { // senders 0..n-1; the same spread wider than 11 bits; one sender repeated
      std::vector<std::uint64_t> senders(n);
      for (std::size_t i = 0; i < n; ++i) senders[i] = variant == 1 ? i * 4096 + 3 : i;
      if (variant == 2) senders[n / 2] = senders[n / 3];
      std::shuffle(senders.begin(), senders.end(), rng);
      std::vector<TokenFlow> v;
      for (std::size_t i = 0; i < n; ++i) v.emplace_back(senders[i] << 32 | (rng() % 1024), static_cast<std::uint32_t>(i));
      auto expect = v;
      std::stable_sort(expect.begin(), expect.end(), [](const TokenFlow& a, const TokenFlow& b) { return a.first < b.first; });
      std::vector<TokenFlow> scratch;
      sort_by_token(v, scratch);
      CHECK(v == expect);
    }
  }
}
