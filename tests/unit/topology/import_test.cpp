// Importers of nvidia-smi topo -m, NCCL topology XML and rocm-smi --showtopo, and the NCCL XML export.
// Expected links are read off the input text by hand (NV2 = 2 lanes of 25 GB/s for a V100, ...).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {
constexpr Bandwidth GB = 1'000'000'000;
std::string read(const std::string& rel) {
  std::ifstream f(data_dir() + "/" + rel);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
Bandwidth bottleneck(const Topology& t, int a, int b) {
  Router r(t);
  return r.info(r.route(t.gpu_node(a), t.gpu_node(b))).bottleneck;
}
int lanes_of(const Topology& t, LinkType type) {
  int n = 0;
  for (const auto& l : t.links) n += l.type == type ? l.lanes : 0;
  return n;
}
const char* kMatrix = "GPU0\tGPU1\tGPU2\tGPU3\tNIC0\tCPU Affinity\tNUMA Affinity\n"
                      "GPU0\t X \tNV2\tPIX\tSYS\tPIX\t0-15\t0\n"
                      "GPU1\tNV2\t X \tPXB\tSYS\tPXB\t0-15\t0\n"
                      "GPU2\tPIX\tPXB\t X \tSYS\tPIX\t0-15\t0\n"
                      "GPU3\tSYS\tSYS\tSYS\t X \tSYS\t16-31\t1\n"
                      "NIC0\tPIX\tPXB\tPIX\tSYS\t X \n"
                      "\nNIC Legend:\n\n  NIC0: mlx5_0\n";
} // namespace

TEST_CASE("topo -m: the DGX-1V matrix of the konnase trace gives its 24 NVLink2 lanes and the GPU from the device list") {
  const auto t = import_topology(read("models/traces/dgx1-v100-8gpu-allreduce-konnase.txt"), "konnase.txt", {});
  CHECK(t.num_gpus() == 8);
  CHECK(t.gpu_kind == "v100"); // "Tesla V100-SXM2-16GB" on the Rank lines
  CHECK(lanes_of(t, LinkType::NvLink2) == 24); // 8 NV1 + 8 NV2 pairs
  CHECK(bottleneck(t, 0, 3) == 50 * GB);       // GPU0 row, GPU3 column NV2
  CHECK(bottleneck(t, 0, 1) == 25 * GB);       // NV1
  for (const auto& l : t.links) CHECK(l.source.find("konnase.txt") == 0);
  CHECK(t.links[0].source.find("line 12: GPU0 row, GPU1 column NV1") != std::string::npos);
  CHECK(t.links[0].source.find("from the v100 defaults") != std::string::npos);
}

TEST_CASE("topo -m: PIX, PXB, SYS, NUMA affinity and the NIC legend become switches, sockets and a NIC") {
  const auto t = import_topo_m(kMatrix, "m.txt", {"h100"});
  CHECK(t.num_gpus() == 4);
  int switches = 0, cpus = 0;
  for (const auto& n : t.nodes) switches += n.kind == NodeKind::PcieSwitch, cpus += n.kind == NodeKind::Cpu;
  CHECK(switches == 3); // PXB tree: top switch over the GPU0/GPU2/NIC0 PIX switch and GPU1's own bridge
  CHECK(cpus == 2);     // GPU3 is SYS to all, NUMA 1
  CHECK(t.find_node("nic0-mlx5_0").has_value());
  CHECK(bottleneck(t, 0, 2) == 63 * GB);           // same Gen5 switch (H100 default), P2P allowed
  CHECK(bottleneck(t, 0, 3) == 22'400'000'000);    // across the UPI socket link
  CHECK(bottleneck(t, 0, 1) == 50 * GB);           // NV2 of H100 NVLink4
}

TEST_CASE("topo -m: a GeForce card without P2P over PCIe stages through host memory") {
  const auto t = import_topology(read("models/traces/rtx4090-pcie-8gpu-allreduce-p2p-off-blog.txt"), "4090.txt", {});
  CHECK(t.gpu_kind == "rtx4090");
  CHECK(bottleneck(t, 0, 1) == Bandwidth{19'500'000'000});
  bool amd = false;
  for (const auto& l : t.links) amd |= l.type == LinkType::Xgmi; // the header names 2x AMD EPYC 7542
  CHECK(amd);
}

TEST_CASE("topo -m: NV18 to every peer is an NVSwitch plane") {
  const auto t = import_topology(read("tests/data/import/b200-gke-a4-topo-m-dranet.txt"), "a4.txt", {"b200"});
  CHECK(lanes_of(t, LinkType::NvLink5) == 8 * 18);
  CHECK(bottleneck(t, 0, 7) == 900 * GB);
  CHECK(t.find_node("nvswitch").has_value());
}

TEST_CASE("topo -m: bad matrices are one-line errors naming file, line and what to add") {
  CHECK_THROWS_WITH_AS(import_topo_m(kMatrix, "m.txt", {}), doctest::Contains("m.txt: the topo -m matrix does not say which GPU"), Error);
  CHECK_THROWS_WITH_AS(import_topo_m("GPU0\tGPU1\nGPU0\t X \tNV9\nGPU1\tNV9\t X \n", "m.txt", {"v100"}),
                       doctest::Contains("m.txt line 2: GPU0 shows NV9, more than the 6 NVLinks"), Error);
  CHECK_THROWS_WITH_AS(import_topo_m("GPU0\tGPU1\nGPU0\t X \tFOO\nGPU1\tSYS\t X \n", "m.txt", {"v100"}),
                       doctest::Contains("m.txt line 2: 'FOO' in the GPU0 row, GPU1 column is not a topo -m path class"), Error);
  CHECK_THROWS_WITH_AS(import_topo_m("GPU0\tGPU1\nGPU0\t X \tSYS\n", "m.txt", {"v100"}),
                       doctest::Contains("the header names GPU1 but the matrix has no GPU1 row"), Error);
  CHECK_THROWS_WITH_AS(import_topo_m("GPU0\tGPU1\nGPU0\t X \tNV1\nGPU1\tNV1\t X \n", "m.txt", {"rtx4090"}),
                       doctest::Contains("has no NVLink: check --gpu"), Error);
  CHECK_THROWS_WITH_AS(import_topology("hello\n", "x.txt", {}), doctest::Contains("x.txt: not a topology"), Error);
  CHECK_THROWS_WITH_AS(import_topo_m(kMatrix, "m.txt", {"x100"}), doctest::Contains("--gpu: unknown gpu 'x100'"), Error);
}

TEST_CASE("NCCL XML: the truncated DGX-1 dump keeps its two GPUs, their switch and their one NVLink") {
  const auto t = import_topology(read("tests/data/import/dgx1-v100-4gpu-topo-partial-nccl671.xml"), "p.xml", {});
  CHECK(t.gpu_kind == "v100"); // sm="70"
  CHECK(t.num_gpus() == 2);
  CHECK(bottleneck(t, 0, 1) == 25 * GB);
  CHECK(t.description.find("5 NVLink element(s) point to devices the file does not list") != std::string::npos);
  const auto hint = import_topology(read("tests/data/import/azure-ndv2-v100-8gpu-topo-hint.xml"), "h.xml", {"v100"});
  CHECK(hint.num_gpus() == 8);
  CHECK(bottleneck(hint, 0, 1) == Bandwidth{31'500'000'000}); // 16 GT/s x16 as the file says
  CHECK(hint.description.find("No <nvlink> elements") != std::string::npos);
  CHECK_THROWS_WITH_AS(import_nccl_xml("<system><cpu numaid=\"0\"><pci busid=\"1\" class=\"0x030200\">", "t.xml", {"v100"}),
                       doctest::Contains("t.xml line 1: <pci> is never closed"), Error);
  CHECK_THROWS_WITH_AS(import_nccl_xml("<system><cpu numaid=\"0\"><pci busid=\"1\" class=\"0x030200\"><gpu sm=\"90\"/></pci></cpu></system>",
                                       "t.xml", {}),
                       doctest::Contains("sm=90 fits"), Error);
}

TEST_CASE("NCCL XML: an NVLink element under a PCIe switch, not a GPU, is refused with its line, not an uncaught exception") {
  // The fuzzer's input: a <gpu/> closed at once, so the <nvlink> lines that followed hang under the switch's <pci>.
  // Two levels of switches (the crash needed the switch's own parent to be a device), and one level.
  const std::string nested = "<system><cpu numaid=\"0\"><pci busid=\"08\" class=\"0x060400\"><pci busid=\"09\" class=\"0x060400\">\n"
                             "<pci busid=\"01\" class=\"0x030200\"><gpu sm=\"70\"/></pci>\n"
                             "<nvlink target=\"01\" count=\"1\" tclass=\"0x030200\"/>\n"
                             "</pci></pci></cpu></system>";
  CHECK_THROWS_WITH_AS(import_nccl_xml(nested, "t.xml", {}), doctest::Contains("t.xml line 3: <nvlink> outside a GPU's <gpu> element"),
                       Error);
  const std::string flat = "<system><cpu numaid=\"0\"><pci busid=\"09\" class=\"0x060400\">\n"
                           "<pci busid=\"01\" class=\"0x030200\"><gpu sm=\"70\"/></pci>\n"
                           "<xgmi target=\"01\" count=\"1\" tclass=\"0x030200\"/>\n"
                           "</pci></cpu></system>";
  CHECK_THROWS_WITH_AS(import_nccl_xml(flat, "t.xml", {}), doctest::Contains("t.xml line 3: <xgmi> outside a GPU's <gpu> element"), Error);
}

// Found by the input audit of the fuzz3 session: numaid was cast to an int, so 2^32 + 1 named cpu1 (another socket's CPU).
TEST_CASE("NCCL XML: a numaid past an int is refused with its line, -1 (no NUMA node) is read") {
  auto xml = [](const char* numa) {
    return fmt::format("<system><cpu numaid=\"{}\">\n<pci busid=\"01\" class=\"0x030200\"><gpu sm=\"70\"/></pci>\n"
                       "<pci busid=\"02\" class=\"0x030200\"><gpu sm=\"70\"/></pci></cpu></system>", numa);
  };
  CHECK_THROWS_WITH_AS(import_nccl_xml(xml("4294967297"), "t.xml", {}),
                       doctest::Contains("t.xml line 1: <cpu numaid=\"4294967297\">: not a NUMA node number"), Error);
  CHECK_THROWS_AS(import_nccl_xml(xml("-2"), "t.xml", {}), Error);
  CHECK(import_nccl_xml(xml("-1"), "t.xml", {}).num_gpus() == 2);
  CHECK(import_nccl_xml(xml("65535"), "t.xml", {}).num_gpus() == 2);
}

TEST_CASE("NCCL XML export round-trips through the importer to the same links") {
  for (const char* spec : {"dgx1-v100", "machine:gpu=h100", "machine:gpu=a40", "machine:gpu=mi300x"}) {
    CAPTURE(spec);
    const auto t = resolve_topology(spec);
    const auto back = import_nccl_xml(export_nccl_xml(t), "rt.xml", {});
    REQUIRE(back.num_gpus() == t.num_gpus());
    for (int a = 0; a < t.num_gpus(); ++a)
      for (int b = 0; b < t.num_gpus(); ++b)
        if (a != b) CHECK(bottleneck(back, a, b) == bottleneck(t, a, b));
  }
}

TEST_CASE("rocm-smi --showtopo: one-hop XGMI pairs are Infinity Fabric links of the GPU kind") {
  // Synthetic 8-GPU MI300X output in rocm-smi's layout: every pair XGMI, 1 hop, weight 15.
  std::string text = "======= ROCm System Management Interface =======\n";
  for (const char* title : {"Weight", "Hops", "Link Type"}) {
    text += fmt::format("======= {} between two GPUs =======\n       GPU0 GPU1 GPU2 GPU3 GPU4 GPU5 GPU6 GPU7\n", title);
    for (int i = 0; i < 8; ++i) {
      text += fmt::format("GPU{}", i);
      for (int j = 0; j < 8; ++j)
        text += i == j ? " 0" : std::string(title) == "Weight" ? " 15" : std::string(title) == "Hops" ? " 1" : " XGMI";
      text += "\n";
    }
  }
  text += "======= Numa Nodes =======\n";
  for (int i = 0; i < 8; ++i) text += fmt::format("GPU[{}]\t\t: (Topology) Numa Node: {}\n", i, i / 4);
  text += "Card Series: AMD Instinct MI300X\n";
  const auto t = import_topology(text, "r.txt", {});
  CHECK(t.gpu_kind == "mi300x");
  CHECK(lanes_of(t, LinkType::Xgmi) == 28 + 1); // 28 GPU pairs + one socket link
  CHECK(bottleneck(t, 2, 5) == 64 * GB);
  CHECK_THROWS_WITH_AS(import_rocm_smi("Link Type between two GPUs\nGPU0 GPU1\nGPU0 0 NVL\nGPU1 NVL 0\n", "r.txt", {"mi300x"}),
                       doctest::Contains("r.txt line 3: 'NVL' between GPU0 and GPU1 is not XGMI or PCIE"), Error);
}

// Mutation pass (scripts/MUTANTS.md): NCCL's topo.cc (ncclTopoAddPci, v2.26.2-1) reads link_width with strtol and
// takes x16 where it reads 0 ("Manage cases where speed was not indicated in /sys"), so an empty width is x16;
// a width of 8 halves the link: 16 GT/s x 8 lanes x 128/130 / 8 bits = 15.75 GB/s.
TEST_CASE("NCCL XML: an empty link_width is x16 as in NCCL, a width of 8 half of it") {
  const std::string hint = read("tests/data/import/azure-ndv2-v100-8gpu-topo-hint.xml");
  const auto with_width = [&](const std::string& w) {
    std::string text = hint;
    for (std::size_t at = 0; (at = text.find("link_width=\"16\"", at)) != std::string::npos; at += w.size())
      text.replace(at, 15, "link_width=\"" + w + "\"");
    return import_topology(text, "w.xml", {"v100"});
  };
  CHECK(bottleneck(with_width(""), 0, 1) == Bandwidth{31'500'000'000});
  CHECK(bottleneck(with_width("8"), 0, 1) == Bandwidth{15'750'000'000});
}
