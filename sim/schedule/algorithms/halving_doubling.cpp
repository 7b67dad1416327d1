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
#include "sim/schedule/algorithms/pof2_fold.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

class HalvingDoublingBase : public Schedule {
 public:
  explicit HalvingDoublingBase(const CollArgs& a) : Schedule(a), f_(a.ranks) {}

  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (f_.p == 1) return false;
    if (f_.extra(r)) {
      if (s == 0) send(out, r + 1, input());
      else if (s == 1) recv(out, r + 1, result_of(r));
      else return false;
      return true;
    }
    const bool rx = f_.receiver(r);
    if (rx && s == 0) {
      recv_reduce(out, r - 1, input());
      return true;
    }
    const int nr = f_.new_rank(r);
    int k = s - (rx ? 1 : 0);
    if (k < f_.lg) { // halving: distance p'/2, p'/4, ..., 1
      const int m = f_.pof2 >> (k + 1), partner = nr ^ m, base = nr & ~(2 * m - 1);
      const bool lower = (nr & m) == 0;
      send(out, f_.old_rank(partner), groups(lower ? base + m : base, m));
      recv_reduce(out, f_.old_rank(partner), groups(lower ? base : base + m, m));
      return true;
    }
    k -= f_.lg;
    if (k < doubling_rounds()) { // doubling: distance 1, 2, ..., p'/2
      const int m = 1 << k, partner = nr ^ m;
      send(out, f_.old_rank(partner), groups(nr & ~(m - 1), m));
      recv(out, f_.old_rank(partner), groups(partner & ~(m - 1), m));
      return true;
    }
    if (rx && k == doubling_rounds()) {
      send(out, r - 1, result_of(r - 1));
      return true;
    }
    return false;
  }

 protected:
  virtual Block input() const = 0;                  // what a rank reduces (the whole buffer)
  virtual Block result_of(int old_rank) const = 0;  // what an extra rank gets back
  virtual Block groups(int lo, int n) const = 0;    // data of new ranks [lo, lo + n)
  virtual int doubling_rounds() const = 0;
  Pof2Fold f_;
};

class HalvingDoublingAllReduce final : public HalvingDoublingBase {
 public:
  using HalvingDoublingBase::HalvingDoublingBase;

 protected:
  Block input() const override { return {0, args_.count}; }
  Block result_of(int) const override { return input(); }
  Block groups(int lo, int n) const override {
    const auto pp = static_cast<std::uint64_t>(f_.pof2);
    const std::uint64_t a = split_block(args_.count, pp, static_cast<std::uint64_t>(lo)).off;
    const std::uint64_t b = lo + n == f_.pof2 ? args_.count : split_block(args_.count, pp, static_cast<std::uint64_t>(lo + n)).off;
    return {a, b - a};
  }
  int doubling_rounds() const override { return f_.lg; }
};

class HalvingDoublingReduceScatter final : public HalvingDoublingBase {
 public:
  using HalvingDoublingBase::HalvingDoublingBase;

 protected:
  Block input() const override { return {0, static_cast<std::uint64_t>(f_.p) * args_.count}; }
  Block result_of(int old_rank) const override { return {static_cast<std::uint64_t>(old_rank) * args_.count, args_.count}; }
  Block groups(int lo, int n) const override {
    const auto a = static_cast<std::uint64_t>(f_.first_old(lo)), b = static_cast<std::uint64_t>(f_.first_old(lo + n));
    return {a * args_.count, (b - a) * args_.count};
  }
  int doubling_rounds() const override { return 0; }
};

template <typename T>
std::function<std::unique_ptr<Schedule>(const CollArgs&)> factory() {
  return [](const CollArgs& a) { return std::make_unique<T>(a); };
}

} // namespace

void add_halving_doubling_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"halving_doubling", Op::AllReduce,
                 "Rabenseifner: recursive-halving reduce-scatter then recursive-doubling allgather",
                 factory<HalvingDoublingAllReduce>(), false});
  out.push_back({"halving_doubling", Op::ReduceScatter,
                 "recursive halving: lg p rounds, each exchanging and reducing half of the remaining range",
                 factory<HalvingDoublingReduceScatter>(), false});
}

} // namespace ccsim::schedule
