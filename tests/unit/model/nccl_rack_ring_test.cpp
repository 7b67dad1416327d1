// NCCL's ring graph across NVLink domains (graph.cpp inter_ring_search: search.cc's ring pattern with a
// network), worked by hand from the speed arrays of models/nccl.json (NCCL 2.30 sm100/sm90 speedArrayInter).
// A channel enters and leaves a host through one NIC and passes every GPU once through its switch links:
// channels at a speed = min(32, floor(switch / speed), sum over NICs of floor(NIC / speed)).
// NVL72 rack as one NCCL node, 64 GPUs and 64 x 400G NICs (50 GB/s), 18 NVLink5 lanes x 40.1 = 721.8:
//   48 -> min(32, 15, 64) = 15 channels, 720; 45.1 -> 16, 721.6 (kept: more); 42 -> 17, 714; 40 -> 18, 720;
//   30 -> 24, 720; 24 -> 30, 720; 22 / 45.1 = 0.488 <= 0.49: stop. Pass 2: 48 carries 15 < 16. -> 16 x 45.1.
// 2 HGX B200 nodes, 8 NICs seen at 48 (the PCIe Gen5 path): 48 -> min(32, 15, 8) = 8, 384; 45.1..30 -> 8,
//   less; 24 -> min(32, 30, 16) = 16, 384 (not more); 22 / 48 < 0.49: stop; 80 fits no NIC. -> 8 x 48.
// 2 HGX H100 nodes, 16 x 200G (25 GB/s), 18 x 20.6 = 370.8 (sm90 speeds): 24 -> min(32, 15, 16) = 15, 360;
//   22 -> 16, 352; 20..15 -> 16, less; 12 -> min(32, 30, 32) = 30, 360 (not more); 6 / 24 < 0.49: stop. -> 15 x 24.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

TEST_CASE("NCCL's inter-node ring search over NVSwitch hosts, by hand") {
  const auto& tab = nccl::load_tables();
  const auto rack = nccl::inter_ring_search(tab, nccl::Arch::Blackwell, 18 * 40.1, std::vector<double>(64, 50.0));
  CHECK(rack.channels == 16);
  CHECK(rack.bw == doctest::Approx(45.1));
  const auto b200 = nccl::inter_ring_search(tab, nccl::Arch::Blackwell, 18 * 40.1, std::vector<double>(8, 48.0));
  CHECK(b200.channels == 8);
  CHECK(b200.bw == doctest::Approx(48.0));
  const auto h100 = nccl::inter_ring_search(tab, nccl::Arch::Hopper, 18 * 20.6, std::vector<double>(16, 25.0));
  CHECK(h100.channels == 15);
  CHECK(h100.bw == doctest::Approx(24.0));
  CHECK(nccl::inter_ring_search(tab, nccl::Arch::Hopper, 370.8, {}).channels == 0);
}

// Two NVL72 racks (64 GPUs each): the ring graph is the search's 16 x 45.1 = 721.6 GB/s, not 64 NIC rings
// at an NVLink5 lane each (2,566 GB/s, more than a GPU's 721.8 into the switches). NCCL's tuner then takes
// NVLS-tree: 32 channels x min(2 x 20 x 0.74 x 31/32 = 28.675, 2 x bwInter 40 = 80, 96) = 917.6 GB/s
// against ring/Simple's 721.6 (LL128 0.92 x 721.6 = 663.9).
TEST_CASE("Two NVL72 racks: NCCL's ring graph is NIC- and NVLink-bound, and NVLS-tree is the pick") {
  const auto t = topology::resolve_topology("machine:gpu=gb200,gpus=64,nodes=2,nics=64x400G,kind=roce");
  const auto cfg = test::packed_rings_config(t, Op::AllReduce);
  const auto& tab = nccl::load_tables();
  const auto g = nccl::make_graph(t, tab, cfg.placements, "");
  CHECK(g.channels == 16);
  CHECK(g.bw == doctest::Approx(45.1));
  CHECK(g.channels * g.bw <= 18 * 40.1 + 1e-9);
  const auto cs = nccl::candidates(tab, g, Op::AllReduce, 128, Bytes{8} << 30);
  const nccl::Candidate* best = &cs.front();
  for (const auto& c : cs) {
    if (c.time_us < best->time_us) best = &c;
    if (c.algo == nccl::Algo::Ring && c.proto == nccl::Proto::Simple) CHECK(c.busbw == doctest::Approx(721.6));
    if (c.algo == nccl::Algo::NvlsTree) CHECK(c.busbw == doctest::Approx(32 * 2 * 20 * 0.74 * 31 / 32).epsilon(1e-4));
  }
  CHECK(best->algo == nccl::Algo::NvlsTree);
  // The HGX boxes keep their one-lane NIC rings (8 x 20.6 on H200), which do not claim more than the switch.
  const auto h = topology::resolve_topology("machine:gpu=h200,nodes=2,nics=8x400G,kind=roce");
  const auto gh = nccl::make_graph(h, tab, test::packed_rings_config(h, Op::AllReduce).placements, "");
  CHECK(gh.channels == 8);
  CHECK(gh.bw == doctest::Approx(20.6));
}

// nvls.cc ncclNvlsTuning / ncclNvlsTreeSm100Tuning: Blackwell across nodes 32 CUDA channels (2 nodes with
// NICs >= 48 GB/s keep 32); 3 nodes with 48-96 GB/s NICs 24; Hopper NVLS_NCHANNELS_SM90 = 16.
TEST_CASE("NVLS-tree CUDA channels follow NCCL's SM100 multi-node tuning") {
  const auto& tab = nccl::load_tables();
  auto graph = [&](const char* spec) {
    const auto t = topology::resolve_topology(spec);
    return nccl::make_graph(t, tab, test::packed_rings_config(t, Op::AllReduce).placements, "");
  };
  const auto b2 = graph("machine:gpu=b200,nodes=2,nics=8x400G,kind=roce"); // heads at 48 (PCIe Gen5)
  CHECK(nccl::nvls_tree_cuda_channels(tab, b2) == 32);
  const auto r3 = graph("machine:gpu=gb200,gpus=64,nodes=3,nics=64x400G,kind=roce"); // heads at 48 (the NIC's PCIe Gen5 path)
  REQUIRE(r3.nvls.tree);
  CHECK(r3.nvls.nic_GBps == doctest::Approx(48.0));
  CHECK(nccl::nvls_tree_cuda_channels(tab, r3) == 24);
  const auto h2 = graph("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib");
  CHECK(nccl::nvls_tree_cuda_channels(tab, h2) == 16);
}

// NVLS-tree's prediction (tuning.cpp nvls_tree_replay_bus_bandwidth): the smallest of the node's own NVLS
// figure, the heads' NICs (on 2 nodes x 2 (p-1)/p: algbw at most the heads' NICs) and NCCL's per-channel cap,
// where NCCL's tree graph takes its bwIntra from the NIC-bound search.
//   2 B200 nodes: NCCL 8 x min(2 x 48 x 0.74 x 7/8 = 62.16, 96, 96) = 497.28; the domain alone searches 8 x 80:
//     min(2 x 80 x 0.74 x 7 = 828.8, 8 x 48 x 2 x 15/16 = 720, 8 x 96 = 768) = 720.
//   2 H200 nodes (8 x 40/48): NCCL 8 x min(2 x 40 x 0.85 x 7/8 = 59.5, 96, 57.7) = 461.6; domain 8 x 40 ->
//     min(476, 768, 461.6) = 461.6, NCCL's figure.
//   2 GB200 racks (32 x 20/40): the domain's search is the tree's (32 x 20): 917.6 either way.
TEST_CASE("NVLS-tree runs its switch stage at the domain's own NVLS speed") {
  const auto& tab = nccl::load_tables();
  auto graph = [&](const char* spec) {
    const auto t = topology::resolve_topology(spec);
    return nccl::make_graph(t, tab, test::packed_rings_config(t, Op::AllReduce).placements, "");
  };
  const auto b2 = graph("machine:gpu=b200,nodes=2,nics=8x400G,kind=roce");
  CHECK(b2.nvls.domain_channels == 8);
  CHECK(b2.nvls.domain_bw == doctest::Approx(80.0));
  CHECK(nccl::nvls_bus_bandwidth(tab, b2, Op::AllReduce, 16) == doctest::Approx(497.28).epsilon(1e-4));
  CHECK(nccl::nvls_tree_replay_bus_bandwidth(tab, b2, Op::AllReduce, 16) == doctest::Approx(720.0).epsilon(1e-4));
  const auto h2 = graph("machine:gpu=h200,nodes=2,nics=8x400G,kind=roce");
  CHECK(nccl::nvls_tree_replay_bus_bandwidth(tab, h2, Op::AllReduce, 16) == doctest::Approx(461.6).epsilon(1e-4));
  const auto r2 = graph("machine:gpu=gb200,gpus=64,nodes=2,nics=64x400G,kind=roce");
  CHECK(nccl::nvls_tree_replay_bus_bandwidth(tab, r2, Op::AllReduce, 128) == doctest::Approx(917.6).epsilon(1e-4));
  CHECK(nccl::nvls_tree_replay_bus_bandwidth(tab, r2, Op::AllGather, 128) == 0.0); // allreduce only
}
