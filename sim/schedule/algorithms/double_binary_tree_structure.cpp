#include <algorithm>
#include <functional>

#include "sim/core/ceil_div.hpp"
#include "sim/core/error.hpp"
#include "sim/schedule/algorithms/double_binary_tree.hpp"

namespace ccsim::schedule {
namespace {

// In-order binary tree on positions 0..n-1: parent of x (-1 for the root 0).
int btree_parent(int n, int x) {
  if (x == 0) return -1;
  const int bit = x & -x;
  const int up = (x ^ bit) | (bit << 1);
  return up < n ? up : (x ^ bit);
}

} // namespace

std::uint64_t dbt_max_segments(int ranks) {
  return std::max<std::uint64_t>(64, (std::uint64_t{1} << 19) / static_cast<std::uint64_t>(std::max(1, ranks)));
}

DbtStructure::DbtStructure(const CollArgs& a) {
  const int p = a.ranks;
  by_rank_.assign(static_cast<std::size_t>(p), {});
  // Default segment 64 KiB, whatever the element size. A run moves about p x segments messages, so the
  // default grows past 2^19 / p segments a tree (65536 at p = 8: 4 GiB a tree; 4096 at p = 128) to keep
  // the work bounded whatever the size; an explicit segment giving more is refused.
  const std::uint64_t kMaxSegments = dbt_max_segments(p);
  const std::uint64_t half = (a.count + 1) / 2;
  seg_ = a.segment > 0 ? a.segment
                       : std::max({std::uint64_t{1}, 65536 / std::max<std::uint64_t>(1, a.elt_size), ceil_div(half, kMaxSegments)});
  if (half / seg_ >= kMaxSegments + 1)
    fail("--chunk-size: {} elements per tree in segments of {} is more than {} segments; use a larger --chunk-size", half, seg_, kMaxSegments);
  for (int t = 0; t < 2; ++t) {
    half_[t] = split_block(a.count, 2, static_cast<std::uint64_t>(t));
    nseg_[t] = ceil_div(half_[t].len, seg_);
  }
  if (p < 2) return;
  const int n = p % 2 == 0 ? p : p - 1; // ranks in the in-order trees
  for (int t = 0; t < 2; ++t) {
    auto rank_of = [&](int x) { return t == 0 ? x : n - 1 - x; };
    for (int x = 0; x < n; ++x)
      if (const int up = btree_parent(n, x); up >= 0) edges_.push_back({t, rank_of(x), rank_of(up)});
    if (n < p) edges_.push_back({t, p - 1, rank_of(0)});
  }
  // Two-colour the edges: walk each path or cycle of the sender/receiver graph alternating colours.
  const int m = static_cast<int>(edges_.size());
  std::vector<std::vector<int>> out(static_cast<std::size_t>(p)), in(static_cast<std::size_t>(p));
  for (int e = 0; e < m; ++e) {
    out[static_cast<std::size_t>(edges_[e].child)].push_back(e);
    in[static_cast<std::size_t>(edges_[e].parent)].push_back(e);
  }
  std::vector<int> colour(static_cast<std::size_t>(m), -1);
  auto other = [&](const std::vector<int>& v, int e) { return v.size() == 2 ? (v[0] == e ? v[1] : v[0]) : -1; };
  // Alternate along the chain: edges meeting at a parent, then at a child, and so on.
  auto walk = [&](int e, int c, bool via_parent) {
    for (; e >= 0 && colour[static_cast<std::size_t>(e)] < 0; via_parent = !via_parent, c ^= 1) {
      colour[static_cast<std::size_t>(e)] = c;
      const auto& side = via_parent ? in[static_cast<std::size_t>(edges_[e].parent)] : out[static_cast<std::size_t>(edges_[e].child)];
      e = other(side, e);
    }
  };
  for (int e = 0; e < m; ++e) // paths from an end, so each is walked in one go
    if (colour[static_cast<std::size_t>(e)] < 0) {
      if (out[static_cast<std::size_t>(edges_[e].child)].size() == 1) walk(e, 0, true);
      else if (in[static_cast<std::size_t>(edges_[e].parent)].size() == 1) walk(e, 0, false);
    }
  for (int e = 0; e < m; ++e) // what is left are even cycles
    if (colour[static_cast<std::size_t>(e)] < 0) walk(e, 0, true);
  // Reduce: an edge fires after all of its child's incoming edges (of that tree), at its colour's parity.
  auto at_parity = [](long t, int c) { return (t % 2 == c) ? t : t + 1; };
  std::function<long(int)> up_of = [&](int e) {
    long ready = 0;
    for (int f : in[static_cast<std::size_t>(edges_[e].child)])
      if (edges_[f].tree == edges_[e].tree) ready = std::max(ready, up_of(f) + 1);
    return edges_[e].up = at_parity(ready, colour[static_cast<std::size_t>(e)]);
  };
  long last_up = -1;
  for (int e = 0; e < m; ++e) {
    const auto k = static_cast<long>(nseg_[edges_[e].tree]);
    if (k > 0) last_up = std::max(last_up, up_of(e) + 2 * (k - 1));
  }
  // Broadcast: an edge fires after its parent's incoming edge of that tree, and after the reduce.
  std::function<long(int)> down_of = [&](int e) {
    long ready = last_up + 1;
    for (int f : out[static_cast<std::size_t>(edges_[e].parent)])
      if (edges_[f].tree == edges_[e].tree) ready = std::max(ready, down_of(f) + 1);
    return edges_[e].down = at_parity(ready, colour[static_cast<std::size_t>(e)]);
  };
  for (int e = 0; e < m; ++e) {
    const auto k = static_cast<long>(nseg_[edges_[e].tree]);
    if (k > 0) ticks_ = std::max(ticks_, down_of(e) + 2 * (k - 1) + 1);
  }
  for (int e = 0; e < m; ++e) {
    by_rank_[static_cast<std::size_t>(edges_[e].child)].push_back(e);
    by_rank_[static_cast<std::size_t>(edges_[e].parent)].push_back(e);
  }
}

Block DbtStructure::piece(int tree, std::uint64_t j) const {
  const std::uint64_t off = j * seg_;
  return {half_[tree].off + off, std::min(seg_, half_[tree].len - off)};
}

} // namespace ccsim::schedule
