// The multi-node cluster generator: naming, NIC placement, fabric shape, routes, and what it predicts.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "sim/core/error.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {

constexpr Bandwidth GB = 1'000'000'000;

std::vector<int> path_nodes(Router& r, int src, int dst) {
  const auto& t = r.topology();
  std::vector<int> p{src};
  for (auto c : r.route(src, dst)) {
    REQUIRE(t.channel_from(c) == p.back());
    p.push_back(t.channel_to(c));
  }
  REQUIRE(p.back() == dst);
  return p;
}

// GPU -> (non-GPU machine nodes)* -> NIC -> (network switches)+ -> NIC -> (non-GPU machine nodes)* -> GPU,
// each half inside its own machine ("nK." prefix).
void check_inter_node(const Topology& t, const std::vector<int>& p, const std::string& src_prefix,
                      const std::string& dst_prefix) {
  auto kind = [&](int v) { return t.nodes[static_cast<std::size_t>(v)].kind; };
  auto name = [&](int v) { return t.nodes[static_cast<std::size_t>(v)].name; };
  REQUIRE(p.size() >= 5);
  CHECK(kind(p.front()) == NodeKind::Gpu);
  CHECK(kind(p.back()) == NodeKind::Gpu);
  std::vector<std::size_t> nics;
  for (std::size_t i = 0; i < p.size(); ++i)
    if (kind(p[i]) == NodeKind::Nic) nics.push_back(i);
  REQUIRE(nics.size() == 2);
  for (std::size_t i = 1; i < nics[0]; ++i) {
    CHECK(kind(p[i]) != NodeKind::Gpu);
    CHECK(name(p[i]).rfind(src_prefix, 0) == 0);
  }
  CHECK(name(p[nics[0]]).rfind(src_prefix, 0) == 0);
  CHECK(nics[1] > nics[0] + 1);
  for (std::size_t i = nics[0] + 1; i < nics[1]; ++i) CHECK(kind(p[i]) == NodeKind::NetSwitch);
  CHECK(name(p[nics[1]]).rfind(dst_prefix, 0) == 0);
  for (std::size_t i = nics[1] + 1; i + 1 < p.size(); ++i) {
    CHECK(kind(p[i]) != NodeKind::Gpu);
    CHECK(name(p[i]).rfind(dst_prefix, 0) == 0);
  }
}

double ring_busbw(const Topology& t, Bytes size) {
  Router router(t);
  metrics::RunConfig cfg;
  cfg.placements = pack_rings(t, {}).rings; // what `ccsim --algo ring` does without --ring
  return metrics::simulate(t, router, cfg, size).bw.busbw_GBps;
}

} // namespace

TEST_CASE("cluster of DGX-1Vs: names, GPU numbering, the shipped NICs, one switch") {
  const Topology t = generate_from_spec("cluster:nodes=2,node=dgx1-v100,nics=4x100G");
  REQUIRE(t.num_gpus() == 16);
  CHECK(t.nodes[static_cast<std::size_t>(t.gpu_node(3))].name == "n0.gpu3");
  CHECK(t.nodes[static_cast<std::size_t>(t.gpu_node(11))].name == "n1.gpu3");
  const int fabric = *t.find_node("fabric");
  int net_links = 0;
  for (const auto& l : t.links)
    if (l.a == fabric || l.b == fabric) {
      ++net_links;
      CHECK(l.type == LinkType::Ib);
      CHECK(l.bw == 12'500'000'000); // 100 Gb/s
      CHECK(t.nodes[static_cast<std::size_t>(l.a == fabric ? l.b : l.a)].kind == NodeKind::Nic);
    }
  CHECK(net_links == 8);
  Router r(t);
  for (int a : {0, 3, 7})
    for (int b : {8, 12, 15}) {
      CAPTURE(a);
      CAPTURE(b);
      const auto p = path_nodes(r, t.gpu_node(a), t.gpu_node(b));
      check_inter_node(t, p, "n0.", "n1.");
      CHECK(r.info(r.route(t.gpu_node(a), t.gpu_node(b))).bottleneck == 12'500'000'000);
      // The NIC used is the one under the GPU's own PCIe switch (DGX-1: nic k serves GPUs 2k, 2k+1).
      CHECK(t.nodes[static_cast<std::size_t>(p[2])].name == "n0.nic" + std::to_string(a / 2));
    }
  // Inside a machine nothing changed: the NVLink route of the preset.
  CHECK(r.route(t.gpu_node(8), t.gpu_node(11)).size() == 1);
}

TEST_CASE("cluster of HGX H100s: one NIC per GPU, inter-node routes at the NIC speed") {
  const Topology t = generate_from_spec("cluster:nodes=3,node=hgx-h100,nics=8x400G,kind=roce,alpha=4us");
  REQUIRE(t.num_gpus() == 24);
  Router r(t);
  const auto p = path_nodes(r, t.gpu_node(3), t.gpu_node(21));
  check_inter_node(t, p, "n0.", "n2.");
  CHECK(p.size() == 5); // GPU, its NIC, switch, NIC, GPU
  CHECK(t.nodes[static_cast<std::size_t>(p[1])].name == "n0.xnic3");
  CHECK(t.nodes[static_cast<std::size_t>(p[3])].name == "n2.xnic5");
  const auto info = r.info(r.route(t.gpu_node(3), t.gpu_node(21)));
  CHECK(info.bottleneck == 50 * GB);
  // 4 us across the network plus the two PCIe hops at each end (2 x 1 us per NIC link).
  CHECK(info.latency == 4 * kPsPerUs + 2 * 2 * kPsPerUs);
  // Two NICs per GPU are one NIC node with two ports.
  const Topology two = generate_from_spec("cluster:nodes=2,node=hgx-h100,nics=16x200G");
  const int nic = *two.find_node("n1.xnic0");
  for (const auto& l : two.links)
    if (l.a == nic || l.b == nic) CHECK(l.lanes == 2);
}

// Without NVLink a GPU's one PCIe port carries its peer traffic and its NIC's, so the NIC hangs off the
// GPU's switch: two V100 PCIe per switch with a NIC each send at most one port's 15.75 GB/s in all.
TEST_CASE("cluster of PCIe-only GPUs: each NIC beside its GPU on the GPU's switch, sharing its port") {
  const Topology t = generate_from_spec("machine:gpu=v100,gpus=2,intra=pcie,nodes=2,nics=2x200G,kind=ib");
  REQUIRE(t.num_gpus() == 4);
  for (const char* name : {"n0.xnic0", "n0.xnic1", "n1.xnic0", "n1.xnic1"}) {
    const int nic = *t.find_node(name);
    int pcie = 0;
    for (const auto& l : t.links) {
      if ((l.a != nic && l.b != nic) || !is_pcie(l.type)) continue;
      ++pcie;
      const int other = l.a == nic ? l.b : l.a;
      CHECK(t.nodes[static_cast<std::size_t>(other)].kind == NodeKind::PcieSwitch);
      CHECK(l.bw == 15'750'000'000);
    }
    CHECK(pcie == 1);
  }
  auto kind = [&](int v) { return t.nodes[static_cast<std::size_t>(v)].kind; };
  for (const auto& l : t.links) { // no GPU has a second PCIe link of its own to a NIC
    const bool gpu_nic = (kind(l.a) == NodeKind::Gpu && kind(l.b) == NodeKind::Nic) || (kind(l.b) == NodeKind::Gpu && kind(l.a) == NodeKind::Nic);
    CHECK_FALSE(gpu_nic);
  }
  Router r(t);
  const auto p = path_nodes(r, t.gpu_node(0), t.gpu_node(2));
  check_inter_node(t, p, "n0.", "n1.");
  CHECK(p.size() == 7); // GPU, switch, NIC, fabric, NIC, switch, GPU
  // 2.7 us across the network, one PCIe hop each side of both switches (4 x 1 us).
  CHECK(r.info(r.route(t.gpu_node(0), t.gpu_node(2))).latency == from_us(2.7) + 4 * kPsPerUs);
}

TEST_CASE("fat tree: leaves fill in node order, spine uplinks follow the oversubscription") {
  const Topology t = generate_from_spec("cluster:nodes=4,node=hgx-h100,nics=8x400G,fabric=fattree,leaf_ports=16,oversub=2");
  REQUIRE(t.find_node("leaf0"));
  REQUIRE(t.find_node("leaf1"));
  CHECK_FALSE(t.find_node("leaf2"));
  const int spine = *t.find_node("spine");
  for (const auto& l : t.links)
    if (l.a == spine || l.b == spine) CHECK(l.lanes == 8); // 16 down ports / 2
  Router r(t);
  const auto same_leaf = path_nodes(r, t.gpu_node(0), t.gpu_node(8)); // n0 -> n1, both on leaf0
  check_inter_node(t, same_leaf, "n0.", "n1.");
  CHECK(std::find(same_leaf.begin(), same_leaf.end(), spine) == same_leaf.end());
  const auto across = path_nodes(r, t.gpu_node(0), t.gpu_node(31)); // n0 -> n3 via the spine
  check_inter_node(t, across, "n0.", "n3.");
  CHECK(std::find(across.begin(), across.end(), spine) != across.end());
  CHECK(r.info(r.route(t.gpu_node(0), t.gpu_node(31))).latency == from_us(2.7) + 2 * 2 * kPsPerUs);
}

TEST_CASE("NICs round-robin over PCIe switches when there are fewer NICs than GPUs") {
  const Topology t = generate_from_spec("cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=efa");
  Router r(t);
  for (int g = 0; g < 8; ++g) {
    const auto p = path_nodes(r, t.gpu_node(g), t.gpu_node(8 + g));
    check_inter_node(t, p, "n0.", "n1.");
    CHECK(t.nodes[static_cast<std::size_t>(p[1])].name == "n0.pcie_sw" + std::to_string(g / 2));
  }
  // Two NICs: GPUs under the other switches reach one through the CPUs.
  const Topology two = generate_from_spec("cluster:nodes=2,node=hgx-a100,nics=2x100G");
  Router r2(two);
  check_inter_node(two, path_nodes(r2, two.gpu_node(7), two.gpu_node(8)), "n0.", "n1.");
}

TEST_CASE("ring allreduce across two DGX-1Vs is network bound") {
  const Bytes size = 64ull << 20;
  const double intra = ring_busbw(resolve_topology("dgx1-v100"), size);
  const double cluster = ring_busbw(generate_from_spec("cluster:nodes=2,node=dgx1-v100,nics=4x100G"), size);
  const double two_nics = ring_busbw(generate_from_spec("cluster:nodes=2,node=dgx1-v100,nics=2x100G"), size);
  CHECK(intra > 100.0);
  CHECK(cluster < intra / 2);
  // One ring per NIC, each through its own 12.5 GB/s NIC: the four NICs bound busbw at 50 GB/s.
  CHECK(cluster <= 4 * 12.5);
  CHECK(cluster > 0.9 * 4 * 12.5);
  CHECK(two_nics <= 2 * 12.5);
  CHECK(two_nics > 0.9 * 2 * 12.5);
}

TEST_CASE("across nodes, ring j leaves and enters every node through NIC j") {
  const Topology t = generate_from_spec("cluster:nodes=3,node=dgx1-v100,nics=4x100G");
  const auto set = pack_rings(t, {});
  REQUIRE(set.rings.size() == 4);
  Router router(t);
  for (std::size_t j = 0; j < set.rings.size(); ++j) {
    const auto& r = set.rings[j];
    REQUIRE(r.size() == 24);
    std::vector<int> sorted = r;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < 24; ++i) CHECK(sorted[static_cast<std::size_t>(i)] == i); // a permutation
    for (std::size_t i = 0; i < r.size(); ++i) {
      const int a = t.gpu_node(r[i]), b = t.gpu_node(r[(i + 1) % r.size()]);
      const auto route = router.route(a, b);
      int network_hops = 0;
      for (auto c : route)
        if (is_network(t.link_of(c).type)) {
          ++network_hops;
          const int nic = t.nodes[static_cast<std::size_t>(t.channel_from(c))].kind == NodeKind::Nic ? t.channel_from(c)
                                                                                                     : t.channel_to(c);
          const std::string& name = t.nodes[static_cast<std::size_t>(nic)].name;
          CHECK(name.substr(name.find('.')) == ".nic" + std::to_string(j)); // NIC j on both sides
        }
      CHECK((network_hops == 0 || network_hops == 2));
    }
  }
}

// Where every GPU ties for the NICs (both NICs on the CPU's root complex), NCCL's ring search (NVIDIA/nccl v2.18.3-1
// to v2.29.2-1 src/graph/search.cc) gives channel c the NET nets[c], tries the tied GPUs from index c on as its
// first GPU (ncclTopoSearchRecNet; channel 0 the PCI order first), goes round the NVSwitch GPUs in index order
// (ncclTopoSearchNextGpuSort: the next GPU first) and leaves from the last one; followPath takes the channel's
// speed off every link of the NET-GPU paths, and at the search's first speed (at or under the GPU-NIC path's
// bandwidth) one channel fills them. By hand, on H100s in pairs under 4 PCIe switches of equal links:
// channel 0 enters GPU 0 (NIC 0, cpu0 -> pcie_sw0 -> gpu0) and leaves from GPU 7 (pcie_sw3 -> cpu0); channel 1
// cannot enter GPU 1 (cpu0 -> pcie_sw0 is full), enters GPU 2 (pcie_sw1) and leaves from GPU 1 (gpu1 ->
// pcie_sw0 -> cpu0, which channel 0 does not use upward). The second host the same, 8 further on.
TEST_CASE("across nodes, rings over tied NICs enter and leave through ports no other ring fills") {
  const Topology t = resolve_topology("machine:gpu=h100,gpus=8,nodes=2,nics=2x400G,kind=ib,nic_at=cpu,sockets=1");
  const auto set = pack_rings(t, {});
  REQUIRE(set.rings.size() == 2);
  CHECK(set.rings[0] == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  CHECK(set.rings[1] == std::vector<int>{2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9});
  // Two H100 NVLs a node, both NICs on a NUMA node without GPUs: channel 0 enters GPU 0 and leaves from GPU 1;
  // channel 1's replay of that order finds GPU 0's port full, so it enters GPU 1 and leaves from GPU 0.
  const Topology nvl = resolve_topology("machine:gpu=h100nvl,gpus=2,nodes=2,nics=2x200G,kind=slingshot,sockets=2,cpu=amd,nic_at=numa");
  const auto pair = pack_rings(nvl, {});
  REQUIRE(pair.rings.size() == 2);
  CHECK(pair.rings[0] == std::vector<int>{0, 1, 2, 3});
  CHECK(pair.rings[1] == std::vector<int>{1, 0, 3, 2});
}

TEST_CASE("cluster specs that cannot work are refused with the reason") {
  CHECK_THROWS_WITH_AS(generate_from_spec("cluster:nodes=2,node=hgx-h100,nics=4x400G"),
                       doctest::Contains("nics must be at least 8"), Error);
  CHECK_THROWS_WITH_AS(generate_from_spec("cluster:nodes=0,node=hgx-h100,nics=8x400G"), doctest::Contains("nodes"), Error);
  CHECK_THROWS_WITH_AS(generate_from_spec("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=nvlink4"),
                       doctest::Contains("kind"), Error);
  CHECK_THROWS_WITH_AS(generate_from_spec("cluster:nodes=2,node=hgx-h100,nics=8x400G,fabric=ring"),
                       doctest::Contains("fabric"), Error);
  CHECK_THROWS_WITH_AS(generate_from_spec("cluster:nodes=2,node=hgx-h100,nics=eight"), doctest::Contains("COUNTxSPEED"), Error);
  CHECK_THROWS_WITH_AS(generate_from_spec("cluster:nodes=2,node=nosuch,nics=8x400G"), doctest::Contains("nosuch"), Error);
  CHECK_THROWS_WITH_AS(generate_from_spec("cluster:nodes=2,node=hgx-h100,nics=8x400G,speed=1"),
                       doctest::Contains("unknown parameter"), Error);
}

TEST_CASE("parse_nics reads NIC speeds in bits unless told bytes") {
  CHECK(parse_nics("8x400G", "x") == std::pair<int, Bandwidth>{8, 50 * GB});
  CHECK(parse_nics("4x100Gbps", "x") == std::pair<int, Bandwidth>{4, 12'500'000'000});
  CHECK(parse_nics("2x25GB/s", "x") == std::pair<int, Bandwidth>{2, 25 * GB});
  CHECK_THROWS_AS(parse_nics("x400G", "x"), Error);
  CHECK_THROWS_AS(parse_nics("0x400G", "x"), Error);
}

// kind=pollara names AMD's Pensando Pollara 400 AI NIC, RDMA over Ethernet (RoCEv2: amd.com's Pensando Pollara page), as
// spectrumx names NVIDIA's RoCE fabric: every network link of the cluster is a RoCE link, none InfiniBand.
TEST_CASE("kind=pollara and kind=spectrumx are RoCE links") {
  for (const char* kind : {"pollara", "pollara400", "spectrumx"}) {
    CAPTURE(kind);
    const Topology t = generate_from_spec(std::string("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=") + kind);
    int network = 0;
    for (const auto& l : t.links)
      if (is_network(l.type)) {
        ++network;
        CHECK(l.type == LinkType::Roce);
      }
    CHECK(network > 0);
  }
}
