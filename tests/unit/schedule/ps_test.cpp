// Parameter-server allreduce: data, one-port serialisation at the server, engine time == formula.
#include "crossbar_run.hpp"

using namespace ccsim;
using namespace ccsim::testing;
using schedule::Op;

TEST_CASE("ps allreduce delivers the data for every p, server, count and reduction") {
  for (int p = 1; p <= 17; ++p)
    for (int server : {0, p / 2, p - 1})
      for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, static_cast<std::uint64_t>(3 * p + 2)})
        for (auto red : {verify::RedOp::Sum, verify::RedOp::Prod, verify::RedOp::Min, verify::RedOp::Max}) {
          const auto s = schedule::require_algorithm(Op::AllReduce, "ps").make(args_of(Op::AllReduce, p, count, server));
          INFO("p=", p, " server=", server, " count=", count);
          CHECK(verify::check(*s, red) == "");
        }
}

TEST_CASE("ps: the server's link serialises the pushes and the replies") {
  const int p = 6;
  const std::uint64_t count = 50'001;
  QueueWatch w;
  const auto t = crossbar_timing("ps", args_of(Op::AllReduce, p, count, 2), kFastReduce, kAlpha, kBw, &w);
  CHECK(w.transfers == 2 * (p - 1));
  CHECK(w.queued == 2 * (p - 2)); // all but the first push and the first reply wait for the server's link
  const Time n = transfer_time(count * 4, kBw);
  CHECK(t.engine == 2 * kAlpha + 2 * (p - 1) * n + transfer_time((p - 1) * count * 4, kFastReduce));
}

TEST_CASE("ps: engine time equals the formula exactly") {
  check_formula_exact(Op::AllReduce, "ps", {0, 1, 999, 131'075});
  for (int server : {0, 3, 6}) {
    const auto t = crossbar_timing("ps", args_of(Op::AllReduce, 7, 4321, server), kSlowReduce);
    CHECK(t.engine == t.formula);
  }
}
