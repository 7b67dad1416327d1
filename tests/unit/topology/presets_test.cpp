// Shipped topology files: each loads, survives a JSON round trip unchanged, and sources every number.
#include <doctest/doctest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "sim/topology/generators.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {

void require_same(const Topology& a, const Topology& b) {
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    CHECK(a.nodes[i].name == b.nodes[i].name);
    CHECK(a.nodes[i].kind == b.nodes[i].kind);
    CHECK(a.nodes[i].gpu == b.nodes[i].gpu);
  }
  REQUIRE(a.links.size() == b.links.size());
  for (std::size_t i = 0; i < a.links.size(); ++i) {
    const auto &x = a.links[i], &y = b.links[i];
    CHECK(x.a == y.a);
    CHECK(x.b == y.b);
    CHECK(x.type == y.type);
    CHECK(x.bw == y.bw);
    CHECK(x.latency == y.latency);
    CHECK(x.lanes == y.lanes);
    CHECK(x.source == y.source);
  }
  REQUIRE(a.route_overrides.size() == b.route_overrides.size());
  for (std::size_t i = 0; i < a.route_overrides.size(); ++i) CHECK(a.route_overrides[i].path == b.route_overrides[i].path);
  CHECK(a.structure.kind == b.structure.kind);
  CHECK(a.structure.dims == b.structure.dims);
  CHECK(a.name == b.name);
  CHECK(a.description == b.description);
}

} // namespace

TEST_CASE("the presets the docs promise are shipped") {
  const auto names = shipped_topologies();
  for (const char* want : {"dgx1", "dgx1-v100", "dgx1-p100", "dgx2", "hgx-a100", "hgx-h100", "pcie-gen3-8gpu", "pcie-gen4-8gpu",
                           "rtx4090-pcie-8gpu", "rtx2080ti-nvlink-2gpu", "polaris"})
    CHECK_MESSAGE(std::find(names.begin(), names.end(), want) != names.end(), want);
}

TEST_CASE("every shipped preset round-trips through JSON") {
  for (const auto& name : shipped_topologies()) {
    CAPTURE(name);
    const Topology t = resolve_topology(name);
    const Topology back = topology_from_json(topology_to_json(t), "round-trip");
    require_same(t, back);
    // A second trip is byte-identical: the writer is deterministic.
    CHECK(topology_to_json(back).dump() == topology_to_json(t).dump());
  }
}

TEST_CASE("every link of every shipped file sources its bandwidth and latency") {
  for (const auto& name : shipped_topologies()) {
    CAPTURE(name);
    std::ifstream in(topologies_dir() + "/" + name + ".json");
    const auto j = nlohmann::json::parse(in);
    const auto types = j.value("link_types", nlohmann::json::object());
    REQUIRE(j["links"].size() > 0);
    for (const auto& l : j["links"]) {
      CAPTURE(l.dump());
      const std::string type = l["type"];
      const bool own_source = l.contains("source") && l["source"].is_string() && !l["source"].get<std::string>().empty();
      CHECK(own_source); // the structural fact: why this link exists
      for (const char* field : {"bw", "latency"}) {
        CAPTURE(field);
        if (l.contains(field)) {
          CHECK(own_source);
        } else {
          REQUIRE(types.contains(type));
          CHECK(types[type].contains(field));
          const std::string src = types[type].value("source", std::string{});
          CHECK(src.find(std::string(field) + ":") != std::string::npos);
        }
      }
    }
  }
}

TEST_CASE("loaded links carry a source and sane numbers") {
  for (const auto& name : shipped_topologies()) {
    CAPTURE(name);
    const Topology t = resolve_topology(name);
    for (const auto& l : t.links) {
      CHECK(!l.source.empty());
      CHECK(l.bw >= 1'000'000'000);           // at least 1 GB/s per lane
      CHECK(l.bw <= 100'000'000'000);         // at most 100 GB/s per lane
      CHECK(l.latency <= 20 * kPsPerUs);
    }
  }
}

TEST_CASE("the streamed text form is the same document as the JSON tree") {
  std::vector<Topology> ts;
  for (const auto& name : shipped_topologies()) ts.push_back(resolve_topology(name));
  ts.push_back(generate_from_spec("torus:dims=3x4,bw=12345678901,alpha=1us"));
  ts.push_back(generate_from_spec("crossbar:ranks=5"));
  ts.push_back(generate_from_spec("cluster:nodes=2,node=dgx1-v100,nics=4x100G,fabric=fattree,leaf_ports=4"));
  for (const auto& t : ts) {
    CAPTURE(t.name);
    CHECK(nlohmann::json::parse(topology_to_text(t)) == topology_to_json(t));
  }
  // An odd bandwidth survives exactly (6-digit "{:g}" text would not).
  CHECK(topology_from_json(nlohmann::json::parse(topology_to_text(ts[ts.size() - 3])), "t").links[0].bw == 12345678901u);
}
