// NCCL's view of PCIe boxes and NVLink bridges, worked by hand from NCCL's constants (v2.30.7 topo.h):
//  * an NVLink lane of a compute capability 8.6 GPU (A40, RTX A6000, RTX 3090) is SM86_NVLINK_BW 12, not
//    SM80's 20: an A40 NV4 bridge is 4 x 12 = 48 for the search; Ampere's speedArrayIntra {40,30,20,...}
//    gives one channel of 40, doubled (>= 25) into 2 x 20. An A100 PCIe bridge lane (sm80) stays 20.
//  * P2P off on a drawing without a GPU kind keeps the GPU generation of its NVLinks (HGX H100: Hopper).
//  * 8 H100 PCIe, 4 per socket behind a switch: the ring crosses the sockets' UPI beside Gen5 root ports,
//    NCCL's Sapphire Rapids figure 22; Hopper's {60,50,40,30,24,20,15,12,11,...}: no ring at 60-24, one channel
//    at 20 (20 of the 22 each way), one at 15 and 12 (not more than 20), two at 11 (22 > 20: kept, and 22 reaches
//    the total, so the search stops): 2 x 11 (< 25: no dup). (ccsim took the first speed that fit, 1 x 20.)
//  * 8 H800 SXM on NVSwitch, 8 NVLink4 lanes of 20.6 = 164.8 each: 2 x 60 = 120, 3 x 50 = 150, 4 x 40 = 160
//    kept, 5 x 30, 6 x 24 and 8 x 20 (20 / 40 = 0.5 > 0.49) not above 160, then 15 / 40 < 0.49 stops; 4 x 40
//    is duplicated (Hopper: bw < 50 with more than 4 channels skips, 4 does not) into 8 x 20.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/model/nccl/graph.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/model/nccl/shm.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;

namespace {
double nvlink_lane(const std::string& spec) {
  const auto t = topology::resolve_topology(spec);
  for (const auto& l : t.links)
    if (topology::is_nvlink(l.type)) return nccl::load_tables().lane_GBps(t, l);
  return 0;
}
nccl::Graph graph_of(const topology::Topology& t) {
  return nccl::make_graph(t, nccl::load_tables(), test::packed_rings_config(t).placements, "");
}
} // namespace

TEST_CASE("NCCL sees an sm86 NVLink lane at 12 GB/s, an sm80 one at 20") {
  CHECK(nvlink_lane("machine:gpu=a40,gpus=2") == doctest::Approx(12.0));
  CHECK(nvlink_lane("machine:gpu=rtx3090,gpus=2") == doctest::Approx(12.0));
  CHECK(nvlink_lane("machine:gpu=a100pcie,gpus=2") == doctest::Approx(20.0));
  const auto g = graph_of(topology::resolve_topology("machine:gpu=a40,gpus=2"));
  CHECK(g.channels == 2);
  CHECK(g.bw == doctest::Approx(20.0));
  CHECK(g.graph_efficiency == doctest::Approx(40.0 / 48.0));
}

TEST_CASE("P2P off keeps the GPU generation of a drawing's NVLinks") {
  const auto t = topology::without_p2p(topology::resolve_topology("hgx-h100"), "test");
  CHECK(t.gpu_kind == "h100");
  CHECK(graph_of(t).arch == nccl::Arch::Hopper);
}

TEST_CASE("8 H100 PCIe, 4 per socket behind a switch: the ring runs at NCCL's socket figure") {
  const auto t = topology::resolve_topology("machine:gpu=h100pcie,gpus=8,intra=pcie,sockets=2,gpus_per_switch=4");
  const auto g = graph_of(t);
  CHECK(g.channels == 2);
  CHECK(g.bw == doctest::Approx(11.0));
  CHECK(g.arch == nccl::Arch::Hopper);
}

TEST_CASE("8 H800 on NVSwitch: NCCL's search lowers the speed to 4 x 40 and duplicates it") {
  const auto g = graph_of(topology::resolve_topology("machine:gpu=h800,gpus=8"));
  CHECK(g.channels == 8);
  CHECK(g.bw == doctest::Approx(20.0));
  CHECK(g.graph_efficiency == doctest::Approx(160.0 / (8 * 20.6)));
}

// duplex_both_ways (shm.hpp): only a 2-rank broadcast or reduce moves one way over a GPU's port; every ring
// (each GPU sends to its next while it receives), a longer chain's middle GPUs, sendrecv and alltoall load both.
TEST_CASE("duplex_both_ways: one way only for 2-rank broadcast and reduce") {
  using ccsim::schedule::Op;
  CHECK_FALSE(ccsim::model::nccl::duplex_both_ways(Op::Broadcast, 2));
  CHECK_FALSE(ccsim::model::nccl::duplex_both_ways(Op::Reduce, 2));
  CHECK(ccsim::model::nccl::duplex_both_ways(Op::Broadcast, 3));
  CHECK(ccsim::model::nccl::duplex_both_ways(Op::AllReduce, 2));
  CHECK(ccsim::model::nccl::duplex_both_ways(Op::SendRecv, 2));
  CHECK(ccsim::model::nccl::duplex_both_ways(Op::AllToAll, 2));
  CHECK(ccsim::model::nccl::duplex_both_ways(Op::ReduceScatter, 2));
}
