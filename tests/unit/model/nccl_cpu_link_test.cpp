// NCCL's figure for the link between two CPU sockets (topo.h AMD_BW 16, SKL_QPI_BW 10, SRP_QPI_BW 22;
// topo.cc ncclTopoGetInterCpuBw), whatever lanes the socket link has, caps every ring hop that crosses
// sockets through host memory or PCIe. Worked by hand:
//  * 8 RTX 4090 on 2 EPYC 7542 (P2P off, rtx4090-pcie-8gpu): the ring crosses the sockets over xGMI,
//    NCCL's 16; the hop GPU->CPU->CPU->GPU carries min(19.5 host-staged PCIe, 16) = 16; Ampere's
//    speedArrayIntra {40,30,20,18,15,...} gives 15, one channel (measured 15.0 GB/s busbw).
//  * pcie-gen4-8gpu (Ice Lake, 3 UPI links): NCCL's SKL figure 10 for the pair, not 3 x 10: speed 10.
//  * 4 H100 with P2P off over 2 sockets beside PCIe Gen5 root ports: Sapphire Rapids' 22; Hopper's
//    sm90SpeedArrayIntra {60,50,40,30,24,20,15,12,11,...} fits one channel at 20, and search.cc's pass 1
//    lowers on (15 / 20 and 11 / 20 are above 0.49): 2 x 11 = 22 is kept, above 1 x 20, and reaches the total.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/topology/p2p.hpp"
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;

namespace {
nccl::Graph graph_of(const std::string& spec) {
  const auto t = topology::resolve_topology(spec);
  return nccl::make_graph(t, nccl::load_tables(), test::packed_rings_config(t).placements, "");
}
} // namespace

TEST_CASE("NCCL's socket-link figure sets the ring speed across CPU sockets") {
  const auto rtx = graph_of("rtx4090-pcie-8gpu");
  CHECK(rtx.channels == 1);
  CHECK(rtx.bw == doctest::Approx(15.0));
  const auto icx = graph_of("pcie-gen4-8gpu");
  CHECK(icx.channels == 1);
  CHECK(icx.bw == doctest::Approx(10.0));
  const auto spr = graph_of("machine:gpu=h100,gpus=4,intra=pcie,p2p=off");
  CHECK(spr.channels == 2);
  CHECK(spr.bw == doctest::Approx(11.0));
}

TEST_CASE("The replay of 8 RTX 4090 with P2P off runs at NCCL's 15 GB/s across the sockets") {
  const auto t = topology::resolve_topology("rtx4090-pcie-8gpu");
  nccl::Builder b(t, {});
  const Bytes size = Bytes{1} << 30;
  const auto row = metrics::run(b, test::packed_rings_config(t), metrics::plan_size(schedule::Op::AllReduce, 8, size, 4));
  CHECK(row.choice.algo == "ring");
  CHECK(row.bw.busbw_GBps == doctest::Approx(15.0).epsilon(0.02));
  CHECK(row.bw.busbw_GBps <= 15.0 + 1e-9);
}

// NCCL's socket figure is its search's (channels x speed); a P2P copy across EPYC's Infinity Fabric runs at what
// the hardware carries. 8 RTX 4090 with P2P on over 2 EPYC sockets (machine:...,p2p=on,sockets=2,cpu=amd): the
// search is as with P2P off (the hop's total is NCCL's 16, Ampere's speed 15, one channel, so the replay runs
// every link at 15/16 of its figure); the ring's slowest hop is then a GPU's PCIe Gen4 port at NCCL's 24, not
// the sockets' 4 x 36 GB/s drawn xGMI: busbw 24 x 15/16 = 22.5 (5d108a0 capped the hop at 16 x 15/16 = 15).
// P2P across the sockets takes NCCL_P2P_LEVEL=SYS (as the RTX 5090 run it follows): at NCCL's default level
// (PXB, 8 GPUs on an AMD host) the crossing hops run SHM and the socket figure binds again, 15.0.
TEST_CASE("P2P across EPYC sockets replays at the PCIe ports, the search at NCCL's 16") {
  auto t = topology::resolve_topology("machine:gpu=rtx4090,gpus=8,intra=pcie,p2p=on,sockets=2,cpu=amd");
  {
    nccl::Builder dflt(t, {});
    CHECK(metrics::run(dflt, test::packed_rings_config(t), metrics::plan_size(schedule::Op::AllReduce, 8, Bytes{1} << 30, 4)).bw.busbw_GBps ==
          doctest::Approx(15.0).epsilon(0.02));
  }
  t.p2p_level = static_cast<int>(topology::PathClass::Sys);
  const auto g = graph_of("machine:gpu=rtx4090,gpus=8,intra=pcie,p2p=on,sockets=2,cpu=amd");
  CHECK(g.channels == 1);
  CHECK(g.bw == doctest::Approx(15.0));
  nccl::Builder b(t, {});
  const auto row = metrics::run(b, test::packed_rings_config(t), metrics::plan_size(schedule::Op::AllReduce, 8, Bytes{1} << 30, 4));
  CHECK(row.choice.algo == "ring");
  CHECK(row.bw.busbw_GBps == doctest::Approx(22.5).epsilon(0.02));
  CHECK(row.bw.busbw_GBps <= 22.5 + 1e-9);
}

TEST_CASE("The socket link replays at NCCL's figure under host staging, as drawn for P2P across xGMI") {
  const auto& tab = nccl::load_tables();
  const auto p2p = topology::resolve_topology("machine:gpu=rtx4090,gpus=8,intra=pcie,p2p=on,sockets=2,cpu=amd");
  const auto shm = topology::resolve_topology("rtx4090-pcie-8gpu");
  const auto intel = topology::resolve_topology("pcie-gen4-8gpu");
  CHECK_FALSE(nccl::stages_through_host(p2p));
  CHECK(nccl::stages_through_host(shm));
  const auto socket = [&](const topology::Topology& t) {
    for (const auto& l : t.links)
      if (tab.socket_figure(t, l)) return l;
    FAIL("no socket link");
    return t.links.front();
  };
  // 4 xGMI links of 36 GB/s each way (the generator's figure) against AMD_BW 16 over the 4 lanes.
  CHECK(tab.replay_lane_GBps(p2p, socket(p2p), false) * socket(p2p).lanes == doctest::Approx(144.0));
  CHECK(tab.replay_lane_GBps(p2p, socket(p2p), true) * socket(p2p).lanes == doctest::Approx(16.0));
  CHECK(tab.replay_lane_GBps(shm, socket(shm), nccl::stages_through_host(shm)) * socket(shm).lanes == doctest::Approx(16.0));
  // Intel's UPI keeps SKL_QPI_BW 10 for P2P too (no measurement of P2P writes across it at hand).
  CHECK(tab.replay_lane_GBps(intel, socket(intel), false) * socket(intel).lanes == doctest::Approx(10.0));
}

TEST_CASE("A socket link keeps NCCL's figure only between two CPUs") {
  const auto& tab = nccl::load_tables();
  const auto t = topology::resolve_topology("pcie-gen4-8gpu");
  for (const auto& l : t.links) {
    const bool sockets = t.nodes[static_cast<std::size_t>(l.a)].kind == topology::NodeKind::Cpu &&
                         t.nodes[static_cast<std::size_t>(l.b)].kind == topology::NodeKind::Cpu;
    if (sockets) CHECK(tab.lane_GBps(t, l) * l.lanes == doctest::Approx(10.0));
    else CHECK(tab.lane_GBps(t, l) == doctest::Approx(tab.lane_GBps(l)));
  }
}

TEST_CASE("A fitted xGMI efficiency (AMD GPU meshes) leaves the socket link's NCCL figure alone") {
  const auto t = topology::resolve_topology("rtx4090-pcie-8gpu");
  nccl::Options o;
  o.params.link_efficiency["xgmi"] = 0.5; // would halve a GPU xGMI mesh; the sockets' xGMI is NCCL's 16
  nccl::Builder b(t, o);
  const auto row = metrics::run(b, test::packed_rings_config(t), metrics::plan_size(schedule::Op::AllReduce, 8, Bytes{1} << 30, 4));
  CHECK(row.bw.busbw_GBps == doctest::Approx(15.0).epsilon(0.02));
}

TEST_CASE("NCCL tables: a bad socket-link entry is refused naming it") {
  const std::string path = "/tmp/ccsim-cpu-link-bad-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(nccl::default_tables_path()));
  for (const auto& [key, value] : {std::pair<std::string, double>{"xgmi", -1.0}, {"tcp", 5.0}}) {
    auto bad = j;
    bad["cpu_link_GBps"][key] = value;
    std::ofstream(path) << bad.dump();
    try {
      (void)nccl::parse_tables(path);
      FAIL("accepted cpu_link_GBps." << key);
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("cpu_link_GBps") != std::string::npos);
    }
  }
  std::remove(path.c_str());
}

// NCCL's tuner keys two multi-node terms on the CPU vendor (reference §3.3-3.4; tuning.cc): the network overhead
// that bounds each intra-node hop's latency, 1 us on Intel and 2 us on AMD (x3 for Simple), and the LL cap's
// row on several nodes (llMaxBws: Intel the Volta row, AMD the Ampere row). ccsim draws no vendor; sockets joined
// by xGMI are EPYC's. The field existed but was never set, so every host tuned as Intel.
TEST_CASE("Hosts whose sockets are joined by xGMI tune as AMD across nodes") {
  const auto& tab = nccl::load_tables();
  const auto amd = graph_of("cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=ib");   // 2 x EPYC, xGMI
  const auto intel = graph_of("machine:gpu=a100,nodes=2,nics=8x200G,kind=ib");      // cpu=intel: UPI
  const auto grace = graph_of("machine:gpu=gb200,nodes=2,nics=4x400G,kind=ib");     // Arm
  CHECK(amd.amd_cpu);
  CHECK_FALSE(intel.amd_cpu);
  CHECK_FALSE(grace.amd_cpu);
  // NVLink's ring hwLat (NCCL 2.30: LL 0.6, Simple 3.4 us) against the overhead: Simple max(3.4, 2 x 3 = 6) on
  // AMD, max(3.4, 1 x 3 = 3) = 3.4 on Intel; LL max(0.6, 2) and max(0.6, 1).
  CHECK(nccl::intra_hop_us(tab, amd, nccl::Algo::Ring, nccl::Proto::Simple) == doctest::Approx(6.0));
  CHECK(nccl::intra_hop_us(tab, intel, nccl::Algo::Ring, nccl::Proto::Simple) == doctest::Approx(3.4));
  CHECK(nccl::intra_hop_us(tab, amd, nccl::Algo::Ring, nccl::Proto::LL) == doctest::Approx(2.0));
  CHECK(nccl::intra_hop_us(tab, intel, nccl::Algo::Ring, nccl::Proto::LL) == doctest::Approx(1.0));
}

// NCCL's search skips its second pass (sameChannels = 0: each channel may take its own GPU order) on x86 AMD
// hosts where the graph's typeIntra is SYS (NVIDIA/nccl v2.19.1-1 to v2.30.7-1 src/graph/search.cc
// ncclTopoCompute, "Try having different channels (except when going through AMD CPUs)"; absent at v2.18.6-1;
// ROCm/rccl 0cbce2a keeps it). Every channel then replays channel 0's GPU order (ncclTopoSearchRecNet,
// FORCED_ORDER_REPLAY). Worked by hand:
//  * 2 nodes of 8 RTX PRO 6000 (PCIe, no NVLink) on 2 EPYC sockets, a NIC per GPU: the GPUs sit under both
//    sockets, so every ring through them has a GPU pair across the sockets (SYS) and the order each channel
//    replays crosses the socket link, NCCL's AMD_BW 16 (topo.h), at least once in one direction; channels
//    replaying that order all cross it the same way, so channels x speed <= 16. Blackwell's speedArrayInter
//    {..., 17.5, 15, 12, 6, ...}: 15 fits one channel (2 x 15 = 30 > 16), 12 one (24 > 16), and 6 / 15 = 0.4 is
//    under pass 1's 0.49, so the search stops; pass 2 cannot raise 15 to 17.5 (> 16): 1 channel x 15 GB/s.
//  * The same machine on Intel hosts, or with a release before 2.19.1, keeps the second pass (not asserted
//    here beyond the flag: what ccsim's own order sets find there is its approximation of that pass).
namespace {
// (NCCL 2.19.1 on: the search's sameChannels rule on AMD hosts, test below.)
constexpr const char* kAmdBox = "machine:gpu=rtxpro6000,gpus=8,intra=pcie,nodes=2,nics=8x400G,kind=roce,sockets=2,cpu=amd";
nccl::Graph same_channels_graph(const std::string& spec, bool amd_sys_same_channels) {
  const auto t = topology::resolve_topology(spec);
  return nccl::make_graph(t, nccl::load_tables(), test::packed_rings_config(t).placements, "", amd_sys_same_channels);
}
} // namespace

TEST_CASE("NCCL keeps every ring channel on one GPU order on AMD hosts at SYS from 2.19.1") {
  CHECK_FALSE(nccl::amd_sys_same_channels_in_release(nccl::NcclVersion{2, 18, 6}));
  CHECK(nccl::amd_sys_same_channels_in_release(nccl::NcclVersion{2, 19, 1}));
  CHECK(nccl::amd_sys_same_channels_in_release(std::nullopt)); // the tables' release, 2.30.7

  const auto amd = same_channels_graph(kAmdBox, true);
  CHECK(amd.same_channels_only);
  CHECK(amd.channels == 1);
  CHECK(amd.bw == doctest::Approx(15.0));
  CHECK(amd.describe().find("every channel on one GPU order") != std::string::npos);

  // Before 2.19.1 the second pass runs: the rule is not applied.
  CHECK_FALSE(same_channels_graph(kAmdBox, false).same_channels_only);
  // Intel hosts: never.
  CHECK_FALSE(same_channels_graph("machine:gpu=rtxpro6000,gpus=8,intra=pcie,nodes=2,nics=8x400G,kind=roce,sockets=2,cpu=intel", true).same_channels_only);
  // One socket: typeIntra is not SYS, the second pass runs.
  CHECK_FALSE(same_channels_graph("machine:gpu=rtxpro6000,gpus=8,intra=pcie,nodes=2,nics=8x400G,kind=roce,sockets=1,cpu=amd", true).same_channels_only);
}

// (mutants8) The rule holds for the tree's search too (ncclTopoCompute runs it for every graph pattern), and on a
// machine whose rings do not all take one order: 2 nodes of 4 RTX PRO 6000 on 2 EPYC sockets (2 GPUs under each),
// 2 NICs. ccsim's placement has two rings of different orders; NCCL replays channel 0's order on every channel, and
// that order has a GPU pair across the sockets, so by the argument above channels x speed <= 16 (AMD_BW): 2 x 15 =
// 30 does not fit, 1 x 15 does, for the ring and for the tree. Mixing both orders in one search would not be NCCL.
TEST_CASE("NCCL's AMD-host sameChannels rule: one order for the ring and the tree, though the placement has two") {
  const auto t = topology::resolve_topology("machine:gpu=rtxpro6000,gpus=4,intra=pcie,nodes=2,nics=2x400G,kind=roce,sockets=2,cpu=amd");
  const auto placements = test::packed_rings_config(t).placements;
  REQUIRE(placements.size() == 2);
  CHECK(placements[0] != placements[1]);
  const auto g = nccl::make_graph(t, nccl::load_tables(), placements, "", true);
  CHECK(g.same_channels_only);
  CHECK(g.channels == 1);
  CHECK(g.bw == doctest::Approx(15.0));
  CHECK(g.tree_channels == 1);
  CHECK(g.tree_bw == doctest::Approx(15.0));
  // And on the 8-GPU box of the test above, the tree as well: 1 x 15.
  const auto amd = same_channels_graph(kAmdBox, true);
  CHECK(amd.tree_channels == 1);
  CHECK(amd.tree_bw == doctest::Approx(15.0));
}
