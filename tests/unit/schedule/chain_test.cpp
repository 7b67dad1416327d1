// Pipelined chain ("ring") broadcast and reduce: data, structure, and engine time == formula.
#include "crossbar_run.hpp"
#include "sim/core/error.hpp"

using namespace ccsim;
using namespace ccsim::testing;
using schedule::Op;

TEST_CASE("ring broadcast and reduce deliver the data for every p, root, count, segment and reduction") {
  for (Op op : {Op::Broadcast, Op::Reduce})
    for (std::uint64_t seg : {0, 1, 2, 5}) check_data(op, "ring", seg == 0, seg);
}

TEST_CASE("the chain starts at the root and follows rank order") {
  const int p = 6, root = 4;
  for (Op op : {Op::Broadcast, Op::Reduce}) {
    const auto s = schedule::require_algorithm(op, "ring").make(args_of(op, p, 10, root, 3)); // k = 4 segments
    CHECK(schedule::require_algorithm(op, "ring").ring_like);
    std::vector<schedule::Action> acts;
    // Broadcast: the root sends first; reduce: root+1 sends first and the root only receives.
    const int head = op == Op::Broadcast ? root : (root + 1) % p, tail = (head + p - 1) % p;
    REQUIRE(s->step(head, 0, acts));
    REQUIRE(acts.size() == 1);
    CHECK(acts[0].kind == schedule::Action::Kind::Send);
    CHECK(acts[0].peer == (head + 1) % p);
    CHECK(steps_of(*s, head) == 4);
    CHECK(steps_of(*s, tail) == 4);
    for (int r = 0; r < p; ++r)
      if (r != head && r != tail) CHECK(steps_of(*s, r) == 5); // one extra step forwards the last segment
    REQUIRE(s->step(tail, 3, acts));
    CHECK(acts[0].kind == (op == Op::Broadcast ? schedule::Action::Kind::Recv : schedule::Action::Kind::RecvReduce));
    CHECK(acts[0].len == 1); // 10 = 3 + 3 + 3 + 1
  }
}

TEST_CASE("the default segment is 512 KiB") {
  const auto a = args_of(Op::Broadcast, 4, 3 * 131072 + 5, 0, 0, 4);
  const auto s = schedule::require_algorithm(Op::Broadcast, "ring").make(a);
  CHECK(steps_of(*s, 0) == 4); // 3 full segments of 131072 floats and one of 5
  const auto d = schedule::require_algorithm(Op::Broadcast, "ring").make(args_of(Op::Broadcast, 4, 3 * 65536, 0, 0, 8));
  CHECK(steps_of(*d, 0) == 3); // doubles: 65536 per segment
}

TEST_CASE("ring broadcast and reduce: engine time equals the formula exactly") {
  for (Op op : {Op::Broadcast, Op::Reduce}) {
    check_formula_exact(op, "ring", {0, 1, 1000, 300'000}); // default segment: k = 1 or 3 (last short)
    check_formula_exact(op, "ring", {4000, 3333, 7, 1}, 1000); // k = 4 equal, k = 4 short last, k = 1
    check_formula_exact(op, "ring", {1'000'000}, 4096);        // k = 245, last short
  }
}

TEST_CASE("ring reduce on two ranks: with slow reduction the root sets the pace") {
  // Reduction 10x slower than the link: each segment waits for the root to reduce the previous one and
  // post its receive, so every segment costs alpha + T + R.
  const auto a = args_of(Op::Reduce, 2, 4000, 0, 1000);
  const auto f = *cost::formula_for(Op::Reduce, "ring", a, 4);
  const cost::Params slow{kAlpha, kBw, kBw / 10};
  const Time engine = crossbar_timing("ring", a, kBw / 10).engine;
  CHECK(engine == cost::evaluate(f, slow));
  CHECK(engine == 4 * (kAlpha + transfer_time(4000, kBw) + transfer_time(4000, kBw / 10)));
  // Without reduction cost the main path is the pipeline: (k-1) full segments then the last.
  const cost::Params free_reduce{kAlpha, kBw, 0};
  CHECK(cost::evaluate(f, free_reduce) == 4 * (kAlpha + transfer_time(4000, kBw)));
}

TEST_CASE("ring reduce: p-3+k full rounds, then the root reduces the short last segment") {
  // p = 6, k = 4 segments of 1000 floats and a last one of 500; each round pays alpha + S(beta + gamma)
  // whether the reduction is faster or slower than the link.
  for (Bandwidth rbw : {kFastReduce, kSlowReduce}) {
    const Time full = kAlpha + transfer_time(4000, kBw) + transfer_time(4000, rbw);
    const Time last = kAlpha + transfer_time(2000, kBw) + transfer_time(2000, rbw);
    CHECK(crossbar_timing("ring", args_of(Op::Reduce, 6, 3500, 2, 1000), rbw).engine == 7 * full + last);
  }
}

TEST_CASE("ring broadcast: no message waits for a link") {
  QueueWatch w;
  crossbar_timing("ring", args_of(Op::Broadcast, 7, 5000, 3, 512), 0, kAlpha, kBw, &w);
  CHECK(w.transfers == 6 * 10);
  CHECK(w.queued == 0);
}

TEST_CASE("a chain with more segments than steps can count is refused") {
  const auto a = args_of(Op::Broadcast, 4, (std::uint64_t{1} << 31) + 1, 0, 1);
  CHECK_THROWS_AS(schedule::require_algorithm(Op::Broadcast, "ring").make(a), Error);
}
