#include "sim/schedule/algorithms/tree_pipeline.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace ccsim::schedule {

TreePipelineAllReduce::TreePipelineAllReduce(const CollArgs& a, std::vector<int> parent, std::uint64_t segments)
    : Schedule(a), parent_(std::move(parent)) {
  const auto p = static_cast<std::size_t>(a.ranks);
  if (a.op != Op::AllReduce) fail("tree pipeline: only allreduce");
  if (parent_.size() != p) fail("tree pipeline: {} parents for {} ranks", parent_.size(), p);
  k_ = std::max<std::uint64_t>(1, std::min<std::uint64_t>(segments, std::max<std::uint64_t>(a.count, 1)));
  children_.assign(p, {});
  int roots = 0;
  for (std::size_t r = 0; r < p; ++r) {
    const int up = parent_[r];
    if (up < 0) ++roots;
    else if (up >= a.ranks || up == static_cast<int>(r)) fail("tree pipeline: rank {} has parent {}", r, up);
    else children_[static_cast<std::size_t>(up)].push_back(static_cast<int>(r));
  }
  if (roots != 1) fail("tree pipeline: {} roots (need exactly one)", roots);
  // Depths by walking up; a cycle would never reach the root.
  depth_.assign(p, 0);
  for (std::size_t r = 0; r < p; ++r) {
    int d = 0;
    for (int x = static_cast<int>(r); parent_[static_cast<std::size_t>(x)] >= 0; x = parent_[static_cast<std::size_t>(x)])
      if (++d > a.ranks) fail("tree pipeline: the parents of rank {} form a cycle", r);
    depth_[r] = d;
  }
  // Heights: children before parents, i.e. by decreasing depth.
  height_.assign(p, 0);
  std::vector<int> order(p);
  for (std::size_t r = 0; r < p; ++r) order[r] = static_cast<int>(r);
  std::sort(order.begin(), order.end(), [&](int x, int y) { return depth_[static_cast<std::size_t>(x)] > depth_[static_cast<std::size_t>(y)]; });
  for (int r : order)
    if (parent_[static_cast<std::size_t>(r)] >= 0) {
      auto& hp = height_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(r)])];
      hp = std::max(hp, height_[static_cast<std::size_t>(r)] + 1);
    } else {
      root_ = r;
    }
  // Each rank's last tick: its last down receive (or, for the root, its last down send).
  steps_.assign(p, 0);
  const int k = static_cast<int>(k_), H = height_[static_cast<std::size_t>(root_)];
  for (std::size_t r = 0; r < p; ++r) {
    const int down = k - 1 + H + depth_[r] + (children_[r].empty() ? -1 : 0);
    steps_[r] = a.ranks == 1 ? 0 : down + 1;
  }
}

bool TreePipelineAllReduce::step(int r, int s, std::vector<Action>& out) const {
  out.clear();
  const auto ri = static_cast<std::size_t>(r);
  if (s >= steps_[ri]) return false;
  const long k = static_cast<long>(k_), H = height_[static_cast<std::size_t>(root_)], d = depth_[ri];
  auto in_range = [&](long j) { return j >= 0 && j < k; };
  // Up: each child's segment s - h_child comes in; this rank's own partial sum s - h goes out.
  for (int c : children_[ri])
    if (const long j = s - height_[static_cast<std::size_t>(c)]; in_range(j)) recv_reduce(out, c, seg(static_cast<std::uint64_t>(j)));
  if (parent_[ri] >= 0) {
    if (const long j = s - height_[ri]; in_range(j)) send(out, parent_[ri], seg(static_cast<std::uint64_t>(j)));
    // Down: the final segment from the parent.
    if (const long j = s - (H + d - 1); in_range(j)) recv(out, parent_[ri], seg(static_cast<std::uint64_t>(j)));
  }
  if (const long j = s - (H + d); in_range(j))
    for (int c : children_[ri]) send(out, c, seg(static_cast<std::uint64_t>(j)));
  return true;
}

CollArgs TreeSplitAllReduce::half(CollArgs a) {
  if (a.ranks % 2 != 0) fail("tree split: {} ranks, need two (up and down) per GPU", a.ranks);
  a.ranks /= 2;
  return a;
}

TreeSplitAllReduce::TreeSplitAllReduce(const CollArgs& a, const std::vector<int>& parent, std::uint64_t segments)
    : Schedule(a), tree_(half(a), parent, segments), p_(a.ranks / 2) {}

bool TreeSplitAllReduce::step(int r, int s, std::vector<Action>& out) const {
  out.clear();
  const long k = static_cast<long>(tree_.segments()), H = tree_.height(tree_.root());
  auto in_range = [&](long j) { return j >= 0 && j < k; };
  auto seg = [&](long j) { return tree_.segment(static_cast<std::uint64_t>(j)); };
  if (p_ == 1) return false;
  if (r < p_) { // the up group; the root's sends down too
    const long h = tree_.height(r);
    const bool root = tree_.parent(r) < 0;
    if (s >= k + h) return false; // the root's last send down is at tick k - 1 + H
    for (int c : tree_.children(r))
      if (const long j = s - tree_.height(c); in_range(j)) recv_reduce(out, c, seg(j));
    if (const long j = s - h; in_range(j)) {
      if (!root) send(out, tree_.parent(r), seg(j));
      else
        for (int c : tree_.children(r)) send(out, p_ + c, seg(j));
    }
    return true;
  }
  const int g = r - p_;
  const int up = tree_.parent(g);
  if (up < 0) return false; // the root's down group
  const long d = tree_.depth(g);
  const bool leaf = tree_.children(g).empty();
  if (s >= k + H + d - (leaf ? 1 : 0)) return false;
  if (const long j = s - (H + d - 1); in_range(j)) recv(out, tree_.parent(up) < 0 ? up : p_ + up, seg(j));
  if (const long j = s - (H + d); in_range(j))
    for (int c : tree_.children(g)) send(out, p_ + c, seg(j));
  return true;
}

} // namespace ccsim::schedule
