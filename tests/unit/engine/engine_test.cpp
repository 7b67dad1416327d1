// Engine behaviour that must hold whatever the algorithm: contention, determinism, monotonicity,
// two engines running concurrently, and the DGX-1 facts the core issue names.
#include <doctest/doctest.h>

#include <thread>
#include <vector>

#include "sim/engine/fifo_network.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

namespace {

metrics::RunConfig ring_on(std::vector<std::vector<int>> rings) {
  metrics::RunConfig c;
  c.placements = std::move(rings);
  return c;
}

std::vector<int> iota_ranks(int p) {
  std::vector<int> v;
  for (int i = 0; i < p; ++i) v.push_back(i);
  return v;
}

} // namespace

TEST_CASE("two rings sharing every link take twice as long as one ring with the same bytes") {
  // Two concurrent jobs over the same ring order share each directed channel FIFO: with half the data
  // each, the bandwidth term is unchanged, and only latency differs.
  auto topo = topology::make_crossbar(4, 10'000'000'000ULL, 0);
  topology::Router router(topo);
  const Bytes n = 64ULL << 20;
  auto one = metrics::simulate(topo, router, ring_on({iota_ranks(4)}), n);
  auto two = metrics::simulate(topo, router, ring_on({iota_ranks(4), iota_ranks(4)}), n);
  CHECK(two.time == one.time); // alpha = 0: same bytes through the same links
  // Distinct bytes through one shared link: contention, so longer than alone.
  auto half = metrics::simulate(topo, router, ring_on({iota_ranks(4)}), n / 2);
  CHECK(two.time > half.time);
}

TEST_CASE("time never decreases with size, and faster links never make a run slower") {
  for (int p : {3, 8}) {
    auto slow = topology::make_crossbar(p, 10'000'000'000ULL, 2 * kPsPerUs);
    auto fast = topology::make_crossbar(p, 20'000'000'000ULL, 2 * kPsPerUs);
    topology::Router rs(slow), rf(fast);
    Time prev = 0;
    for (Bytes n : metrics::size_series(8, 64ULL << 20, 4)) {
      auto a = metrics::simulate(slow, rs, ring_on({iota_ranks(p)}), n);
      auto b = metrics::simulate(fast, rf, ring_on({iota_ranks(p)}), n);
      CHECK(a.time >= prev);
      CHECK(b.time <= a.time);
      prev = a.time;
    }
  }
}

TEST_CASE("runs are bit-identical, also when two engines run at the same time on two threads") {
  // Each engine owns its state: two simulations in flight at once (each with its own router) must give
  // what one run alone gives. Several rounds per thread so the runs really overlap.
  auto topo = topology::resolve_topology("dgx1");
  const auto rings = topology::pack_rings(topo, {}).rings;
  topology::Router r0(topo);
  const auto alone = metrics::simulate(topo, r0, ring_on(rings), 1 << 20);
  constexpr int kRounds = 8;
  std::vector<metrics::Row> got[2];
  auto work = [&](int t) {
    topology::Router router(topo);
    for (int i = 0; i < kRounds; ++i) got[t].push_back(metrics::simulate(topo, router, ring_on(rings), 1 << 20));
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  for (const auto& rows : got) {
    REQUIRE(rows.size() == kRounds);
    for (const auto& row : rows) {
      CHECK(row.time == alone.time);
      CHECK(row.result.events == alone.result.events);
      CHECK(row.result.channels.bytes == alone.result.channels.bytes);
    }
  }
}

TEST_CASE("busbw never exceeds what the links can carry") {
  // On the ideal crossbar each GPU sends at most B: ring allreduce busbw <= B.
  auto topo = topology::make_crossbar(8, 25'000'000'000ULL, 0);
  topology::Router router(topo);
  auto row = metrics::simulate(topo, router, ring_on({iota_ranks(8)}), 1ULL << 30);
  CHECK(row.bw.busbw_GBps <= 25.0 + 1e-9);
  CHECK(row.bw.busbw_GBps > 24.9);
  // DGX-1V: 6 NVLinks x 25 GB/s per GPU = 150 GB/s is the ceiling.
  auto dgx = topology::resolve_topology("dgx1");
  topology::Router rd(dgx);
  auto d = metrics::simulate(dgx, rd, ring_on(topology::pack_rings(dgx, {}).rings), 128ULL << 20);
  CHECK(d.bw.busbw_GBps <= 150.0);
}

TEST_CASE("DGX-1V: the doubled-NVLink ring beats rank order, and the default is near the measurement") {
  auto topo = topology::resolve_topology("dgx1-v100");
  topology::Router router(topo);
  const Bytes n = 128ULL << 20;
  auto doubled = metrics::simulate(topo, router, ring_on({{0, 3, 2, 1, 5, 6, 7, 4}}), n);
  auto naive = metrics::simulate(topo, router, ring_on({{0, 1, 2, 3, 4, 5, 6, 7}}), n);
  CHECK(doubled.bw.busbw_GBps > naive.bw.busbw_GBps);
  CHECK(doubled.bw.busbw_GBps == doctest::Approx(50.0).epsilon(0.01)); // 2 lanes x 25 GB/s
  CHECK(naive.bw.busbw_GBps == doctest::Approx(25.0).epsilon(0.01));   // hop 0->1 is a single NVLink
  // The measured 128 MiB allreduce busbw on an 8x V100 cube-mesh is 129.14 GB/s
  // (shared/traces/dgx1-v100-8gpu-allreduce-konnase.txt); the default (6 packed rings) must be within 1.5x.
  auto dflt = metrics::simulate(topo, router, ring_on(topology::pack_rings(topo, {}).rings), n);
  CHECK(dflt.bw.busbw_GBps > 129.14 / 1.5);
  CHECK(dflt.bw.busbw_GBps < 129.14 * 1.5);
}

TEST_CASE("store-and-forward pays every hop, cut-through pays the bottleneck once") {
  auto topo = topology::make_crossbar(2, 10'000'000'000ULL, 2 * kPsPerUs);
  topology::Router router(topo);
  auto cfg = ring_on({{0, 1}});
  const Bytes n = 1 << 20;
  auto ct = metrics::simulate(topo, router, cfg, n);
  cfg.model_name = "store_forward";
  auto sf = metrics::simulate(topo, router, cfg, n);
  // p = 2 ring allreduce: 2 steps of n/2 bytes; each crosses 2 links.
  CHECK(ct.time == 2 * (2 * kPsPerUs + transfer_time(n / 2, 10'000'000'000ULL)));
  CHECK(sf.time == 2 * (2 * kPsPerUs + 2 * transfer_time(n / 2, 10'000'000'000ULL)));
}

TEST_CASE("software alpha and reduction cost add where the model says") {
  auto topo = topology::make_crossbar(4, 10'000'000'000ULL, 2 * kPsPerUs);
  topology::Router router(topo);
  auto cfg = ring_on({iota_ranks(4)});
  const Bytes n = 4ULL << 20;
  auto base = metrics::simulate(topo, router, cfg, n);
  cfg.model.alpha_sw = 3 * kPsPerUs;
  auto sw = metrics::simulate(topo, router, cfg, n);
  CHECK(sw.time - base.time == 6 * 3 * kPsPerUs); // 2(p-1) steps
  cfg.model.alpha_sw = 0;
  cfg.model.reduce_bw = 100'000'000'000ULL;
  auto red = metrics::simulate(topo, router, cfg, n);
  CHECK(red.time - base.time == 3 * transfer_time(n / 4, 100'000'000'000ULL)); // p-1 reducing steps
}

// A cut-through message holds every link of its route for bytes / (the route's slowest capacity); store and
// forward holds each link for bytes / (its own capacity), one after the other. Routes of one capacity cannot tell
// min from max; this one has a 10 GB/s and a 5 GB/s link. 1 MB: 100 us on the fast link alone, 200 us on the slow.
TEST_CASE("FIFO hop intervals on a route of two capacities: cut-through holds both links at the slowest rate") {
  topology::Topology topo;
  const int a = topo.add_node("gpu0", topology::NodeKind::Gpu);
  const int b = topo.add_node("gpu1", topology::NodeKind::Gpu);
  const int sw = topo.add_node("sw", topology::NodeKind::NetSwitch);
  topo.add_link(a, sw, topology::LinkType::Ideal, 10'000'000'000ULL, 0);
  topo.add_link(sw, b, topology::LinkType::Ideal, 5'000'000'000ULL, 0);
  const topology::ChannelId route[2] = {topology::Topology::channel(0, false), topology::Topology::channel(1, false)};
  const Bytes n = 1'000'000;
  const Time us100 = 100 * kPsPerUs;
  std::vector<engine::Occupancy> hops;

  engine::FifoNetwork cut(false, 0);
  cut.reset(topo);
  CHECK(cut.post(route, n, 0) == 2 * us100);
  cut.last_occupancy(route, n, hops);
  REQUIRE(hops.size() == 2);
  for (const auto& h : hops) {
    CHECK(h.begin == 0);
    CHECK(h.end == 2 * us100);
  }

  engine::FifoNetwork sf(true, 0);
  sf.reset(topo);
  CHECK(sf.post(route, n, 0) == 3 * us100); // 100 us on the first link, then 200 us on the second
  sf.last_occupancy(route, n, hops);
  REQUIRE(hops.size() == 2);
  CHECK(hops[0].begin == 0);
  CHECK(hops[0].end == us100);
  CHECK(hops[1].begin == us100);
  CHECK(hops[1].end == 3 * us100);
}
