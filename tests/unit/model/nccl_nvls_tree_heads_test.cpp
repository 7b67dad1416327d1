// NVLS-tree's hardware figure (tuning.cpp nvls_tree_replay_bus_bandwidth) when a node has fewer NICs than
// GPUs, worked by hand. NCCL's NVLS search (src/graph/search.cc, v2.29.2-1) makes one head per NIC's local GPU,
// so 2 x 8 H200 with 4 x 400G NICs (nccl-tests #380) run 4 heads, NCCL's tree graph 4 x 48/48.
//   NCCL's own figure (tuning.cc): 4 x min(2 x 48 x 0.85 x 3/4 = 61.2, 2 x 48 = 96, perChMaxNVLSTreeBw 57.7)
//     = 230.8 bus.
//   The hardware's: each node's 4 heads send and receive the whole buffer once on 2 nodes, so algbw <= 4 x 48
//     = 192, bus 192 x 2 x 15/16 = 360; the domain alone (8 x 40 on 8 H200) 2 x 40 x 0.85 x 7 = 476; NCCL's
//     per-head cap at a head per GPU 8 x 57.7 = 461.6: min = 360 (nccl-tests #380 measured 301.9-320.4).
//   With 8 NICs the cap is 8 x 57.7 = 461.6 either way and binds (476, 720): unchanged.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

TEST_CASE("NVLS-tree with a NIC for every second GPU runs at the heads' NICs, not at a per-head cap") {
  const auto& tab = nccl::load_tables();
  auto graph = [&](const char* spec) {
    const auto t = topology::resolve_topology(spec);
    return nccl::make_graph(t, tab, test::packed_rings_config(t, Op::AllReduce).placements, "");
  };
  const auto h4 = graph("machine:gpu=h200,nodes=2,nics=4x400G,kind=ib");
  REQUIRE(h4.nvls.tree);
  CHECK(h4.nvls.channels == 4);
  CHECK(h4.nvls.ppn == 8);
  CHECK(h4.nvls.nic_GBps == doctest::Approx(48.0));
  CHECK(nccl::nvls_bus_bandwidth(tab, h4, Op::AllReduce, 16) == doctest::Approx(230.8).epsilon(1e-4));
  CHECK(nccl::nvls_tree_replay_bus_bandwidth(tab, h4, Op::AllReduce, 16) == doctest::Approx(360.0).epsilon(1e-4));
  const auto h8 = graph("machine:gpu=h200,nodes=2,nics=8x400G,kind=ib");
  CHECK(nccl::nvls_tree_replay_bus_bandwidth(tab, h8, Op::AllReduce, 16) == doctest::Approx(461.6).epsilon(1e-4));
}
