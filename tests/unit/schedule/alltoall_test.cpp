// Pairwise and direct alltoall: data, step structure, queueing, engine time == formula.
#include "crossbar_run.hpp"

using namespace ccsim;
using namespace ccsim::testing;
using schedule::Op;

TEST_CASE("pairwise and direct alltoall deliver the data for every p and count") {
  check_data(Op::AllToAll, "pairwise");
  check_data(Op::AllToAll, "direct");
}

TEST_CASE("pairwise: step k sends to r+k and receives from r-k, with no queueing") {
  const int p = 7;
  const auto s = schedule::require_algorithm(Op::AllToAll, "pairwise").make(args_of(Op::AllToAll, p, 3));
  std::vector<schedule::Action> acts;
  for (int r = 0; r < p; ++r) {
    CHECK(steps_of(*s, r) == p - 1);
    for (int k = 1; k < p; ++k) {
      REQUIRE(s->step(r, k - 1, acts));
      CHECK(acts[0].kind == schedule::Action::Kind::Send);
      CHECK(acts[0].peer == (r + k) % p);
      CHECK(acts[1].kind == schedule::Action::Kind::Recv);
      CHECK(acts[1].peer == (r - k + p) % p);
    }
  }
  QueueWatch w;
  crossbar_timing("pairwise", args_of(Op::AllToAll, p, 1000), 0, kAlpha, kBw, &w);
  CHECK(w.transfers == p * (p - 1));
  CHECK(w.queued == 0);
}

TEST_CASE("direct: one step whose sends queue on the links") {
  const int p = 5;
  const auto s = schedule::require_algorithm(Op::AllToAll, "direct").make(args_of(Op::AllToAll, p, 3));
  for (int r = 0; r < p; ++r) CHECK(steps_of(*s, r) == 1);
  const auto t = crossbar_timing("direct", args_of(Op::AllToAll, p, 1000), 0);
  // Contention-free, rank 0's four sends would leave back to back; posted at once they queue.
  CHECK(t.engine > kAlpha + (p - 1) * transfer_time(4000, kBw));
  CHECK(t.formula == kAlpha + (p - 1) * transfer_time(4000, kBw));
  CHECK(crossbar_timing("direct", args_of(Op::AllToAll, 2, 1000), 0).engine == kAlpha + transfer_time(4000, kBw));
}

TEST_CASE("alltoall: engine time equals the formula exactly") {
  for (const char* algo : {"pairwise", "direct"}) check_formula_exact(Op::AllToAll, algo, {0, 1, 1001, 65'537});
}

TEST_CASE("alltoall with one rank copies its own block in a step that takes no time") {
  for (const char* algo : {"pairwise", "direct"}) {
    const auto s = schedule::require_algorithm(Op::AllToAll, algo).make(args_of(Op::AllToAll, 1, 4));
    CHECK(steps_of(*s, 0) == 1);
    verify::Buffers b{{1, 2, 3, 4, 0, 0, 0, 0}};
    verify::execute(*s, b, verify::RedOp::Sum);
    CHECK(b[0] == std::vector<std::int64_t>{1, 2, 3, 4, 1, 2, 3, 4});
    CHECK(crossbar_timing(algo, args_of(Op::AllToAll, 1, 4), 0).engine == 0);
  }
}
