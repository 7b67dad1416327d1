// The segment explain chooses for pipelined algorithms: the least time, checked against the chain's
// textbook optimum and by the engine.
#include "crossbar_run.hpp"
#include "sim/cost/best_segment.hpp"
#include "sim/metrics/explain.hpp"
#include "sim/schedule/algorithms/chain.hpp"
#include "sim/schedule/algorithms/double_binary_tree.hpp"

using namespace ccsim;
using namespace ccsim::testing;
using schedule::Op;

TEST_CASE("chain broadcast: the best segment is the textbook k* = sqrt((p-2) n beta / alpha)") {
  // p = 6, n = 2.5 MB at 25 GB/s (n beta = 100 us), alpha = 1 us: k* = sqrt(4 * 100) = 20 segments of
  // 125000 B (5 us each), T* = (sqrt((p-2) alpha) + sqrt(n beta))^2 = (2 + 10)^2 = 144 us, by hand.
  const auto a = args_of(Op::Broadcast, 6, 625'000);
  const auto best = cost::best_segment(a, "ring", 4, {1'000'000, 25'000'000'000, 0});
  CHECK(best.segment == 31'250);
  CHECK(best.segments == 20);
  CHECK(best.time == 144'000'000);
  const auto t = crossbar_timing("ring", args_of(Op::Broadcast, 6, 625'000, 0, best.segment), 0, 1'000'000, 25'000'000'000);
  CHECK(t.engine == 144'000'000);
}

TEST_CASE("the chosen segment is never slower than any other segment tried by hand") {
  for (Op op : {Op::Broadcast, Op::Reduce, Op::AllReduce})
    for (int p : {3, 8, 13}) {
      const std::string algo = op == Op::AllReduce ? "double_binary_tree" : "ring";
      const auto a = args_of(op, p, 1'000'003);
      const cost::Params c{5'000'000, 25'000'000'000, op == Op::Broadcast ? Bandwidth{0} : Bandwidth{40'000'000'000}};
      const auto best = cost::best_segment(a, algo, 4, c);
      INFO(schedule::to_string(op), " p=", p);
      for (std::uint64_t seg : {1'000ull, 16'384ull, 65'536ull, 131'072ull, 262'144ull, 524'288ull, 1'000'003ull}) {
        auto b = a;
        b.segment = seg;
        CHECK(best.time <= cost::evaluate(*cost::formula_for(op, algo, b, 4), c));
      }
      CHECK(crossbar_timing(algo, args_of(op, p, 1'000'003, 0, best.segment), c.reduce_bw, c.alpha, c.bw).engine == best.time);
    }
}

TEST_CASE("explain picks the best segment for the double binary tree unless --chunk-size gives one") {
  metrics::ExplainSetup s;
  s.op = Op::AllReduce;
  s.ranks = 8;
  s.params = {5'000'000, 25'000'000'000, 0};
  const Bytes n = 64ull << 20;
  const auto chosen = metrics::explain_one(s, "double_binary_tree", n);
  CHECK(chosen.segment_bytes > 0);
  CHECK(chosen.simulated == chosen.formula_time);
  s.run.segment_bytes = 65'536; // the old fixed default
  const auto fixed = metrics::explain_one(s, "double_binary_tree", n);
  CHECK(fixed.segment_bytes == 65'536);
  CHECK(fixed.segment_why == "given by --chunk-size");
  CHECK(chosen.simulated < fixed.simulated);
  s.run.segment_bytes = 2ull << 20; // the 2 MiB
  CHECK(chosen.simulated <= metrics::explain_one(s, "double_binary_tree", n).simulated);
}

TEST_CASE("every plain-model run without --chunk-size uses the best segment, not only the main sweep") {
  // metrics::simulate is what compare, rings, scenarios and all_reduce_perf mode run through. With no
  // segment it must run the double binary tree within 0.1% of every segment tried by hand (the choice
  // minimises the lockstep closed form; the default gpu-semantics replay overlaps a little more), and
  // best_segment = false must bring back the schedule's fixed default (64 KiB, slower at 64 MiB).
  const auto topo = topology::make_crossbar(8, 25'000'000'000, 5'000'000);
  topology::Router router(topo);
  metrics::RunConfig cfg;
  cfg.algo = "double_binary_tree";
  cfg.placements = {{0, 1, 2, 3, 4, 5, 6, 7}};
  const Bytes n = 64ull << 20;
  const Time chosen = metrics::simulate(topo, router, cfg, n).time;
  for (std::uint64_t seg : {65'536ull, 524'288ull, 1ull << 20, 2ull << 20, 4ull << 20, 8ull << 20}) {
    auto c = cfg;
    c.segment_bytes = seg;
    INFO("segment ", seg);
    CHECK(static_cast<double>(chosen) <= 1.001 * static_cast<double>(metrics::simulate(topo, router, c, n).time));
  }
  auto fixed = cfg;
  fixed.best_segment = false;
  auto at_64k = cfg;
  at_64k.segment_bytes = 65'536;
  CHECK(metrics::simulate(topo, router, fixed, n).time == metrics::simulate(topo, router, at_64k, n).time);
  CHECK(chosen < metrics::simulate(topo, router, fixed, n).time);
}

TEST_CASE("the chosen segment stays within what the schedule runs on many ranks") {
  // Fourth user trial: explain --algo double_binary_tree --ranks 1000 --size 1M (and the main command from about
  // 200 ranks, the broadcast chain from about 1,100 at 1 GiB) chose a segment the schedule then refused as
  // "more than N segments; use a larger --chunk-size". The schedule accepting the choice is the check.
  const cost::Params c{5'000'000, 25'000'000'000, 0};
  for (int p : {200, 1000, 4096}) {
    auto a = args_of(Op::AllReduce, p, 262'144); // 1 MiB of floats
    const auto best = cost::best_segment(a, "double_binary_tree", 4, c);
    a.segment = best.segment;
    INFO("double_binary_tree p=", p, " segment ", best.segment);
    CHECK_NOTHROW(schedule::DbtStructure{a});
  }
  for (int p : {1500, 2000}) {
    auto a = args_of(Op::Broadcast, p, 268'435'456); // 1 GiB of floats
    const auto best = cost::best_segment(a, "ring", 4, c);
    a.segment = best.segment;
    INFO("chain p=", p, " segment ", best.segment);
    CHECK_NOTHROW(schedule::chain_segments(a));
  }
}
