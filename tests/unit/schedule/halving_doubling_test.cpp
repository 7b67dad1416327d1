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

// The engine reads halving-doubling steps through step_fixed (at most two actions, no vector). Schedules by hand
// (see the file's top): p = 8, count 8 (block i = element i); p = 6, count 10: ranks 0 and 2 fold into 1 and 3,
// survivors 1, 3, 4, 5 are new ranks 0..3 with blocks [0,3) [3,6) [6,8) [8,10) (split_block: lower blocks larger).
TEST_CASE("halving_doubling allreduce step_fixed, by hand, for p = 8 and p = 6 (folded)") {
  using K = ccsim::schedule::Action::Kind;
  struct A {
    K kind;
    int peer;
    std::uint64_t off, len;
  };
  struct Case {
    int p, rank;
    std::uint64_t count;
    std::vector<std::vector<A>> steps;
  };
  const std::vector<Case> cases = {
      {8, 0, 8, {{{K::Send, 4, 4, 4}, {K::RecvReduce, 4, 0, 4}}, {{K::Send, 2, 2, 2}, {K::RecvReduce, 2, 0, 2}},
                 {{K::Send, 1, 1, 1}, {K::RecvReduce, 1, 0, 1}}, {{K::Send, 1, 0, 1}, {K::Recv, 1, 1, 1}},
                 {{K::Send, 2, 0, 2}, {K::Recv, 2, 2, 2}}, {{K::Send, 4, 0, 4}, {K::Recv, 4, 4, 4}}}},
      {8, 5, 8, {{{K::Send, 1, 0, 4}, {K::RecvReduce, 1, 4, 4}}, {{K::Send, 7, 6, 2}, {K::RecvReduce, 7, 4, 2}},
                 {{K::Send, 4, 4, 1}, {K::RecvReduce, 4, 5, 1}}, {{K::Send, 4, 5, 1}, {K::Recv, 4, 4, 1}},
                 {{K::Send, 7, 4, 2}, {K::Recv, 7, 6, 2}}, {{K::Send, 1, 4, 4}, {K::Recv, 1, 0, 4}}}},
      {6, 0, 10, {{{K::Send, 1, 0, 10}}, {{K::Recv, 1, 0, 10}}}},
      {6, 1, 10, {{{K::RecvReduce, 0, 0, 10}}, {{K::Send, 4, 6, 4}, {K::RecvReduce, 4, 0, 6}},
                  {{K::Send, 3, 3, 3}, {K::RecvReduce, 3, 0, 3}}, {{K::Send, 3, 0, 3}, {K::Recv, 3, 3, 3}},
                  {{K::Send, 4, 0, 6}, {K::Recv, 4, 6, 4}}, {{K::Send, 0, 0, 10}}}},
      {6, 5, 10, {{{K::Send, 3, 0, 6}, {K::RecvReduce, 3, 6, 4}}, {{K::Send, 4, 6, 2}, {K::RecvReduce, 4, 8, 2}},
                  {{K::Send, 4, 8, 2}, {K::Recv, 4, 6, 2}}, {{K::Send, 3, 6, 4}, {K::Recv, 3, 0, 6}}}},
  };
  for (const auto& c : cases) {
    const int p = c.p, rank = c.rank; // copies: INFO's lambda captures them (clang 14)
    INFO("p=", p, " rank=", rank);
    const auto s = ccsim::schedule::require_algorithm(Op::AllReduce, "halving_doubling").make(args(Op::AllReduce, p, c.count));
    REQUIRE(s->fixed_steps());
    ccsim::schedule::Action out[ccsim::schedule::Schedule::kFixedActions];
    for (int k = 0; k < static_cast<int>(c.steps.size()); ++k) {
      const auto& want = c.steps[static_cast<std::size_t>(k)];
      INFO("step ", k);
      REQUIRE(s->step_fixed(rank, k, out) == static_cast<int>(want.size()));
      for (std::size_t i = 0; i < want.size(); ++i) {
        CHECK(out[i].kind == want[i].kind);
        CHECK(out[i].peer == want[i].peer);
        CHECK(out[i].off == want[i].off);
        CHECK(out[i].len == want[i].len);
      }
    }
    CHECK(s->step_fixed(rank, static_cast<int>(c.steps.size()), out) == -1);
  }
}
