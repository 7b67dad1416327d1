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
  int parent(int rank) const { return parent_[static_cast<std::size_t>(rank)]; }
  const std::vector<int>& children(int rank) const { return children_[static_cast<std::size_t>(rank)]; }
  int root() const { return root_; }
  std::uint64_t segments() const { return k_; }
  Block segment(std::uint64_t j) const { return seg(j); }

 private:
  Block seg(std::uint64_t j) const { return split_block(args_.count, k_, j); }
  std::vector<int> parent_, depth_, height_, steps_;
  int root_ = 0;
  std::vector<std::vector<int>> children_;
  std::uint64_t k_ = 1;
};

// The same tree run as NCCL's and RCCL's runTreeSplit (src/device/all_reduce.h: NVIDIA's tree allreduce under every
// protocol, v2.19.3-1..v2.29.2-1, but CUDA 11.2-11.3 on sm80; RCCL's LL and LL128 only, ROCm/rccl 0cbce2a): each GPU's thread block is split in two groups that run at once, one reducing up (recvReduceSend
// toward the root), the other broadcasting down (recvCopySend from the parent), and the root's whole block receives,
// reduces and sends down (recvReduceCopySend). The two directions are two pipelines that meet only at the root, so a
// rank's next up segment does not wait for its down segment to come in (as TreePipelineAllReduce's shared ticks do).
// Ranks 0..p-1 are the up groups (rank r on GPU r of `parent`), ranks p..2p-1 the down groups (p + r on GPU r); the
// root's down group has nothing to do. The ticks are TreePipelineAllReduce's. Timing only: the up groups' buffers end
// with partial sums, the down groups' (and the root's) with the result.
class TreeSplitAllReduce final : public Schedule {
 public:
  // a.ranks = 2 x parent.size(); `segments` as TreePipelineAllReduce.
  TreeSplitAllReduce(const CollArgs& a, const std::vector<int>& parent, std::uint64_t segments);
  bool step(int rank, int s, std::vector<Action>& out) const override;
  const TreePipelineAllReduce& tree() const { return tree_; }

 private:
  static CollArgs half(CollArgs a);
  TreePipelineAllReduce tree_;
  int p_ = 0;
};

} // namespace ccsim::schedule
