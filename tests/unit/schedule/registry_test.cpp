// Every registered algorithm has a formula, and one rank costs nothing.
#include "crossbar_run.hpp"

using namespace ccsim;
using namespace ccsim::testing;

TEST_CASE("every registered algorithm has a cost formula") {
  REQUIRE(schedule::all_algorithms().size() >= 13);
  for (const auto& a : schedule::all_algorithms())
    CHECK_MESSAGE(cost::has_formula(a.op, a.name), schedule::to_string(a.op), " ", a.name);
}

TEST_CASE("with one rank every algorithm takes no time and moves nothing") {
  for (const auto& info : schedule::all_algorithms()) {
    const auto a = args_of(info.op, 1, 1000);
    const auto s = info.make(a);
    INFO(schedule::to_string(info.op), " ", info.name);
    // Only alltoall and sendrecv (a send to itself) have work to do: the own block goes from input to
    // output by a local copy.
    const bool copies = info.op == schedule::Op::AllToAll || info.op == schedule::Op::SendRecv;
    CHECK(steps_of(*s, 0) == (copies ? 1 : 0));
    const auto t = crossbar_timing(info.name, a, kFastReduce);
    CHECK(t.engine == 0);
    CHECK(t.formula == 0);
    CHECK(verify::check(*s, verify::RedOp::Sum) == "");
  }
}

TEST_CASE("every registered algorithm: engine time equals its formula on the crossbar") {
  for (const auto& info : schedule::all_algorithms()) check_formula_exact(info.op, info.name, {1, 1003, 100'003});
}

TEST_CASE("every registered algorithm numbers each rank's steps from 0 without gaps") {
  std::vector<schedule::Action> acts;
  for (const auto& info : schedule::all_algorithms())
    for (int p : {2, 5, 8, 13})
      for (int r = 0; r < p; ++r) {
        const auto s = info.make(args_of(info.op, p, 3 * p + 2, p - 1, 4));
        const int n = steps_of(*s, r);
        INFO(schedule::to_string(info.op), " ", info.name, " p=", p, " rank ", r);
        for (int later = n + 1; later < n + 4; ++later) CHECK_FALSE(s->step(r, later, acts));
      }
}
