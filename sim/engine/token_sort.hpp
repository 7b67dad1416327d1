// Orders (token, flow) pairs by token for the flow model (sim/engine/flow_network.cpp): the engine learns
// the arrivals of one instant in token order, whatever order the model found them in. A ring's p flows
// finish together, so long lists are radix-sorted: stable, 8-bit digits, skipping the digits every token
// shares (a token is sender << 32 | receiver, so p = 1024 takes four passes instead of p log p compares).
// Pairs with one token (same sender and receiver) may come out in any order: the engine cannot tell them
// apart.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace ccsim::engine {

using TokenFlow = std::pair<std::uint64_t, std::uint32_t>;

// Sorts `v` by .first; `scratch` is working space kept by the caller between calls.
inline void sort_by_token(std::vector<TokenFlow>& v, std::vector<TokenFlow>& scratch) {
  const std::size_t n = v.size();
  if (n < 2 || std::is_sorted(v.begin(), v.end())) return;
  if (n <= 64) {
    std::sort(v.begin(), v.end());
    return;
  }
  std::uint64_t all_or = 0, all_and = ~std::uint64_t{0};
  for (const auto& d : v) all_or |= d.first, all_and &= d.first;
  const std::uint64_t varying = all_or ^ all_and;
  scratch.resize(n);
  for (int shift = 0; shift < 64; shift += 8) {
    if (((varying >> shift) & 0xff) == 0) continue;
    std::array<std::uint32_t, 257> start{};
    for (const auto& d : v) ++start[((d.first >> shift) & 0xff) + 1];
    for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
    for (const auto& d : v) scratch[start[(d.first >> shift) & 0xff]++] = d;
    v.swap(scratch);
  }
}

} // namespace ccsim::engine
