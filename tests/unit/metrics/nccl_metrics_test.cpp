// nccl-tests' size/count/busbw conventions (reference §2).
#include <doctest/doctest.h>

#include "sim/metrics/nccl_metrics.hpp"

using namespace ccsim;
using schedule::Op;

TEST_CASE("size and count per op, as nccl-tests prints them") {
  // allreduce: count = size / eltsize, size is the per-rank vector
  auto ar = metrics::plan_size(Op::AllReduce, 8, 1024, 4);
  CHECK(ar.count == 256);
  CHECK(ar.size == 1024);
  // allgather: size is the total, count per rank aligned down to 16 bytes
  auto ag = metrics::plan_size(Op::AllGather, 12, 1024, 4);
  CHECK(ag.count == 20); // 256/12 = 21 -> & -4 -> 20
  CHECK(ag.size == 20 * 12 * 4);
  auto a2a = metrics::plan_size(Op::AllToAll, 8, 1 << 20, 4);
  CHECK(a2a.count == (1 << 20) / 4 / 8);
  CHECK(a2a.size == 1 << 20);
  CHECK(metrics::plan_size(Op::Broadcast, 8, 6, 4).size == 4);
}

TEST_CASE("busbw factors") {
  CHECK(metrics::busbw_factor(Op::AllReduce, 8) == doctest::Approx(14.0 / 8));
  CHECK(metrics::busbw_factor(Op::AllGather, 8) == doctest::Approx(7.0 / 8));
  CHECK(metrics::busbw_factor(Op::ReduceScatter, 4) == doctest::Approx(0.75));
  CHECK(metrics::busbw_factor(Op::AllToAll, 2) == doctest::Approx(0.5));
  CHECK(metrics::busbw_factor(Op::Broadcast, 8) == 1.0);
  CHECK(metrics::busbw_factor(Op::Reduce, 8) == 1.0);
  // algbw uses GB = 1e9: 1e9 bytes in 1 s is 1 GB/s
  auto bw = metrics::bandwidths(Op::AllReduce, 2, 1'000'000'000, kPsPerSec);
  CHECK(bw.algbw_GBps == doctest::Approx(1.0));
  CHECK(bw.busbw_GBps == doctest::Approx(1.0));
}

// Mutation pass (scripts/MUTANTS.md): a run that took no time has no bandwidth (nccl-tests would divide by zero);
// ccsim gives 0 GB/s rather than an infinite or NaN rate.
TEST_CASE("a zero time gives zero algbw and busbw, not an infinite rate") {
  const auto bw = metrics::bandwidths(Op::AllReduce, 8, 1'000'000'000, 0);
  CHECK(bw.algbw_GBps == 0.0);
  CHECK(bw.busbw_GBps == 0.0);
}
