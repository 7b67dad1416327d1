// A GPU port staged through host memory (Link::host_staged, "host_staged": true in a file) is a fact of the
// topology: both readers take it, the writer gives it back, the staging builders set it, and a bad value or
// a link that cannot be staged is one error naming the file and the element.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/topology/topology_json_fast.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {

// Two GPUs on one CPU: gpu0's port staged, gpu1's explicitly not, at the same speed (the flag, not the
// speed, says which is staged).
const char* const kBox = R"({
 "name": "box",
 "nodes": [{"name": "gpu0", "kind": "gpu"}, {"name": "gpu1", "kind": "gpu"}, {"name": "cpu", "kind": "cpu"}],
 "links": [
  {"a": "gpu0", "b": "cpu", "type": "pcie4", "bw": "19.5GB/s", "latency": "5.5us", "host_staged": true},
  {"a": "gpu1", "b": "cpu", "type": "pcie4", "bw": "19.5GB/s", "latency": "5.5us", "host_staged": false}
 ]
})";

Topology walked(const std::string& text) { return topology_from_json(parse_json_text(text, "box.json"), "box.json"); }

std::string message_of(const std::string& text) {
  try {
    (void)topology_from_json_text(text, "box.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string with(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

int staged(const Topology& t) {
  int n = 0;
  for (const auto& l : t.links) n += l.host_staged;
  return n;
}

std::string read(const std::string& rel) {
  std::ifstream in(data_dir() + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

TEST_CASE("host_staged is read by both readers, the same way, and only where the file says so") {
  const auto fast = read_topology_fast(kBox, "box.json");
  REQUIRE(fast.has_value()); // the quick reader takes the boolean itself, not via the walk
  const Topology walk = walked(kBox);
  REQUIRE(fast->topo.links.size() == 2);
  CHECK(fast->topo.links[0].host_staged);
  CHECK_FALSE(fast->topo.links[1].host_staged);
  CHECK(walk.links[0].host_staged);
  CHECK_FALSE(walk.links[1].host_staged);
  CHECK(topology_to_text(fast->topo) == topology_to_text(walk));
  // Left out: not staged (every file written before the attribute existed).
  const std::string plain = with(kBox, R"(, "host_staged": true)", "");
  CHECK(staged(topology_from_json_text(plain, "box.json")) == 0);
  CHECK(staged(walked(plain)) == 0);
  // A "host_staged" in link_types is no key of a type: both refuse it alike (the quick reader leaves it to the walk).
  const std::string in_types = with(kBox, R"( "nodes")", R"( "link_types": {"pcie4": {"host_staged": 7}}, "nodes")");
  CHECK_FALSE(read_topology_fast(in_types, "box.json").has_value());
  CHECK_THROWS_WITH_AS(walked(in_types), doctest::Contains(R"("link_types.pcie4": unknown key 'host_staged')"), Error);
}

TEST_CASE("host_staged survives writing and reading back") {
  const Topology t = topology_from_json_text(kBox, "box.json");
  const nlohmann::json j = topology_to_json(t);
  CHECK(j["links"][0]["host_staged"] == true);
  CHECK_FALSE(j["links"][1].contains("host_staged")); // written only where it holds
  const std::string text = topology_to_text(t);
  const Topology back = topology_from_json_text(text, "back.json");
  CHECK(back.links[0].host_staged);
  CHECK_FALSE(back.links[1].host_staged);
  CHECK(topology_to_text(back) == text);
  // The staging builders' output round-trips too (what `topo gen`/`topo show` users save).
  const Topology off = without_p2p(resolve_topology("hgx-h100"), "test");
  CHECK(staged(topology_from_json_text(topology_to_text(off), "off.json")) == 8);
}

TEST_CASE("a host_staged that is not a boolean, or on a link that is no GPU PCIe port, is one error naming the element") {
  for (const char* bad : {R"("yes")", "1", "null", "[true]"}) {
    CAPTURE(bad);
    const std::string text = with(kBox, R"("host_staged": true)", std::string(R"("host_staged": )") + bad);
    CHECK_FALSE(read_topology_fast(text, "box.json").has_value());
    const std::string want = std::string(R"(box.json: "links[0].host_staged": "host_staged" must be true or false, got )") + bad;
    CHECK(message_of(text) == want);
  }
  // NVLink is peer to peer by nature; a PCIe link between a switch and a CPU is no GPU's port.
  const std::string nvlink = with(with(kBox, R"("type": "pcie4", "bw": "19.5GB/s", "latency": "5.5us", "host_staged": true)",
                                       R"("type": "nvlink2", "bw": "25GB/s", "latency": "1us", "host_staged": true)"),
                                  R"("a": "gpu0", "b": "cpu")", R"("a": "gpu0", "b": "gpu1")");
  CHECK(message_of(nvlink) == "box.json: link gpu0-gpu1: host_staged marks a GPU's PCIe port, and this is a nvlink2 link");
  const std::string no_gpu = with(with(kBox, R"({"name": "cpu", "kind": "cpu"})", R"({"name": "cpu", "kind": "cpu"}, {"name": "sw", "kind": "pcie_switch"})"),
                                  R"({"a": "gpu0", "b": "cpu", "type": "pcie4", "bw": "19.5GB/s", "latency": "5.5us", "host_staged": true})",
                                  R"({"a": "gpu0", "b": "sw", "type": "pcie4", "bw": "19.5GB/s", "latency": "5.5us"},
  {"a": "sw", "b": "cpu", "type": "pcie4", "bw": "19.5GB/s", "latency": "5.5us", "host_staged": true})");
  CHECK(message_of(no_gpu) == "box.json: link sw-cpu: host_staged marks a GPU's PCIe port, and this is a pcie4 link without a GPU end");
}

TEST_CASE("every builder that stages copies through host memory marks exactly the GPU ports it stages") {
  // --p2p off on a drawing without a host side: one added x16 port per GPU, all staged.
  CHECK(staged(without_p2p(resolve_topology("hgx-h100"), "test")) == 8);
  // machine:...,p2p=off: every GPU on a root port, staged; the same box with P2P: none.
  CHECK(staged(resolve_topology("machine:gpu=a40,gpus=2,intra=pcie,p2p=off")) == 2);
  const Topology pcie = resolve_topology("machine:gpu=a40,gpus=4,intra=pcie");
  CHECK(staged(pcie) == 0);
  // --p2p off on a PCIe box with switches: the 4 GPU ports, not the 2 switch uplinks.
  const Topology off = without_p2p(pcie, "test");
  CHECK(staged(off) == 4);
  for (const auto& l : off.links)
    CHECK(l.host_staged == (off.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Gpu ||
                            off.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Gpu));
  // NCCL_P2P_LEVEL=PIX on 2 GPUs per switch under one socket each: every GPU has a PHB/SYS peer.
  CHECK(staged(with_p2p_level(pcie, PathClass::Pix, "test")) == 4);
  CHECK(staged(with_p2p_level(pcie, PathClass::Sys, "test")) == 0);
  // The shipped GeForce preset, and the same box imported from its nvidia-smi topo -m header.
  CHECK(staged(resolve_topology("rtx4090-pcie-8gpu")) == 8);
  CHECK(staged(import_topology(read("models/traces/rtx4090-pcie-8gpu-allreduce-p2p-off-blog.txt"), "4090.txt", {})) == 8);
  // A cluster of staged nodes keeps each node's flags.
  CHECK(staged(resolve_topology("machine:gpu=l40s,gpus=4,intra=pcie,p2p=off,nodes=2,nics=1x100G")) == 8);
}

// P2P off is NCCL's level LOC (NCCL_P2P_DISABLE=1, paths.cc ncclGetLevel): the drawing says so, so the NCCL model's
// header names that level, not the default level of a host whose P2P is gone (found by the mutants5 session).
TEST_CASE("a drawing without P2P runs at level LOC") {
  CHECK(resolve_topology("hgx-h100").p2p_level == -1);
  CHECK(without_p2p(resolve_topology("hgx-h100"), "test").p2p_level == static_cast<int>(PathClass::Loc));
  CHECK(with_p2p_level(resolve_topology("pcie-gen4-8gpu"), PathClass::Loc, "test").p2p_level == static_cast<int>(PathClass::Loc));
}
