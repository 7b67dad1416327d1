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
    // Only alltoall has work to do: its own block goes from input to output by a local copy.
    CHECK(steps_of(*s, 0) == (info.op == schedule::Op::AllToAll ? 1 : 0));
    const auto t = crossbar_timing(info.name, a, kFastReduce);
    CHECK(t.engine == 0);
    CHECK(t.formula == 0);
    CHECK(verify::check(*s, verify::RedOp::Sum) == "");
  }
}

TEST_CASE("every registered algorithm: engine time equals its formula on the crossbar") {
  for (const auto& info : schedule::all_algorithms()) check_formula_exact(info.op, info.name, {1, 1003, 100'003});
}
