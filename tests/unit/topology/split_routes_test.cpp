// Routes on hosts that meet only at network switches (SplitRoutes): when the split applies, what it
// returns (paths worked out by hand from the link speeds and latencies), and when it steps aside.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/split_routes.hpp"
#include "sim/topology/topology_json.hpp"
#include "route_path.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {

constexpr Bandwidth GB = 1'000'000'000;

int node(const Topology& t, const std::string& name) {
  const auto id = t.find_node(name);
  REQUIRE(id.has_value());
  return *id;
}

// Node names along channels from src (checks that they chain up).
std::vector<std::string> names_along(const Topology& t, int src, const std::vector<ChannelId>& route) {
  return test::route_names(t, route, src);
}

// Two hosts of one GPU each behind a NIC, both NICs on switch `sw`; host A's GPU has a second NIC when
// `second_nic` (on switch `second_switch`: the same one, or a second switch).
struct TwoHosts {
  Topology t;
  int gpu_a = 0, gpu_b = 0;
};
TwoHosts two_hosts(bool second_nic, bool second_switch, bool pcie_between_nics) {
  TwoHosts h;
  auto& t = h.t;
  h.gpu_a = t.add_node("a.gpu", NodeKind::Gpu);
  h.gpu_b = t.add_node("b.gpu", NodeKind::Gpu);
  const int nic_a = t.add_node("a.nic0", NodeKind::Nic), nic_b = t.add_node("b.nic", NodeKind::Nic);
  const int sw = t.add_node("sw", NodeKind::NetSwitch);
  t.add_link(h.gpu_a, nic_a, LinkType::Pcie4, 25 * GB, from_us(1));
  t.add_link(h.gpu_b, nic_b, LinkType::Pcie4, 25 * GB, from_us(1));
  t.add_link(nic_a, sw, LinkType::Ib, 25 * GB, from_us(1));
  t.add_link(nic_b, sw, LinkType::Ib, 25 * GB, from_us(1));
  if (second_nic) {
    const int nic_a1 = t.add_node("a.nic1", NodeKind::Nic);
    const int sw2 = second_switch ? t.add_node("sw2", NodeKind::NetSwitch) : sw;
    t.add_link(h.gpu_a, nic_a1, LinkType::Pcie4, 25 * GB, from_us(1));
    t.add_link(nic_a1, sw2, LinkType::Ib, 25 * GB, from_us(1));
    if (second_switch) t.add_link(sw, sw2, LinkType::Ib, 25 * GB, from_us(1));
    if (pcie_between_nics) t.add_link(nic_a, nic_a1, LinkType::Pcie4, 25 * GB, from_us(1));
  }
  return h;
}

} // namespace

TEST_CASE("split routes: an HGX H100 cluster's GPUs reach other hosts through their own rail NICs") {
  const Topology t = generate_from_spec("cluster:nodes=3,node=hgx-h100,nics=8x400G,kind=ib");
  auto split = SplitRoutes::make(t);
  REQUIRE(split != nullptr);
  std::vector<ChannelId> r;
  // Across hosts everything runs at the NIC's 50 GB/s at best, so the fewest microseconds win: out of GPU 0's
  // own NIC (PCIe, 2 us), the fabric (2 x 1.35 us), into GPU 5's NIC.
  REQUIRE(split->route(node(t, "n0.gpu0"), node(t, "n2.gpu5"), r) == SplitRoutes::Result::Unique);
  CHECK(names_along(t, node(t, "n0.gpu0"), r) == std::vector<std::string>{"n0.gpu0", "n0.xnic0", "fabric", "n2.xnic5", "n2.gpu5"});
  // Inside a host the NVSwitch (450 GB/s) is wider than any way out.
  REQUIRE(split->route(node(t, "n1.gpu2"), node(t, "n1.gpu7"), r) == SplitRoutes::Result::Unique);
  CHECK(names_along(t, node(t, "n1.gpu2"), r) == std::vector<std::string>{"n1.gpu2", "n1.nvswitch", "n1.gpu7"});
  // Another GPU's NIC of the same host: GPU 4 does not forward, so the way in is from the fabric.
  REQUIRE(split->route(node(t, "n0.gpu1"), node(t, "n0.xnic4"), r) == SplitRoutes::Result::Unique);
  CHECK(names_along(t, node(t, "n0.gpu1"), r) == std::vector<std::string>{"n0.gpu1", "n0.xnic1", "fabric", "n0.xnic4"});
  // The Router gives the same answers.
  Router router(t);
  const auto via_router = router.route(node(t, "n0.gpu0"), node(t, "n2.gpu5"));
  split->route(node(t, "n0.gpu0"), node(t, "n2.gpu5"), r);
  CHECK(std::vector<ChannelId>(via_router.begin(), via_router.end()) == r);
}

TEST_CASE("split routes: a host whose forwarding nodes touch two switches could carry routes, so no split") {
  CHECK(SplitRoutes::make(two_hosts(false, false, false).t) != nullptr);
  CHECK(SplitRoutes::make(two_hosts(true, false, false).t) != nullptr); // two NICs, one switch, not joined
  CHECK(SplitRoutes::make(two_hosts(true, true, false).t) != nullptr);  // two switches, the NICs meet only at a GPU
  CHECK(SplitRoutes::make(two_hosts(true, true, true).t) == nullptr);   // sw -> a.nic0 -> a.nic1 -> sw2 is a way through
  // A DGX-1's NICs share PCIe switches and CPUs: fine on one switch, but with two NICs per 2-port leaf
  // a host joins two leaves, and the cluster is searched whole.
  CHECK(SplitRoutes::make(generate_from_spec("cluster:nodes=2,node=dgx1,nics=4x100G,kind=ib")) != nullptr);
  CHECK(SplitRoutes::make(generate_from_spec("cluster:nodes=2,node=dgx1,nics=4x100G,kind=ib,fabric=fattree,leaf_ports=2")) == nullptr);
  // One host: nothing to split.
  CHECK(SplitRoutes::make(resolve_topology("hgx-h100")) == nullptr);
}

TEST_CASE("split routes: two equally short paths are left to the full search") {
  auto h = two_hosts(true, false, false); // a.gpu -> a.nic0 or a.nic1 -> sw: both 2 us, same width
  auto split = SplitRoutes::make(h.t);
  REQUIRE(split != nullptr);
  std::vector<ChannelId> r;
  CHECK(split->route(h.gpu_a, h.gpu_b, r) == SplitRoutes::Result::Ambiguous);
  // To a.nic0 there is one shortest path (the other NIC leads only to a.gpu, which does not forward).
  REQUIRE(split->route(h.gpu_b, node(h.t, "a.nic0"), r) == SplitRoutes::Result::Unique);
  CHECK(names_along(h.t, h.gpu_b, r) == std::vector<std::string>{"b.gpu", "b.nic", "sw", "a.nic0"});
  // The Router still answers with one of the two shortest paths (four links).
  Router router(h.t);
  CHECK(router.route(h.gpu_a, h.gpu_b).size() == 4);
}

TEST_CASE("split routes: a host cut off from the switches is unreachable") {
  auto h = two_hosts(false, false, false);
  const int lone = h.t.add_node("c.gpu", NodeKind::Gpu);
  const int lone_nic = h.t.add_node("c.nic", NodeKind::Nic);
  h.t.add_link(lone, lone_nic, LinkType::Pcie4, 25 * GB, from_us(1));
  auto split = SplitRoutes::make(h.t);
  REQUIRE(split != nullptr);
  std::vector<ChannelId> r;
  CHECK(split->route(h.gpu_a, lone, r) == SplitRoutes::Result::Unreachable);
  CHECK(split->route(h.gpu_a, h.gpu_b, r) == SplitRoutes::Result::Unique);
}

TEST_CASE("split routes: on a fat tree a route between two leaves goes up to the spine and down") {
  // 4 nodes x 8 NICs on 8-port leaves: node k's NICs fill leaf k, and every leaf hangs off the one spine node.
  const Topology t = generate_from_spec("cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib,fabric=fattree,leaf_ports=8");
  auto split = SplitRoutes::make(t);
  REQUIRE(split != nullptr);
  std::vector<ChannelId> r;
  REQUIRE(split->route(node(t, "n1.gpu3"), node(t, "n3.gpu3"), r) == SplitRoutes::Result::Unique);
  CHECK(names_along(t, node(t, "n1.gpu3"), r) ==
        std::vector<std::string>{"n1.gpu3", "n1.xnic3", "leaf1", "spine", "leaf3", "n3.xnic3", "n3.gpu3"});
  // Within a leaf the spine is not needed.
  REQUIRE(split->route(node(t, "n2.gpu0"), node(t, "n2.xnic6"), r) == SplitRoutes::Result::Unique);
  CHECK(names_along(t, node(t, "n2.gpu0"), r) == std::vector<std::string>{"n2.gpu0", "n2.xnic0", "leaf2", "n2.xnic6"});
  // Switch to switch.
  REQUIRE(split->route(node(t, "leaf0"), node(t, "leaf2"), r) == SplitRoutes::Result::Unique);
  CHECK(names_along(t, node(t, "leaf0"), r) == std::vector<std::string>{"leaf0", "spine", "leaf2"});
}

TEST_CASE("split routes: every GPU pair of a 3-node HGX H100 cluster follows the rail rule") {
  // Worked out from the links: inside a node the NVSwitch (450 GB/s) is the widest way; across nodes every
  // way runs at most at the NIC's 50 GB/s, and the fewest microseconds are out of the source GPU's own
  // PCIe NIC, through the fabric switch, into the destination GPU's NIC (GPUs do not forward).
  const Topology t = generate_from_spec("cluster:nodes=3,node=hgx-h100,nics=8x400G,kind=ib");
  Router router(t);
  for (int a = 0; a < t.num_gpus(); ++a)
    for (int b = 0; b < t.num_gpus(); ++b) {
      if (a == b) continue;
      const auto na = "n" + std::to_string(a / 8), nb = "n" + std::to_string(b / 8);
      const auto ga = na + ".gpu" + std::to_string(a % 8), gb = nb + ".gpu" + std::to_string(b % 8);
      const auto route = router.route(t.gpu_node(a), t.gpu_node(b));
      const std::vector<ChannelId> channels(route.begin(), route.end());
      const auto expected = a / 8 == b / 8 ? std::vector<std::string>{ga, na + ".nvswitch", gb}
                                           : std::vector<std::string>{ga, na + ".xnic" + std::to_string(a % 8), "fabric",
                                                                      nb + ".xnic" + std::to_string(b % 8), gb};
      CHECK(names_along(t, t.gpu_node(a), channels) == expected);
    }
}
