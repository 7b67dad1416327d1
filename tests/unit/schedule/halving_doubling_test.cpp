#include <doctest/doctest.h>

#include "algo_check.hpp"

using namespace algo_check;
using ccsim::schedule::Op;

TEST_CASE("halving_doubling allreduce and reduce-scatter are correct for every p up to 17") {
  for (Op op : {Op::AllReduce, Op::ReduceScatter})
    for (int p = 1; p <= 17; ++p)
      for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, static_cast<std::uint64_t>(p / 2),
                                  3 * static_cast<std::uint64_t>(p) + 2})
        for (auto red : kRedOps) {
          INFO("op " << ccsim::schedule::to_string(op) << " p " << p << " count " << count);
          CHECK(check(args(op, p, count), "halving_doubling", red) == "");
        }
}

// Exact where partners start every round together: equal blocks (reduce-scatter at p = 2^k, allreduce
// with count divisible by p'), and for p not a power of two, allreduce with p'/4 <= r (the folded-in
// ranks then sync every survivor within two rounds). Elsewhere ranks drift apart (see the formula's
// notes) and the time is a max, not a sum.
TEST_CASE("halving_doubling: engine time equals the formula on the crossbar") {
  for (Op op : {Op::AllReduce, Op::ReduceScatter})
    for (int p : kTimedRanks) {
      const bool pof2 = (p & (p - 1)) == 0;
      if (!pof2 && op == Op::ReduceScatter) continue;
      int pp = 1;
      while (pp * 2 <= p) pp *= 2;
      for (auto count : counts_for(p)) {
        if (op == Op::AllReduce && count % static_cast<std::uint64_t>(pp) != 0) count = (count / static_cast<std::uint64_t>(pp) + 1) * static_cast<std::uint64_t>(pp);
        for (const auto& machine_set : {machines(), extreme_machines()})
        for (const auto& m : machine_set) {
          const auto a = args(op, p, count);
          INFO("op " << ccsim::schedule::to_string(op) << " p " << p << " count " << count << " reduce_bw " << m.reduce_bw);
          CHECK(simulate(a, "halving_doubling", m) == predict(a, "halving_doubling", m));
        }
      }
    }
}

TEST_CASE("halving_doubling allreduce at p = 2^k is 2 lg p a + 2(p-1)/p nb + (p-1)/p ng") {
  // 40 ps per byte on the wire, 20 ps per byte reduced: the textbook form is exact in picoseconds.
  const Machine m{1'234'566, 25'000'000'000, 50'000'000'000};
  for (int p : {2, 4, 8, 16}) {
    int lg = 0;
    while ((1 << lg) < p) ++lg;
    const std::uint64_t count = 4096 * static_cast<std::uint64_t>(p) + 8 * static_cast<std::uint64_t>(p);
    const ccsim::Time n = static_cast<ccsim::Time>(count * 4), q = p;
    const ccsim::Time expect = 2 * lg * m.alpha + 2 * (q - 1) * n / q * 40 + (q - 1) * n / q * 20;
    CHECK(simulate(args(Op::AllReduce, p, count), "halving_doubling", m) == expect);
    // Reduce-scatter: n is the whole input, lg p a + (p-1)/p n (b + g).
    const ccsim::Time rs = lg * m.alpha + (q - 1) * n / q * 60; // count per rank, n = p * count * 4
    CHECK(simulate(args(Op::ReduceScatter, p, count / static_cast<std::uint64_t>(p)), "halving_doubling", m) == rs);
  }
}

TEST_CASE("halving_doubling on one rank has no steps") {
  CHECK(steps_of_rank0(args(Op::AllReduce, 1, 9), "halving_doubling") == 0);
  CHECK(steps_of_rank0(args(Op::ReduceScatter, 1, 9), "halving_doubling") == 0);
  CHECK(steps_of_rank0(args(Op::AllReduce, 8, 9), "halving_doubling") == 6); // lg p halving + lg p doubling
}
