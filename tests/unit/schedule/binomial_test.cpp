// Binomial broadcast/reduce/gather/scatter and reduce_bcast allreduce: data, rounds, no queueing,
// and engine time == formula.
#include "crossbar_run.hpp"

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

TEST_CASE("binomial scatter's critical path moves exactly p-1 blocks, gather's is ceil(p/2)+ceil(p/4)+...") {
  for (int p : {4, 5, 7, 8, 13, 16}) {
    const std::uint64_t c = 1000;
    const auto sc = *cost::formula_for(Op::Scatter, "binomial", args_of(Op::Scatter, p, c), 4);
    const auto ga = *cost::formula_for(Op::Gather, "binomial", args_of(Op::Gather, p, c), 4);
    Bytes sb = 0, gb = 0, want_g = 0;
    for (const auto& t : sc.terms) sb += t.messages * t.bytes;
    for (const auto& t : ga.terms) gb += t.messages * t.bytes;
    for (int m = p; m > 1;) m = (m + 1) / 2, want_g += static_cast<Bytes>(m) * c * 4;
    CHECK(sb == static_cast<Bytes>(p - 1) * c * 4);
    CHECK(gb == want_g);
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
