// The Router's per-source memo of the last route (general graphs): whatever order routes are asked in,
// the answer is the hand-checked route, the same as a fresh Router's, also after set_relay_gpus drops
// the GPU-pair routes the memo points into.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"
#include "route_path.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {

// Two leaves of two GPUs under one spine (gpu0, gpu1 on leaf0; gpu2, gpu3 on leaf1), all links 10 GB/s;
// `nvlink`: also 100 GB/s NVLinks gpu0-gpu1 and gpu1-gpu2, so gpu0 -> gpu2 is best relayed through gpu1;
// `override_02`: an explicit route gpu0 -> gpu2 through the network.
Topology small_fat_tree(bool nvlink, bool override_02) {
  nlohmann::json j;
  j["name"] = "memo-fat-tree";
  for (const char* g : {"gpu0", "gpu1", "gpu2", "gpu3"}) j["nodes"].push_back({{"name", g}, {"kind", "gpu"}});
  for (const char* s : {"leaf0", "leaf1", "spine"}) j["nodes"].push_back({{"name", s}, {"kind", "net_switch"}});
  auto link = [&](const char* a, const char* b, const char* bw) {
    j["links"].push_back({{"a", a}, {"b", b}, {"type", "ideal"}, {"bw", bw}, {"latency", "0.5us"}});
  };
  link("gpu0", "leaf0", "10GB/s");
  link("gpu1", "leaf0", "10GB/s");
  link("gpu2", "leaf1", "10GB/s");
  link("gpu3", "leaf1", "10GB/s");
  link("leaf0", "spine", "10GB/s");
  link("leaf1", "spine", "10GB/s");
  if (nvlink) link("gpu0", "gpu1", "100GB/s"), link("gpu1", "gpu2", "100GB/s");
  if (override_02) j["routes"].push_back({{"path", {"gpu0", "leaf0", "spine", "leaf1", "gpu2"}}});
  return topology_from_json(j, "memo.json");
}

std::vector<std::string> path_of(const Topology& t, std::span<const ChannelId> route, int src, int dst) {
  return test::route_names(t, route, src, dst);
}

std::vector<std::string> names(std::initializer_list<const char*> l) { return {l.begin(), l.end()}; }

// The plain tree's routes by hand: up to the leaf, over the spine when the leaves differ.
std::vector<std::string> by_hand(const std::string& a, const std::string& b) {
  auto leaf = [](const std::string& n) {
    if (n.rfind("leaf", 0) == 0) return n;
    return std::string(n == "gpu0" || n == "gpu1" ? "leaf0" : "leaf1");
  };
  std::vector<std::string> p{a};
  if (a.rfind("gpu", 0) == 0) p.push_back(leaf(a));
  if (leaf(a) != leaf(b)) p.push_back("spine"), p.push_back(leaf(b));
  if (b.rfind("gpu", 0) == 0) p.push_back(b);
  return p;
}

} // namespace

TEST_CASE("route memo: interleaved queries on a small fat tree give the hand-checked routes") {
  const Topology t = small_fat_tree(false, false);
  Router memo(t);
  const std::vector<std::string> ends{"gpu0", "gpu1", "gpu2", "gpu3", "leaf0", "leaf1"};
  // Each source asks for one route several times, then another, then the first again (a ring, then
  // a broadcast, then the ring), and sources take turns.
  std::vector<std::pair<int, int>> order;
  for (int round = 0; round < 3; ++round)
    for (std::size_t shift = 1; shift < ends.size(); ++shift)
      for (int again = 0; again < 2; ++again)
        for (std::size_t a = 0; a < ends.size(); ++a) {
          const std::size_t b = round == 1 ? (a + ends.size() - shift) % ends.size() : (a + shift) % ends.size();
          order.emplace_back(*t.find_node(ends[a]), *t.find_node(ends[b]));
        }
  for (const auto& [a, b] : order) {
    const std::string an = t.nodes[static_cast<std::size_t>(a)].name, bn = t.nodes[static_cast<std::size_t>(b)].name;
    CAPTURE(an);
    CAPTURE(bn);
    const auto got = memo.route(a, b);
    const std::vector<ChannelId> kept(got.begin(), got.end());
    CHECK(path_of(t, kept, a, b) == by_hand(an, bn));
    Router fresh(t);
    const auto want = fresh.route(a, b);
    CHECK(kept == std::vector<ChannelId>(want.begin(), want.end()));
  }
  CHECK(by_hand("gpu1", "gpu3") == names({"gpu1", "leaf0", "spine", "leaf1", "gpu3"})); // the rule itself
  CHECK(by_hand("leaf1", "gpu2") == names({"leaf1", "gpu2"}));
}

TEST_CASE("route memo: an explicit route and a relayed one alternate from one source") {
  const Topology t = small_fat_tree(true, true);
  Router r(t);
  const int g0 = *t.find_node("gpu0"), g1 = *t.find_node("gpu1"), g2 = *t.find_node("gpu2");
  for (int round = 0; round < 3; ++round) {
    CHECK(path_of(t, r.route(g0, g2), g0, g2) == names({"gpu0", "leaf0", "spine", "leaf1", "gpu2"})); // the override
    CHECK(path_of(t, r.route(g0, g2), g0, g2) == names({"gpu0", "leaf0", "spine", "leaf1", "gpu2"}));
    CHECK(path_of(t, r.route(g0, g1), g0, g1) == names({"gpu0", "gpu1"})); // NVLink
    CHECK(path_of(t, r.route(g2, g0), g2, g0) == names({"gpu2", "gpu1", "gpu0"})); // no override this way: relayed
  }
}

TEST_CASE("route memo: set_relay_gpus replaces a remembered relayed route") {
  const Topology t = small_fat_tree(true, false);
  Router r(t);
  const int g0 = *t.find_node("gpu0"), g2 = *t.find_node("gpu2");
  const auto relayed = names({"gpu0", "gpu1", "gpu2"}), network = names({"gpu0", "leaf0", "spine", "leaf1", "gpu2"});
  CHECK(path_of(t, r.route(g0, g2), g0, g2) == relayed);
  CHECK(path_of(t, r.route(g0, g2), g0, g2) == relayed); // from the memo
  r.set_relay_gpus({0, 2, 3});                            // gpu1 may no longer relay
  CHECK(path_of(t, r.route(g0, g2), g0, g2) == network);
  CHECK(path_of(t, r.route(g0, g2), g0, g2) == network);
  Router fresh(t);
  fresh.set_relay_gpus({0, 2, 3});
  const auto a = r.route(g0, g2);
  const std::vector<ChannelId> kept(a.begin(), a.end());
  const auto b = fresh.route(g0, g2);
  CHECK(kept == std::vector<ChannelId>(b.begin(), b.end()));
  r.set_relay_gpus({}); // any GPU again
  CHECK(path_of(t, r.route(g0, g2), g0, g2) == relayed);
}
