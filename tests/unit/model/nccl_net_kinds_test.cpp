// Network kinds (models/nccl.json net_kinds), worked by hand:
//  * RoCEv2 on a 4096 B RDMA MTU carries 82 B of framing per packet (preamble/SFD 8, MAC 14, IPv4 20, UDP 8,
//    BTH 12, ICRC 4, FCS 4, gap 12) where InfiniBand carries 26 (LRH 8, BTH 12, ICRC 4, VCRC 2): a 400G RoCE
//    link (50 GB/s) replays at 50 x 4122 / 4178 = 49.33 GB/s, an InfiniBand one at 50.
//  * EFA's hop is aws-ofi-nccl's 20 us + 3 us completion = 23 us where NCCL's NET hop is smaller (ring/LL 2.7),
//    and stays NCCL's where NCCL's is larger; a link off the network has no network hop.
//  * A bad entry is refused naming net_kinds.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using topology::LinkType;

namespace {
// Two nodes joined by one link of the given type and bandwidth (bytes/s).
topology::Topology pair_over(LinkType type, Bandwidth bw) {
  topology::Topology t;
  const int a = t.add_node("nic0", topology::NodeKind::Nic), b = t.add_node("nic1", topology::NodeKind::Nic);
  t.add_link(a, b, type, bw, 0);
  return t;
}
} // namespace

TEST_CASE("Network kinds: RoCE replays at 4122/4178 of an InfiniBand NIC, IB and Ethernet at their rate") {
  const auto& tab = nccl::load_tables();
  const Bandwidth line = 50'000'000'000; // 400 Gb/s
  for (const auto& [type, want] : {std::pair{LinkType::Roce, 50.0 * 4122 / 4178}, {LinkType::Ib, 50.0}, {LinkType::Ethernet, 50.0},
                                   {LinkType::Efa, 50.0}}) {
    const auto t = pair_over(type, line);
    CHECK(tab.replay_lane_GBps(t, t.links.front()) == doctest::Approx(want).epsilon(1e-4));
    CHECK(tab.lane_GBps(t, t.links.front()) == doctest::Approx(50.0)); // NCCL's search keeps the line rate
  }
}

TEST_CASE("Network kinds: EFA's hop is aws-ofi-nccl's 23 us where NCCL's is smaller") {
  // Hopper: the RDMA protocol, the kind's own hop (pre-Hopper SENDRECV is nccl_efa_transport_test's).
  const auto hopper = nccl::Arch::Hopper;
  const auto& tab = nccl::load_tables();
  const auto efa = pair_over(LinkType::Efa, 12'500'000'000), ib = pair_over(LinkType::Ib, 12'500'000'000);
  const auto nvl = pair_over(LinkType::NvLink3, 25'000'000'000);
  CHECK(tab.net_hop_of(efa.links.front(), 2.7, hopper) == doctest::Approx(23.0));
  CHECK(tab.net_hop_of(efa.links.front(), 30.0, hopper) == doctest::Approx(30.0));
  CHECK(tab.net_hop_of(ib.links.front(), 2.7, hopper) == doctest::Approx(2.7));
  CHECK(tab.net_hop_of(nvl.links.front(), 2.7, hopper) == doctest::Approx(0.0));
}

TEST_CASE("NCCL tables: a bad net_kinds entry is refused naming it") {
  const std::string path = "/tmp/ccsim-net-kinds-bad-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(nccl::default_tables_path()));
  std::vector<nlohmann::json> bads;
  for (const auto& [kind, field, value] : {std::tuple<std::string, std::string, double>{"roce", "rate_vs_ib", 1.5},
                                           {"roce", "rate_vs_ib", 0.0}, {"efa", "hop_us", -1.0}, {"nvlink4", "hop_us", 1.0},
                                           {"bogus", "hop_us", 1.0}}) {
    auto bad = j;
    bad["net_kinds"][kind] = {{field, value}};
    bads.push_back(bad);
  }
  for (const auto& bad : bads) {
    std::ofstream(path) << bad.dump();
    try {
      (void)nccl::parse_tables(path);
      FAIL("accepted " << bad["net_kinds"].dump());
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("net_kinds") != std::string::npos);
    }
  }
  std::remove(path.c_str());
}

TEST_CASE("Network kinds: a Slingshot machine is described as one, at an InfiniBand NIC's rate and NCCL's hop") {
  // The catalogue gives Slingshot no rate or latency figure of its own (no public one), so a 200 Gb/s NIC
  // replays at 25 GB/s and keeps NCCL's 2.7 us hop; the fabric is built of slingshot links, and SHARP
  // (InfiniBand only) and an unknown kind are refused naming the spec.
  const auto& tab = nccl::load_tables();
  const auto ss = pair_over(LinkType::Slingshot, 25'000'000'000);
  CHECK(tab.replay_lane_GBps(ss, ss.links.front()) == doctest::Approx(25.0));
  CHECK(tab.net_hop_of(ss.links.front(), 2.7, nccl::Arch::Hopper) == doctest::Approx(2.7));
  const auto alps = topology::resolve_topology("machine:gpu=gh200,gpus=4,nodes=2,nics=4x200G,kind=slingshot");
  int slingshot_links = 0;
  for (const auto& l : alps.links) slingshot_links += l.type == LinkType::Slingshot;
  CHECK(slingshot_links >= 8); // 4 NICs per node into the fabric, both nodes
  CHECK(alps.num_gpus() == 8);
  CHECK_THROWS_WITH_AS(topology::resolve_topology("machine:gpu=gh200,gpus=4,nodes=2,nics=4x200G,kind=slingshot,sharp=1"),
                       doctest::Contains("sharp needs an InfiniBand fabric"), Error);
  CHECK_THROWS_WITH_AS(topology::resolve_topology("machine:gpu=gh200,gpus=4,nodes=2,nics=4x200G,kind=slingshot11"),
                       doctest::Contains("is not ib, roce, efa, slingshot, ethernet"), Error);
}
