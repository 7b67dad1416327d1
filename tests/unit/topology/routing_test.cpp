// Routing facts on the shipped machines and the generated shapes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"
#include "route_path.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {

constexpr Bandwidth GB = 1'000'000'000;

std::vector<std::string> path_of(Router& r, int src, int dst) {
  return test::route_names(r.topology(), r.route(src, dst), src, dst);
}

// DGX-1V NVLink counts, nvidia-smi numbering (reference §4.1).
constexpr int kDgx1V[8][8] = {{0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0},
                              {2, 1, 2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1},
                              {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0}};

} // namespace

TEST_CASE("DGX-1V: 16 direct NVLink pairs with their lanes, 12 pairs through the best intermediate GPU") {
  const Topology t = resolve_topology("dgx1-v100");
  Router r(t);
  int direct = 0, relayed = 0;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      CAPTURE(a);
      CAPTURE(b);
      const auto route = r.route(t.gpu_node(a), t.gpu_node(b));
      const auto info = r.info(route);
      if (kDgx1V[a][b] > 0) {
        ++direct;
        REQUIRE(route.size() == 1);
        CHECK(t.link_of(route[0]).type == LinkType::NvLink2);
        CHECK(t.link_of(route[0]).lanes == kDgx1V[a][b]);
        CHECK(info.bottleneck == static_cast<Bandwidth>(kDgx1V[a][b]) * 25 * GB);
      } else {
        ++relayed;
        REQUIRE(route.size() == 2);
        const int mid = t.channel_to(route[0]);
        CHECK(t.nodes[static_cast<std::size_t>(mid)].gpu >= 0);
        // Best bottleneck over every one-GPU relay, computed from the matrix.
        int best = 0;
        for (int k = 0; k < 8; ++k) best = std::max(best, std::min(kDgx1V[a][k], kDgx1V[k][b]));
        CHECK(info.bottleneck == static_cast<Bandwidth>(best) * 25 * GB);
        CHECK(info.bottleneck > 15'750'000'000); // beats the PCIe/QPI path
      }
    }
  CHECK(direct == 32); // 16 pairs, both directions
  CHECK(relayed == 24);
}

TEST_CASE("NVSwitch boxes: every pair at the full per-GPU bandwidth") {
  struct Box {
    const char* name;
    Bandwidth per_gpu;
  };
  for (Box box : {Box{"hgx-a100", 300 * GB}, Box{"hgx-h100", 450 * GB}}) {
    CAPTURE(box.name);
    const Topology t = resolve_topology(box.name);
    REQUIRE(t.num_gpus() == 8);
    Router r(t);
    for (int a = 0; a < 8; ++a)
      for (int b = 0; b < 8; ++b) {
        if (a == b) continue;
        const auto p = path_of(r, t.gpu_node(a), t.gpu_node(b));
        REQUIRE(p.size() == 3);
        CHECK(t.nodes[static_cast<std::size_t>(*t.find_node(p[1]))].kind == NodeKind::NvSwitch);
        CHECK(r.info(r.route(t.gpu_node(a), t.gpu_node(b))).bottleneck == box.per_gpu);
      }
  }
  const Topology t = resolve_topology("dgx2");
  REQUIRE(t.num_gpus() == 16);
  Router r(t);
  for (int a = 0; a < 16; ++a)
    for (int b = 0; b < 16; ++b) {
      if (a == b) continue;
      const auto route = r.route(t.gpu_node(a), t.gpu_node(b));
      CHECK(r.info(route).bottleneck == 150 * GB);
      CHECK(route.size() == (a / 8 == b / 8 ? 2u : 3u)); // across baseboards: switch -> switch
    }
}

TEST_CASE("PCIe servers: only cross-socket pairs cross the CPU link") {
  for (const char* name : {"pcie-gen3-8gpu", "pcie-gen4-8gpu"}) {
    CAPTURE(name);
    const Topology t = resolve_topology(name);
    Router r(t);
    for (int a = 0; a < 8; ++a)
      for (int b = 0; b < 8; ++b) {
        if (a == b) continue;
        const auto p = path_of(r, t.gpu_node(a), t.gpu_node(b));
        const bool crosses = std::find(p.begin(), p.end(), "cpu0") != p.end() && std::find(p.begin(), p.end(), "cpu1") != p.end();
        CHECK(crosses == (a / 4 != b / 4));
        if (a / 2 == b / 2) CHECK(p.size() == 3); // same PCIe switch: GPU -> switch -> GPU
        const auto route = r.route(t.gpu_node(a), t.gpu_node(b));
        CHECK(is_pcie(t.link_of(route.front()).type));
      }
  }
  // P2P off on the RTX 4090 box: every peer copy goes through a root complex at the effective speed.
  const Topology t = resolve_topology("rtx4090-pcie-8gpu");
  Router r(t);
  CHECK(path_of(r, t.gpu_node(0), t.gpu_node(1)) == std::vector<std::string>{"gpu0", "cpu0", "gpu1"});
  CHECK(path_of(r, t.gpu_node(0), t.gpu_node(5)) == std::vector<std::string>{"gpu0", "cpu0", "cpu1", "gpu5"});
  CHECK(r.info(r.route(t.gpu_node(0), t.gpu_node(5))).bottleneck == 19'500'000'000);
}

TEST_CASE("torus routes: dimension order, Manhattan hops with wraparound") {
  for (const auto& dims : std::vector<std::vector<int>>{{4, 4, 4}, {3, 5}, {2, 3, 4}, {7}, {1, 6}}) {
    const Topology t = make_torus(dims, 100 * GB, kPsPerUs);
    Router r(t);
    const int n = t.num_gpus();
    std::vector<int> stride(dims.size(), 1);
    for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d)
      stride[static_cast<std::size_t>(d)] = stride[static_cast<std::size_t>(d) + 1] * dims[static_cast<std::size_t>(d) + 1];
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        int want = 0;
        for (std::size_t d = 0; d < dims.size(); ++d) {
          const int ca = (a / stride[d]) % dims[d], cb = (b / stride[d]) % dims[d];
          const int diff = std::abs(ca - cb);
          want += std::min(diff, dims[d] - diff);
        }
        const auto p = path_of(r, t.gpu_node(a), t.gpu_node(b));
        CHECK(static_cast<int>(p.size()) - 1 == want);
        CHECK(r.info(r.route(t.gpu_node(a), t.gpu_node(b))).latency == want * kPsPerUs);
      }
  }
}

TEST_CASE("crossbar routes are two hops through the switch") {
  const Topology t = make_crossbar(6, 25 * GB, 2 * kPsPerUs);
  Router r(t);
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b)
      if (a != b) {
        const auto p = path_of(r, t.gpu_node(a), t.gpu_node(b));
        CHECK(p == std::vector<std::string>{"gpu" + std::to_string(a), "switch", "gpu" + std::to_string(b)});
      }
}

TEST_CASE("pack_rings finds NCCL's ring counts on the DGX-1s") {
  const auto v = pack_rings(resolve_topology("dgx1-v100"), {});
  CHECK(v.over_direct_links);
  CHECK(v.rings.size() == 6);
  const auto p = pack_rings(resolve_topology("dgx1-p100"), {});
  CHECK(p.over_direct_links);
  CHECK(p.rings.size() == 4);
}

TEST_CASE("torus generator: JSON round trip and a 64x64x64 torus in bounded time") {
  const Topology t = make_torus({4, 4, 4}, 100 * GB, kPsPerUs);
  const Topology back = topology_from_json(topology_to_json(t), "t.json");
  REQUIRE(back.links.size() == t.links.size());
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    CHECK(back.links[i].a == t.links[i].a);
    CHECK(back.links[i].b == t.links[i].b);
    CHECK(back.links[i].bw == t.links[i].bw);
    CHECK(back.links[i].latency == t.links[i].latency);
  }
  CHECK(back.structure.kind == Structure::Kind::Torus);
  CHECK(back.structure.dims == t.structure.dims);

  const Topology big = make_torus({64, 64, 64}, 100 * GB, kPsPerUs);
  CHECK(big.num_gpus() == 262144);
  CHECK(big.links.size() == 3u * 262144u);
  Router r(big);
  // Opposite corner of the wraparound: 32 hops in each of 3 dimensions.
  CHECK(r.route(big.gpu_node(0), big.gpu_node(32 * 64 * 64 + 32 * 64 + 32)).size() == 96);
  CHECK(r.route(big.gpu_node(0), big.gpu_node(262143)).size() == 3); // one step back on every ring
  CHECK(big.find_node("gpu262143") == big.gpu_node(262143));
}

TEST_CASE("route trees evicted under a tiny memory budget give the same routes") {
  const Topology t = generate_from_spec("cluster:nodes=3,node=dgx1-v100,nics=4x100G,fabric=fattree,leaf_ports=4");
  Router roomy(t), tight(t, 1); // 1 byte: every new tree evicts all older ones
  for (int round = 0; round < 2; ++round) // the second round hits cached pairs and recomputed trees
    for (int a = 0; a < t.num_gpus(); a += 3)
      for (int b = 0; b < t.num_gpus(); b += 2) {
        if (a == b) continue;
        const auto x = roomy.route(t.gpu_node(a), t.gpu_node(b));
        const std::vector<ChannelId> want(x.begin(), x.end());
        const auto y = tight.route(t.gpu_node(a), t.gpu_node(b));
        CHECK(std::vector<ChannelId>(y.begin(), y.end()) == want);
      }
  // Non-GPU endpoints use the same trees.
  const int leaf = *t.find_node("leaf0"), nic = *t.find_node("n2.nic3");
  const auto x = roomy.route(leaf, nic);
  const auto want = std::vector<ChannelId>(x.begin(), x.end());
  const auto y = tight.route(leaf, nic);
  CHECK(std::vector<ChannelId>(y.begin(), y.end()) == want);
  CHECK(want.size() >= 3); // leaf0 -> spine -> leaf -> n2.nic3
}

TEST_CASE("fewest_hops: the router's search on the links a filter keeps, forwarding through no GPU") {
  // Two GPUs on two sockets of one host, joined by a slow socket link, and a NIC per socket on one switch: the
  // widest route between them leaves the host through the NICs; without network links it takes the socket link.
  const auto make = [](bool socket_link) {
    nlohmann::json links = nlohmann::json::array({
        {{"a", "gpu0"}, {"b", "cpu0"}, {"type", "pcie4"}, {"bw", "32GB/s"}, {"latency", "1us"}, {"source", "t"}},
        {{"a", "gpu1"}, {"b", "cpu1"}, {"type", "pcie4"}, {"bw", "32GB/s"}, {"latency", "1us"}, {"source", "t"}},
        {{"a", "gpu2"}, {"b", "cpu0"}, {"type", "pcie4"}, {"bw", "32GB/s"}, {"latency", "1us"}, {"source", "t"}},
        {{"a", "gpu2"}, {"b", "cpu1"}, {"type", "pcie4"}, {"bw", "32GB/s"}, {"latency", "1us"}, {"source", "t"}},
        {{"a", "nic0"}, {"b", "cpu0"}, {"type", "pcie4"}, {"bw", "32GB/s"}, {"latency", "1us"}, {"source", "t"}},
        {{"a", "nic1"}, {"b", "cpu1"}, {"type", "pcie4"}, {"bw", "32GB/s"}, {"latency", "1us"}, {"source", "t"}},
        {{"a", "nic0"}, {"b", "fabric"}, {"type", "ib"}, {"bw", "25GB/s"}, {"latency", "1us"}, {"source", "t"}},
        {{"a", "nic1"}, {"b", "fabric"}, {"type", "ib"}, {"bw", "25GB/s"}, {"latency", "1us"}, {"source", "t"}}});
    if (socket_link) links.push_back({{"a", "cpu0"}, {"b", "cpu1"}, {"type", "upi"}, {"bw", "1GB/s"}, {"latency", "1us"}, {"source", "t"}});
    const nlohmann::json doc = {{"name", "two-sockets"},
                                {"nodes", {{{"name", "gpu0"}, {"kind", "gpu"}}, {{"name", "gpu1"}, {"kind", "gpu"}}, {{"name", "gpu2"}, {"kind", "gpu"}},
                                           {{"name", "cpu0"}, {"kind", "cpu"}}, {{"name", "cpu1"}, {"kind", "cpu"}}, {{"name", "nic0"}, {"kind", "nic"}},
                                           {{"name", "nic1"}, {"kind", "nic"}}, {{"name", "fabric"}, {"kind", "net_switch"}}}},
                                {"links", links}};
    return topology_from_json(doc, "two-sockets.json");
  };
  const auto not_network = [](const Link& l) { return !is_network(l.type); };
  const Topology t = make(true);
  Router r(t);
  CHECK(path_of(r, 0, 1) == std::vector<std::string>{"gpu0", "cpu0", "nic0", "fabric", "nic1", "cpu1", "gpu1"});
  CHECK(test::route_names(t, r.fewest_hops(0, 1, not_network), 0, 1) == std::vector<std::string>{"gpu0", "cpu0", "cpu1", "gpu1"});
  // Without the socket link the only way left inside the host runs through gpu2, which does not forward.
  const Topology cut = make(false);
  Router rc(cut);
  CHECK(rc.fewest_hops(0, 1, not_network).empty());
  CHECK(rc.fewest_hops(0, 0, not_network).empty());
}

namespace {
// gpu0 and gpu2 under cpu0, gpu1 and gpu2 under cpu1, a slow socket link, one NIC per socket on one switch
// (node ids: gpu0..gpu2 0..2, cpu0 3, cpu1 4, nic0 5, nic1 6, fabric 7).
Topology two_sockets() {
  const auto link = [](const char* a, const char* b, const char* type, const char* bw) {
    return nlohmann::json{{"a", a}, {"b", b}, {"type", type}, {"bw", bw}, {"latency", "1us"}, {"source", "t"}};
  };
  const nlohmann::json doc = {
      {"name", "two-sockets"},
      {"nodes", {{{"name", "gpu0"}, {"kind", "gpu"}}, {{"name", "gpu1"}, {"kind", "gpu"}}, {{"name", "gpu2"}, {"kind", "gpu"}},
                 {{"name", "cpu0"}, {"kind", "cpu"}}, {{"name", "cpu1"}, {"kind", "cpu"}}, {{"name", "nic0"}, {"kind", "nic"}},
                 {{"name", "nic1"}, {"kind", "nic"}}, {{"name", "fabric"}, {"kind", "net_switch"}}}},
      {"links", {link("gpu0", "cpu0", "pcie4", "32GB/s"), link("gpu1", "cpu1", "pcie4", "32GB/s"), link("gpu2", "cpu0", "pcie4", "32GB/s"),
                 link("gpu2", "cpu1", "pcie4", "32GB/s"), link("nic0", "cpu0", "pcie4", "32GB/s"), link("nic1", "cpu1", "pcie4", "32GB/s"),
                 link("nic0", "fabric", "ib", "25GB/s"), link("nic1", "fabric", "ib", "25GB/s"), link("cpu0", "cpu1", "upi", "1GB/s")}}};
  return topology_from_json(doc, "two-sockets.json");
}
using Names = std::vector<std::string>;
} // namespace

TEST_CASE("Router(base, extra): its overrides first, then the drawing's, every other pair the base router's own route") {
  Topology t = two_sockets();
  // The drawing's own overrides: gpu2 -> gpu1 and gpu1 -> gpu0 over the slow socket link.
  t.route_overrides.push_back({2, 1, {2, 3, 4, 1}});
  t.route_overrides.push_back({1, 0, {1, 4, 3, 0}});
  const std::vector<Topology::RouteOverride> extra{{0, 1, {0, 3, 4, 1}}, {1, 0, {1, 4, 6, 7, 5, 3, 0}}};
  Router base(t);
  Router over(base, extra);
  CHECK(path_of(over, 0, 1) == Names{"gpu0", "cpu0", "cpu1", "gpu1"});                         // extra
  CHECK(path_of(over, 1, 0) == Names{"gpu1", "cpu1", "nic1", "fabric", "nic0", "cpu0", "gpu0"}); // extra over the drawing's
  CHECK(path_of(over, 2, 1) == Names{"gpu2", "cpu0", "cpu1", "gpu1"});                         // the drawing's
  CHECK(path_of(over, 0, 2) == Names{"gpu0", "cpu0", "gpu2"});                                 // the widest route
  CHECK(path_of(over, 3, 6) == Names{"cpu0", "nic0", "fabric", "nic1"});                       // 25 GB/s beats the socket's 1
  // The base router is not changed by the overlay's overrides.
  CHECK(path_of(base, 0, 1) == Names{"gpu0", "cpu0", "nic0", "fabric", "nic1", "cpu1", "gpu1"});
  CHECK(path_of(base, 1, 0) == Names{"gpu1", "cpu1", "cpu0", "gpu0"});
  // Shared, not recomputed: the overlay hands out the base's stored route.
  const auto mine = over.route(0, 2);
  const auto its = base.route(0, 2);
  CHECK(mine.data() == its.data());
  CHECK(over.incident(3).data() == base.incident(3).data());
  // Every pair as a router of the drawing with the extra overrides of its own (Router(t, extra)).
  Router own(t, extra);
  for (int a = 0; a < static_cast<int>(t.nodes.size()); ++a)
    for (int b = 0; b < static_cast<int>(t.nodes.size()); ++b) {
      const auto x = own.route(a, b);
      const std::vector<ChannelId> want(x.begin(), x.end());
      const auto y = over.route(a, b);
      CHECK(std::vector<ChannelId>(y.begin(), y.end()) == want);
    }
}

TEST_CASE("Router(base, extra): an override hop with no link between its nodes names them") {
  const Topology t = two_sockets();
  Router base(t);
  const std::vector<Topology::RouteOverride> extra{{0, 1, {0, 1}}};
  CHECK_THROWS_WITH_AS(Router(base, extra), "two-sockets.json: route override: no link between 'gpu0' and 'gpu1'", Error);
}

// Two links of two types between one pair (a second link of one type is refused; two types are read: an NVLink
// bridge and a PCIe path between two cards, say), equally wide. An explicit path's hop takes the first of them in
// link order (routing.cpp add_overrides: "the first in link order among equals"), the one the router's own route
// between the pair takes: the latencies tell which (1 us for link 0, 3 us for link 1).
TEST_CASE("an override hop over two equally wide links of two types takes the first in link order, as the router's own route") {
  const auto link = [](const char* a, const char* b, const char* type, const char* lat) {
    return nlohmann::json{{"a", a}, {"b", b}, {"type", type}, {"bw", "25GB/s"}, {"latency", lat}, {"source", "t"}};
  };
  const nlohmann::json doc = {
      {"name", "two-types"},
      {"nodes", {{{"name", "gpu0"}, {"kind", "gpu"}}, {{"name", "gpu1"}, {"kind", "gpu"}}}},
      {"links", {link("gpu0", "gpu1", "nvlink2", "1us"), link("gpu0", "gpu1", "pcie3", "3us")}}};
  const Topology t = topology_from_json(doc, "two-types.json");
  REQUIRE(t.links.size() == 2);
  REQUIRE(t.links[0].capacity() == t.links[1].capacity());
  REQUIRE(t.links[0].latency != t.links[1].latency);
  Router base(t);
  const std::vector<Topology::RouteOverride> extra{{0, 1, {0, 1}}, {1, 0, {1, 0}}};
  Router over(base, extra);
  Router own(t, extra);
  for (Router* r : {&base, &over, &own}) {
    const auto fwd = r->route(0, 1);
    CHECK(std::vector<ChannelId>(fwd.begin(), fwd.end()) == std::vector<ChannelId>{Topology::channel(0, false)});
    CHECK(r->info(fwd).latency == t.links[0].latency);
    const auto back = r->route(1, 0);
    CHECK(std::vector<ChannelId>(back.begin(), back.end()) == std::vector<ChannelId>{Topology::channel(0, true)});
  }
}
