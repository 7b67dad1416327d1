// Ring facts of collectives-reference §4.3, computed from the topology files, and the ring search of
// `ccsim rings` on the DGX-1, tori, a fragmented allocation, an NVSwitch-like crossbar and a cluster.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <numeric>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/ring_rank.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using topology::Link;

namespace {

bool any_link(const Link&) { return true; }
bool nvlink(const Link& l) { return topology::is_nvlink(l.type); }

// Same undirected ring: equal up to rotation and direction.
bool same_ring(std::vector<int> a, std::vector<int> b) {
  if (a.size() != b.size()) return false;
  for (int dir = 0; dir < 2; ++dir) {
    for (std::size_t r = 0; r < a.size(); ++r) {
      std::rotate(a.begin(), a.begin() + 1, a.end());
      if (a == b) return true;
    }
    std::reverse(a.begin(), a.end());
  }
  return false;
}

metrics::RunConfig allreduce() {
  metrics::RunConfig c;
  c.op = schedule::Op::AllReduce;
  c.algo = "ring";
  // The rankings below (and docs/choosing-a-ring.md) are under blocking semantics, where every step
  // pays its slowest hop; under gpu semantics latency differences overlap and many more rings tie.
  c.model.semantics = engine::Semantics::mpi;
  return c;
}

struct Ranked {
  std::unique_ptr<topology::Topology> owned; // the router and hop table point into it
  const topology::Topology& topo() const { return *owned; }
  std::unique_ptr<topology::Router> router;
  std::unique_ptr<topology::HopTable> hops;
  topology::RingSearchResult found;
  std::vector<metrics::RankedRing> ranked;
};

Ranked rank(topology::Topology t, std::vector<int> gpus, Bytes size, int keep = 32) {
  Ranked r{std::make_unique<topology::Topology>(std::move(t)), nullptr, nullptr, {}, {}};
  r.router = std::make_unique<topology::Router>(r.topo());
  r.hops = std::make_unique<topology::HopTable>(r.topo(), *r.router, gpus);
  topology::RingSearchOptions o;
  o.step_bytes = metrics::ring_step_bytes(schedule::Op::AllReduce, r.hops->size(), size, 4);
  o.keep = keep;
  r.found = topology::search_rings(*r.hops, o);
  r.ranked = metrics::rank_candidates(r.topo(), *r.router, *r.hops, allreduce(), size, r.found);
  return r;
}

// n copies of a machine whose NICs all plug into one network switch (the cluster generator lives on
// another branch; this is the minimum the search needs).
topology::Topology cluster_of(const topology::Topology& node, int copies, Bandwidth nic_bw) {
  topology::Topology t;
  t.name = "cluster";
  t.origin = "generated";
  std::vector<std::vector<int>> id(static_cast<std::size_t>(copies));
  // GPUs first so GPU k*G+i is GPU i of copy k.
  for (int k = 0; k < copies; ++k) {
    id[static_cast<std::size_t>(k)].assign(node.nodes.size(), -1);
    for (int g = 0; g < node.num_gpus(); ++g)
      id[static_cast<std::size_t>(k)][static_cast<std::size_t>(node.gpu_node(g))] =
          t.add_node(fmt::format("n{}.{}", k, node.nodes[static_cast<std::size_t>(node.gpu_node(g))].name), topology::NodeKind::Gpu);
  }
  for (int k = 0; k < copies; ++k)
    for (std::size_t v = 0; v < node.nodes.size(); ++v)
      if (id[static_cast<std::size_t>(k)][v] < 0)
        id[static_cast<std::size_t>(k)][v] = t.add_node(fmt::format("n{}.{}", k, node.nodes[v].name), node.nodes[v].kind);
  const int sw = t.add_node("netswitch", topology::NodeKind::NetSwitch);
  for (int k = 0; k < copies; ++k) {
    const auto& m = id[static_cast<std::size_t>(k)];
    for (const auto& l : node.links)
      t.add_link(m[static_cast<std::size_t>(l.a)], m[static_cast<std::size_t>(l.b)], l.type, l.bw, l.latency, l.lanes, l.source);
    for (std::size_t v = 0; v < node.nodes.size(); ++v)
      if (node.nodes[v].kind == topology::NodeKind::Nic) t.add_link(m[v], sw, topology::LinkType::Ib, nic_bw, 1350 * kPsPerNs, 1, "test");
  }
  t.validate();
  return t;
}

} // namespace

TEST_CASE("DGX-1 NVLink graph: 30 undirected Hamiltonian cycles on both generations") {
  for (const char* name : {"dgx1-v100", "dgx1-p100"}) {
    const auto t = topology::resolve_topology(name);
    const auto cycles = topology::hamiltonian_cycles(t, {}, nvlink);
    CHECK(cycles.size() == 30);
    std::set<std::vector<int>> distinct(cycles.begin(), cycles.end());
    CHECK(distinct.size() == cycles.size());
    for (const auto& c : cycles) CHECK(c.front() == 0);
  }
}

TEST_CASE("DGX-1V: the doubled links form exactly one ring, the single links exactly one") {
  const auto t = topology::resolve_topology("dgx1-v100");
  const auto doubled = topology::hamiltonian_cycles(t, {}, [](const Link& l) { return nvlink(l) && l.lanes >= 2; });
  REQUIRE(doubled.size() == 1);
  CHECK(same_ring(doubled[0], {0, 3, 2, 1, 5, 6, 7, 4}));
  const auto single = topology::hamiltonian_cycles(t, {}, [](const Link& l) { return nvlink(l) && l.lanes == 1; });
  REQUIRE(single.size() == 1);
  CHECK(same_ring(single[0], {0, 1, 3, 7, 5, 4, 6, 2}));
}

TEST_CASE("link-disjoint decompositions: DGX-1V 3 rings in 13 ways, DGX-1 P100 2 rings in 12 ways") {
  const auto v = topology::resolve_topology("dgx1-v100");
  const auto vc = topology::hamiltonian_cycles(v, {}, any_link);
  const auto v3 = topology::lane_decompositions(v, {}, vc, 3, true);
  CHECK(v3.size() == 13);
  // The canonical one: the doubled ring twice plus the single ring.
  bool canonical = false;
  for (const auto& d : v3) {
    std::multiset<std::vector<int>> rings;
    for (int i : d) rings.insert(vc[static_cast<std::size_t>(i)]);
    int doubled = 0, single = 0;
    for (const auto& r : rings) doubled += same_ring(r, {0, 3, 2, 1, 5, 6, 7, 4}), single += same_ring(r, {0, 1, 3, 7, 5, 4, 6, 2});
    canonical |= doubled == 2 && single == 1;
  }
  CHECK(canonical);
  // 24 lanes cannot hold 4 rings of 8 hops.
  CHECK(topology::lane_decompositions(v, {}, vc, 4, false).empty());
  const auto p = topology::resolve_topology("dgx1-p100");
  const auto pc = topology::hamiltonian_cycles(p, {}, any_link);
  CHECK(topology::lane_decompositions(p, {}, pc, 2, true).size() == 12);
  CHECK(topology::lane_decompositions(p, {}, pc, 3, false).empty());
}

TEST_CASE("dgx1: the exhaustive search ranks the doubled ring first, and pack_rings keeps 6/4 rings") {
  auto r = rank(topology::resolve_topology("dgx1-v100"), {}, 128ULL << 20);
  CHECK(r.found.exhaustive);
  CHECK(r.found.distinct_rings == 2520);
  REQUIRE(!r.ranked.empty());
  CHECK(same_ring(r.ranked[0].rings[0], {0, 3, 2, 1, 5, 6, 7, 4}));
  CHECK(r.ranked[0].row.time < r.ranked[1].row.time);
  for (std::size_t i = 1; i < r.ranked.size(); ++i) CHECK(r.ranked[i - 1].row.time <= r.ranked[i].row.time);
  // The rank-order ring 0..7 is slower than the best (single 0-1 hop, routed 3->4 and 7->0).
  metrics::RankedRing naive =
      metrics::simulate_rings(r.topo(), *r.router, *r.hops, allreduce(), 128ULL << 20, {{0, 1, 2, 3, 4, 5, 6, 7}});
  CHECK(naive.row.time > r.ranked[0].row.time);
  CHECK(!r.hops->at(3, 4).direct);
  CHECK(topology::pack_rings(r.topo(), {}).rings.size() == 6);
  CHECK(topology::pack_rings(topology::resolve_topology("dgx1-p100"), {}).rings.size() == 4);
}

TEST_CASE("dgx1 channels: 6 rings at once are link-disjoint and match the packed default") {
  auto r = rank(topology::resolve_topology("dgx1-v100"), {}, 128ULL << 20);
  const auto pool = metrics::channel_pool(*r.hops, r.found);
  const double step = metrics::ring_step_bytes(schedule::Op::AllReduce, 8, 128ULL << 20, 4);
  const auto six = topology::choose_ring_set(*r.hops, pool, 6, step);
  CHECK(six.rings.size() == 6);
  CHECK(six.score.within_lanes);
  std::vector<std::vector<int>> gpus;
  for (const auto& x : six.rings) gpus.push_back(r.hops->to_gpus(x));
  const auto set = metrics::simulate_rings(r.topo(), *r.router, *r.hops, allreduce(), 128ULL << 20, gpus);
  const auto packed = metrics::simulate_rings(r.topo(), *r.router, *r.hops, allreduce(), 128ULL << 20, topology::pack_rings(r.topo(), {}).rings);
  CHECK(set.row.bw.busbw_GBps >= packed.row.bw.busbw_GBps * 0.999);
  CHECK(set.row.bw.busbw_GBps > 2.5 * r.ranked[0].row.bw.busbw_GBps); // 6 x 25 vs one doubled ring at 50
  // 7 rings cannot fit 48 directed lanes: the set must share.
  const auto seven = topology::choose_ring_set(*r.hops, pool, 7, step);
  CHECK(!seven.score.within_lanes);
  // P100: 4 directed rings fit the 16 single links.
  auto p = rank(topology::resolve_topology("dgx1-p100"), {}, 128ULL << 20);
  CHECK(topology::choose_ring_set(*p.hops, metrics::channel_pool(*p.hops, p.found), 4, step).score.within_lanes);
}

TEST_CASE("torus 4x4: the best ring is a snake over neighbour links and beats the wrapping rank order") {
  auto r = rank(topology::generate_from_spec("torus:dims=4x4,bw=100GB/s,alpha=1us"), {}, 64ULL << 20);
  CHECK(!r.found.exhaustive);
  CHECK(r.found.method.find("NOT exhaustive") != std::string::npos);
  const auto& best = r.ranked.front().rings[0];
  for (std::size_t k = 0; k < best.size(); ++k) CHECK(r.hops->at(best[k], best[(k + 1) % best.size()]).direct);
  std::vector<int> order(16);
  std::iota(order.begin(), order.end(), 0);
  bool wraps = false;
  for (int k = 0; k < 16; ++k) wraps |= !r.hops->at(order[static_cast<std::size_t>(k)], order[static_cast<std::size_t>((k + 1) % 16)]).direct;
  CHECK(wraps);
  const auto naive = metrics::simulate_rings(r.topo(), *r.router, *r.hops, allreduce(), 64ULL << 20, {order});
  CHECK(r.ranked.front().row.time < naive.row.time);
}

TEST_CASE("bounded search: 8x8 and 4x4x4 tori, a 16-GPU NVSwitch-like crossbar, 64 GPUs over 8 nodes") {
  for (const char* spec : {"torus:dims=8x8,bw=100GB/s,alpha=1us", "torus:dims=4x4x4,bw=100GB/s,alpha=1us"}) {
    auto r = rank(topology::generate_from_spec(spec), {}, 64ULL << 20, 8);
    CHECK(!r.found.exhaustive);
    const auto& best = r.ranked.front().rings[0];
    CHECK(best.size() == 64);
    for (std::size_t k = 0; k < best.size(); ++k) CHECK(r.hops->at(r.hops->local_of(best[k]), r.hops->local_of(best[(k + 1) % 64])).direct);
  }
  {
    auto r = rank(topology::generate_from_spec("crossbar:ranks=16,bw=150GB/s,alpha=1us"), {}, 64ULL << 20, 8);
    CHECK(!r.found.exhaustive);
    CHECK(r.ranked.size() >= 1);
  }
  {
    const auto node = topology::resolve_topology("dgx1-v100");
    auto r = rank(cluster_of(node, 8, 12'500'000'000ULL), {}, 64ULL << 20, 8);
    CHECK(!r.found.exhaustive);
    const auto& best = r.ranked.front().rings[0];
    REQUIRE(best.size() == 64);
    int net = 0;
    for (std::size_t k = 0; k < 64; ++k) net += r.hops->at(r.hops->local_of(best[k]), r.hops->local_of(best[(k + 1) % 64])).kind == "NET";
    CHECK(net == 8); // leaves each node once
  }
}

// How fast this runs is a benchmark's question (scripts/BENCHMARKS.md, `ccsim rings`), not a unit test's: this case
// checks only what the exhaustive search finds.
TEST_CASE("exhaustive search on 12 GPUs: every distinct ring of a crossbar, and 2 network hops across two DGX-1V nodes") {
  auto r = rank(topology::generate_from_spec("crossbar:ranks=12,bw=25GB/s,alpha=1us"), {}, 12ULL << 20, 8);
  CHECK(r.found.exhaustive);
  CHECK(r.found.distinct_rings == doctest::Approx(19958400.0)); // 11! / 2: rings up to rotation and direction
  // A harder 12: 6 GPUs of each of two DGX-1V nodes, where link widths, routes and the network all differ.
  auto c = rank(cluster_of(topology::resolve_topology("dgx1-v100"), 2, 12'500'000'000ULL), {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13},
                128ULL << 20, 8);
  CHECK(c.found.exhaustive);
  int net = 0;
  const auto& best = c.ranked.front().rings[0];
  for (std::size_t k = 0; k < best.size(); ++k)
    net += c.hops->at(c.hops->local_of(best[k]), c.hops->local_of(best[(k + 1) % best.size()])).kind == "NET";
  CHECK(net == 2); // leaves each node once
}

TEST_CASE("fragmented DGX-1V allocations: subsets without an NVLink ring, the best ring and what it crosses") {
  const auto t = topology::resolve_topology("dgx1-v100");
  std::vector<std::vector<int>> broken;
  for (int mask = 0; mask < 256; ++mask) {
    const int k = __builtin_popcount(static_cast<unsigned>(mask));
    if (k != 4 && k != 5) continue;
    std::vector<int> g;
    for (int i = 0; i < 8; ++i)
      if (mask & (1 << i)) g.push_back(i);
    if (topology::hamiltonian_cycles(t, g, nvlink, 1).empty()) broken.push_back(g);
  }
  CHECK(std::find(broken.begin(), broken.end(), std::vector<int>{0, 1, 4, 6}) != broken.end());
  // docs/choosing-a-ring.md quotes these counts: 62 of 70 four-GPU and 32 of 56 five-GPU subsets.
  CHECK(std::count_if(broken.begin(), broken.end(), [](const auto& g) { return g.size() == 4; }) == 62);
  CHECK(std::count_if(broken.begin(), broken.end(), [](const auto& g) { return g.size() == 5; }) == 32);
  // A 4-GPU set containing one of the 6 NVLink faces of the cube has a ring; most others do not.
  CHECK(!broken.empty());
  CHECK(std::find(broken.begin(), broken.end(), std::vector<int>{0, 1, 2, 3}) == broken.end());

  auto r = rank(topology::resolve_topology("dgx1-v100"), {0, 1, 4, 6}, 128ULL << 20);
  const auto& best = r.ranked.front().rings[0];
  int routed = 0;
  for (std::size_t k = 0; k < best.size(); ++k) {
    const auto& hop = r.hops->at(r.hops->local_of(best[k]), r.hops->local_of(best[(k + 1) % best.size()]));
    if (!hop.direct) {
      ++routed;
      CHECK(!hop.via.empty());
    }
  }
  CHECK(routed >= 1);
  // Every schedule registered for allreduce that can run on 4 ranks is compared.
  const auto sched = metrics::compare_schedules(r.topo(), *r.router, allreduce(), 128ULL << 20, {{0, 1, 4, 6}, best});
  std::set<std::string> names;
  for (const auto& a : schedule::all_algorithms())
    if (a.op == schedule::Op::AllReduce) names.insert(a.name);
  CHECK(!sched.empty());
  CHECK(sched.size() <= names.size());
  for (const auto& s : sched) CHECK(names.count(s.algo) == 1);
  for (std::size_t i = 1; i < sched.size(); ++i) CHECK(sched[i - 1].row.time <= sched[i].row.time);
  const auto ring = std::find_if(sched.begin(), sched.end(), [](const auto& s) { return s.algo == "ring"; });
  REQUIRE(ring != sched.end());
  CHECK(ring->row.time == r.ranked.front().row.time); // the ring schedule on the best order is the best ring
  // Recursive halving-doubling (when registered) sends the big first half over 0-4 (doubled) and 1-6 (two
  // doubled links via gpu5) and only a quarter over the single links: 2n/50 GB/s against the ring's 1.5n/25.
  if (schedule::find_algorithm(schedule::Op::AllReduce, "halving_doubling")) {
    const auto hd = std::find_if(sched.begin(), sched.end(), [](const auto& s) { return s.algo == "halving_doubling"; });
    REQUIRE(hd != sched.end());
    CHECK(hd->row.time < ring->row.time);
    CHECK(hd->row.bw.busbw_GBps == doctest::Approx(1.5 * ring->row.bw.busbw_GBps).epsilon(0.01));
  }
}

TEST_CASE("D2L's two rings are the doubled and the single ring under one relabelling") {
  const auto t = topology::resolve_topology("dgx1-v100");
  const std::vector<int> d2l_double{1, 2, 3, 4, 5, 6, 7, 8}, d2l_single{1, 4, 6, 3, 5, 8, 2, 7};
  const auto doubled = topology::hamiltonian_cycles(t, {}, [](const Link& l) { return nvlink(l) && l.lanes >= 2; });
  const auto single = topology::hamiltonian_cycles(t, {}, [](const Link& l) { return nvlink(l) && l.lanes == 1; });
  REQUIRE(doubled.size() == 1);
  REQUIRE(single.size() == 1);
  // Align D2L's first ring with the doubled ring in each of the 16 ways; one must carry the second onto the single ring.
  int found = 0;
  for (int dir = 0; dir < 2; ++dir)
    for (int rot = 0; rot < 8; ++rot) {
      std::vector<int> map(9);
      for (int k = 0; k < 8; ++k) {
        const int pos = dir ? (rot - k + 8) % 8 : (rot + k) % 8;
        map[static_cast<std::size_t>(d2l_double[static_cast<std::size_t>(k)])] = doubled[0][static_cast<std::size_t>(pos)];
      }
      std::vector<int> mapped;
      for (int x : d2l_single) mapped.push_back(map[static_cast<std::size_t>(x)]);
      found += same_ring(mapped, single[0]);
    }
  CHECK(found >= 1);
  // In nvidia-smi numbering (1-based read as given) the same two orders are not those rings.
  CHECK(!same_ring({0, 1, 2, 3, 4, 5, 6, 7}, doubled[0]));
}

TEST_CASE("the ring NCCL 2.4.8 logged on a p3dn (DGX-1V) node, ranked among all rings") {
  std::ifstream in(ccsim::data_dir() + "/models/traces/aws-p3dn-v100-dgx1like-nccl-rings-nccl398.txt");
  REQUIRE(in);
  // "Ring 00 : 3[3] -> 2[2] via P2P/IPC": local GPU ids in brackets give the node's chain.
  std::map<int, int> next;
  std::regex hop(R"(Ring 00 : \d+\[(\d)\] -> \d+\[(\d)\] via P2P)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, hop)) next[std::stoi(m[1])] = std::stoi(m[2]);
  }
  REQUIRE(next.size() >= 6);
  std::set<int> targets;
  for (auto [a, b] : next) targets.insert(b);
  int head = -1;
  for (auto [a, b] : next)
    if (!targets.count(a)) head = a;
  REQUIRE(head >= 0);
  std::vector<int> chain{head};
  while (next.count(chain.back())) chain.push_back(next[chain.back()]);
  // GPUs the excerpt does not show (its 0->1 line is cut) come first: the ring enters the node there.
  std::vector<int> ring;
  for (int g = 0; g < 8; ++g)
    if (std::find(chain.begin(), chain.end(), g) == chain.end()) ring.push_back(g);
  ring.insert(ring.end(), chain.begin(), chain.end());
  REQUIRE(ring.size() == 8);
  CHECK(ring == std::vector<int>{0, 1, 3, 2, 6, 4, 5, 7});

  auto r = rank(topology::resolve_topology("dgx1-v100"), {}, 128ULL << 20, 2520);
  REQUIRE(r.ranked.size() == 2520);
  std::size_t pos = 0;
  while (pos < r.ranked.size() && !same_ring(r.ranked[pos].rings[0], ring)) ++pos;
  REQUIRE(pos < r.ranked.size());
  // Within the node every logged hop is a direct NVLink; only the closing 7->0 (the NET hop in the
  // 2-node ring) has none, so as a one-node ring it routes through a GPU and a single NVLink limits it.
  for (std::size_t k = 0; k + 1 < ring.size(); ++k) CHECK(r.hops->at(ring[k], ring[k + 1]).direct);
  CHECK(!r.hops->at(7, 0).direct);
  const Time mine = r.ranked[pos].row.time;
  const auto faster = std::count_if(r.ranked.begin(), r.ranked.end(), [&](const auto& x) { return x.row.time < mine; });
  const auto tied = std::count_if(r.ranked.begin(), r.ranked.end(), [&](const auto& x) { return x.row.time == mine; });
  // The numbers docs/choosing-a-ring.md quotes and `ccsim rings --topo dgx1 --explain 0,1,3,2,6,4,5,7`
  // prints: the doubled ring at twice its speed and three routed rings 0.08 % faster beat it; 149 rings
  // (itself included) take exactly as long.
  CHECK(faster == 4);
  CHECK(tied == 149);
  const auto p = metrics::ring_position(r.ranked, ring, mine);
  CHECK(p.found);
  CHECK(p.rank == 5);
  CHECK(p.of == 2520);
  CHECK(p.faster == 4);
  CHECK(p.tied == 149);
  CHECK(p.slower == 2520 - 4 - 149);
  CHECK(same_ring(r.ranked[0].rings[0], {0, 3, 2, 1, 5, 6, 7, 4}));
  CHECK(mine > r.ranked[0].row.time);
  CHECK(metrics::same_ring({0, 1, 3, 2, 6, 4, 5, 7}, {3, 1, 0, 7, 5, 4, 6, 2})); // rotated and reversed
  CHECK(!metrics::same_ring({0, 1, 3, 2, 6, 4, 5, 7}, {0, 1, 2, 3, 6, 4, 5, 7}));
  MESSAGE("NCCL's p3dn ring: " << faster << " rings faster, " << tied << " tied (busbw " << r.ranked[pos].row.bw.busbw_GBps
                               << " vs best " << r.ranked[0].row.bw.busbw_GBps << ")");
}

TEST_CASE("two DGX-1V nodes: NCCL's p3dn chain is as fast as any ring, the network limits it") {
  auto r = rank(cluster_of(topology::resolve_topology("dgx1-v100"), 2, 12'500'000'000ULL), {}, 128ULL << 20, 8);
  CHECK(!r.found.exhaustive);
  const std::vector<int> nccl{0, 1, 3, 2, 6, 4, 5, 7, 8, 9, 11, 10, 14, 12, 13, 15};
  const std::vector<int> doubled{0, 3, 2, 1, 5, 6, 7, 4, 8, 11, 10, 9, 13, 14, 15, 12};
  const auto a = metrics::simulate_rings(r.topo(), *r.router, *r.hops, allreduce(), 128ULL << 20, {nccl});
  const auto b = metrics::simulate_rings(r.topo(), *r.router, *r.hops, allreduce(), 128ULL << 20, {doubled});
  const auto& best = r.ranked.front();
  // The busiest channel of NCCL's ring is a network link, and neither a doubled-NVLink chain nor the search does better.
  CHECK(topology::is_network(r.topo().link_of(a.bound.limiting_channel).type));
  CHECK(static_cast<double>(a.row.time) <= 1.01 * static_cast<double>(b.row.time));
  CHECK(static_cast<double>(a.row.time) <= 1.01 * static_cast<double>(best.row.time));
  int net = 0;
  for (std::size_t k = 0; k < 16; ++k) net += r.hops->at(best.rings[0][k], best.rings[0][(k + 1) % 16]).kind == "NET";
  CHECK(net == 2);
  MESSAGE("2 nodes: NCCL chain " << a.row.bw.busbw_GBps << " GB/s, doubled chain " << b.row.bw.busbw_GBps << ", best found "
                                  << best.row.bw.busbw_GBps);
}

TEST_CASE("DGX-2 preset (when shipped): bounded search over 16 NVSwitch GPUs") {
  std::optional<topology::Topology> t;
  try {
    t = topology::resolve_topology("dgx2");
  } catch (const Error&) {
    MESSAGE("no dgx2 preset on this branch; the crossbar case above stands in for it");
    return;
  }
  auto r = rank(std::move(*t), {}, 128ULL << 20, 8);
  CHECK(r.hops->size() == 16);
  CHECK(!r.found.exhaustive);
  REQUIRE(!r.ranked.empty());
  // Through NVSwitches every ring order is as good: the best is within 1% of rank order.
  std::vector<int> order(16);
  std::iota(order.begin(), order.end(), 0);
  const auto naive = metrics::simulate_rings(r.topo(), *r.router, *r.hops, allreduce(), 128ULL << 20, {order});
  CHECK(static_cast<double>(naive.row.time) <= 1.01 * static_cast<double>(r.ranked.front().row.time));
}

// A 64x64x64 torus (262,144 GPUs) once crashed `ccsim --topo ... --algo ring`: the ring packer kept an
// n x n lane matrix (n * n overflowed int) and searched recursively one stack frame per GPU. It now
// keeps neighbour lists and an explicit stack, so large tori return rings (or the rank order) quickly.
TEST_CASE("pack_rings: large tori need no n x n matrix and no deep recursion") {
  const auto t = topology::make_torus({64, 64, 64}, 100'000'000'000, 1'000'000);
  const auto set = topology::pack_rings(t, {});
  REQUIRE_FALSE(set.rings.empty());
  for (const auto& r : set.rings) {
    CHECK(r.size() == 262144u);
    auto sorted = r;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()); // a permutation
  }
  // The search misses, so the torus snake (a reflected Gray code) is the ring: neighbour links only.
  REQUIRE(set.over_direct_links);
  topology::Router router(t);
  const auto& r = set.rings.front();
  std::size_t multi_hop = 0;
  for (std::size_t i = 0; i < r.size(); ++i) multi_hop += router.route(t.gpu_node(r[i]), t.gpu_node(r[(i + 1) % r.size()])).size() != 1;
  CHECK(multi_hop == 0);
}

TEST_CASE("pack_rings: 3D tori with an even extent get a neighbour-only snake, all-odd ones fall back") {
  for (const auto& dims : std::vector<std::vector<int>>{{8, 8, 8}, {4, 4, 4}, {3, 5, 2}, {2, 2}, {5, 3, 3, 2}}) {
    const auto t = topology::make_torus(dims, 100'000'000'000, 1'000'000);
    const auto set = topology::pack_rings(t, {});
    CAPTURE(t.name);
    REQUIRE(set.over_direct_links);
    topology::Router router(t);
    for (const auto& r : set.rings) {
      CHECK(static_cast<int>(r.size()) == t.num_gpus());
      for (std::size_t i = 0; i < r.size(); ++i)
        CHECK(router.route(t.gpu_node(r[i]), t.gpu_node(r[(i + 1) % r.size()])).size() == 1);
    }
  }
  // 7x7x7: no even extent and the search does not close a cycle in its budget: the rank order, said so.
  const auto odd = topology::make_torus({7, 7, 7}, 100'000'000'000, 1'000'000);
  const auto set = topology::pack_rings(odd, {});
  REQUIRE(set.rings.size() == 1);
  if (!set.over_direct_links) {
    std::vector<int> order(343);
    std::iota(order.begin(), order.end(), 0);
    CHECK(set.rings.front() == order);
  }
}

// Small tori: the packer's depth-first search breaks ties by Warnsdorff's rule (fewest onward
// neighbours first), which closes more neighbour-only rings than index order did (2 on a 4x4 torus);
// every ring runs over direct links and no directed link carries more rings than it has lanes.
TEST_CASE("pack_rings: small tori get three or more neighbour-only rings within the lanes") {
  for (const auto& dims : std::vector<std::vector<int>>{{4, 4}, {5, 5}, {6, 6}, {3, 3, 3}}) {
    const auto t = topology::make_torus(dims, 100'000'000'000, 1'000'000);
    const auto set = topology::pack_rings(t, {});
    CAPTURE(dims.size());
    CAPTURE(dims[0]);
    CHECK(set.over_direct_links);
    CHECK(set.rings.size() >= 3);
    topology::Router router(t);
    std::map<topology::ChannelId, int> use;
    for (const auto& r : set.rings)
      for (std::size_t i = 0; i < r.size(); ++i) {
        const auto route = router.route(t.gpu_node(r[i]), t.gpu_node(r[(i + 1) % r.size()]));
        REQUIRE(route.size() == 1);
        ++use[route[0]];
      }
    for (const auto& [c, k] : use) CHECK(k <= t.link_of(c).lanes);
  }
}
