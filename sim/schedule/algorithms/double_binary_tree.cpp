// Double binary tree allreduce (reference §1.4; NCCL >= 2.4, after Sanders, Speck & Traff's two-tree
// idea): each half of the vector is reduced up one of two complementary binary trees and broadcast
// back down, pipelined in segments of args.segment elements (0: 64 KiB worth, see
// double_binary_tree.hpp). The tick plan there lets every rank send at most one segment and receive
// at most one per step, so the two trees share each rank's link without queueing behind each other.
#include <algorithm>

#include "sim/schedule/algorithms/double_binary_tree.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

class DoubleBinaryTreeAllReduce final : public Schedule {
 public:
  explicit DoubleBinaryTreeAllReduce(const CollArgs& a) : Schedule(a), st_(a) {}

  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    const long t = tick_of(r, s);
    if (t < 0) return false;
    for (int id : st_.edges_of(r)) {
      const DbtEdge& e = st_.edges()[static_cast<std::size_t>(id)];
      const bool child = e.child == r;
      const int peer = child ? e.parent : e.child;
      if (const long j = index(t, e.up, e.tree); j >= 0) {
        if (child) send(out, peer, st_.piece(e.tree, static_cast<std::uint64_t>(j)));
        else recv_reduce(out, peer, st_.piece(e.tree, static_cast<std::uint64_t>(j)));
      }
      if (const long j = index(t, e.down, e.tree); j >= 0) {
        if (child) recv(out, peer, st_.piece(e.tree, static_cast<std::uint64_t>(j)));
        else send(out, peer, st_.piece(e.tree, static_cast<std::uint64_t>(j)));
      }
    }
    return true;
  }

 private:
  // Segment an edge starting at `first` carries at tick t, or -1.
  long index(long t, long first, int tree) const {
    if (t < first || (t - first) % 2 != 0) return -1;
    const long j = (t - first) / 2;
    return j < static_cast<long>(st_.segments(tree)) ? j : -1;
  }
  // Ticks where rank r acts, counted up to tick `upto`: each of its edges contributes two runs of
  // ticks of one parity; runs of equal parity may overlap (a send and a receive in one tick).
  long active_upto(int r, long upto) const {
    std::vector<std::pair<long, long>> runs[2]; // per parity: [first, last] tick
    for (int id : st_.edges_of(r)) {
      const DbtEdge& e = st_.edges()[static_cast<std::size_t>(id)];
      const auto k = static_cast<long>(st_.segments(e.tree));
      if (k == 0) continue;
      for (long first : {e.up, e.down}) runs[first % 2].push_back({first, std::min(first + 2 * (k - 1), upto - ((upto - first) % 2 + 2) % 2)});
    }
    long n = 0;
    for (auto& rs : runs) {
      std::sort(rs.begin(), rs.end());
      long covered = -2; // last tick counted in this parity (none yet)
      for (auto [a, b] : rs) {
        a = std::max(a, covered + 2);
        if (b >= a) n += (b - a) / 2 + 1, covered = b;
      }
    }
    return n;
  }
  long tick_of(int r, int s) const { // the s-th tick (from 0) where rank r acts, or -1
    long lo = 0, hi = st_.ticks() - 1;
    if (hi < 0 || active_upto(r, hi) <= s) return -1;
    while (lo < hi) {
      const long mid = (lo + hi) / 2;
      if (active_upto(r, mid) > s) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  DbtStructure st_;
};

} // namespace

void add_double_binary_tree_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"double_binary_tree", Op::AllReduce,
                 "two complementary binary trees, each reducing then broadcasting half the data in segments",
                 [](const CollArgs& a) { return std::make_unique<DoubleBinaryTreeAllReduce>(a); }, false});
}

} // namespace ccsim::schedule
