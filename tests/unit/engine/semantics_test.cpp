// Step semantics (gpu: a send is done for its sender once its data has left; mpi: once it has arrived),
// credits, and the per-message software overhead o. Every expected time is worked out by hand in the
// comments from the links' latencies and bandwidths.
#include <doctest/doctest.h>

#include <map>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::engine;

namespace {

constexpr Time kUs = kPsPerUs;

// Rank 0 sends one `bytes`-byte message to each of ranks 1..k in one step (o, if any, paid per send).
class FanOut final : public schedule::Schedule {
 public:
  FanOut(int k, std::uint64_t bytes) : Schedule(args(k + 1)), bytes_(bytes) {}
  bool step(int r, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    if (s > 0) return false;
    if (r == 0)
      for (int q = 1; q < args_.ranks; ++q) schedule::send(out, q, {0, bytes_});
    else
      schedule::recv(out, 0, {0, bytes_});
    return true;
  }
  static schedule::CollArgs args(int p) {
    schedule::CollArgs a;
    a.ranks = p;
    a.elt_size = 1;
    return a;
  }

 private:
  std::uint64_t bytes_;
};

// Rank 0 sends one 4-byte element per step for `steps` steps; rank 1 receives and reduces one per step.
class Stream final : public schedule::Schedule {
 public:
  explicit Stream(int steps) : Schedule(FanOut::args(2)), steps_(steps) {}
  bool step(int r, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    if (s >= steps_) return false;
    r == 0 ? schedule::send(out, 1, {0, 1}) : schedule::recv_reduce(out, 0, {0, 1});
    return true;
  }

 private:
  int steps_;
};

struct Watch final : Observer {
  std::map<std::pair<int, int>, Time> step_end; // (rank, step) -> end
  std::vector<TransferRecord> transfers;
  void on_step(int, int rank, int step, Time, Time end) override { step_end[{rank, step}] = end; }
  void on_transfer(const TransferRecord& t) override { transfers.push_back(t); }
};

Time run(const topology::Topology& topo, const schedule::Schedule& sched, const ModelParams& mp, Watch* w = nullptr,
         Bytes elt = 1, const std::vector<int>& gpus = {}) {
  topology::Router router(topo);
  Engine eng(topo, router, mp, fifo_network());
  if (w) eng.add_observer(w);
  Job job;
  job.schedule = &sched;
  job.elt_size = elt;
  for (int r = 0; r < sched.args().ranks; ++r) job.node_of_rank.push_back(topo.gpu_node(gpus.empty() ? r : gpus[r]));
  return eng.run(std::span<const Job>(&job, 1)).makespan;
}

ModelParams params(Semantics s, Time o = 0, Time alpha_sw = 0) {
  ModelParams mp;
  mp.semantics = s;
  mp.overhead = o;
  mp.alpha_sw = alpha_sw;
  return mp;
}

} // namespace

TEST_CASE("4 HGX-H100 nodes over IB, 8-byte ring allreduce: gpu follows the data, mpi pays the slowest hop per step") {
  // cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib. Within a node GPU -> NVSwitch -> GPU: 2 x 300 ns =
  // 0.6 us. Across nodes GPU -> NIC (PCIe, 2 us) -> fabric (IB, 1.35 us) -> NIC (1.35 us) -> GPU (2 us) =
  // 6.7 us. A ring over GPUs 0..31 in order has 32 hops, 4 of them across nodes (7->8, 15->16, 23->24,
  // 31->0). With 0-byte messages only latencies count.
  //  mpi: every step ends when its slowest send arrives, and the ranks move in lockstep: 2(p-1) = 62
  //       steps x 6.7 us = 415.4 us.
  //  gpu: rank r may begin step s+1 once the message of step s from r-1 is in, so the finish is the
  //       longest chain of 62 consecutive hops: two laps (8 x 6.7 + 56 x 0.6 = 87.2 us) less two intra-node
  //       hops = 86.0 us. The credit window (8) never binds: the chain itself keeps senders in step.
  const auto topo = topology::resolve_topology("cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib");
  topology::Router router(topo);
  CHECK(router.info(router.route(topo.gpu_node(7), topo.gpu_node(8))).latency == 6'700'000);
  CHECK(router.info(router.route(topo.gpu_node(0), topo.gpu_node(1))).latency == 600'000);
  schedule::CollArgs a;
  a.op = schedule::Op::AllReduce;
  a.ranks = 32;
  a.count = 0;
  a.elt_size = 4;
  const auto ring = schedule::require_algorithm(a.op, "ring").make(a);
  CHECK(run(topo, *ring, params(Semantics::mpi), nullptr, 4) == 415'400'000);
  CHECK(run(topo, *ring, params(Semantics::gpu), nullptr, 4) == 86'000'000);
}

TEST_CASE("a 2-rank ping costs o + alpha + sw_alpha + n beta, and the gpu sender is done once its bytes left") {
  // Crossbar alpha 2 us, 10 GB/s; o = 3 us, sw_alpha = 1 us; 1000 B take 100 ns. The send enters the
  // network at o = 3 us and arrives at 3 + 2 + 1 + 0.1 = 6.1 us; the receive's o (posted at 3 us) overlaps
  // the flight. gpu: the sender's step ends when the last byte is on its link: 3.1 us. mpi: at arrival.
  const auto topo = topology::make_crossbar(2, 10'000'000'000ULL, 2 * kUs);
  const FanOut ping(1, 1000);
  for (auto s : {Semantics::gpu, Semantics::mpi}) {
    Watch w;
    CHECK(run(topo, ping, params(s, 3 * kUs, kUs), &w) == 6'100'000);
    CHECK(w.step_end.at({0, 0}) == (s == Semantics::gpu ? 3'100'000 : 6'100'000));
    CHECK(w.step_end.at({1, 0}) == 6'100'000);
  }
}

TEST_CASE("k messages posted in one step pay k o one after the other, while their latencies overlap") {
  // Rank 0 sends 0 bytes to each of 5 ranks: send i enters the network at i * o and arrives alpha later.
  // o = 1 us, alpha = 2 us: the last arrives at 5 + 2 = 7 us; rank 0 is busy posting until 5 us.
  const auto topo = topology::make_crossbar(6, 10'000'000'000ULL, 2 * kUs);
  const FanOut fan(5, 0);
  Watch w;
  CHECK(run(topo, fan, params(Semantics::gpu, kUs), &w) == 7 * kUs);
  CHECK(w.step_end.at({0, 0}) == 5 * kUs);
  REQUIRE(w.transfers.size() == 5);
  for (int i = 0; i < 5; ++i) CHECK(w.transfers[static_cast<std::size_t>(i)].post == (i + 1) * kUs);
  // The same cost as software latency (sw_alpha) overlaps: every message arrives at 1 + 2 us.
  CHECK(run(topo, fan, params(Semantics::gpu, 0, kUs)) == 3 * kUs);
}

TEST_CASE("parameter server on 1024 ranks: o serialises the 1023 receives and the 1023 replies at the server") {
  // Crossbar alpha 1 us, 10 GB/s, one 4-byte float (0.4 ns on a link), o = 1 us. The workers' pushes are
  // in by 2.41 us, but the server posts 1023 receives, busy until 1023 us; then it posts its 1023 replies
  // at 1023 + i us, the last arriving at 1023 + 1023 + 1 (alpha) + 0.0004 = 2047.0004 us. Same under mpi.
  // With sw_alpha = 1 us instead of o, the latencies overlap: pushes in by 0.4092 + 2 us, replies queue
  // on the server's uplink: 2.4092 + 0.4092 + 2 = 4.8184 us.
  const auto topo = topology::make_crossbar(1024, 10'000'000'000ULL, kUs);
  schedule::CollArgs a;
  a.op = schedule::Op::AllReduce;
  a.ranks = 1024;
  a.count = 1;
  a.elt_size = 4;
  const auto ps = schedule::require_algorithm(a.op, "ps").make(a);
  CHECK(run(topo, *ps, params(Semantics::gpu, kUs), nullptr, 4) == 2'047'000'400);
  CHECK(run(topo, *ps, params(Semantics::mpi, kUs), nullptr, 4) == 2'047'000'400);
  CHECK(run(topo, *ps, params(Semantics::gpu, 0, kUs), nullptr, 4) == 4'818'400);
}

TEST_CASE("credits: a fast sender runs at most 8 messages ahead of the receives its receiver posted") {
  // Rank 0 sends 20 4-byte messages, one per step (0.4 ns each on a 10 GB/s link, alpha 1 us); rank 1
  // reduces each for 10 us (4 B at 400 kB/s). Rank 1 posts receive j when it begins step j: at 0 for
  // j = 0, then at 1.0004 + 10 j us (message 0 is in at 1.0004 us). Message k may start once receive
  // k - 8 is posted: messages 0..8 start at once (0.4 ns apart), message 9 waits for receive 1 at
  // 11.0004 us, and message 19 for receive 11 at 111.0004 us: rank 0 ends its last step 0.4 ns later.
  const auto topo = topology::make_crossbar(2, 10'000'000'000ULL, kUs);
  const Stream stream(20);
  ModelParams mp = params(Semantics::gpu);
  mp.reduce_bw = 400'000;
  Watch w;
  CHECK(run(topo, stream, mp, &w, 4) == 201'000'400); // rank 1: begins step 19 at 191.0004 us, reduces 10 us
  REQUIRE(w.transfers.size() == 20);
  CHECK(w.transfers[8].post == 3'200);
  CHECK(w.transfers[9].post == 11'000'400);
  CHECK(w.transfers[19].post == 111'000'400);
  CHECK(w.step_end.at({0, 19}) == 111'000'800);
  // Without the window (eager) rank 0 is done after 20 transfers back to back.
  mp.eager = true;
  Watch e;
  run(topo, stream, mp, &e, 4);
  CHECK(e.step_end.at({0, 19}) == 8'000);
}

namespace {
// One step: rank 0 sends `big` bytes to rank 1 and receives (and reduces) `small` bytes from it; rank 1 the mirror,
// without a reduce.
class SendBigReduceSmall final : public schedule::Schedule {
 public:
  SendBigReduceSmall(std::uint64_t big, std::uint64_t small) : Schedule(FanOut::args(2)), big_(big), small_(small) {}
  bool step(int r, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    if (s > 0) return false;
    if (r == 0) {
      schedule::send(out, 1, {0, big_});
      schedule::recv_reduce(out, 1, {0, small_});
    } else {
      schedule::send(out, 0, {0, small_});
      schedule::recv(out, 0, {0, big_});
    }
    return true;
  }

 private:
  std::uint64_t big_, small_;
};
} // namespace

TEST_CASE("gpu semantics: a step's reduce begins once its last message is in and its own sends have left") {
  // Crossbar alpha 1 us, 10 GB/s. Rank 0's 100,000 B leave its link at 10 us; rank 1's 4 B are in at 1.0004 us.
  // Rank 0 reduces those 4 B at 400 kB/s (10 us) from 10 us, when its send has left: its step ends at 20 us, not
  // at 1.0004 + 10 = 11.0004 us. Rank 1's step ends when the 100,000 B are in: 1 + 10 = 11 us.
  const auto topo = topology::make_crossbar(2, 10'000'000'000ULL, kUs);
  const SendBigReduceSmall sched(100'000, 4);
  ModelParams mp = params(Semantics::gpu);
  mp.reduce_bw = 400'000;
  Watch w;
  CHECK(run(topo, sched, mp, &w) == 20 * kUs);
  CHECK(w.step_end.at({0, 0}) == 20 * kUs);
  CHECK(w.step_end.at({1, 0}) == 11 * kUs);
}
