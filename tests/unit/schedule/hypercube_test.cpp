// Hypercube (nccl-tests' hypercube_perf): an allgather by recursive doubling run as point-to-point groups.
// Data, step structure, engine time == formula, nccl-tests' size/count/algbw rules, hand values.
#include "crossbar_run.hpp"

#include "sim/cost/lower_bounds.hpp"
#include "sim/metrics/nccl_metrics.hpp"

using namespace ccsim;
using namespace ccsim::testing;
using schedule::Op;

TEST_CASE("hypercube gathers every rank's block on every rank") { check_data(Op::HyperCube, "recursive_doubling"); }

TEST_CASE("hypercube on 8 ranks: step k exchanges the 2^k blocks gathered so far with rank XOR 2^k") {
  const std::uint64_t c = 3;
  const auto s = schedule::require_algorithm(Op::HyperCube, "recursive_doubling").make(args_of(Op::HyperCube, 8, c));
  CHECK(s->buffer_elems() == 8 * c);
  std::vector<schedule::Action> acts;
  // Rank 5 (binary 101), by hand: step 0 sends block 5 to 4, receives block 4; step 1 sends blocks 4-5 to
  // 7, receives 6-7; step 2 sends blocks 4-7 to 1, receives 0-3.
  const int peers[] = {4, 7, 1};
  const std::uint64_t sent[] = {5, 4, 4}, got[] = {4, 6, 0}, n[] = {1, 2, 4};
  CHECK(steps_of(*s, 5) == 3);
  for (int k = 0; k < 3; ++k) {
    REQUIRE(s->step(5, k, acts));
    REQUIRE(acts.size() == 2);
    CHECK(acts[0].kind == schedule::Action::Kind::Send);
    CHECK(acts[0].peer == peers[k]);
    CHECK(acts[0].off == sent[k] * c);
    CHECK(acts[0].len == n[k] * c);
    CHECK(acts[1].kind == schedule::Action::Kind::Recv);
    CHECK(acts[1].peer == peers[k]);
    CHECK(acts[1].off == got[k] * c);
    CHECK(acts[1].len == n[k] * c);
  }
}

TEST_CASE("hypercube on a 4-rank crossbar: time = 2 alpha + 3 m / bw (hand)") {
  // alpha 5 us, 25 GB/s, blocks of 65536 floats (m = 262144 B): 10 us + 3 x 262144 / 25e9 s = 10 + 31.45728 us.
  const auto a = args_of(Op::HyperCube, 4, 65'536);
  const auto t = crossbar_timing("recursive_doubling", a, 0, 5'000'000, 25'000'000'000);
  CHECK(t.engine == 41'457'280);
  CHECK(t.formula == 41'457'280);
  check_formula_exact(Op::HyperCube, "recursive_doubling", {1, 333, 65'539});
  CHECK(cost::lower_bound(Op::HyperCube, 4, false).beta == doctest::Approx(0.75));
}

TEST_CASE("hypercube_perf sizes: count = (S/4 / (4n)) x 4 elements, size = count x n x 4, algbw = busbw = count x 4 x (n-1) / t") {
  // 1 MiB of floats on 4 ranks (hypercube.cu, ALIGN 4): 262144 / 16 x 4 = 65536 elements, size 1048576.
  const auto plan = metrics::plan_size(Op::HyperCube, 4, Bytes{1} << 20, 4);
  CHECK(plan.count == 65'536);
  CHECK(plan.size == 1'048'576);
  // ALIGN is in elements whatever the type: 1000 B of doubles on 4 ranks = 125 / 16 x 4 = 28 elements.
  CHECK(metrics::plan_size(Op::HyperCube, 4, 1000, 8).count == 28);
  // 786432 B received per rank in 41.45728 us: 18.9696 GB/s, busbw the same (factor 1).
  const auto bw = metrics::bandwidths(Op::HyperCube, 4, plan.size, 41'457'280);
  CHECK(bw.algbw_GBps == doctest::Approx(18.96963).epsilon(1e-5));
  CHECK(bw.busbw_GBps == bw.algbw_GBps);
  CHECK(metrics::busbw_factor(Op::HyperCube, 4) == 1.0);
}

TEST_CASE("hypercube names: op_from, nccl-tests' program name, no redop") {
  CHECK(schedule::op_from("hypercube") == Op::HyperCube);
  CHECK(schedule::op_from("HyperCube") == Op::HyperCube);
  CHECK(schedule::nccl_test_name(Op::HyperCube) == "hypercube_perf");
  CHECK_FALSE(schedule::prints_redop(Op::HyperCube));
  CHECK_FALSE(schedule::has_root(Op::HyperCube));
}
