// NCCL's tree on 2 nodes (tuning.cc: `bw = nNodes <= 2 ? bwIntra : bwInter`; search.cc pass 2 raises a
// tree's bwIntra while it is below 2x bwInter), worked by hand.
// 2 x p4de (HGX A100, 4 x 100G EFA): 4 search channels x 12.5 GB/s (one per NIC); the tree's bwIntra is
// 2 x 12.5 = 25 (a GPU's 12 NVLink3 lanes x 20 = 240 into the switches give each of 4 channels 60, not binding).
//   ring Simple busBw 4 x 12.5 = 50 -> algbw 50 x 16/30 = 26.67
//   tree Simple busBw min(0.92 x 4 x 25 = 92, 4 x perChMaxTreeBw 23.6 (Ampere N2) = 94.4) = 92
//     -> algbw at 2 GiB 92 x 0.5 x treeCorrection 0.9 = 41.4
//   tree LL128 min(92 x 120/128 = 86.25, 4 x 20) = 80 -> 80 x 0.5 x 1.0 = 40: tree/Simple is the pick.
// 2 x DGX-1 (2 x 100G, the GPU-NIC path PCIe Gen3 12 GB/s): 2 channels x 12; the tree's chain hops are
// single NVLink2 lanes (20 GB/s < 2 x 12, bwInter the PCIe Gen3 path): NCCL would raise bwIntra part way to 20, ccsim keeps 12 (graph.cpp).
// 2 x HGX A100 with 8 x 200G: 8 channels x 20 (a route's slowest lane, one NVLink3 lane); bwInter min(25 NIC,
// 24 PCIe Gen4) = 24, 240 / 8 = 30 < 48: kept at 20.
// 2 x HGX H200 with 8 x 400G: 8 channels x 20.6 (one NVLink4 lane); bwInter min(50 NIC, 48 PCIe Gen5) = 48,
// 18 x 20.6 / 8 = 46.35 < 96: kept at 20.6 (the ring's figure is NVLink-bound, not the NIC: no doubling).
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/model/nccl/tuning.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

namespace {
nccl::Graph graph_of(const topology::Topology& t) { return test::packed_graph(t); }
const nccl::Candidate& pick(const std::vector<nccl::Candidate>& cs) {
  const nccl::Candidate* b = &cs.front();
  for (const auto& c : cs)
    if (c.time_us < b->time_us) b = &c;
  return *b;
}
} // namespace

TEST_CASE("NCCL's 2-node tree counts the NIC per channel twice, bounded by the intra-node links") {
  const auto p4de = graph_of(topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=efa"));
  CHECK(p4de.channels == 4);
  CHECK(p4de.bw == doctest::Approx(12.5));
  CHECK(p4de.tree_bw == doctest::Approx(25.0));
  const auto dgx1 = graph_of(topology::resolve_topology("cluster:nodes=2,node=dgx1-v100,nics=2x100G,kind=roce"));
  CHECK(dgx1.bw == doctest::Approx(12.0));
  CHECK(dgx1.tree_bw == doctest::Approx(12.0));
  const auto a100 = graph_of(topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=ib"));
  CHECK(a100.channels == 8);
  CHECK(a100.bw == doctest::Approx(20.0));
  CHECK(a100.tree_bw == doctest::Approx(20.0));
  const auto h200 = graph_of(topology::resolve_topology("machine:gpu=h200,nodes=2,nics=8x400G,kind=roce"));
  CHECK(h200.bw == doctest::Approx(20.6));
  CHECK(h200.tree_bw == doctest::Approx(20.6));
  // From 3 nodes NCCL takes bwInter: the tree's figure is the ring's.
  const auto p4de4 = graph_of(topology::resolve_topology("cluster:nodes=4,node=hgx-a100,nics=4x100G,kind=efa"));
  CHECK(p4de4.tree_bw == doctest::Approx(p4de4.bw));
}

TEST_CASE("Two p4de nodes: NCCL's model picks tree over ring for large allreduces") {
  const auto& tab = nccl::load_tables();
  const auto g = graph_of(topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=efa"));
  const auto cs = nccl::candidates(tab, g, Op::AllReduce, 16, Bytes{1} << 31);
  for (const auto& c : cs) {
    if (c.algo == nccl::Algo::Ring && c.proto == nccl::Proto::Simple) CHECK(c.algbw == doctest::Approx(50.0 * 16 / 30));
    // 2 GiB: log2i(2^31 >> 6) = 25 is past treeCorrectionFactor's 23 buckets, so no factor: 92 / 2.
    if (c.algo == nccl::Algo::Tree && c.proto == nccl::Proto::Simple) CHECK(c.algbw == doctest::Approx(46.0));
    if (c.algo == nccl::Algo::Tree && c.proto == nccl::Proto::LL128) CHECK(c.algbw == doctest::Approx(40.0));
  }
  const auto& best = pick(cs);
  CHECK(best.algo == nccl::Algo::Tree);
  CHECK(best.proto == nccl::Proto::Simple);
}

TEST_CASE("Tree correction applies from 64 B to just under 512 MiB only") {
  const auto& tab = nccl::load_tables();
  const auto g = graph_of(topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=efa"));
  const auto tree_simple = [&](Bytes n) {
    for (const auto& c : nccl::candidates(tab, g, Op::AllReduce, 16, n))
      if (c.algo == nccl::Algo::Tree && c.proto == nccl::Proto::Simple) return c.algbw;
    return 0.0;
  };
  // Simple row of treeCorrectionFactor: bucket 22 (256 MiB .. 512 MiB - 1) is 0.9, bucket 23 is not read for Tree.
  CHECK(tree_simple((Bytes{1} << 29) - 64) == doctest::Approx(92 * 0.5 * 0.9));
  CHECK(tree_simple(Bytes{1} << 29) == doctest::Approx(92 * 0.5));
  // Under 64 B log2i(0) is -1: no factor either (bucket 0 would be 0.9).
  CHECK(tree_simple(32) == doctest::Approx(92 * 0.5));
  // 1 MiB: bucket 14, factor 0.5.
  CHECK(tree_simple(Bytes{1} << 20) == doctest::Approx(92 * 0.5 * 0.5));
}
