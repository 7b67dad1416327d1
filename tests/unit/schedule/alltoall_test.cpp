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

TEST_CASE("direct: one step, fair sharing gives the ideal, fifo queues to 2p-3 transfer times") {
  const int p = 5;
  const auto s = schedule::require_algorithm(Op::AllToAll, "direct").make(args_of(Op::AllToAll, p, 3));
  for (int r = 0; r < p; ++r) CHECK(steps_of(*s, r) == 1);
  for (int q : {2, 3, 4, 5, 7, 8, 13, 16})
    for (std::uint64_t count : {1, 1000, 65'537}) {
      INFO("p=", q, " count=", count);
      const auto a = args_of(Op::AllToAll, q, count);
      const Time T = transfer_time(4 * count, kBw);
      // The formula: every message at bw/(p-1) at once, alpha + (p-1)T up to rounding a share.
      const auto t = crossbar_timing("direct", a, 0);
      CHECK(t.formula == kAlpha + transfer_time(4 * count, kBw / static_cast<Bandwidth>(q - 1)));
      CHECK(crossbar_timing("direct", a, 0, kAlpha, kBw, nullptr, "flow").engine == t.formula);
      // fifo: rank p-1 begins last and its sends wait behind the p-2 messages each lower rank received;
      // exchanging in rank order keeps every link busy from then on (see alltoall.cpp).
      CHECK(t.engine == kAlpha + (2 * q - 3) * T);
    }
}

// Evidence for an engine change that would make fifo reach the ideal: if transfers that become ready
// at the same instant were handed to the network round-robin by sender (each sender's first, then each
// one's second, ...), with each rank sending to r+1, r+2, ... the k-th round would be a perfect
// matching and the fifo model would pack every link without a gap.
TEST_CASE("fifo reaches the direct alltoall ideal when same-instant transfers are handed round-robin") {
  for (int p : {2, 3, 5, 8, 16}) {
    const auto topo = topology::make_crossbar(p, kBw, kAlpha);
    topology::Router router(topo);
    auto net = engine::fifo_network().make({});
    net->reset(topo);
    struct NoEvents final : engine::ArrivalSink {
      void schedule_model_event(Time, std::uint32_t, std::uint32_t) override {}
    } sink;
    const Bytes bytes = 4 * 65'537;
    Time last = 0;
    for (int k = 1; k < p; ++k)
      for (int r = 0; r < p; ++r) {
        const int q = (r + k) % p;
        last = std::max(last, net->post(0, router.route(topo.gpu_node(r), topo.gpu_node(q)), bytes, 0, sink));
      }
    CHECK(last == kAlpha + (p - 1) * transfer_time(bytes, kBw));
  }
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
