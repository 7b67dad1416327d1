// Binomial broadcast/reduce/gather/scatter and reduce_bcast allreduce: data, rounds, no queueing,
// and engine time == formula.
#include "crossbar_run.hpp"
#include "sim/schedule/fixed_step.hpp"

using namespace ccsim;
using namespace ccsim::testing;
using schedule::Op;

namespace {
int ceil_lg(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}
} // namespace

TEST_CASE("binomial algorithms deliver the data for every p, root, count and reduction") {
  for (Op op : {Op::Broadcast, Op::Reduce, Op::Gather, Op::Scatter}) check_data(op, "binomial");
  check_data(Op::AllReduce, "reduce_bcast");
}

TEST_CASE("binomial trees take ceil(lg p) rounds and no message waits for a link") {
  for (int p : {2, 3, 5, 6, 7, 9, 12, 16, 17}) {
    for (Op op : {Op::Broadcast, Op::Reduce, Op::Gather, Op::Scatter}) {
      const int root = p - 1;
      const auto a = args_of(op, p, 3 * p + 2, root);
      QueueWatch w;
      const auto t = crossbar_timing("binomial", a, kSlowReduce, kAlpha, kBw, &w);
      INFO(schedule::to_string(op), " p=", p);
      CHECK(w.transfers == p - 1); // a tree: one message per non-root rank
      CHECK(w.queued == 0);
      CHECK(t.engine == t.formula);
      // ceil(lg p) rounds: the whole vector crosses ceil(lg p) links one after another.
      if (op == Op::Broadcast || op == Op::Reduce)
        CHECK(crossbar_timing("binomial", a, 0).engine == ceil_lg(p) * (kAlpha + transfer_time(a.count * 4, kBw)));
    }
  }
}

TEST_CASE("binomial scatter's and gather's critical paths move exactly p-1 blocks in ceil(lg p) rounds") {
  for (int p : {4, 5, 7, 8, 13, 16}) {
    const std::uint64_t c = 1000;
    const auto sc = *cost::formula_for(Op::Scatter, "binomial", args_of(Op::Scatter, p, c), 4);
    const auto ga = *cost::formula_for(Op::Gather, "binomial", args_of(Op::Gather, p, c), 4);
    Bytes sb = 0, gb = 0;
    for (const auto& t : sc.terms) sb += t.messages * t.bytes;
    for (const auto& t : ga.terms) gb += t.messages * t.bytes;
    CHECK(sb == static_cast<Bytes>(p - 1) * c * 4);
    CHECK(gb == static_cast<Bytes>(p - 1) * c * 4);
    CHECK(sc.terms.size() == static_cast<std::size_t>(ceil_lg(p)));
    CHECK(ga.terms.size() == static_cast<std::size_t>(ceil_lg(p)));
  }
}

TEST_CASE("binomial algorithms: engine time equals the formula exactly") {
  for (Op op : {Op::Broadcast, Op::Reduce}) check_formula_exact(op, "binomial", {0, 1, 777, 262'147});
  for (Op op : {Op::Gather, Op::Scatter}) check_formula_exact(op, "binomial", {0, 1, 333, 65'539});
  check_formula_exact(Op::AllReduce, "reduce_bcast", {0, 1, 777, 262'147});
}

TEST_CASE("reduce_bcast costs 2 ceil(lg p) rounds of the vector and ceil(lg p) reductions") {
  for (int p : {3, 8, 13}) {
    const std::uint64_t count = 100'003;
    const auto t = crossbar_timing("reduce_bcast", args_of(Op::AllReduce, p, count), kFastReduce);
    const Time msg = kAlpha + transfer_time(count * 4, kBw);
    CHECK(t.engine == 2 * ceil_lg(p) * msg + ceil_lg(p) * transfer_time(count * 4, kFastReduce));
  }
}

TEST_CASE("binomial gather on 5 ranks costs the textbook 3 alpha + 4/5 n beta (MPICH's tree, not a chain)") {
  // By hand: 5 MiB gathered at 10 GB/s, alpha 2 us: 3 * 2 us + 4 MiB / 10 GB/s = 6 us + 419.4304 us.
  const auto a = args_of(Op::Gather, 5, 262'144); // 1 MiB per rank of 4-byte elements
  const auto t = crossbar_timing("binomial", a, 0, 2'000'000, 10'000'000'000);
  CHECK(t.engine == 6'000'000 + 419'430'400);
  CHECK(t.formula == t.engine);
  for (int p = 2; p <= 40; ++p) {
    const auto b = args_of(Op::Gather, p, 1001, p / 3);
    INFO("p=", p);
    // 4004 B at 10 GB/s is exactly 400.4 ns, so the rounds add up without rounding.
    CHECK(crossbar_timing("binomial", b, 0, kAlpha, 10'000'000'000).engine == ceil_lg(p) * kAlpha + (p - 1) * 400'400);
  }
}

TEST_CASE("binomial broadcast peers, by hand, for p = 8 (exact halves) and p = 6 (root keeps the bigger part)") {
  using K = schedule::Action::Kind;
  // Each rank's steps as (kind, peer), root 2: relative rank v = (r - 2) mod p.
  // p = 8 is the textbook tree: v sends to v + 4, v + 2, v + 1 below its lowest set bit, receives from v - lowbit(v).
  // p = 6: [0,6) -> root keeps [0,3), hands [3,6) to 3; [0,3) -> keeps [0,2), hands [2,3) to 2; [0,2) -> 1;
  // [3,6) -> 3 keeps [3,5), hands [5,6) to 5; [3,5) -> 4.
  const std::vector<std::pair<int, std::vector<std::pair<K, int>>>> cases = {
      {8, {{K::Send, 6}, {K::Send, 4}, {K::Send, 3}}},  // v = 0 (rank 2): children v = 4, 2, 1
      {6, {{K::Send, 5}, {K::Send, 4}, {K::Send, 3}}}}; // v = 0: children v = 3, 2, 1
  for (const auto& c : cases) {
    const int p = c.first; // not a structured binding: INFO's lambda captures it (clang 14)
    const auto& root_steps = c.second;
    INFO("p=", p);
    const auto s = schedule::require_algorithm(Op::Broadcast, "binomial").make(args_of(Op::Broadcast, p, 10, 2));
    std::vector<schedule::Action> acts;
    for (int k = 0; k < static_cast<int>(root_steps.size()); ++k) {
      REQUIRE(s->step(2, k, acts));
      REQUIRE(acts.size() == 1);
      CHECK(acts[0].kind == root_steps[static_cast<std::size_t>(k)].first);
      CHECK(acts[0].peer == root_steps[static_cast<std::size_t>(k)].second);
    }
    CHECK_FALSE(s->step(2, static_cast<int>(root_steps.size()), acts));
  }
  // p = 8, v = 6 (rank 0): receives from v = 4 (rank 6), sends to v = 7 (rank 1), then done.
  const auto s8 = schedule::require_algorithm(Op::Broadcast, "binomial").make(args_of(Op::Broadcast, 8, 10, 2));
  std::vector<schedule::Action> acts;
  REQUIRE(s8->step(0, 0, acts));
  CHECK((acts[0].kind == K::Recv && acts[0].peer == 6));
  REQUIRE(s8->step(0, 1, acts));
  CHECK((acts[0].kind == K::Send && acts[0].peer == 1));
  CHECK_FALSE(s8->step(0, 2, acts));
  // p = 6, v = 4 (rank 0): receives from v = 3 (rank 5), a leaf.
  const auto s6 = schedule::require_algorithm(Op::Broadcast, "binomial").make(args_of(Op::Broadcast, 6, 10, 2));
  REQUIRE(s6->step(0, 0, acts));
  CHECK((acts[0].kind == K::Recv && acts[0].peer == 5));
  CHECK_FALSE(s6->step(0, 1, acts));
}

// The engine reads broadcast steps through step_fixed (one action each, no vector): every rank's whole schedule, by
// hand. p = 8, root 0: 0 -> 4; 0 -> 2, 4 -> 6; 0 -> 1, 2 -> 3, 4 -> 5, 6 -> 7. p = 6, root 0: [0,6) hands [3,6) to
// 3, [0,3) hands [2,3) to 2, [0,2) hands 1; 3 hands [5,6) to 5, then [4,5) to 4. Root 3 of p = 8 is the first tree
// shifted by 3 (mod 8).
TEST_CASE("binomial broadcast step_fixed lists every rank's sends and receives, by hand, for p = 8 and p = 6") {
  using K = schedule::Action::Kind;
  struct Case {
    int p, root;
    std::vector<std::vector<std::pair<K, int>>> steps; // per rank, in step order
  };
  const std::vector<Case> cases = {
      {8, 0, {{{K::Send, 4}, {K::Send, 2}, {K::Send, 1}}, {{K::Recv, 0}}, {{K::Recv, 0}, {K::Send, 3}}, {{K::Recv, 2}},
              {{K::Recv, 0}, {K::Send, 6}, {K::Send, 5}}, {{K::Recv, 4}}, {{K::Recv, 4}, {K::Send, 7}}, {{K::Recv, 6}}}},
      {6, 0, {{{K::Send, 3}, {K::Send, 2}, {K::Send, 1}}, {{K::Recv, 0}}, {{K::Recv, 0}}, {{K::Recv, 0}, {K::Send, 5}, {K::Send, 4}},
              {{K::Recv, 3}}, {{K::Recv, 3}}}},
      {8, 3, {{{K::Recv, 7}}, {{K::Recv, 7}, {K::Send, 2}}, {{K::Recv, 1}}, {{K::Send, 7}, {K::Send, 5}, {K::Send, 4}},
              {{K::Recv, 3}}, {{K::Recv, 3}, {K::Send, 6}}, {{K::Recv, 5}}, {{K::Recv, 3}, {K::Send, 1}, {K::Send, 0}}}},
  };
  for (const auto& c : cases) {
    const int p = c.p, root = c.root; // copies: INFO's lambda captures them (clang 14)
    INFO("p=", p, " root=", root);
    const auto s = schedule::require_algorithm(Op::Broadcast, "binomial").make(args_of(Op::Broadcast, p, 10, root));
    REQUIRE(s->fixed_steps());
    for (int r = 0; r < p; ++r) {
      const auto& want = c.steps[static_cast<std::size_t>(r)];
      schedule::Action out[schedule::Schedule::kFixedActions];
      for (int k = 0; k < static_cast<int>(want.size()); ++k) {
        INFO("rank ", r, " step ", k);
        const int n = s->step_fixed(r, k, out);
        REQUIRE(n % schedule::kLastFixedStep == 1);
        // The last-step mark (fixed_step.hpp) only on a rank's last step; with p a power of two, always there.
        const bool last = k + 1 == static_cast<int>(want.size()), marked = n >= schedule::kLastFixedStep;
        CHECK((!marked || last));
        if ((p & (p - 1)) == 0) CHECK(marked == last);
        CHECK(out[0].kind == want[static_cast<std::size_t>(k)].first);
        CHECK(out[0].peer == want[static_cast<std::size_t>(k)].second);
        CHECK(out[0].off == 0);
        CHECK(out[0].len == 10);
      }
      CHECK(s->step_fixed(r, static_cast<int>(want.size()), out) == -1);
    }
  }
}
