#include <doctest/doctest.h>

#include "algo_check.hpp"

using namespace algo_check;
using ccsim::schedule::Op;

TEST_CASE("recursive_doubling allreduce and allgather are correct for every p up to 17") {
  for (Op op : {Op::AllReduce, Op::AllGather})
    for (int p = 1; p <= 17; ++p)
      for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, static_cast<std::uint64_t>(p / 2),
                                  3 * static_cast<std::uint64_t>(p) + 2})
        for (auto red : kRedOps) {
          if (op == Op::AllGather && red != ccsim::verify::RedOp::Sum) continue; // nothing is reduced
          INFO("op " << ccsim::schedule::to_string(op) << " p " << p << " count " << count);
          CHECK(check(args(op, p, count), "recursive_doubling", red) == "");
        }
}

TEST_CASE("recursive_doubling: engine time equals the formula on the crossbar") {
  for (Op op : {Op::AllReduce, Op::AllGather})
    for (int p : kTimedRanks)
      for (auto count : counts_for(p))
        for (const auto& machine_set : {machines(), extreme_machines()})
        for (const auto& m : machine_set) {
          const auto a = args(op, p, count);
          INFO("op " << ccsim::schedule::to_string(op) << " p " << p << " count " << count << " reduce_bw " << m.reduce_bw);
          CHECK(simulate(a, "recursive_doubling", m) == predict(a, "recursive_doubling", m));
        }
}

TEST_CASE("recursive_doubling allreduce at p = 2^k is lg p (a + nb + ng)") {
  // 25 GB/s is 40 ps per byte and 50 GB/s 20 ps, so the textbook form is exact in picoseconds.
  const Machine m{1'234'566, 25'000'000'000, 50'000'000'000};
  for (int p : {2, 4, 8, 16}) {
    int lg = 0;
    while ((1 << lg) < p) ++lg;
    const std::uint64_t count = 4096 * static_cast<std::uint64_t>(p) + 8 * static_cast<std::uint64_t>(p);
    const ccsim::Time n = static_cast<ccsim::Time>(count * 4);
    CHECK(simulate(args(Op::AllReduce, p, count), "recursive_doubling", m) == lg * (m.alpha + 40 * n + 20 * n));
  }
}

TEST_CASE("recursive_doubling on one rank has no steps, a folded rank has two") {
  for (Op op : {Op::AllReduce, Op::AllGather}) {
    CHECK(steps_of_rank0(args(op, 1, 10), "recursive_doubling") == 0);
    // Allreduce: rank 0 folds out, then gets the result. Allgather (Thakur): exchanges with 1, 2 and 4, then
    // passes 4 and 5's blocks to rank 2 (its subtree [0, 4) had only ranks 0 and 1 with a partner).
    CHECK(steps_of_rank0(args(op, 6, 10), "recursive_doubling") == (op == Op::AllReduce ? 2 : 4));
    CHECK(steps_of_rank0(args(op, 8, 10), "recursive_doubling") == 3);
  }
}

TEST_CASE("Thakur's recursive-doubling allgather: data, at most 2 ceil(lg p) - 1 steps, p-1 blocks received per rank") {
  for (int p = 2; p <= 70; ++p) {
    int ceil_lg = 0;
    while ((1 << ceil_lg) < p) ++ceil_lg;
    const auto a = args(Op::AllGather, p, 3);
    INFO("p " << p);
    if (p <= 40) CHECK(check(a, "recursive_doubling", ccsim::verify::RedOp::Sum) == "");
    auto s = ccsim::schedule::require_algorithm(Op::AllGather, "recursive_doubling").make(a);
    std::vector<ccsim::schedule::Action> acts;
    for (int r = 0; r < p; ++r) {
      int steps = 0;
      std::uint64_t received = 0;
      for (; s->step(r, steps, acts); ++steps)
        for (const auto& x : acts)
          if (x.kind == ccsim::schedule::Action::Kind::Recv) received += x.len;
      // p = 2^k + 1: rank 0 makes k + 1 exchanges and passes rank 2^k's block down k sub-rounds.
      CHECK(steps <= ((p & (p - 1)) == 0 ? ceil_lg : 2 * ceil_lg - 1));
      if (p == 17 && r == 0) CHECK(steps == 9);
      CHECK(received == 3 * static_cast<std::uint64_t>(p - 1)); // every block once, none twice
    }
  }
  for (int p : {18, 19, 23, 31, 33, 48, 63, 100})
    CHECK(check(args(Op::AllGather, p, 2), "recursive_doubling", ccsim::verify::RedOp::Sum) == "");
}

TEST_CASE("Thakur's recursive-doubling allgather: engine equals the formula for p = 2..40 and larger p") {
  for (int p = 2; p <= 40; ++p)
    for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t{777}, std::uint64_t{65'536}})
      for (const auto& m : machines()) {
        const auto a = args(Op::AllGather, p, count);
        INFO("p " << p << " count " << count << " alpha " << m.alpha);
        CHECK(simulate(a, "recursive_doubling", m) == predict(a, "recursive_doubling", m));
      }
  for (int p : {57, 100, 127, 129, 200, 255})
    for (const auto& m : extreme_machines()) {
      const auto a = args(Op::AllGather, p, 1001);
      INFO("p " << p);
      CHECK(simulate(a, "recursive_doubling", m) == predict(a, "recursive_doubling", m));
    }
}

TEST_CASE("recursive doubling allgather at p = 13 by hand: Thakur 7 alpha + 22/13 n beta, the fold 5 alpha + 28/13 n beta") {
  // 1 MiB blocks at 10 GB/s (104857.6 ns each, exact in ps), alpha 2 us. Thakur: rank 8 exchanges 1, 2, 4 blocks,
  // passes rank 12's block on twice (its fix-ups), exchanges 8 blocks with rank 0, whose fix-up then sends 5: 22 blocks,
  // 7 messages. The fold: 1 block in, 2 + 4 + 8 blocks (rank 0 carries two), 13 back: 28 blocks, 5 messages.
  const Machine m{2'000'000, 10'000'000'000, 0};
  const auto a = args(Op::AllGather, 13, 262'144);
  const ccsim::Time block = 104'857'600;
  CHECK(simulate(a, "recursive_doubling", m) == 7 * m.alpha + 22 * block);
  CHECK(simulate(a, "recursive_doubling_fold", m) == 5 * m.alpha + 28 * block);
  CHECK(predict(a, "recursive_doubling_fold", m) == simulate(a, "recursive_doubling_fold", m));
}
