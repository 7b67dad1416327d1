// LL128 across nodes by the GPU-NIC path class (issue 14, gpunic branch). NCCL's tuning.cc keeps LL128 for a
// graph that crosses the network only while its typeInter is close enough: PXB (PIX on 2.5.6-2.6.4), and on
// sm90+ from 2.17.1 also PXN, from 2.27.3 P2C (Grace's NICs over C2C). Worked by hand on small drawings:
// gpu0 -> sw1 -> sw0 -> sw2 -> nic0 crosses three switches, PXB; gpu0 -> sw1 -> sw0 -> cpu0 -> nic0 crosses the
// CPU, PHB; a GPU whose only way to a NIC crosses both sockets, SYS, but whose NVLink peer has that NIC at PIX,
// PXN (paths.cc addInterStep through the peer).
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using topology::PathClass;

namespace {
// Two A100 joined by NVLink under switch sw1, sw1 and cpu0 under the root switch sw0; the NIC where `nic_on` says.
topology::Topology a100_pair(const std::string& nic_on) {
  nlohmann::json j = {
      {"name", "a100-pair-nic-" + nic_on},
      {"gpu", "a100"},
      {"link_types",
       {{"nvlink3", {{"bw", "25GB/s"}, {"latency", "0.6us"}, {"source", "test"}}},
        {"pcie4", {{"bw", "31.5GB/s"}, {"latency", "1us"}, {"source", "test"}}}}},
      {"nodes",
       {{{"name", "gpu0"}, {"kind", "gpu"}}, {{"name", "gpu1"}, {"kind", "gpu"}}, {{"name", "cpu0"}, {"kind", "cpu"}},
        {{"name", "sw0"}, {"kind", "pcie_switch"}}, {{"name", "sw1"}, {"kind", "pcie_switch"}},
        {{"name", "sw2"}, {"kind", "pcie_switch"}}, {{"name", "nic0"}, {"kind", "nic"}}}},
      {"links",
       {{{"a", "gpu0"}, {"b", "gpu1"}, {"type", "nvlink3"}, {"lanes", 12}, {"source", "test"}},
        {{"a", "gpu0"}, {"b", "sw1"}, {"type", "pcie4"}, {"source", "test"}},
        {{"a", "gpu1"}, {"b", "sw1"}, {"type", "pcie4"}, {"source", "test"}},
        {{"a", "sw1"}, {"b", "sw0"}, {"type", "pcie4"}, {"source", "test"}},
        {{"a", "sw2"}, {"b", "sw0"}, {"type", "pcie4"}, {"source", "test"}},
        {{"a", "sw0"}, {"b", "cpu0"}, {"type", "pcie4"}, {"source", "test"}},
        {{"a", "nic0"}, {"b", nic_on}, {"type", "pcie4"}, {"source", "test"}}}}};
  return topology::topology_from_json(j, "test");
}

topology::Topology two_nodes(const topology::Topology& node, int nics) {
  topology::ClusterSpec c;
  c.nodes = 2;
  c.nics = nics;
  c.nic_bw = 25'000'000'000;
  return topology::make_cluster(node, c, node.name);
}

std::vector<int> all_gpus(const topology::Topology& t) {
  std::vector<int> g;
  for (int i = 0; i < t.num_gpus(); ++i) g.push_back(i);
  return g;
}
} // namespace

TEST_CASE("A NIC behind the CPU turns LL128 off across nodes, one behind two switches (PXB) keeps it") {
  const auto pxb = two_nodes(a100_pair("sw2"), 1);
  CHECK(topology::type_inter(pxb, all_gpus(pxb), {}) == PathClass::Pxb);
  nccl::Builder on(pxb, {});
  const auto cfg_on = test::packed_rings_config(pxb);
  CHECK(on.graph(cfg_on).ll128);
  CHECK(on.describe(cfg_on).find("LL128 on (GPU-NIC path PXB)") != std::string::npos);

  const auto phb = two_nodes(a100_pair("cpu0"), 1);
  CHECK(topology::type_inter(phb, all_gpus(phb), {}) == PathClass::Phb);
  nccl::Builder off(phb, {});
  const auto cfg_off = test::packed_rings_config(phb);
  CHECK_FALSE(off.graph(cfg_off).ll128);
  const auto why = off.describe(cfg_off);
  CAPTURE(why);
  CHECK(why.find("LL128 off (GPU-NIC path PHB: NCCL 2.30.7 keeps LL128 across nodes up to PXB on sm80)") != std::string::npos);
  // One node crosses no network: the NIC's place does not matter (tuning.cc's typeInter stays PIX there).
  const auto single = a100_pair("cpu0");
  nccl::Builder one(single, {});
  CHECK(one.graph(test::packed_rings_config(single)).ll128);
}

TEST_CASE("The limit by release: PIX on 2.6, PXB from 2.7.3, PXN on sm90 from 2.17.1") {
  const auto limit = [](const char* v, int sm) { return nccl::ll128_type_inter_limit(nccl::parse_nccl_version(v), sm); };
  CHECK(limit("2.6.4", 70) == PathClass::Pix);
  CHECK(limit("2.7.3", 80) == PathClass::Pxb);
  CHECK(limit("2.16.5", 90) == PathClass::Pxb);
  CHECK(limit("2.17.1", 90) == PathClass::Pxn);
  CHECK(limit("2.17.1", 80) == PathClass::Pxb);
  CHECK(limit("2.30.7", 100) == PathClass::Pxn);
  CHECK(nccl::ll128_type_inter_limit(std::nullopt, 90) == PathClass::Pxn);
  // v2.27.3's order puts P2C after PXN and its limit is P2C; v2.28's puts it before and its limit is PXN: the
  // same classes either way, P2C included, PHB not.
  CHECK(PathClass::P2c <= limit("2.27.3", 90));
  CHECK(PathClass::Phb > limit("2.30.7", 90));
}

TEST_CASE("A GPU far from every NIC reaches its NVLink peer's NIC as PXN from 2.12.7, and only sm90 keeps LL128 there") {
  // gpu0 and its NIC under sw0 on socket 0; gpu1 on a root port of socket 1; the two GPUs joined by NVLink.
  nlohmann::json j = {
      {"name", "pxn-pair"},
      {"gpu", "h100"},
      {"link_types",
       {{"nvlink4", {{"bw", "25GB/s"}, {"latency", "0.6us"}, {"source", "test"}}},
        {"pcie5", {{"bw", "63GB/s"}, {"latency", "1us"}, {"source", "test"}}},
        {"upi", {{"bw", "22.4GB/s"}, {"latency", "1us"}, {"source", "test"}}}}},
      {"nodes",
       {{{"name", "gpu0"}, {"kind", "gpu"}}, {{"name", "gpu1"}, {"kind", "gpu"}}, {{"name", "cpu0"}, {"kind", "cpu"}},
        {{"name", "cpu1"}, {"kind", "cpu"}}, {{"name", "sw0"}, {"kind", "pcie_switch"}}, {{"name", "nic0"}, {"kind", "nic"}}}},
      {"links",
       {{{"a", "gpu0"}, {"b", "gpu1"}, {"type", "nvlink4"}, {"lanes", 18}, {"source", "test"}},
        {{"a", "gpu0"}, {"b", "sw0"}, {"type", "pcie5"}, {"source", "test"}},
        {{"a", "nic0"}, {"b", "sw0"}, {"type", "pcie5"}, {"source", "test"}},
        {{"a", "sw0"}, {"b", "cpu0"}, {"type", "pcie5"}, {"source", "test"}},
        {{"a", "gpu1"}, {"b", "cpu1"}, {"type", "pcie5"}, {"source", "test"}},
        {{"a", "cpu0"}, {"b", "cpu1"}, {"type", "upi"}, {"source", "test"}}}}};
  const auto t = two_nodes(topology::topology_from_json(j, "test"), 1);
  const auto now = topology::gpu_nic_classes(t, nccl::nic_path_rules(nccl::parse_nccl_version("2.30.7")));
  CHECK(now[0] == PathClass::Pix);
  CHECK(now[1] == PathClass::Pxn);
  const auto before = topology::gpu_nic_classes(t, nccl::nic_path_rules(nccl::parse_nccl_version("2.11.4")));
  CHECK(before[1] == PathClass::Sys);
  // A run on each host's gpu1 only (ranks 1 and 3): its graph's typeInter is PXN.
  const auto pxn = topology::type_inter(t, {1, 3}, {});
  REQUIRE(pxn);
  CHECK(*pxn == PathClass::Pxn);
  CHECK(*pxn <= nccl::ll128_type_inter_limit(std::nullopt, 90));        // Hopper: on
  CHECK(*pxn > nccl::ll128_type_inter_limit(std::nullopt, 80));         // Ampere: off
  CHECK(*pxn > nccl::ll128_type_inter_limit(nccl::parse_nccl_version("2.16.5"), 90)); // before the sm90 clause: off
}

TEST_CASE("A Grace superchip reaches its NICs over C2C: P2C from 2.27.3 keeps LL128 across nodes, PHB before turns it off") {
  const auto t = topology::resolve_topology("machine:gpu=gh200,gpus=4,nodes=2,nics=4x200G,kind=slingshot");
  CHECK(topology::gpu_nic_classes(t, nccl::nic_path_rules(nccl::parse_nccl_version("2.27.3")))[0] == PathClass::P2c);
  CHECK(topology::gpu_nic_classes(t, nccl::nic_path_rules(nccl::parse_nccl_version("2.26.2")))[0] == PathClass::Phb);
  const auto cfg = test::packed_rings_config(t);
  nccl::Builder now(t, {});
  CHECK(now.graph(cfg).ll128);
  nccl::Options o;
  o.nccl_version = "2.26.2";
  nccl::Builder old(t, o);
  CHECK_FALSE(old.graph(cfg).ll128);
  CHECK(old.describe(cfg).find("GPU-NIC path PHB: NCCL 2.26.2 keeps LL128 across nodes up to PXN on sm90") != std::string::npos);
}

TEST_CASE("nic_at places the NICs the cluster generator adds: beside the GPU, on its socket, on a NUMA node of their own") {
  const std::string base = "machine:gpu=h100nvl,gpus=2,nodes=2,nics=2x200G,kind=slingshot,sockets=2,cpu=amd";
  const auto cls = [](const topology::Topology& t) { return topology::gpu_nic_classes(t, {})[0]; };
  CHECK(cls(topology::resolve_topology(base)) == PathClass::Pix);
  CHECK(cls(topology::resolve_topology(base + ",nic_at=gpu")) == PathClass::Pix);
  CHECK(cls(topology::resolve_topology(base + ",nic_at=cpu")) == PathClass::Phb);
  const auto sys = topology::resolve_topology(base + ",nic_at=numa");
  CHECK(cls(sys) == PathClass::Sys);
  CHECK(topology::type_inter(sys, all_gpus(sys), {}) == PathClass::Sys);
  nccl::Builder b(sys, {});
  CHECK_FALSE(b.graph(test::packed_rings_config(sys)).ll128);
  CHECK_THROWS_AS(topology::resolve_topology(base + ",nic_at=switch"), Error);
  CHECK_THROWS_AS(topology::resolve_topology("machine:gpu=h100nvl,gpus=2,nodes=2,nics=2x200G,sockets=1,nic_at=numa"), Error);
}

TEST_CASE("An imported topo -m matrix: each GPU's NIC class is its row's closest NIC cell (NODE read as PHB)") {
  const auto classes = [](const std::string& name, const std::string& gpu = "") {
    std::ifstream in(data_dir() + "/tests/data/import/" + name);
    REQUIRE(in);
    std::stringstream s;
    s << in.rdbuf();
    return topology::gpu_nic_classes(topology::import_topo_m(s.str(), name, {gpu}), {});
  };
  // A30 x 4, NV4 pairs, one NIC: GPU0/GPU1 SYS (their NVLink peer is SYS too, so no PXN), GPU2 PXB, GPU3 PIX.
  const auto a30 = classes("a30-4gpu-nv4pairs-1nic-topo-m-vllm-collectenv.txt");
  CHECK(a30[0] == PathClass::Sys);
  CHECK(a30[1] == PathClass::Sys);
  CHECK(a30[2] == PathClass::Pxb);
  CHECK(a30[3] == PathClass::Pix);
  // L40S x 4, two NICs on socket 1: GPU0/GPU1 SYS, GPU2/GPU3 NODE.
  const auto l40s = classes("l40s-4gpu-2nic-node-sys-topo-m-missalignment106.txt", "l40s");
  CHECK(l40s[0] == PathClass::Sys);
  CHECK(l40s[2] == PathClass::Phb);
  // H100 x 4 in an NV6 mesh, a PIX NIC each.
  for (const auto c : classes("h100-4gpu-nv6-mesh-4nic-numa-topo-m-nccl1617.txt", "h100")) CHECK(c == PathClass::Pix);
}
