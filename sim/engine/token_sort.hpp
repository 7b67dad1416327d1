// Orders (token, flow) pairs by token for the flow model (sim/engine/flow_network.cpp): the engine learns
// the arrivals of one instant in token order, whatever order the model found them in. A ring's p flows
// finish together, so long lists are radix-sorted: stable, 11-bit digits, skipping the digits every token
// shares (a token is sender << 32 | receiver, so p = 1024 takes two passes instead of p log p compares; one
// when no sender has two flows in the list).
// Pairs with one token (same sender and receiver) may come out in any order: the engine cannot tell them
// apart.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
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
  std::array<std::uint32_t, 2049> start;
  // Senders all different (a ring step: each rank's one flow): one pass over the sender bits orders the tokens.
  if (const int bits = static_cast<int>(std::bit_width(varying >> 32)); bits > 0 && bits <= 11) {
    const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
    std::fill(start.begin(), start.begin() + static_cast<std::ptrdiff_t>(mask) + 2, 0u);
    std::uint32_t shared = 0;
    for (const auto& d : v) shared |= start[((d.first >> 32) & mask) + 1]++;
    if (shared == 0) {
      for (std::size_t i = 1; i <= mask + 1; ++i) start[i] += start[i - 1];
      for (const auto& d : v) scratch[start[(d.first >> 32) & mask]++] = d;
      v.swap(scratch);
      return;
    }
  }
  // Per 32-bit half, digits of up to 11 bits over the bits that vary, so up to 2048 senders and as many
  // receivers take one pass each, and 256 of each one pass over 256 buckets each.
  for (int half : {0, 32}) {
    const int bits = static_cast<int>(std::bit_width((varying >> half) & 0xffffffffu));
    for (int low = 0; low < bits; low += 11) {
      const int shift = half + low, width = std::min(11, bits - low);
      const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
      std::fill(start.begin(), start.begin() + static_cast<std::ptrdiff_t>(mask) + 2, 0u);
      for (const auto& d : v) ++start[((d.first >> shift) & mask) + 1];
      for (std::size_t i = 1; i <= mask + 1; ++i) start[i] += start[i - 1];
      for (const auto& d : v) scratch[start[(d.first >> shift) & mask]++] = d;
      v.swap(scratch);
    }
  }
}

} // namespace ccsim::engine
