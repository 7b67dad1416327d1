// Rabenseifner's halving-doubling (reference §1.4, §1.6). Reduce-scatter by recursive halving: in
// round k (distance m = p'/2^(k+1)) rank i and i XOR m split the range of blocks they share, each
// sends the half it gives up and reduces the half it keeps; the lower rank keeps the lower half, so
// rank i ends with block i. Allreduce adds the mirror-image recursive-doubling allgather.
// Power of two: 2 lg p a + 2(p-1)/p nb + (p-1)/p ng (allreduce), lg p a + (p-1)/p n(b+g) (reduce-scatter).
// Any p: MPICH's fold (pof2_fold.hpp): the first 2r ranks pair, evens hand all their data to the odd
// rank after them, which reduces it; the p' survivors halve over p' groups (for reduce-scatter the
// survivors below r own two ranks' blocks), and each odd survivor returns its partner's result
// (allreduce: the vector; reduce-scatter: its block). Uneven counts: blocks from split_block, so lower
// blocks are larger; rank 0 (a fold receiver when p is not a power of two) is on the critical path.
#include <algorithm>

#include "sim/schedule/algorithms/pof2_fold.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

// One class for both ops (they differ only in what a group of new ranks holds): every step is at most two
// actions, written into the engine's fixed buffer (step_fixed) with no virtual call or division per step.
class HalvingDoubling final : public Schedule {
 public:
  HalvingDoubling(const CollArgs& a, bool allreduce)
      : Schedule(a), f_(a.ranks), allreduce_(allreduce), base_(a.count / static_cast<std::uint64_t>(f_.pof2)),
        extra_(a.count % static_cast<std::uint64_t>(f_.pof2)) {}

  bool fixed_steps() const override { return true; }
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.resize(2);
    const int n = step_fixed(r, s, out.data());
    out.resize(static_cast<std::size_t>(std::max(n, 0)));
    return n >= 0;
  }
  int step_fixed(int r, int s, Action* out) const override {
    if (f_.p == 1) return -1;
    if (f_.extra(r)) {
      if (s == 0) return put(out, Action::Kind::Send, r + 1, input());
      if (s == 1) return put(out, Action::Kind::Recv, r + 1, result_of(r));
      return -1;
    }
    const bool rx = f_.receiver(r);
    if (rx && s == 0) return put(out, Action::Kind::RecvReduce, r - 1, input());
    const int nr = f_.new_rank(r);
    int k = s - (rx ? 1 : 0);
    if (k < f_.lg) { // halving: distance p'/2, p'/4, ..., 1
      const int m = f_.pof2 >> (k + 1), partner = f_.old_rank(nr ^ m), base = nr & ~(2 * m - 1);
      const bool lower = (nr & m) == 0;
      put(out, Action::Kind::Send, partner, groups(lower ? base + m : base, m));
      return 1 + put(out + 1, Action::Kind::RecvReduce, partner, groups(lower ? base : base + m, m));
    }
    k -= f_.lg;
    if (k < doubling_rounds()) { // doubling: distance 1, 2, ..., p'/2
      const int m = 1 << k, partner = nr ^ m;
      put(out, Action::Kind::Send, f_.old_rank(partner), groups(nr & ~(m - 1), m));
      return 1 + put(out + 1, Action::Kind::Recv, f_.old_rank(partner), groups(partner & ~(m - 1), m));
    }
    if (rx && k == doubling_rounds()) return put(out, Action::Kind::Send, r - 1, result_of(r - 1));
    return -1;
  }

 private:
  static int put(Action* out, Action::Kind kind, int peer, Block b) {
    *out = Action{kind, peer, b.off, b.len, 0};
    return 1;
  }
  // What a rank reduces (the whole buffer), and what an extra rank gets back.
  Block input() const { return {0, allreduce_ ? args_.count : static_cast<std::uint64_t>(f_.p) * args_.count}; }
  Block result_of(int old_rank) const {
    return allreduce_ ? input() : Block{static_cast<std::uint64_t>(old_rank) * args_.count, args_.count};
  }
  // The data of new ranks [lo, lo + n): allreduce, blocks lo.. of the vector split over p' (split_block's
  // shares); reduce-scatter, the blocks of the old ranks they carry.
  Block groups(int lo, int n) const {
    if (allreduce_) {
      const std::uint64_t a = split_off(lo), b = split_off(lo + n);
      return {a, b - a};
    }
    const auto a = static_cast<std::uint64_t>(f_.first_old(lo)), b = static_cast<std::uint64_t>(f_.first_old(lo + n));
    return {a * args_.count, (b - a) * args_.count};
  }
  std::uint64_t split_off(int i) const { // split_block(count, p', i).off, and count at i = p'
    const auto u = static_cast<std::uint64_t>(i);
    return u * base_ + std::min(u, extra_);
  }
  int doubling_rounds() const { return allreduce_ ? f_.lg : 0; }

  Pof2Fold f_;
  bool allreduce_;
  std::uint64_t base_, extra_; // allreduce: count / p' and count % p'
};

template <bool AllReduce>
std::function<std::unique_ptr<Schedule>(const CollArgs&)> halving_doubling_factory() {
  return [](const CollArgs& a) { return std::make_unique<HalvingDoubling>(a, AllReduce); };
}

} // namespace

void add_halving_doubling_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"halving_doubling", Op::AllReduce,
                 "Rabenseifner: recursive-halving reduce-scatter then recursive-doubling allgather",
                 halving_doubling_factory<true>(), false});
  out.push_back({"halving_doubling", Op::ReduceScatter,
                 "recursive halving: lg p rounds, each exchanging and reducing half of the remaining range",
                 halving_doubling_factory<false>(), false});
}

} // namespace ccsim::schedule
