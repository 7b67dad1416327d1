// Sendrecv (nccl-tests' sendrecv_perf): every rank sends its vector to r+1 and receives r-1's, in one
// step. Data, step structure, engine time == formula, and hand values on a 2-GPU link.
#include "crossbar_run.hpp"

#include "sim/cost/lower_bounds.hpp"
#include "sim/metrics/nccl_metrics.hpp"

using namespace ccsim;
using namespace ccsim::testing;
using schedule::Op;

TEST_CASE("sendrecv delivers rank r-1's vector to rank r for every p and count") { check_data(Op::SendRecv, "direct"); }

TEST_CASE("sendrecv is one step: a send to r+1 and a receive from r-1 into the second half") {
  const int p = 5;
  const std::uint64_t c = 3;
  const auto s = schedule::require_algorithm(Op::SendRecv, "direct").make(args_of(Op::SendRecv, p, c));
  CHECK(s->buffer_elems() == 2 * c);
  std::vector<schedule::Action> acts;
  for (int r = 0; r < p; ++r) {
    CHECK(steps_of(*s, r) == 1);
    REQUIRE(s->step(r, 0, acts));
    REQUIRE(acts.size() == 2);
    CHECK(acts[0].kind == schedule::Action::Kind::Send);
    CHECK(acts[0].peer == (r + 1) % p);
    CHECK(acts[0].off == 0);
    CHECK(acts[1].kind == schedule::Action::Kind::Recv);
    CHECK(acts[1].peer == (r + p - 1) % p);
    CHECK(acts[1].off == c);
    CHECK(acts[1].len == c);
  }
}

TEST_CASE("sendrecv on a 2-GPU link of known bandwidth: time = alpha + size/bw, busbw = algbw = size/time") {
  // alpha 5 us, 25 GB/s, 1 MiB of floats: 5 us + 1048576 B / 25e9 B/s = 5 + 41.94304 us = 46.94304 us (hand).
  const auto a = args_of(Op::SendRecv, 2, 262'144);
  const auto t = crossbar_timing("direct", a, 0, 5'000'000, 25'000'000'000);
  CHECK(t.engine == 46'943'040);
  CHECK(t.formula == 46'943'040);
  // nccl-tests' sendrecv.cu: size = count x eltsize, busbw factor 1.
  const auto plan = metrics::plan_size(Op::SendRecv, 2, Bytes{1} << 20, 4);
  CHECK(plan.count == 262'144);
  CHECK(plan.size == 1'048'576);
  const auto bw = metrics::bandwidths(Op::SendRecv, 2, plan.size, t.engine);
  CHECK(bw.algbw_GBps == doctest::Approx(22.337198).epsilon(1e-6)); // 1048576 / 46.94304 us
  CHECK(bw.busbw_GBps == bw.algbw_GBps);
  // More ranks: each still sends once over its own link, so the same time.
  CHECK(crossbar_timing("direct", args_of(Op::SendRecv, 8, 262'144), 0, 5'000'000, 25'000'000'000).engine == 46'943'040);
  CHECK(metrics::busbw_factor(Op::SendRecv, 8) == 1.0);
}

TEST_CASE("sendrecv: engine equals the formula alpha + n beta for every p and count") {
  check_formula_exact(Op::SendRecv, "direct", {0, 1, 333, 65'539});
  const auto lb = cost::lower_bound(Op::SendRecv, 4, false);
  CHECK(lb.alpha == 1);
  CHECK(lb.beta == 1);
}

TEST_CASE("sendrecv on one rank is a send to itself: a copy that takes no time") {
  const auto s = schedule::require_algorithm(Op::SendRecv, "direct").make(args_of(Op::SendRecv, 1, 4));
  CHECK(steps_of(*s, 0) == 1);
  verify::Buffers b{{1, 2, 3, 4, 0, 0, 0, 0}};
  verify::execute(*s, b, verify::RedOp::Sum);
  CHECK(b[0] == std::vector<std::int64_t>{1, 2, 3, 4, 1, 2, 3, 4});
  CHECK(crossbar_timing("direct", args_of(Op::SendRecv, 1, 4), 0).engine == 0);
}

TEST_CASE("sendrecv names: op_from and nccl-tests' program name") {
  CHECK(schedule::op_from("sendrecv") == Op::SendRecv);
  CHECK(schedule::op_from("SendRecv") == Op::SendRecv);
  CHECK(schedule::nccl_test_name(Op::SendRecv) == "sendrecv_perf");
  CHECK(schedule::prints_redop(Op::SendRecv));
  CHECK_FALSE(schedule::reduces(Op::SendRecv));
}
