#include <doctest/doctest.h>

#include "algo_check.hpp"
#include "sim/core/error.hpp"
#include "sim/schedule/algorithms/torus2d.hpp"

using namespace algo_check;
using ccsim::schedule::Op;

TEST_CASE("torus2d allreduce is correct for every p up to 17 and explicit grids") {
  for (int p = 1; p <= 17; ++p)
    for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, static_cast<std::uint64_t>(p / 2),
                                3 * static_cast<std::uint64_t>(p) + 2})
      for (auto red : kRedOps) {
        INFO("p " << p << " count " << count);
        CHECK(check(args(Op::AllReduce, p, count), "torus2d", red) == "");
      }
  for (auto dims : {std::vector<int>{2, 6}, std::vector<int>{6, 2}, std::vector<int>{1, 12}, std::vector<int>{12, 1}}) {
    auto a = args(Op::AllReduce, 12, 41);
    a.dims = dims;
    CHECK(check(a, "torus2d", ccsim::verify::RedOp::Sum) == "");
  }
}

TEST_CASE("torus2d picks the most square grid with X >= Y and rejects a wrong one") {
  using ccsim::schedule::torus2d_grid;
  CHECK(torus2d_grid(args(Op::AllReduce, 16, 1)) == std::pair{4, 4});
  CHECK(torus2d_grid(args(Op::AllReduce, 12, 1)) == std::pair{4, 3});
  CHECK(torus2d_grid(args(Op::AllReduce, 13, 1)) == std::pair{13, 1});
  auto a = args(Op::AllReduce, 12, 1);
  a.dims = {5, 2};
  CHECK_THROWS_AS(torus2d_grid(a), ccsim::Error);
}

TEST_CASE("torus2d: engine time equals the formula on the crossbar") {
  for (int p : kTimedRanks)
    for (auto count : counts_for(p))
      for (const auto& m : machines()) {
        const auto a = args(Op::AllReduce, p, count);
        INFO("p " << p << " count " << count << " reduce_bw " << m.reduce_bw);
        CHECK(simulate(a, "torus2d", m) == predict(a, "torus2d", m));
      }
}

TEST_CASE("torus2d on 4x4 costs 2(X-1+Y-1) a + 2(p-1)/p nb") {
  const Machine m{1'000'000, 25'000'000'000, 0}; // 40 ps per byte
  const std::uint64_t count = 16 * 1000;
  const ccsim::Time n = count * 4;
  CHECK(simulate(args(Op::AllReduce, 16, count), "torus2d", m) == 12 * m.alpha + 2 * 15 * n / 16 * 40);
}

TEST_CASE("torus2d on one rank has no steps, on 4x3, 2(X-1) + 2(Y-1) steps") {
  CHECK(steps_of_rank0(args(Op::AllReduce, 1, 9), "torus2d") == 0);
  CHECK(steps_of_rank0(args(Op::AllReduce, 12, 9), "torus2d") == 10);
}
