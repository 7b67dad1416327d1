// The hosts' CPU vendor reaches NCCL's graph (Graph::amd_cpu) from every way a description can state it, one
// socket included: NCCL reads the vendor from the CPU itself (topo.cc kvDictCpuVendor: GenuineIntel, AuthenticAMD),
// not from a socket link. Nothing said: AMD only where xGMI joins two sockets, else Intel (topologies/README.md).
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/model/nccl/graph.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

namespace {
bool amd_of(const topology::Topology& t) { return test::packed_graph(t).amd_cpu; }
const char* kOneSocketPair = "        GPU0    GPU1    CPU Affinity    NUMA Affinity\n"
                             "GPU0     X      PHB     0-15    0\n"
                             "GPU1    PHB      X      0-15    0\n";
std::string one_socket_xml(const std::string& vendor) {
  return "<system version=\"1\"><cpu numaid=\"0\" arch=\"x86_64\" vendor=\"" + vendor +
         "\" familyid=\"25\" modelid=\"1\">"
         "<pci busid=\"0000:01:00.0\" class=\"0x030200\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\"/>"
         "<pci busid=\"0000:02:00.0\" class=\"0x030200\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\"/>"
         "</cpu></system>";
}
} // namespace

TEST_CASE("machine: cpu=amd on one socket makes NCCL's graph take AMD hosts, cpu=intel and the default Intel") {
  const std::string spec = "machine:gpu=l40s,gpus=4,intra=pcie,sockets=1,nodes=2,nics=1x200G,kind=ib";
  CHECK(amd_of(topology::resolve_topology(spec + ",cpu=amd")));
  CHECK_FALSE(amd_of(topology::resolve_topology(spec + ",cpu=intel")));
  CHECK_FALSE(amd_of(topology::resolve_topology(spec)));
  // Two sockets: the xGMI socket link drawn for cpu=amd says it as before.
  CHECK(amd_of(topology::resolve_topology("machine:gpu=l40s,gpus=4,intra=pcie,sockets=2,cpu=amd")));
}

TEST_CASE("An NCCL XML's <cpu vendor> and a topo -m paste's CPU name set the vendor of a one-socket host") {
  CHECK(amd_of(topology::import_nccl_xml(one_socket_xml("AuthenticAMD"), "t.xml", {"l40s"})));
  CHECK_FALSE(amd_of(topology::import_nccl_xml(one_socket_xml("GenuineIntel"), "t.xml", {"l40s"})));
  const auto epyc = topology::import_topo_m(std::string("Model name: AMD EPYC 7763 64-Core Processor\n") + kOneSocketPair, "t.txt", {"l40s"});
  CHECK(epyc.cpu_vendor == "amd");
  CHECK(amd_of(epyc));
  const auto unnamed = topology::import_topo_m(kOneSocketPair, "t.txt", {"l40s"});
  CHECK(unnamed.cpu_vendor.empty());
  CHECK_FALSE(amd_of(unnamed));
}

TEST_CASE("A topology file's \"cpu\" says the vendor, round-trips, and anything but intel or amd is refused") {
  auto t = topology::resolve_topology("machine:gpu=l40s,gpus=2,intra=pcie,sockets=1");
  CHECK(t.cpu_vendor.empty());
  t.cpu_vendor = "amd";
  const auto back = topology::topology_from_json(topology::topology_to_json(t), "rt.json");
  CHECK(back.cpu_vendor == "amd");
  CHECK(amd_of(back));
  auto doc = topology::topology_to_json(t);
  doc["cpu"] = "arm";
  CHECK_THROWS_WITH_AS(topology::topology_from_json(doc, "bad.json"), doctest::Contains("bad.json: cpu 'arm' is not intel or amd"), Error);
}

TEST_CASE("2 nodes x 4 L40S on one socket, one 200G NIC: Intel's root complex costs 6/5, an AMD host's does not") {
  // Switches sw0 (GPUs 0, 1, the NIC) and sw1 (GPUs 2, 3) under cpu0; L40S is sm89: no reverse eighth.
  // maxBw = min(24 GPU port, 24 NIC port, 25 NIC) = 24 = totalBw. Every ring order crosses cpu0 once from a GPU
  // (a peer hop, or the last GPU's path to the NIC): on Intel (followPath INTEL_P2P_OVERHEAD) those PCIe links
  // carry 6/5 s: 24 -> 28.8 fits none; 20 -> 24, one channel; 18, 15, 12: one (2 x 14.4 > 24); 10: two (20, not
  // more); 9 / 20 < 0.49 stops: 1 x 20. On AMD every directed link carries s once: 24 fits one channel and
  // channels x speed reaches totalBw: 1 x 24.
  const std::string spec = "machine:gpu=l40s,gpus=4,intra=pcie,sockets=1,nodes=2,nics=1x200G,kind=ib";
  const auto intel = test::packed_graph(topology::resolve_topology(spec));
  CHECK(intel.channels == 1);
  CHECK(intel.bw == doctest::Approx(20.0));
  const auto amd = test::packed_graph(topology::resolve_topology(spec + ",cpu=amd"));
  CHECK(amd.channels == 1);
  CHECK(amd.bw == doctest::Approx(24.0));
}
