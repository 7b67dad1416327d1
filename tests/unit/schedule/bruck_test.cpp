#include <doctest/doctest.h>

#include "algo_check.hpp"

using namespace algo_check;
using ccsim::schedule::Op;

TEST_CASE("bruck allgather and alltoall are correct for every p up to 17") {
  for (Op op : {Op::AllGather, Op::AllToAll})
    for (int p = 1; p <= 17; ++p)
      for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{7}}) {
        INFO("op " << ccsim::schedule::to_string(op) << " p " << p << " count " << count);
        CHECK(check(args(op, p, count), "bruck", ccsim::verify::RedOp::Sum) == "");
      }
}

TEST_CASE("bruck: engine time equals the formula on the crossbar") {
  for (Op op : {Op::AllGather, Op::AllToAll})
    for (int p : kTimedRanks)
      for (auto count : counts_for(p))
        for (const auto& machine_set : {machines(), extreme_machines()})
        for (const auto& m : machine_set) {
          const auto a = args(op, p, count);
          INFO("op " << ccsim::schedule::to_string(op) << " p " << p << " count " << count);
          CHECK(simulate(a, "bruck", m) == predict(a, "bruck", m));
        }
}

TEST_CASE("bruck takes ceil(lg p) rounds, the last moving p - 2^floor(lg p) blocks") {
  const Machine m{2'000'000, 25'000'000'000, 0};
  // p = 5: rounds move 1, 2 and 1 blocks of 100 elements (400 B, 16 ns each).
  CHECK(simulate(args(Op::AllGather, 5, 100), "bruck", m) == 3 * m.alpha + (1 + 2 + 1) * 16'000);
  // alltoall p = 5: positions with bit 0 set {1,3}, bit 1 {2,3}, bit 2 {4}.
  CHECK(simulate(args(Op::AllToAll, 5, 100), "bruck", m) == 3 * m.alpha + (2 + 2 + 1) * 16'000);
}

TEST_CASE("bruck on one rank: allgather has no steps, alltoall one local copy") {
  CHECK(steps_of_rank0(args(Op::AllGather, 1, 5), "bruck") == 0);
  CHECK(steps_of_rank0(args(Op::AllToAll, 1, 5), "bruck") == 1);
  CHECK(simulate(args(Op::AllToAll, 1, 5), "bruck", machines()[0]) == 0);
}
