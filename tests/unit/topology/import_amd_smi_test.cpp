// `amd-smi topology` (text and --json) read from the samples in tests/data/import and from small hand-written
// tables. Expected values are read off the tables by eye: XGMI pairs at 1 hop and a weight under 30 are one
// Infinity Fabric link each, PCIE pairs 2 hops apart share a CPU socket, 3 hops apart do not, and a GPU whose
// PCIE peers are all ACCESS DISABLED copies through host memory.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "node_counts.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/import.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {
std::string sample(const std::string& name) {
  std::ifstream in(data_dir() + "/tests/data/import/" + name);
  REQUIRE(in);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
// Links between two GPUs of `type`, and the lanes of the first such link.
int gpu_links(const Topology& t, LinkType type) {
  int n = 0;
  for (const auto& l : t.links)
    n += l.type == type && t.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Gpu &&
         t.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Gpu;
  return n;
}
bool linked(const Topology& t, int a, int b) {
  for (const auto& l : t.links)
    if ((l.a == t.gpu_node(a) && l.b == t.gpu_node(b)) || (l.a == t.gpu_node(b) && l.b == t.gpu_node(a))) return true;
  return false;
}
// The node GPU g's PCIe port goes up to, and whether that port is host-staged.
std::pair<int, bool> port_of(const Topology& t, int g) {
  for (const auto& l : t.links)
    if (l.a == t.gpu_node(g) && t.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Cpu) return {l.b, l.host_staged};
  return {-1, false};
}
const char* kMixed = "LINK TYPE TABLE:\n"
                     "             0000:01:00.0 0000:02:00.0 0000:03:00.0 0000:04:00.0\n"
                     "0000:01:00.0 SELF         XGMI         XGMI         PCIE\n"
                     "0000:02:00.0 XGMI         SELF         XGMI         PCIE\n"
                     "0000:03:00.0 XGMI         XGMI         SELF         PCIE\n"
                     "0000:04:00.0 PCIE         PCIE         PCIE         SELF\n"
                     "HOPS TABLE:\n"
                     "             0000:01:00.0 0000:02:00.0 0000:03:00.0 0000:04:00.0\n"
                     "0000:01:00.0 0            1            1            3\n"
                     "0000:02:00.0 1            0            1            3\n"
                     "0000:03:00.0 1            1            0            3\n"
                     "0000:04:00.0 3            3            3            0\n"
                     "WEIGHT TABLE:\n"
                     "             0000:01:00.0 0000:02:00.0 0000:03:00.0 0000:04:00.0\n"
                     "0000:01:00.0 0            15           30           72\n"
                     "0000:02:00.0 15           0            15           72\n"
                     "0000:03:00.0 30           15           0            72\n"
                     "0000:04:00.0 72           72           72           0\n";
} // namespace

TEST_CASE("amd-smi topology: the OCI MI355X node is 8 GPUs in a full XGMI mesh, the kind from amd-smi's own table") {
  const auto text = sample("amd-smi-topology-8gpu-mi355x-xgmi-weight0-oci.txt");
  CHECK(detect_topology_format(text) == TopoFormat::AmdSmi);
  const auto t = import_topology(text, "oci.txt", {});
  CHECK(t.gpu_kind == "mi355x");
  CHECK(t.num_gpus() == 8);
  CHECK(gpu_links(t, LinkType::Xgmi) == 28); // 8 x 7 / 2 pairs, weight 0 on this driver still one link each
  CHECK(linked(t, 0, 7));
  CHECK(test::count_kind(t, NodeKind::Cpu) == 1); // amd-smi prints no NUMA placement and no PCIE pair
}

TEST_CASE("amd-smi topology: AMD's changelog example is 8 GPUs all XGMI at weight 15, the kind only from --gpu") {
  const auto text = sample("amd-smi-topology-8gpu-allxgmi-w15-amdsmi-changelog61.txt");
  CHECK_THROWS_WITH_AS(import_topology(text, "cl.txt", {}), doctest::Contains("cl.txt: amd-smi topology does not say which GPU it is"),
                       Error);
  const auto t = import_topology(text, "cl.txt", {"mi300x"});
  CHECK(t.num_gpus() == 8);
  CHECK(gpu_links(t, LinkType::Xgmi) == 28);
}

TEST_CASE("amd-smi topology: two RX 7900 XTX on PCIe, 2 hops on one socket, P2P DISABLED so copies stage through the host") {
  const auto text = sample("amd-smi-topology-2gpu-rx7900xtx-pcie-p2p-disabled-rocm6074.txt");
  CHECK_THROWS_WITH_AS(import_topology(text, "xtx.txt", {}),
                       doctest::Contains("xtx.txt line 18: names the GPU 'AMD Radeon RX 7900 XTX', which models/gpus.json does not know"),
                       Error);
  const auto t = import_topology(text, "xtx.txt", {"mi100"});
  CHECK(t.num_gpus() == 2);
  CHECK(gpu_links(t, LinkType::Xgmi) == 0);
  CHECK(test::count_kind(t, NodeKind::Cpu) == 1);
  CHECK(port_of(t, 0).first == port_of(t, 1).first);
  CHECK(port_of(t, 0).second); // ACCESS DISABLED: host-staged although the kind has P2P
  CHECK(port_of(t, 1).second);
}

TEST_CASE("amd-smi topology: weight 30 is two XGMI hops, not a link, and PCIE pairs 3 hops apart are on different sockets") {
  const auto t = import_amd_smi(kMixed, "mixed.txt", {"mi210"});
  CHECK(t.num_gpus() == 4);
  CHECK(gpu_links(t, LinkType::Xgmi) == 2); // 0-1 and 1-2 at weight 15; 0-2 at weight 30 goes through GPU1
  CHECK(linked(t, 0, 1));
  CHECK(linked(t, 1, 2));
  CHECK_FALSE(linked(t, 0, 2));
  // No NUMA lines: only PCIE pairs 2 hops apart are known to share a socket, so none here does: one CPU each.
  CHECK(test::count_kind(t, NodeKind::Cpu) == 4);
  CHECK(port_of(t, 3).first != port_of(t, 0).first);
  CHECK_FALSE(port_of(t, 3).second); // no ACCESS TABLE: the kind's P2P
}

TEST_CASE("amd-smi topology --json: the layout before ROCm 6.1.2 (one object per matrix) and the links layout after") {
  const auto old = sample("amd-smi-topology-json-old-2gpu-pcie-amdsmi-changelog612.txt");
  CHECK(detect_topology_format(old) == TopoFormat::AmdSmi);
  const auto a = import_topology(old, "old.json", {"mi300x"});
  CHECK(a.num_gpus() == 2);
  CHECK(gpu_links(a, LinkType::Xgmi) == 0);
  CHECK(test::count_kind(a, NodeKind::Cpu) == 1); // 2 hops: one socket
  CHECK(port_of(a, 0).second);                    // link_accessibility DISABLED
  const auto now = sample("amd-smi-topology-json-2gpu-pcie-access-type-amdsmi-changelog612.txt");
  CHECK(detect_topology_format(now) == TopoFormat::AmdSmi);
  const auto b = import_topology(now, "new.json", {"mi300x"});
  CHECK(b.num_gpus() == 2);
  CHECK(port_of(b, 1).second); // link_status DISABLED
  const std::string xgmi = R"([{"gpu": 0, "bdf": "a", "links": [{"gpu": 0, "link_type": "SELF", "num_hops": 0, "weight": 0},
                                 {"gpu": 1, "link_type": "XGMI", "num_hops": 1, "weight": 15}]},
                                {"gpu": 1, "bdf": "b", "links": [{"gpu": 1, "link_type": "SELF", "num_hops": 0, "weight": 0},
                                 {"gpu": 0, "link_type": "XGMI", "num_hops": 1, "weight": 15}]}])";
  CHECK(gpu_links(import_amd_smi(xgmi, "x.json", {"mi300x"}), LinkType::Xgmi) == 1);
}

TEST_CASE("amd-smi topology: the kind from amd-smi static's MARKET_NAME, and a paste cut before the link types is refused") {
  CHECK(import_topology(std::string("GPU: 0\n    ASIC:\n        MARKET_NAME: MI300X-O\n") + kMixed, "m.txt", {}).gpu_kind == "mi300x");
  const auto cut = sample("bad-amd-smi-topology-8gpu-mi300x-truncated-rocmblog.txt");
  CHECK(detect_topology_format(cut) == TopoFormat::AmdSmi);
  CHECK_THROWS_WITH_AS(import_topology(cut, "blog.txt", {}),
                       doctest::Contains("blog.txt: amd-smi topology output without its 'LINK TYPE TABLE:' (cut short?)"), Error);
}

TEST_CASE("amd-smi topology: unusable input is one line naming the file") {
  const std::string cut = "LINK TYPE TABLE:\n             0000:01:00.0 0000:02:00.0\n0000:01:00.0 SELF         XGMI\n";
  CHECK_THROWS_WITH_AS(import_amd_smi(cut, "cut.txt", {"mi300x"}), doctest::Contains("cut.txt: the 'LINK TYPE TABLE' section has no complete GPU matrix"),
                       Error);
  const std::string na = "LINK TYPE TABLE:\n             0000:01:00.0 0000:02:00.0\n0000:01:00.0 SELF         N/A\n0000:02:00.0 N/A          SELF\n";
  CHECK_THROWS_WITH_AS(import_amd_smi(na, "na.txt", {"mi300x"}), doctest::Contains("na.txt line 3: 'N/A' between GPU0 and GPU1 is not XGMI or PCIE"),
                       Error);
  const std::string swapped = "LINK TYPE TABLE:\n             0000:01:00.0 0000:02:00.0\n0000:02:00.0 XGMI         SELF\n";
  CHECK_THROWS_WITH_AS(import_amd_smi(swapped, "s.txt", {"mi300x"}), doctest::Contains("s.txt line 3: expected the 0000:01:00.0 row"), Error);
  CHECK_THROWS_WITH_AS(import_amd_smi("[{\"gpu\": 0, \"links\": [", "bad.json", {"mi300x"}),
                       doctest::Contains("bad.json: not valid `amd-smi topology --json` output"), Error);
  CHECK_THROWS_WITH_AS(import_amd_smi(R"([{"gpu": 0, "links": [{"gpu": 5, "link_type": "SELF"}]}])", "far.json", {"mi300x"}),
                       doctest::Contains("far.json: GPU '5' is not one of the 1 GPUs the list has"), Error);
  CHECK_THROWS_WITH_AS(import_amd_smi(R"([{"gpu": 0, "links": "x", "link_type": 1}])", "str.json", {"mi300x"}),
                       doctest::Contains("str.json: GPU0's 'links' is not a JSON list"), Error);
  CHECK_THROWS_WITH_AS(import_amd_smi(R"([{"gpu": 0, "hops": {"gpu_0": 0}}])", "nt.json", {"mi300x"}),
                       doctest::Contains("nt.json: no 'link_type' in the JSON"), Error);
}
