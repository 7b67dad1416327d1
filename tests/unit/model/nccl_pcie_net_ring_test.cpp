// NCCL's ring search across nodes on PCIe-only hosts (graph.cpp pcie_hosts_ring), worked by hand from
// NVIDIA/nccl src/graph/search.cc (ncclTopoCompute, followPath; master and v2.19.4-1 alike): links are one per
// direction, a channel takes its speed from every link of NET -> first GPU -> ... -> last GPU -> NET; a path
// from a NIC into a pre-sm80 GPU also takes speed/8 from the GPU's link the other way; a GPU-started path
// through one Intel root complex (PATH_PHB) takes 6/5 of the speed on its PCIe links. Speeds come from
// speedArrayInter {48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, ...} from the fastest GPU -> NET path
// (maxBw) down, at most the GPU's PCIe link (totalBw); a slower speed is kept only when channels x speed grows,
// and the search stops at 0.49 of the best. NCCL's PCIe figures: Gen3 x16 12, Gen4 x16 24; a 200G NIC 25.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/model/nccl/graph.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;

TEST_CASE("2 nodes x 2 V100 PCIe, a 200G NIC beside each GPU: NCCL's search gives one channel of 10") {
  // Both GPUs and both NICs on one Gen3 switch. maxBw = min(12 GPU port, 12 NIC port, 25 NIC) = 12 = totalBw.
  // Per channel the first GPU's port carries s up (to its peer) + s/8 up (the NIC's writes into a Volta GPU),
  // s down; the second GPU's s down, s up (to the NIC). At 12: 13.5 > 12, no channel. At 10: 11.25, one
  // channel (a second needs 20 down). 9, 7, 6 (2 x 6.75 = 13.5): one channel each, less than 10. 5: two
  // channels (2 x 5.625 = 11.25), 10 again, not more. 4 / 10 < 0.49: stop. Pass 2: 12 still fits none.
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=v100,gpus=2,intra=pcie,nodes=2,nics=2x200G,kind=ib"));
  CHECK(g.path == nccl::Path::Pci);
  CHECK(g.channels == 1);
  CHECK(g.bw == doctest::Approx(10.0));
  // The replay's links carry 12 per channel's path (no eighth): NCCL's 10 of it.
  CHECK(g.graph_efficiency == doctest::Approx(10.0 / 12.0));
}

TEST_CASE("2 nodes x 2 L40S (sm89): no reverse eighth, NCCL's inter speeds reach the Gen4 port's 24") {
  // maxBw = min(24, 24, 25) = 24 = totalBw; at 24 every directed link carries 24 once: one channel, and
  // channels x speed = totalBw ends the search (speedArrayIntra would have stopped at 20). 24 < 25: no dup.
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=l40s,gpus=2,intra=pcie,nodes=2,nics=2x200G,kind=ib"));
  CHECK(g.channels == 1);
  CHECK(g.bw == doctest::Approx(24.0));
  CHECK(g.graph_efficiency == doctest::Approx(1.0));
}

TEST_CASE("2 nodes x 4 V100 PCIe on one Intel socket, one 100G NIC: the root complex hop costs 6/5") {
  // Switches sw0 (GPUs 0, 1, the NIC) and sw1 (GPUs 2, 3) under cpu0. The ring NET -> 0 -> 1 -> 2 -> 3 -> NET:
  // 1 -> 2 and 3 -> NET go through cpu0 (PATH_PHB from a GPU), so their PCIe links carry 6/5 s; GPU 0's
  // port up carries s + s/8. maxBw = min(12, 12, 12.5) = 12. At 12: 14.4 > 12. At 10: 12, one channel (two at
  // 10 need 24). 9, 7: one; 6: 2 x 7.2 = 14.4, one; 5: two (12), 10 again. 4: stop. One channel of 10.
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=v100,gpus=4,intra=pcie,sockets=1,nodes=2,nics=1x100G,kind=ib"));
  CHECK(g.channels == 1);
  CHECK(g.bw == doctest::Approx(10.0));
  CHECK(g.graph_efficiency == doctest::Approx(10.0 / 12.0));
}

TEST_CASE("2 nodes x 8 L40S on two sockets: the ring crosses the UPI link once each way, NCCL's 10") {
  // Four Gen4 switches, two per socket; the NICs on sw0 and sw1 (both on cpu0). The ring crosses the sockets
  // 3 -> 4 one way and 7 -> NET the other: NCCL's Skylake figure SKL_QPI_BW 10 per direction binds (the hops
  // through one root complex need 6/5 s <= 24, s <= 20). 24, 20, 18, 15, 12 fit none; 10 one; 5 two (10, not
  // more); 4 stops. One channel of 10.
  for (const char* nics : {"1x200G", "2x200G"}) {
    CAPTURE(nics);
    const auto g = test::packed_graph(topology::resolve_topology(std::string("machine:gpu=l40s,gpus=8,intra=pcie,nodes=2,kind=ib,nics=") + nics));
    CHECK(g.channels == 1);
    CHECK(g.bw == doctest::Approx(10.0));
  }
}

TEST_CASE("2 nodes x 8 L40S with a NIC per GPU: a channel crosses the sockets once, every other one back") {
  // One 200G NIC beside each GPU, so a channel can enter on socket 0 (GPU 0's NIC) and leave on socket 1
  // (GPU 7's), crossing the UPI once; the next channel runs the other way (NCCL's channels may take their own
  // order). Speeds 24 to 12 exceed the socket figure 10; at 10 two channels, one per direction (the root
  // complex hops 1 -> 2 and 5 -> 6: 6/5 x 10 + 10 = 22 <= 24 on GPU 1's port); at 5 four, 20 again; 4 stops.
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=l40s,gpus=8,intra=pcie,nodes=2,nics=8x200G,kind=ib"));
  CHECK(g.channels == 2);
  CHECK(g.bw == doctest::Approx(10.0));
}

TEST_CASE("2 nodes x 8 H100 PCIe, 4 per switch and socket, a 400G NIC per GPU: 2 channels of 22, not 8 of 48") {
  // ccsim lays one ring per NIC, each once counted at a hop's full Gen5 48. NCCL's search: maxBw = min(48, 48,
  // 50) = 48 = totalBw; from 48 down to 24 nothing fits the socket link (Sapphire Rapids figure 22); at 22 one
  // channel each way across it, 44 < 48; 20 and 15 give 2 channels, less; 12 one per direction again; 6 stops.
  // 22 < 25: no dup. Peer pairs on the other socket go through the UPI for NCCL, not the fabric.
  const auto g = test::packed_graph(
      topology::resolve_topology("machine:gpu=h100pcie,gpus=8,intra=pcie,sockets=2,gpus_per_switch=4,nodes=2,nics=8x400G,kind=ib"));
  CHECK(g.channels == 2);
  CHECK(g.bw == doctest::Approx(22.0));
}

// NCCL's tree graph on these hosts (search.cc pattern BALANCED_TREE below sm90, TREE with one GPU per host):
// per channel NET -> g0 at bwInter, g0 -> NET and g1 -> NET at bwInter / 2 each on the same NIC, the chain
// g0 -> g1 -> ... at bwIntra; the start may reach totalBw x n / (n - 1) (no hop back to the NIC); pass 2 raises
// bwIntra while it is under 2 x bwInter and the channels still fit; tuning.cc takes bwIntra on 2 nodes.
TEST_CASE("2 nodes x 2 V100 PCIe, 2 NICs: NCCL's tree graph is 2 channels, bwInter 5, bwIntra 6 (not the ring's 1 x 10)") {
  // Per channel on the head GPU's port up: s/8 (the NIC's writes into a Volta GPU) + s/2 (back to the NIC) + s
  // (to g1); on g1's: s/2. Start: maxBw 12 (tree total 24). 12, 10, 9: 1.625 s > 12. 7: one channel (11.4), a
  // second (heads alternating, each port up 2.125 s) 14.9: 1 x 7. 6: one (2 x 6 = 12.75 > 12). 5: two channels
  // (10.6 up, 10 down on each port): 2 x 5 = 10 > 7. 4: 3 channels need 15 on a port: 2 x 4 = 8. 3: three
  // (11.25): 9 < 10. 2.4 / 5 < 0.49 stops. Pass 2, bwInter 5: bwIntra 6 puts the port up at 0.625 + 2.5 + 6 +
  // 2.5 = 11.625 <= 12 (down 5 + 6 = 11); 7 gives 12.625: 2 x 6 on 2 nodes.
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=v100,gpus=2,intra=pcie,nodes=2,nics=2x200G,kind=ib"));
  CHECK(g.tree_channels == 2);
  CHECK(g.tree_bw == doctest::Approx(6.0));
  CHECK(g.channels == 1); // the ring graph unchanged
  CHECK(g.bw == doctest::Approx(10.0));
}

TEST_CASE("2 nodes x 2 L40S: NCCL's tree graph is 2 x 12 where its ring is 1 x 24") {
  // No eighth on sm89: the head's port up carries s/2 + s, g1's s/2. maxBw 24: 24 (36), 20 (30), 18 (27) fit
  // none; 15 one (22.5; two: 30); 12 two (each port up 18 + 6 = 24, down 12 + 12 = 24): 2 x 12 = 24 = totalBw
  // ends pass 1. Pass 2: bwIntra 15 puts a head's port up at 6 + 15 + 6 = 27 > 24: stays 12.
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=l40s,gpus=2,intra=pcie,nodes=2,nics=2x200G,kind=ib"));
  CHECK(g.tree_channels == 2);
  CHECK(g.tree_bw == doctest::Approx(12.0));
}

TEST_CASE("2 nodes x 1 L40S on a 100G NIC: one GPU per host, NCCL's TREE pattern and pass 2 raise bwIntra to 2 x bwInter") {
  // ngpus 1: pattern TREE, NET -> g0 -> NET at bwInter. maxBw = the 100G NIC, 12.5: 12, one channel (the NIC's
  // port carries 12 of 12.5). No chain inside the host, so pass 2 raises bwIntra while it is under 2 x 12:
  // 15, 18, 20, 24. The old figure was 2 x the NIC's 12.5 = 25, a speed NCCL's array does not have.
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=l40s,gpus=1,nodes=2,nics=1x100G,kind=ib"));
  CHECK(g.channels == 1);
  CHECK(g.bw == doctest::Approx(12.0));
  CHECK(g.tree_channels == 1);
  CHECK(g.tree_bw == doctest::Approx(24.0));
}
