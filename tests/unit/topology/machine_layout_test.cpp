// `machine:` host layout keys for PCIe boxes: sockets=1|2, gpus_per_switch=N, cpu=intel|amd. The GPUs fill
// the sockets in order and the switches in order, so NCCL's ring 0..n-1 crosses the socket link twice.
// Expected path classes follow nvidia-smi/NCCL by hand: two GPUs behind one switch PIX, on one socket
// through the host bridge PHB, across the socket link SYS.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "node_counts.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {
const Link* socket_link(const Topology& t) {
  for (const auto& l : t.links)
    if (t.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Cpu && t.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Cpu) return &l;
  return nullptr;
}
} // namespace

TEST_CASE("machine: 8 PCIe GPUs, 4 per socket behind one switch each side") {
  const auto t = resolve_topology("machine:gpu=h100pcie,gpus=8,intra=pcie,sockets=2,gpus_per_switch=4");
  CHECK(test::count_kind(t, NodeKind::PcieSwitch) == 2);
  CHECK(test::count_kind(t, NodeKind::Cpu) == 2);
  CHECK(path_class(t, 0, 3) == PathClass::Pix);
  CHECK(path_class(t, 4, 7) == PathClass::Pix);
  CHECK(path_class(t, 3, 4) == PathClass::Sys);
  // The ring 0..7 crosses the sockets exactly twice (3->4 and 7->0).
  int crossings = 0;
  for (int g = 0; g < 8; ++g) crossings += path_class(t, g, (g + 1) % 8) == PathClass::Sys;
  CHECK(crossings == 2);
}

TEST_CASE("machine: default layout keeps two GPUs per switch and two sockets from 4 GPUs") {
  const auto t = resolve_topology("machine:gpu=l40s,gpus=8,intra=pcie");
  CHECK(test::count_kind(t, NodeKind::PcieSwitch) == 4);
  CHECK(path_class(t, 0, 1) == PathClass::Pix);
  CHECK(path_class(t, 1, 2) == PathClass::Phb);
  CHECK(path_class(t, 3, 4) == PathClass::Sys);
  const auto* upi = socket_link(t);
  REQUIRE(upi != nullptr);
  CHECK(upi->type == LinkType::Upi);
}

TEST_CASE("machine: one socket keeps every GPU pair off the socket link") {
  const auto t = resolve_topology("machine:gpu=h100,gpus=8,intra=pcie,p2p=off,sockets=1");
  CHECK(test::count_kind(t, NodeKind::Cpu) == 1);
  CHECK(socket_link(t) == nullptr);
  CHECK(path_class(t, 0, 7) == PathClass::Phb);
}

TEST_CASE("machine: cpu=amd joins the sockets with 4 xGMI links") {
  const auto t = resolve_topology("machine:gpu=rtx4090,gpus=8,intra=pcie,p2p=off,cpu=amd");
  const auto* l = socket_link(t);
  REQUIRE(l != nullptr);
  CHECK(l->type == LinkType::Xgmi);
  CHECK(l->lanes == 4);
}

TEST_CASE("machine: bad layout keys are refused with one line naming them") {
  for (const std::string spec : {"machine:gpu=l40s,gpus=8,sockets=3", "machine:gpu=l40s,gpus=1,sockets=2",
                                 "machine:gpu=l40s,gpus=8,gpus_per_switch=0", "machine:gpu=l40s,gpus=8,gpus_per_switch=x",
                                 "machine:gpu=l40s,gpus=8,cpu=arm", "machine:gpu=mi300x,cpu=amd"}) {
    CAPTURE(spec);
    CHECK_THROWS_AS(resolve_topology(spec), Error);
  }
}

// pcie_duplex: the budget sits on each GPU's own PCIe port (GPU to its switch or root port), never on a switch's
// uplink or the socket link, and a cluster of the machine keeps it on every node's GPU ports. Hand count: 8 GPUs
// behind 4 switches (the default layout) = 8 GPU ports + 4 uplinks + 1 socket link.
TEST_CASE("machine: pcie_duplex holds each GPU port, not the uplinks, and survives a cluster") {
  const auto t = resolve_topology("machine:gpu=l40s,gpus=8,intra=pcie,pcie_duplex=50GB/s");
  int held = 0, free_links = 0;
  for (const auto& l : t.links) {
    const bool gpu_port = t.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Gpu || t.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Gpu;
    if (l.duplex > 0) {
      ++held;
      CHECK(gpu_port);
      CHECK(l.duplex == Bandwidth{50'000'000'000});
    } else {
      ++free_links;
    }
  }
  CHECK(held == 8);
  CHECK(free_links == 5);
  const auto none = resolve_topology("machine:gpu=l40s,gpus=8,intra=pcie");
  for (const auto& l : none.links) CHECK(l.duplex == 0);
  const auto c = resolve_topology("machine:gpu=l40s,gpus=2,intra=pcie,pcie_duplex=50GB/s,nodes=2,nics=1x100G,kind=roce");
  int held_c = 0;
  for (const auto& l : c.links) held_c += l.duplex > 0;
  CHECK(held_c == 4);
}

// A file carries the budget as a link's "duplex": written by topology_to_json, read back to the same bytes/s.
TEST_CASE("machine: pcie_duplex round-trips through the JSON writer and reader") {
  const auto t = resolve_topology("machine:gpu=rtxpro6000,gpus=2,intra=pcie,pcie_switch=off,pcie_duplex=75GB/s");
  const auto j = topology_to_json(t);
  CHECK(j["links"][0]["duplex"] == "75 GB/s"); // format_bandwidth's text, which parse_bandwidth reads back
  const auto back = topology_from_json(j, "round trip");
  REQUIRE(back.links.size() == t.links.size());
  for (std::size_t i = 0; i < t.links.size(); ++i) CHECK(back.links[i].duplex == Bandwidth{75'000'000'000});
}
