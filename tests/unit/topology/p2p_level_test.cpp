// NCCL's path classes between GPUs (PIX/PXB/PHB/SYS, NVL) derived from the drawn topology, NCCL_P2P_LEVEL
// as --p2p-level, GPU names as users type them, and a PCIe node sharing one NIC among its GPUs.
#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::topology;

TEST_CASE("Path classes from the drawing: one switch PIX, through a CPU PHB, across sockets SYS, NVLink NVL") {
  // machine: PCIe servers put two GPUs on a PCIe switch, switches on the sockets' root ports, GPUs 0-3 on
  // socket 0 and 4-7 on socket 1 (8 GPUs).
  const auto t = resolve_topology("machine:gpu=l40s,gpus=8");
  CHECK(path_class(t, 0, 0) == PathClass::Loc);
  CHECK(path_class(t, 0, 1) == PathClass::Pix);
  CHECK(path_class(t, 0, 2) == PathClass::Phb);
  CHECK(path_class(t, 0, 5) == PathClass::Sys);
  const auto h = resolve_topology("machine:gpu=h100");
  CHECK(path_class(h, 0, 7) == PathClass::Nvl); // one NVSwitch plane
  const auto m = resolve_topology("machine:gpu=mi300x");
  CHECK(path_class(m, 2, 6) == PathClass::Nvl); // xGMI link
  const auto bridge = resolve_topology("machine:gpu=a40,gpus=4");
  CHECK(path_class(bridge, 0, 1) == PathClass::Nvl); // NV4 bridge pair
}

TEST_CASE("NCCL_P2P_LEVEL names and old numbers") {
  CHECK(p2p_level_from("PXB", "x") == PathClass::Pxb);
  CHECK(p2p_level_from("NODE", "x") == PathClass::Phb);
  CHECK(p2p_level_from("0", "x") == PathClass::Loc);
  CHECK(p2p_level_from("1", "x") == PathClass::Pix);
  CHECK(p2p_level_from("4", "x") == PathClass::Sys);
  CHECK(p2p_level_from("5", "x") == PathClass::Sys);
  CHECK(p2p_level_from("7", "x") == PathClass::Sys); // NCCL takes an old number above 5 as 5
  CHECK_THROWS_AS(p2p_level_from("pxb", "--p2p-level"), Error);
}

TEST_CASE("P2P level option: GPUs with a peer beyond the level stage through host memory") {
  const auto t = resolve_topology("machine:gpu=rtx4090,gpus=4,intra=pcie,p2p=on");
  Router r0(t);
  CHECK(r0.info(r0.route(t.gpu_node(0), t.gpu_node(1))).bottleneck == Bandwidth{31'500'000'000});
  // PIX: every GPU has a peer behind the CPU, so all stage at Gen4's host-staged 19.5 GB/s.
  const auto pix = with_p2p_level(t, PathClass::Pix, "test");
  Router r1(pix);
  CHECK(r1.info(r1.route(pix.gpu_node(0), pix.gpu_node(1))).bottleneck == Bandwidth{19'500'000'000});
  // SYS: every pair within the level, nothing changes.
  const auto sys = with_p2p_level(t, PathClass::Sys, "test");
  Router r2(sys);
  CHECK(r2.info(r2.route(sys.gpu_node(0), sys.gpu_node(1))).bottleneck == Bandwidth{31'500'000'000});
  // Two GPUs on one switch at PIX: both within the level.
  const auto two = resolve_topology("machine:gpu=rtx4090,gpus=2,intra=pcie,p2p=on");
  CHECK(with_p2p_level(two, PathClass::Pix, "test").name == two.name);
}

TEST_CASE("machine: GPU names as users type them, and 4 PCIe GPUs sharing 1 NIC per node") {
  CHECK(canonical_gpu_kind("a100-pcie") == "a100pcie");
  CHECK(canonical_gpu_kind("H100-PCIe") == "h100pcie");
  CHECK(canonical_gpu_kind("A6000") == "rtxa6000");
  CHECK(canonical_gpu_kind("MI355X") == "mi355x");
  CHECK(canonical_gpu_kind("nope") == "nope");
  for (const char* g : {"a40", "l40s", "l4", "a100-pcie", "h100-pcie", "h20", "rtx3090", "rtx4090", "rtx5090", "a6000"}) {
    INFO(g);
    CHECK(resolve_topology(std::string("machine:gpu=") + g + ",gpus=4").num_gpus() == 4);
  }
  const auto c = resolve_topology("machine:gpu=l40s,gpus=4,nodes=2,nics=1x100G");
  CHECK(c.num_gpus() == 8);
  int nics = 0;
  for (const auto& n : c.nodes) nics += n.kind == NodeKind::Nic;
  CHECK(nics == 2);
}

TEST_CASE("machine: pcie_switch=off puts every GPU on a CPU root port, so no pair is PIX") {
  const auto t = resolve_topology("machine:gpu=rtx4090,gpus=4,intra=pcie,pcie_switch=off");
  for (const auto& n : t.nodes) CHECK(n.kind != NodeKind::PcieSwitch);
  CHECK(path_class(t, 0, 1) == PathClass::Phb); // two root ports of one CPU
  CHECK(path_class(t, 1, 2) == PathClass::Sys); // across the sockets
  CHECK_THROWS_AS(resolve_topology("machine:gpu=rtx4090,pcie_switch=maybe"), Error);
}
