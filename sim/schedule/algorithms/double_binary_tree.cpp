// Double binary tree allreduce (reference §1.4; NCCL >= 2.4, after Sanders, Speck & Traff's two-tree
// idea): each half of the vector is reduced up one of two complementary binary trees and broadcast
// back down, pipelined in segments of args.segment elements (0: 64 KiB worth, see
// double_binary_tree.hpp). The tick plan there lets every rank send at most one segment and receive
// at most one per step, so the two trees share each rank's link without queueing behind each other.
#include <algorithm>
#include <array>

#include "sim/schedule/algorithms/double_binary_tree.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

class DoubleBinaryTreeAllReduce final : public Schedule {
 public:
  explicit DoubleBinaryTreeAllReduce(const CollArgs& a) : Schedule(a), st_(a) {
    // Each rank's runs of ticks, once: step() is called for every (rank, step) and finding the tick of a
    // step from them was a third of a 512-rank replay when step() rebuilt them on each call.
    runs_.reserve(static_cast<std::size_t>(std::max(0, a.ranks)));
    for (int r = 0; r < a.ranks; ++r) runs_.push_back(runs_of(r));
    cursor_.resize(runs_.size());
  }

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
    if (t < first || ((t - first) & 1) != 0) return -1;
    const long j = (t - first) >> 1; // t >= first: a shift, not a division (step() runs per message)
    return j < static_cast<long>(st_.segments(tree)) ? j : -1;
  }
  // Ticks where rank r acts: each of its edges gives two runs of ticks of one parity (reduce and
  // broadcast); runs of equal parity may overlap (a send and a receive in one tick), so merge them.
  struct Runs {
    std::array<std::pair<long, long>, 16> run; // [first, last], same parity, disjoint
    std::size_t n = 0;
  };
  Runs runs_of(int r) const {
    std::array<std::pair<long, long>, 8> by[2];
    std::size_t nb[2] = {0, 0};
    for (int id : st_.edges_of(r)) {
      const DbtEdge& e = st_.edges()[static_cast<std::size_t>(id)];
      const auto k = static_cast<long>(st_.segments(e.tree));
      if (k > 0)
        for (long first : {e.up, e.down}) by[first % 2][nb[first % 2]++] = {first, first + 2 * (k - 1)};
    }
    Runs out;
    for (int q = 0; q < 2; ++q) {
      std::sort(by[q].begin(), by[q].begin() + static_cast<long>(nb[q]));
      for (std::size_t i = 0; i < nb[q]; ++i) {
        auto [a, b] = by[q][i];
        if (out.n > 0 && out.run[out.n - 1].first % 2 == q && a <= out.run[out.n - 1].second + 2)
          out.run[out.n - 1].second = std::max(out.run[out.n - 1].second, b);
        else
          out.run[out.n++] = {a, b};
      }
    }
    return out;
  }
  static long active_upto(const Runs& rs, long upto) { // ticks <= upto where the rank acts
    long n = 0;
    for (std::size_t i = 0; i < rs.n; ++i) {
      const auto [a, b] = rs.run[i];
      if (upto < a) continue;
      const long last = std::min(b, upto - ((upto - a) & 1)); // the run's last tick <= upto (same parity as a)
      n += ((last - a) >> 1) + 1;
    }
    return n;
  }
  long tick_of(int r, int s) const { // the s-th tick (from 0) where rank r acts, or -1
    const Runs& rs = runs_[static_cast<std::size_t>(r)];
    // The engine asks for a rank's steps in order: step s + 1's tick is the first tick after step s's
    // in any run, found without the binary search below (which was most of step()'s time).
    Cursor& at = cursor_[static_cast<std::size_t>(r)];
    if (at.step >= 0 && s == at.step + 1) {
      long next = -1;
      for (std::size_t i = 0; i < rs.n; ++i) {
        const auto [a, b] = rs.run[i];
        const long c = at.tick < a ? a : at.tick + 1 + ((at.tick + 1 - a) & 1); // first tick > at.tick of a's parity
        if (c <= b && (next < 0 || c < next)) next = c;
      }
      if (next >= 0) at = {s, next};
      return next;
    }
    const long t = search_tick(rs, s);
    if (t >= 0) at = {s, t};
    return t;
  }
  long search_tick(const Runs& rs, int s) const {
    long lo = s, hi = st_.ticks() - 1; // at most one step per tick
    if (hi < lo || active_upto(rs, hi) <= s) return -1;
    while (lo < hi) {
      const long mid = (lo + hi) / 2;
      if (active_upto(rs, mid) > s) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  DbtStructure st_;
  std::vector<Runs> runs_; // by rank
  // Each rank's last step asked and its tick. A Schedule is replayed by one engine at a time (each run
  // plan makes its own), so the cache needs no lock; any other order of calls falls back to the search.
  struct Cursor {
    int step = -1;
    long tick = -1;
  };
  mutable std::vector<Cursor> cursor_;
};

} // namespace

void add_double_binary_tree_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"double_binary_tree", Op::AllReduce,
                 "two complementary binary trees, each reducing then broadcasting half the data in segments",
                 [](const CollArgs& a) { return std::make_unique<DoubleBinaryTreeAllReduce>(a); }, false});
  out.back().pipelined = true;
  out.back().max_segments = dbt_max_segments;
}

} // namespace ccsim::schedule
