// The flow model (--model flow): latency as a pure delay, then max-min fair sharing of each directed link.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "sim/engine/engine.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"
#include "listed_transfers.hpp"

using namespace ccsim;
using namespace ccsim::engine;

namespace {

constexpr Bandwidth kBw = 10'000'000'000; // 10 GB/s per direction
constexpr Time kAlpha = 2 * kPsPerUs;     // end to end on the crossbar (two links of 1 us)

// One step: every sender i in `senders` sends bytes[i] (in 1-byte elements) to `dst`; `dst` posts its
// receives in `recv_order`. Lets a test choose who competes and in which order things are posted.
class Incast final : public schedule::Schedule {
 public:
  Incast(int ranks, int dst, std::vector<int> senders, std::vector<std::uint64_t> bytes, std::vector<int> recv_order)
      : Schedule(test::byte_args(ranks)), dst_(dst), senders_(std::move(senders)), bytes_(std::move(bytes)),
        order_(std::move(recv_order)) {}
  bool step(int r, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    if (s > 0) return false;
    for (std::size_t i = 0; i < senders_.size(); ++i)
      if (senders_[i] == r) schedule::send(out, dst_, {0, bytes_[i]});
    if (r == dst_)
      for (int src : order_) {
        const auto i = static_cast<std::size_t>(std::find(senders_.begin(), senders_.end(), src) - senders_.begin());
        schedule::recv(out, src, {0, bytes_[i]});
      }
    return true;
  }

 private:
  int dst_;
  std::vector<int> senders_;
  std::vector<std::uint64_t> bytes_;
  std::vector<int> order_;
};

// Records when each rank's step 0 ends (= when its last message was in, for a receiver: the last arrival).
struct StepEnds final : Observer {
  std::map<int, Time> end;
  void on_step(int, int rank, int step, Time, Time e) override {
    if (step == 0) end[rank] = e;
  }
};

std::map<int, Time> run_incast(int ranks, int dst, std::vector<int> senders, std::vector<std::uint64_t> bytes,
                               std::vector<int> order, Time* makespan = nullptr,
                               Semantics semantics = Semantics::mpi, // SimGrid's: senders wait for arrival
                               Time alpha_sw = 0) {
  auto topo = topology::make_crossbar(ranks, kBw, kAlpha);
  topology::Router router(topo);
  ModelParams mp;
  mp.semantics = semantics;
  mp.alpha_sw = alpha_sw;
  Engine eng(topo, router, mp, *find_network("flow"));
  StepEnds obs;
  eng.add_observer(&obs);
  Incast sched(ranks, dst, std::move(senders), std::move(bytes), std::move(order));
  Job job;
  job.schedule = &sched;
  job.elt_size = 1;
  for (int g = 0; g < ranks; ++g) job.node_of_rank.push_back(topo.gpu_node(g));
  const auto res = eng.run(std::span<const Job>(&job, 1));
  if (makespan) *makespan = res.makespan;
  return obs.end;
}

} // namespace

TEST_CASE("flow: an uncontended message costs alpha + n/B exactly") {
  for (std::uint64_t n : {1ull, 1000ull, 4096ull, 12345677ull, 64ull << 20}) {
    Time t = 0;
    auto end = run_incast(2, 1, {0}, {n}, {0}, &t);
    CHECK(t == kAlpha + transfer_time(n, kBw));
    CHECK(end.at(0) == t); // the sender is done when its message is in
  }
}

// Software latency (--sw-alpha) is part of a message's latency phase under flow as under fifo, once a message:
// 2 us of links + 1 us + n/B. 1000 B at 10 GB/s: 0.1 us, so 3.1 us; a 0-byte message 3 us. Under gpu semantics
// the receiver's step ends at the same arrival.
TEST_CASE("flow: sw_alpha adds once to every message, empty or not: alpha + sw_alpha + n/B") {
  for (auto sem : {Semantics::mpi, Semantics::gpu}) {
    Time t = 0;
    auto end = run_incast(2, 1, {0}, {1000}, {0}, &t, sem, kPsPerUs);
    CHECK(t == 3'100'000);
    CHECK(end.at(1) == 3'100'000);
    auto empty = run_incast(2, 1, {0}, {0}, {0}, &t, sem, kPsPerUs);
    CHECK(t == 3'000'000);
    CHECK(empty.at(1) == 3'000'000);
  }
}

TEST_CASE("flow under gpu semantics: the bytes flow first, the sender is done when they are through, the latency follows") {
  for (std::uint64_t n : {1ull, 1000ull, 12345677ull}) {
    Time t = 0;
    auto end = run_incast(2, 1, {0}, {n}, {0}, &t, Semantics::gpu);
    CHECK(t == kAlpha + transfer_time(n, kBw)); // alone, the same as latency first
    CHECK(end.at(0) == transfer_time(n, kBw));  // left the sender
    CHECK(end.at(1) == t);
  }
  // Two flows into one link: each gets half, both leave at 2n/B and arrive alpha later.
  const std::uint64_t n = 1'000'000;
  Time t = 0;
  auto end = run_incast(3, 2, {0, 1}, {n, n}, {0, 1}, &t, Semantics::gpu);
  CHECK(end.at(0) == transfer_time(n, kBw / 2));
  CHECK(t == kAlpha + transfer_time(n, kBw / 2));
}

TEST_CASE("flow: two flows into one link get half each") {
  const std::uint64_t n = 1'000'000;
  Time t = 0;
  auto end = run_incast(3, 2, {0, 1}, {n, n}, {0, 1}, &t);
  CHECK(t == kAlpha + transfer_time(n, kBw / 2));
  CHECK(end.at(0) == t);
  CHECK(end.at(1) == t);
}

TEST_CASE("flow: the short flow leaves and the long one speeds up") {
  const std::uint64_t n = 1'000'000; // n/(B/2) = 200 us, then n more at B = 100 us
  auto end = run_incast(3, 2, {0, 1}, {n, 2 * n}, {0, 1});
  CHECK(end.at(0) == kAlpha + transfer_time(n, kBw / 2));
  CHECK(end.at(1) == kAlpha + transfer_time(n, kBw / 2) + transfer_time(n, kBw));
}

TEST_CASE("flow: many-to-one incast shares the receiver's link k ways") {
  for (int k : {4, 10, 50}) {
    std::vector<int> senders;
    for (int i = 1; i <= k; ++i) senders.push_back(i);
    const std::uint64_t n = 1 << 20;
    Time t = 0;
    run_incast(k + 1, 0, senders, std::vector<std::uint64_t>(static_cast<std::size_t>(k), n), senders, &t);
    CHECK(t == kAlpha + transfer_time(n, kBw / static_cast<Bandwidth>(k)));
    // The link is never idle: the same bytes as k messages one after the other.
    CHECK(t >= kAlpha + transfer_time(n * static_cast<std::uint64_t>(k), kBw));
    CHECK(t <= kAlpha + transfer_time(n * static_cast<std::uint64_t>(k), kBw) + k);
  }
}

TEST_CASE("flow: results do not depend on the order transfers are posted in") {
  const std::vector<std::uint64_t> sizes = {3'000'000, 1'000'000, 7'000'001, 2'500'000, 1'000'000};
  std::vector<int> senders = {1, 2, 3, 4, 5};
  auto a = run_incast(6, 0, senders, sizes, senders);
  std::vector<int> rev(senders.rbegin(), senders.rend());
  auto b = run_incast(6, 0, senders, sizes, rev);
  // Same flows, listed (and so posted and started) in reverse rank order.
  std::vector<int> senders2 = rev;
  std::vector<std::uint64_t> sizes2(sizes.rbegin(), sizes.rend());
  auto c = run_incast(6, 0, senders2, sizes2, senders);
  CHECK(a == b);
  CHECK(a == c);
  // Max-min: the two 1 MB flows finish first and together, the 7 MB flow last at alpha + total/B.
  CHECK(a.at(2) == a.at(5));
  CHECK(a.at(2) < a.at(4));
  CHECK(a.at(4) < a.at(1));
  CHECK(a.at(1) < a.at(3));
  Bytes total = 0;
  for (auto s : sizes) total += s;
  CHECK(a.at(3) >= kAlpha + transfer_time(total, kBw));
  CHECK(a.at(3) <= kAlpha + transfer_time(total, kBw) + 5);
}

TEST_CASE("flow: ring allreduce on a crossbar equals the fifo model and the closed form") {
  for (int p : {2, 5, 16}) {
    auto topo = topology::make_crossbar(p, kBw, kAlpha);
    topology::Router router(topo);
    metrics::RunConfig cfg;
    cfg.placements = {{}};
    for (int g = 0; g < p; ++g) cfg.placements[0].push_back(g);
    const Bytes n = 1024 * 1024 * static_cast<Bytes>(p) * 4;
    cfg.model_name = "fifo";
    const auto fifo = metrics::simulate(topo, router, cfg, n);
    cfg.model_name = "flow";
    const auto flow = metrics::simulate(topo, router, cfg, n);
    CHECK(flow.time == fifo.time);
    CHECK(flow.time == 2 * (p - 1) * (kAlpha + transfer_time(n / static_cast<Bytes>(p), kBw)));
  }
}

// All-to-all posting every send at once: each rank's up and down link carries p-1 flows, so every flow
// runs at B/(p-1) (rounded down to whole bytes/s, which costs at most a few ps) and the collective takes
// alpha + (p-1) m / B. At p = 16 the one connected component (every link) needs 32 bottleneck rounds, so
// progressive filling goes past its scan into the heap; at p = 4 it stays in the scan.
TEST_CASE("flow: all-to-all on a crossbar shares every link p-1 ways, with the scan and with the heap") {
  for (int p : {4, 16}) {
    for (Semantics sem : {Semantics::mpi, Semantics::gpu}) {
      auto topo = topology::make_crossbar(p, kBw, kAlpha);
      topology::Router router(topo);
      metrics::RunConfig cfg;
      cfg.op = schedule::Op::AllToAll;
      cfg.algo = "direct";
      cfg.model_name = "flow";
      cfg.model.semantics = sem;
      cfg.placements = {{}};
      for (int g = 0; g < p; ++g) cfg.placements[0].push_back(g);
      const Bytes m = 65536; // bytes to each peer; the size is the send buffer, m to every rank
      const auto row = metrics::simulate(topo, router, cfg, m * static_cast<Bytes>(p));
      const Time ideal = kAlpha + transfer_time(m * static_cast<Bytes>(p - 1), kBw);
      CHECK(row.time >= ideal);
      CHECK(row.time <= ideal + 4);
    }
  }
}

// Flows that finish together share one completion event (a group). Reduce-scatter + allgather on 7 ranks
// leaves components whose finished flows' channels stay remembered; a later flow that joins such an
// emptied channel must not cancel the group of the flow still running there (it did: the run ended in a
// "schedule deadlock"). Expected times: main's binary before groups existed (ccsim bench --topo
// crossbar:ranks=7,bw=10GB/s,alpha=2us --op allreduce --algo reducescatter_allgather -n N --model flow).
TEST_CASE("flow: a group of flows finishing together survives a flow joining a channel they left") {
  const std::pair<Bytes, Time> cases[] = {{1024, 14'399'600}, {8192, 17'164'400}, {65536, 40'901'200}};
  for (const auto& [n, expected] : cases) {
    auto topo = topology::make_crossbar(7, kBw, kAlpha);
    topology::Router router(topo);
    metrics::RunConfig cfg;
    cfg.algo = "reducescatter_allgather";
    cfg.model_name = "flow";
    cfg.model.semantics = Semantics::gpu;
    cfg.placements = {{0, 1, 2, 3, 4, 5, 6}};
    CHECK(metrics::simulate(topo, router, cfg, n).time == expected);
  }
}

// A ring on a strided two-level fat tree: every step, the k flows behind one leaf uplink start and finish
// together (one group each). Each step is latency + one chunk at B/k: 2(p-1)(alpha + (n/p)/(B/k)).
TEST_CASE("flow: ring allreduce across oversubscribed leaf uplinks, each step's flows finishing as one group") {
  const int k = 4, leaves = 3, p = k * leaves;
  topology::Topology topo;
  for (int i = 0; i < p; ++i) topo.add_node("gpu" + std::to_string(i), topology::NodeKind::Gpu);
  for (int j = 0; j < leaves; ++j) topo.add_node("leaf" + std::to_string(j), topology::NodeKind::NetSwitch);
  const int spine = topo.add_node("spine", topology::NodeKind::NetSwitch);
  const Time lat = kPsPerUs / 2;
  for (int i = 0; i < p; ++i) topo.add_link(i, p + i / k, topology::LinkType::Ideal, kBw, lat);
  for (int j = 0; j < leaves; ++j) topo.add_link(p + j, spine, topology::LinkType::Ideal, kBw, lat);
  topology::Router router(topo);
  metrics::RunConfig cfg;
  cfg.model_name = "flow";
  cfg.model.semantics = Semantics::mpi;
  cfg.placements = {{}};
  for (int r = 0; r < p; ++r) cfg.placements[0].push_back((r % leaves) * k + r / leaves); // neighbours on other leaves
  const Bytes n = static_cast<Bytes>(p) * 4 * 100'000;
  const Time step = 4 * lat + transfer_time(n / static_cast<Bytes>(p), kBw / k);
  CHECK(metrics::simulate(topo, router, cfg, n).time == 2 * (p - 1) * step);
}
