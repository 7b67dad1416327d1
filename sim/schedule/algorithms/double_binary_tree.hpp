// The structure of the double-binary-tree allreduce, shared by the schedule and its formula.
// Trees (NCCL-style, our own construction): tree 0 is the in-order binary tree on ranks (rank x's
// parent clears x's lowest set bit and sets the next one; rank 0 is the root), so odd ranks are leaves;
// tree 1 mirrors it (rank x plays n-1-x), so each rank is interior in at most one tree. For odd p the
// trees span ranks 0..p-2 and rank p-1 hangs off each root as a leaf.
// Ticks: every child->parent edge of both trees gets a colour 0/1 such that a rank's (at most two) up
// edges differ and its (at most two) down edges differ: a bipartite graph of degree <= 2, so two
// colours suffice. Segment j crosses edge e going up at tick up[e] + 2j and coming down at
// down[e] + 2j, with up[e], down[e] of e's colour; so in every tick each rank sends at most one
// message and receives at most one. The broadcast ticks begin after the last reduce tick.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/schedule/collective.hpp"

namespace ccsim::schedule {

struct DbtEdge {
  int tree, child, parent;
  long up = 0, down = 0; // first tick (segment 0) of the reduce and of the broadcast
};

// The most segments per tree half DbtStructure accepts on `ranks` ranks: a run moves about p x segments messages.
std::uint64_t dbt_max_segments(int ranks);

class DbtStructure {
 public:
  explicit DbtStructure(const CollArgs& a);
  std::uint64_t segment() const { return seg_; }
  std::uint64_t segments(int tree) const { return nseg_[tree]; }
  Block piece(int tree, std::uint64_t j) const; // segment j of tree `tree`'s half
  const std::vector<DbtEdge>& edges() const { return edges_; }
  const std::vector<int>& edges_of(int rank) const { return by_rank_[static_cast<std::size_t>(rank)]; }
  long ticks() const { return ticks_; } // total, reduce and broadcast
  // Tick of edge e carrying segment j up (reduce) or down (broadcast).
  long up_tick(const DbtEdge& e, std::uint64_t j) const { return e.up + 2 * static_cast<long>(j); }
  long down_tick(const DbtEdge& e, std::uint64_t j) const { return e.down + 2 * static_cast<long>(j); }

 private:
  std::uint64_t seg_ = 1, nseg_[2] = {0, 0};
  Block half_[2] = {{0, 0}, {0, 0}};
  std::vector<DbtEdge> edges_;
  std::vector<std::vector<int>> by_rank_; // edge ids touching each rank
  long ticks_ = 0;
};

} // namespace ccsim::schedule
