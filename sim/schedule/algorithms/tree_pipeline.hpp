// Allreduce on an explicit rooted tree, pipelined in segments: the vector is cut into k segments that
// are reduced toward the root and broadcast back, both directions at once (NCCL's tree: a chain inside
// each node, a binary tree across nodes; --model nccl builds those trees and runs one job per tree).
// Not in the algorithm registry because it needs a tree as input, not only (op, p).
//
// Steps are global ticks: a message is sent and received in the same tick number by both ends, so
// every link direction carries at most one segment per tick and nothing waits on a later tick of its
// peer (no deadlock under rendezvous). With h = a rank's height (leaves 0), d = its depth (root 0) and
// H = the root's height, segment j
//   goes up from a rank to its parent at tick j + h (the parent reduces it in; its last child's
//   contribution is in by tick j + h_parent - 1, so the partial sum is complete before it moves on);
//   comes down from a rank to its children at tick j + H + d, so a rank receives the final j at tick
//   j + H + d - 1 and forwards it one tick later.
#pragma once
#include <vector>

#include "sim/schedule/schedule.hpp"

namespace ccsim::schedule {

class TreePipelineAllReduce final : public Schedule {
 public:
  // parent[r] = parent rank of r, -1 for the root (exactly one). `segments` >= 1 (clamped to count).
  TreePipelineAllReduce(const CollArgs& a, std::vector<int> parent, std::uint64_t segments);
  bool step(int rank, int s, std::vector<Action>& out) const override;
  int depth(int rank) const { return depth_[static_cast<std::size_t>(rank)]; }
  int height(int rank) const { return height_[static_cast<std::size_t>(rank)]; }

 private:
  Block seg(std::uint64_t j) const { return split_block(args_.count, k_, j); }
  std::vector<int> parent_, depth_, height_, steps_;
  int root_ = 0;
  std::vector<std::vector<int>> children_;
  std::uint64_t k_ = 1;
};

} // namespace ccsim::schedule
