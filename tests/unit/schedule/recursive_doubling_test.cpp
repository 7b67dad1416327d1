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
    CHECK(steps_of_rank0(args(op, 6, 10), "recursive_doubling") == 2); // rank 0 folds out, then gets the result
    CHECK(steps_of_rank0(args(op, 8, 10), "recursive_doubling") == 3);
  }
}
