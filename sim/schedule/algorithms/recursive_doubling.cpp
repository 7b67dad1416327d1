// Recursive doubling (reference §1.4, §1.5, §1.10). In round k rank i exchanges with i XOR 2^k.
// Allreduce: both send the whole vector and reduce what they get, lg p (a + nb + ng). Allgather: both
// send everything gathered so far, so round k moves 2^k blocks: lg p a + (p-1)/p nb.
// Allreduce, any p: MPICH's fold (pof2_fold.hpp). Before the rounds each even rank among the first 2r
// hands its vector to the odd rank after it; the p' survivors run the power-of-two rounds; at the end
// each odd survivor sends the result back. Cost: one extra round at each end.
// Allgather, any p: Thakur's version (rd_allgather_plan.hpp), at most 2 floor(lg p) steps and near
// (p-1)/p n beta. The fold is kept as recursive_doubling_fold to show why MPICH does not use it for
// allgather: the unfold sends the whole result, (p'-1 + ... + p)/p n beta in all (28/13 at p = 13).
#include "sim/schedule/algorithms/pof2_fold.hpp"
#include "sim/schedule/algorithms/rd_allgather_plan.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

class RecursiveDoublingBase : public Schedule {
 public:
  explicit RecursiveDoublingBase(const CollArgs& a) : Schedule(a), f_(a.ranks) {}

  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (f_.p == 1) return false;
    if (f_.extra(r)) { // fold out, then wait for the answer
      if (s == 0) send(out, r + 1, own(r));
      else if (s == 1) recv(out, r + 1, all());
      else return false;
      return true;
    }
    const bool rx = f_.receiver(r);
    if (rx && s == 0) {
      fold_in(out, r - 1);
      return true;
    }
    const int k = s - (rx ? 1 : 0);
    if (k < f_.lg) {
      const int nr = f_.new_rank(r), partner = f_.old_rank(nr ^ (1 << k));
      round(out, nr, k, partner);
      return true;
    }
    if (rx && k == f_.lg) {
      send(out, r - 1, all());
      return true;
    }
    return false;
  }

 protected:
  virtual Block own(int r) const = 0; // what extra rank r hands over
  virtual Block all() const = 0; // the full result
  virtual void fold_in(std::vector<Action>& out, int from) const = 0;
  virtual void round(std::vector<Action>& out, int nr, int k, int partner) const = 0;
  Pof2Fold f_;
};

class RecursiveDoublingAllReduce final : public RecursiveDoublingBase {
 public:
  using RecursiveDoublingBase::RecursiveDoublingBase;

 protected:
  Block own(int) const override { return all(); }
  Block all() const override { return {0, args_.count}; }
  void fold_in(std::vector<Action>& out, int from) const override { recv_reduce(out, from, all()); }
  void round(std::vector<Action>& out, int, int, int partner) const override {
    send(out, partner, all()); // sends carry the vector as it was when the step began
    recv_reduce(out, partner, all());
  }
};

class FoldedRecursiveDoublingAllGather final : public RecursiveDoublingBase {
 public:
  using RecursiveDoublingBase::RecursiveDoublingBase;

 protected:
  Block own(int r) const override { return blocks(r, 1); }
  Block all() const override { return {0, static_cast<std::uint64_t>(f_.p) * args_.count}; }
  void fold_in(std::vector<Action>& out, int from) const override { recv(out, from, blocks(from, 1)); }
  void round(std::vector<Action>& out, int nr, int k, int partner) const override {
    const int mask = 1 << k;
    send(out, partner, range(nr & ~(mask - 1), mask));
    recv(out, partner, range((nr ^ mask) & ~(mask - 1), mask));
  }

 private:
  Block blocks(int first, int n) const {
    return {static_cast<std::uint64_t>(first) * args_.count, static_cast<std::uint64_t>(n) * args_.count};
  }
  // The old-rank blocks carried by new ranks [lo, lo + n): contiguous by construction of the fold.
  Block range(int lo, int n) const {
    const int a = f_.first_old(lo), b = f_.first_old(lo + n);
    return blocks(a, b - a);
  }
};

// Thakur's allgather: every step of a rank is one entry of its plan.
class RecursiveDoublingAllGather final : public Schedule {
 public:
  using Schedule::Schedule;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    const auto plan = rd_gather_plan(args_.ranks, r);
    if (s >= static_cast<int>(plan.size())) return false;
    const auto& st = plan[static_cast<std::size_t>(s)];
    if (st.send_to >= 0) send(out, st.send_to, blocks(st.send_first, st.send_n));
    if (st.recv_from >= 0) recv(out, st.recv_from, blocks(st.recv_first, st.recv_n));
    return true;
  }

 private:
  Block blocks(int first, int n) const {
    return {static_cast<std::uint64_t>(first) * args_.count, static_cast<std::uint64_t>(n) * args_.count};
  }
};

} // namespace

void add_recursive_doubling_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"recursive_doubling", Op::AllReduce,
                 "lg p rounds exchanging the whole vector with rank XOR 2^k; other p fold the first 2r ranks in",
                 factory_of<RecursiveDoublingAllReduce>(), false});
  out.push_back({"recursive_doubling", Op::AllGather,
                 "lg p rounds exchanging everything gathered so far with rank XOR 2^k; other p: Thakur's fix-up "
                 "sub-rounds pass the blocks a short partner subtree lacked down a binomial tree",
                 factory_of<RecursiveDoublingAllGather>(), false});
  out.push_back({"recursive_doubling_fold", Op::AllGather,
                 "MPICH's allreduce fold applied to allgather: the first 2r ranks fold in, p' run lg p' rounds, the "
                 "whole result goes back (a lesson in why Thakur's fix-up exists)",
                 factory_of<FoldedRecursiveDoublingAllGather>(), false});
  // nccl-tests' hypercube_perf: the same exchanges as a p2p allgather (it runs on powers of two only, where
  // Thakur's plan is plain recursive doubling; other p are refused before a schedule is made).
  out.push_back({"recursive_doubling", Op::HyperCube,
                 "lg p groups: send everything gathered so far to rank XOR 2^k and receive its part (nccl-tests' "
                 "hypercube_perf)",
                 factory_of<RecursiveDoublingAllGather>(), false});
}

} // namespace ccsim::schedule
