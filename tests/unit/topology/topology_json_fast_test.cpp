// The quick (SAX) topology reader: what it reads, by hand, and that it leaves every error and every rarity
// to the walk over the JSON tree, whose messages name the element.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/topology/topology_json_fast.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {

// Three GPUs and a PCIe switch; links listed before nodes, link types after links, comment keys (a leading _)
// with nested values in between (a file's key order is free).
const char* const kTiny = R"({
 "links": [
  {"a": "g0", "b": "g1", "type": "nvlink2", "lanes": 2, "_note": {"x": [1, {"y": null}]}},
  {"a": "g1", "b": "g2", "type": "nvlink2", "bw": "100Gbps", "latency": 2},
  {"a": "g0", "b": "sw", "type": "pcie3", "bw": 12e9, "source": "mine"},
  {"a": "sw", "b": "g2", "type": "pcie3", "latency": "500 ns"}
 ],
 "_comment": [true, false, null, 1.5, "text", {}],
 "nodes": [{"name": "g0", "kind": "gpu"}, {"name": "sw", "kind": "pcie_switch", "_x": 1}, {"name": "g1", "kind": "gpu"},
           {"name": "g\u0032", "kind": "gpu"}],
 "link_types": {"nvlink2": {"bw": "25GB/s", "latency": "0.7us", "source": "spec"}, "pcie3": {"bw": 16000000000, "latency": 1.5}},
 "routes": [{"path": ["g0", "sw", "g2"]}],
 "structure": {"kind": "general"},
 "description": "hand-made"
})";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The walk's result for the same text, the independent route the quick reader must agree with.
Topology walked(const std::string& text, const std::string& origin) { return topology_from_json(parse_json_text(text, origin), origin); }

std::string message_of(const std::string& text) {
  try {
    (void)topology_from_json_text(text, "t.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST_CASE("the quick reader reads a hand-made file into the nodes and links written in it") {
  const auto fast = read_topology_fast(kTiny, "dir/tiny.json");
  REQUIRE(fast.has_value());
  const Topology& t = fast->topo;
  CHECK(t.name == "tiny"); // no "name": the file's stem
  CHECK(t.origin == "dir/tiny.json");
  CHECK(t.description == "hand-made");
  CHECK_FALSE(fast->sharp.has_value());
  REQUIRE(t.nodes.size() == 4);
  CHECK(t.nodes[0].name == "g0");
  CHECK(t.nodes[1].name == "sw");
  CHECK(t.nodes[1].kind == NodeKind::PcieSwitch);
  CHECK(t.nodes[1].gpu == -1);
  CHECK(t.nodes[2].gpu == 1);
  CHECK(t.nodes[3].name == "g2"); // "\u0032" is "2"
  CHECK(t.nodes[3].gpu == 2);
  REQUIRE(t.links.size() == 4);
  // g0-g1: nvlink2 defaults, 2 lanes.
  CHECK(t.links[0].a == 0);
  CHECK(t.links[0].b == 2);
  CHECK(t.links[0].type == LinkType::NvLink2);
  CHECK(t.links[0].bw == 25'000'000'000u);
  CHECK(t.links[0].latency == 700'000); // 0.7 us in ps
  CHECK(t.links[0].lanes == 2);
  CHECK(t.links[0].source == "spec");
  // g1-g2: 100 Gbit/s = 12.5 GB/s; a bare latency number is microseconds.
  CHECK(t.links[1].bw == 12'500'000'000u);
  CHECK(t.links[1].latency == 2'000'000);
  CHECK(t.links[1].lanes == 1);
  // g0-sw: a bare bandwidth number is bytes/s; its own source; pcie3's latency 1.5 us.
  CHECK(t.links[2].b == 1);
  CHECK(t.links[2].bw == 12'000'000'000u);
  CHECK(t.links[2].latency == 1'500'000);
  CHECK(t.links[2].source == "mine");
  // sw-g2: pcie3's bandwidth, its own latency; pcie3 has no source.
  CHECK(t.links[3].a == 1);
  CHECK(t.links[3].b == 3);
  CHECK(t.links[3].bw == 16'000'000'000u);
  CHECK(t.links[3].latency == 500'000);
  CHECK(t.links[3].source.empty());
  REQUIRE(t.route_overrides.size() == 1);
  CHECK(t.route_overrides[0].path == std::vector<int>{0, 1, 3});
  CHECK(t.route_overrides[0].src == 0);
  CHECK(t.route_overrides[0].dst == 3);
  CHECK(t.structure.kind == Structure::Kind::General);
  // The walk reads the same.
  CHECK(topology_to_text(t) == topology_to_text(walked(kTiny, "dir/tiny.json")));
}

TEST_CASE("the quick reader reads a torus structure, a SHARP value and a GPU kind") {
  const std::string text = R"({"name": "ring3", "gpu": "v100", "sharp": "on", "structure": {"kind": "torus", "dims": [3.0]},
    "nodes": [{"name": "a", "kind": "gpu"}, {"name": "b", "kind": "gpu"}, {"name": "c", "kind": "gpu"}],
    "links": [{"a": "a", "b": "b", "type": "ideal", "bw": 1000, "latency": "1ns"}]})";
  const auto fast = read_topology_fast(text, "r.json");
  REQUIRE(fast.has_value());
  CHECK(fast->topo.name == "ring3");
  CHECK(fast->topo.gpu_kind == "v100");
  CHECK(fast->sharp == std::optional<std::string>("on"));
  CHECK(fast->topo.structure.kind == Structure::Kind::Torus);
  CHECK(fast->topo.structure.dims == std::vector<int>{3});
  CHECK(fast->topo.links[0].bw == 1000u);
  CHECK(fast->topo.links[0].latency == 1000);
}

TEST_CASE("a wrong-typed or missing field goes to the walk, whose message names the element") {
  const std::string good = kTiny;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  const std::string lanes = with(R"("lanes": 2)", R"("lanes": "2")");
  CHECK_FALSE(read_topology_fast(lanes, "t.json").has_value());
  CHECK(message_of(lanes) == R"(t.json: "links[0].lanes": "lanes" must be an integer >= 1, got "2")");
  CHECK(message_of(with(R"({"name": "g0", )", R"({"name": 3, )")) == R"(t.json: "nodes[0].name": expected a string, got 3)");
  CHECK(message_of(with(R"("a": "g1")", R"("a": "zz")")) == R"(t.json: "links[1].a": unknown node 'zz')");
  CHECK(message_of(with(R"({"name": "g1", )", R"({"name": "g0", )")) == R"(t.json: "nodes[2]": duplicate node name 'g0')");
  CHECK(message_of(with(R"("bw": "100Gbps")", R"("bw": "100Qbps")")) ==
        "t.json: links[1].bw: unknown bandwidth unit in '100Qbps' (use GB/s, MB/s, Gbps, or bytes/s)");
  CHECK(message_of(with(R"("latency": 2)", R"("latency": 2e6)")) == R"(t.json: "links[1].latency": latency 2000000.0 us is more than 1 s)");
  CHECK(message_of(with(R"("pcie3": {)", R"("pcie9": {)")) == R"(t.json: "link_types.pcie9": unknown link type)");
  CHECK(message_of(with(R"("type": "pcie3", "latency")", R"("latency")")) == R"(t.json: "links[3]": missing "type")");
  CHECK(message_of(good.substr(0, 200)).rfind("t.json: malformed JSON: ", 0) == 0);
  CHECK(message_of(good + "x").rfind("t.json: malformed JSON: ", 0) == 0);
  CHECK(message_of("[]") == "t.json: top level must be a JSON object");
}

TEST_CASE("valid rarities the quick reader leaves to the walk are read as the walk reads them") {
  // A repeated key: the JSON tree keeps the last value.
  const std::string dup = R"({"name": "first", "name": "second", "nodes": [{"name": "g", "kind": "gpu"}, {"name": "h", "kind": "gpu"}],
    "links": [{"a": "g", "b": "h", "type": "ideal", "bw": 1000, "latency": 1}]})";
  CHECK_FALSE(read_topology_fast(dup, "d.json").has_value());
  CHECK(topology_from_json_text(dup, "d.json").name == "second");
  // A link's non-string "source" means its type's.
  const std::string src = R"({"nodes": [{"name": "g", "kind": "gpu"}, {"name": "h", "kind": "gpu"}],
    "links": [{"a": "g", "b": "h", "type": "ideal", "bw": 1000, "latency": 1, "source": 7}]})";
  CHECK_FALSE(read_topology_fast(src, "s.json").has_value());
  const Topology t = topology_from_json_text(src, "s.json");
  CHECK(t.links[0].source.empty());
  CHECK(t.structure.kind == Structure::Kind::General);
  // A "structure" that is not an object was read as none; it is a mistake now refused (sixteenth user trial).
  const std::string five = R"({"nodes": [{"name": "g", "kind": "gpu"}, {"name": "h", "kind": "gpu"}], "structure": 5,
    "links": [{"a": "g", "b": "h", "type": "ideal", "bw": 1000, "latency": 1}]})";
  CHECK_FALSE(read_topology_fast(five, "s.json").has_value());
  CHECK(message_of(five) == R"(t.json: "structure": expected an object, got 5)");
}

TEST_CASE("a key neither reader knows is refused by name, and one starting with _ is a comment") {
  const std::string base = R"({"nodes": [{"name": "g", "kind": "gpu"}, {"name": "h", "kind": "gpu"}],
    "links": [{"a": "g", "b": "h", "type": "ideal", "bw": 1000, "latency": 1, "lanes": 2}]})";
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  const std::string lanse = with(R"("lanes": 2)", R"("lanse": 2)");
  CHECK_FALSE(read_topology_fast(lanse, "t.json").has_value()); // the quick reader leaves it to the walk
  CHECK(message_of(lanse) == R"(t.json: "links[0]": unknown key 'lanse' (known: a, b, type, bw, latency, lanes, source, )"
                             R"(host_staged, duplex; a key starting with _ is a comment))");
  CHECK(message_of(with(R"("kind": "gpu"}, {"name": "h")", R"("kind": "gpu", "knid": 1}, {"name": "h")"))
            .starts_with(R"(t.json: "nodes[0]": unknown key 'knid')"));
  CHECK(message_of(with(R"({"nodes")", R"({"strucure": {}, "nodes")")).starts_with("t.json: unknown key 'strucure'"));
  // Comments: the quick reader takes them (and skips their values), and both readers give the same machine.
  const std::string notes = with(R"("lanes": 2)", R"("lanes": 2, "_why": {"a": [1]})");
  REQUIRE(read_topology_fast(notes, "t.json").has_value());
  CHECK(topology_to_text(read_topology_fast(notes, "t.json")->topo) == topology_to_text(walked(notes, "t.json")));
  CHECK(topology_from_json_text(notes, "t.json").links[0].lanes == 2);
  // A comment among link_types is no link type: both readers skip it and apply the real entry's defaults.
  const std::string typed = R"({"nodes": [{"name": "g", "kind": "gpu"}, {"name": "h", "kind": "gpu"}],
    "link_types": {"_note": "measured on a test rig", "ideal": {"bw": 1000, "latency": 7}},
    "links": [{"a": "g", "b": "h", "type": "ideal"}]})";
  CHECK(message_of(typed) == "(no error)");
  const Topology w = walked(typed, "t.json");
  REQUIRE(w.links.size() == 1);
  CHECK(w.links[0].bw == 1000);
  REQUIRE(read_topology_fast(typed, "t.json").has_value());
  CHECK(topology_to_text(read_topology_fast(typed, "t.json")->topo) == topology_to_text(w));
}

TEST_CASE("a second link of one type between the same pair is refused naming both, by both readers") {
  const std::string twice = R"({"nodes": [{"name": "g", "kind": "gpu"}, {"name": "h", "kind": "gpu"}],
    "links": [{"a": "g", "b": "h", "type": "nvlink2", "bw": "25GB/s", "latency": 1, "lanes": 2},
              {"a": "h", "b": "g", "type": "nvlink2", "bw": "25GB/s", "latency": 1}]})";
  const std::string want = R"(t.json: "links[1]": a second nvlink2 link between 'g' and 'h' (the first is links[0]); )"
                           R"(the router uses one link per pair (the widest), so this one would be ignored: give links[0] )"
                           R"("lanes": 3 and delete links[1])";
  CHECK(message_of(twice) == want);
  CHECK_THROWS_WITH_AS(topology_from_json(parse_json_text(twice, "t.json"), "t.json"), want.c_str(), Error);
  // Links of two types between one pair are two links, not a second of one (the refusal is per type).
  const std::string two_types = R"({"nodes": [{"name": "g", "kind": "gpu"}, {"name": "h", "kind": "gpu"}],
    "links": [{"a": "g", "b": "h", "type": "nvlink2", "bw": "25GB/s", "latency": 1, "lanes": 2},
              {"a": "h", "b": "g", "type": "pcie3", "bw": "16GB/s", "latency": 1}]})";
  CHECK(message_of(two_types) == "(no error)");
  CHECK(walked(two_types, "t.json").links.size() == 2);
}

TEST_CASE("every shipped topology file takes the quick route and reads as the walk reads it") {
  for (const auto& name : shipped_topologies()) {
    CAPTURE(name);
    const std::string path = topologies_dir() + "/" + name + ".json";
    const std::string text = read(path);
    const auto fast = read_topology_fast(text, path);
    REQUIRE(fast.has_value());
    CHECK(topology_to_text(fast->topo) == topology_to_text(walked(text, path)));
  }
}
