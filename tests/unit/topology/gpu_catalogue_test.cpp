// The GPU catalogue (models/gpus.json) against figures copied by hand from the vendors' data sheets:
// GPU-to-GPU links x per-link speed per direction, PCIe generation, compute capability / gfx target, NCCL
// tuning row, memory, P2P over PCIe. A wrong figure in the file fails here; a kind added to the file
// without a row here fails the "every kind has a row" case.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {

struct Sheet {
  const char* kind;
  int links;             // NVLink (SXM), bridge or Infinity Fabric links per GPU; 0 = none
  double link_GBps;      // per link per direction
  int pcie_gen;          // host link generation, x16
  const char* sm;        // compute capability x10, or gfx target
  const char* nccl_arch; // NCCL's row: sm < 80 volta (pascal for sm60), 80-89 ampere, 90-99 hopper, >= 100 blackwell
  int memory_gb;
  bool p2p_pcie;
};

// Each row: the data sheet's aggregate (both directions) / 2 / links. E.g. H100 SXM "NVLink 900 GB/s" = 18 x 25;
// A800 "NVLink 400 GB/s" = 8 x 25; A30 bridge "200 GB/s" = 4 x 25; A40 bridge "112.5 GB/s" = 4 x 14.0625;
// MI300X "896 GB/s aggregate, 7 links" = 7 x 64; MI210 "300 GB/s, 3 links" = 3 x 50; MI100 3 links at 23 GT/s x 16 bit = 46.
const std::vector<Sheet> kSheets = {
    {"p100", 4, 20, 3, "60", "pascal", 16, true},
    {"p100pcie", 0, 0, 3, "60", "pascal", 16, true},
    {"v100", 6, 25, 3, "70", "volta", 32, true},
    {"v100pcie", 0, 0, 3, "70", "volta", 32, true},
    {"t4", 0, 0, 3, "75", "volta", 16, true},
    {"rtx2080ti", 2, 25, 3, "75", "volta", 11, false},
    {"a100", 12, 25, 4, "80", "ampere", 80, true},
    {"a100pcie", 12, 25, 4, "80", "ampere", 80, true},
    {"a800", 8, 25, 4, "80", "ampere", 80, true},
    {"a800pcie", 8, 25, 4, "80", "ampere", 80, true},
    {"a30", 4, 25, 4, "80", "ampere", 24, true},
    {"a10", 0, 0, 4, "86", "ampere", 24, true},
    {"a10g", 0, 0, 4, "86", "ampere", 24, true},
    {"a40", 4, 14.0625, 4, "86", "ampere", 48, true},
    {"rtxa6000", 4, 14.0625, 4, "86", "ampere", 48, true},
    {"rtxa5000", 4, 14.0625, 4, "86", "ampere", 24, true},
    {"rtxa4000", 0, 0, 4, "86", "ampere", 16, true},
    {"rtx3090", 4, 14.0625, 4, "86", "ampere", 24, false},
    {"l4", 0, 0, 4, "89", "ampere", 24, true},
    {"l20", 0, 0, 4, "89", "ampere", 48, true},
    {"l40", 0, 0, 4, "89", "ampere", 48, true},
    {"l40s", 0, 0, 4, "89", "ampere", 48, true},
    {"rtx6000ada", 0, 0, 4, "89", "ampere", 48, true},
    {"rtx4090", 0, 0, 4, "89", "ampere", 24, false},
    {"h100", 18, 25, 5, "90", "hopper", 80, true},
    {"h100pcie", 12, 25, 5, "90", "hopper", 80, true},
    {"h100nvl", 12, 25, 5, "90", "hopper", 94, true},
    {"h200", 18, 25, 5, "90", "hopper", 141, true},
    {"h200nvl", 18, 25, 5, "90", "hopper", 141, true},
    {"h20", 18, 25, 5, "90", "hopper", 96, true},
    {"h800", 8, 25, 5, "90", "hopper", 80, true},
    {"h800pcie", 8, 25, 5, "90", "hopper", 80, true},
    {"gh200", 18, 25, 5, "90", "hopper", 96, true},
    {"b200", 18, 50, 5, "100", "blackwell", 180, true},
    {"gb200", 18, 50, 5, "100", "blackwell", 186, true},
    {"b300", 18, 50, 6, "103", "blackwell", 288, true},
    {"gb300", 18, 50, 6, "103", "blackwell", 288, true},
    {"rtx5090", 0, 0, 5, "120", "blackwell", 32, false},
    {"rtxpro6000", 0, 0, 5, "120", "blackwell", 96, true},
    {"mi100", 3, 46, 4, "gfx908", "cdna1", 32, true},
    {"mi210", 3, 50, 4, "gfx90a", "cdna2", 64, true},
    {"mi250", 3, 50, 4, "gfx90a", "cdna2", 64, true},
    {"mi250x", 4, 50, 4, "gfx90a", "cdna2", 64, true},
    {"mi300x", 7, 64, 5, "gfx942", "cdna3", 192, true},
    {"mi325x", 7, 64, 5, "gfx942", "cdna3", 256, true},
    {"mi350x", 7, 76.8, 5, "gfx950", "cdna4", 288, true},
    {"mi355x", 7, 76.8, 5, "gfx950", "cdna4", 288, true},
};

constexpr double GB = 1e9;

int links_of(const GpuKind& k) { return k.nvlink ? k.nvlinks : k.bridge ? k.bridge_links : k.xgmi_links; }
double link_GBps(const GpuKind& k) { return static_cast<double>(k.xgmi_links ? k.xgmi_bw : k.nvlink_bw) / GB; }

Bandwidth bottleneck(const Topology& t, int a, int b) {
  Router r(t);
  return r.info(r.route(t.gpu_node(a), t.gpu_node(b))).bottleneck;
}

} // namespace

TEST_CASE("gpu catalogue: every kind matches its data sheet row") {
  for (const auto& s : kSheets) {
    CAPTURE(s.kind);
    const GpuKind k = gpu_kind(s.kind, "test");
    CHECK(links_of(k) == s.links);
    CHECK(link_GBps(k) == doctest::Approx(s.link_GBps));
    CHECK(k.pcie.gts == (s.pcie_gen == 3 ? 8 : s.pcie_gen == 4 ? 16 : s.pcie_gen == 5 ? 32 : 64));
    CHECK(k.sm == s.sm);
    CHECK(k.nccl_arch == s.nccl_arch);
    CHECK(k.memory_gb == s.memory_gb);
    CHECK(k.p2p_pcie == s.p2p_pcie);
  }
}

TEST_CASE("gpu catalogue: every kind has a data sheet row and no row names a missing kind") {
  std::set<std::string> rows;
  for (const auto& s : kSheets) rows.insert(s.kind);
  const auto names = gpu_kind_names();
  CHECK(std::set<std::string>(names.begin(), names.end()) == rows);
}

TEST_CASE("gpu catalogue: product names as nvidia-smi and rocm-smi print them find their kind") {
  const std::vector<std::pair<const char*, const char*>> products = {
      {"NVIDIA A100-SXM4-80GB", "a100"},      {"NVIDIA A100-PCIE-40GB", "a100pcie"},
      {"NVIDIA A100 80GB PCIe", "a100pcie"},  {"NVIDIA A10", "a10"},
      {"NVIDIA A10G", "a10g"},                {"NVIDIA A30", "a30"},
      {"NVIDIA A800-SXM4-80GB", "a800"},      {"NVIDIA A800 80GB PCIe", "a800pcie"},
      {"NVIDIA H800", "h800"},                {"NVIDIA H100 80GB HBM3", "h100"},
      {"NVIDIA H100 PCIe", "h100pcie"},       {"NVIDIA H100 NVL", "h100nvl"},
      {"NVIDIA H200 NVL", "h200nvl"},         {"NVIDIA H200", "h200"},
      {"NVIDIA H20", "h20"},                  {"NVIDIA GH200 480GB", "gh200"},
      {"Tesla T4", "t4"},                     {"Tesla V100-PCIE-32GB", "v100pcie"},
      {"Tesla V100S-PCIE-32GB", "v100pcie"},  {"Tesla V100-SXM2-32GB", "v100"},
      {"NVIDIA L20", "l20"},                  {"NVIDIA L40", "l40"},
      {"NVIDIA L40S", "l40s"},                {"NVIDIA RTX 6000 Ada Generation", "rtx6000ada"},
      {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtxpro6000"},
      {"NVIDIA RTX A5000", "rtxa5000"},       {"NVIDIA GeForce RTX 4090", "rtx4090"},
      {"AMD Instinct MI250X", "mi250x"},      {"AMD Instinct MI250", "mi250"},
      {"AMD Instinct MI210", "mi210"},        {"AMD Instinct MI100", "mi100"},
      {"Tesla P100-PCIE-16GB", "p100pcie"},   {"Tesla P100-SXM2-16GB", "p100"},
      {"NVIDIA RTX A4000", "rtxa4000"},
      // Whole words only: a shorter kind's name inside a longer product name is not that kind.
      {"GPU 0: NVIDIA L4 (UUID: GPU-1)", "l4"}, {"|   0  NVIDIA L40S    On  |", "l40s"},
      {"GPU 0: NVIDIA L40G (UUID: GPU-1)", "none"},
  };
  for (const auto& entry : products) { // not a structured binding: clang 14 cannot capture one in CAPTURE
    const auto& product = entry.first;
    CAPTURE(product);
    CHECK(gpu_kind_from_product(product).value_or("none") == entry.second);
  }
}

TEST_CASE("gpu catalogue: names users type reach the kind") {
  CHECK(canonical_gpu_kind("RTX-PRO-6000") == "rtxpro6000");
  CHECK(canonical_gpu_kind("A5000") == "rtxa5000");
  CHECK(canonical_gpu_kind("H100_NVL") == "h100nvl");
  CHECK(canonical_gpu_kind("MI250X") == "mi250x");
}

TEST_CASE("machine: boards of the new kinds as vendors build them") {
  // H800: 8 NVLink4 x 25 GB/s into the NVSwitch plane = 200 GB/s per direction between any two GPUs.
  CHECK(bottleneck(resolve_topology("machine:gpu=h800"), 0, 7) == Bandwidth{200'000'000'000});
  // H200 NVL, 4-way bridge: 18 links over 3 peers = 6 x 25 = 150 GB/s; a 2-GPU box has the 2-way bridge, 18 x 25.
  const auto nvl = resolve_topology("machine:gpu=h200nvl,gpus=8");
  CHECK(bottleneck(nvl, 0, 3) == Bandwidth{150'000'000'000});
  CHECK(bottleneck(nvl, 3, 4) < Bandwidth{64'000'000'000}); // across bridges: PCIe Gen5 at most
  CHECK(bottleneck(resolve_topology("machine:gpu=h200nvl,gpus=2"), 0, 1) == Bandwidth{450'000'000'000});
  // GH200 quad node: all-to-all, 6 NVLink4 per pair.
  CHECK(bottleneck(resolve_topology("machine:gpu=gh200,gpus=4"), 1, 2) == Bandwidth{150'000'000'000});
  // MI210 hives of 4 (3 links each, one per peer, 50 GB/s); two hives in 8 GPUs meet over PCIe only.
  const auto mi210 = resolve_topology("machine:gpu=mi210,gpus=8");
  CHECK(bottleneck(mi210, 0, 3) == Bandwidth{50'000'000'000});
  CHECK(bottleneck(mi210, 3, 4) <= Bandwidth{31'500'000'000});
  // MI250X: the 2 GCDs of a package share 4 x 50 GB/s; neighbouring packages 2 x 50 GB/s in the ring.
  const auto mi250x = resolve_topology("machine:gpu=mi250x,gpus=8");
  CHECK(mi250x.num_gpus() == 8);
  CHECK(bottleneck(mi250x, 0, 1) == Bandwidth{200'000'000'000});
  CHECK(bottleneck(mi250x, 1, 2) == Bandwidth{100'000'000'000});
  CHECK(bottleneck(mi250x, 7, 0) == Bandwidth{100'000'000'000});
  // A30 bridge pairs: 4 x 25 GB/s.
  CHECK(bottleneck(resolve_topology("machine:gpu=a30,gpus=2"), 0, 1) == Bandwidth{100'000'000'000});
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h100,intra=mesh"), doctest::Contains("not built as a direct NVLink mesh"), Error);
}

TEST_CASE("gpu catalogue: the HGX A100 4-GPU board is a direct NVLink mesh, 4 links per pair") {
  // 12 NVLink3 links per A100 over 3 peers = 4 per pair, 4 x 25 GB/s = 100 GB/s each way, no switch node.
  const auto mesh = resolve_topology("machine:gpu=a100,gpus=4,intra=mesh");
  CHECK(mesh.num_gpus() == 4);
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) CHECK(bottleneck(mesh, a, b) == Bandwidth{100'000'000'000});
  for (const auto& n : mesh.nodes) CHECK(n.kind != NodeKind::NvSwitch);
  // Two such boards in one host, or a mesh of a kind only sold on an NVSwitch board, no vendor builds.
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=a100,gpus=8,intra=mesh"), doctest::Contains("mesh board holds 4 GPUs"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h100,gpus=8,intra=mesh"), doctest::Contains("not built as a direct NVLink mesh"), Error);
}

TEST_CASE("gpu catalogue: an NCCL XML dump's link count tells kinds of one compute capability apart") {
  const auto xml = [](const char* sm, const char* links) {
    return fmt::format("<system><cpu numaid=\"0\"><pci busid=\"0000:01:00.0\" class=\"0x030200\"><gpu sm=\"{}\">{}</gpu></pci></cpu></system>",
                       sm, links);
  };
  const std::string to_switch = "<nvlink target=\"ffff:ff:1f.0\" count=\"{}\" tclass=\"0x068000\"/>";
  // In an NVSwitch plane a GPU lists every link: A100 12, A800 8 (both sm80); H800 8 against H100's 18.
  CHECK(import_nccl_xml(xml("80", fmt::format(fmt::runtime(to_switch), 12).c_str()), "a.xml", {}).gpu_kind == "a100");
  CHECK(import_nccl_xml(xml("80", fmt::format(fmt::runtime(to_switch), 8).c_str()), "a.xml", {}).gpu_kind == "a800");
  CHECK(import_nccl_xml(xml("90", fmt::format(fmt::runtime(to_switch), 8).c_str()), "h.xml", {}).gpu_kind == "h800");
  // No NVLink at all: not an SXM part (V100 PCIe, not the V100 SXM2 of sm70).
  CHECK(import_nccl_xml(xml("70", ""), "v.xml", {}).gpu_kind == "v100pcie");
  // Still ambiguous: sm86 without links is an A10, A40, RTX A6000, ... card.
  CHECK_THROWS_WITH_AS(import_nccl_xml(xml("86", ""), "g.xml", {}), doctest::Contains("sm=86 fits a10"), Error);
  // ... which --gpu settles: the ambiguity is no error when the user names the kind.
  CHECK(import_nccl_xml(xml("86", ""), "g.xml", ImportOptions{"a40"}).gpu_kind == "a40");
}

// A training-step scenario takes the GPU's peak from the catalogue. Each figure typed from the data sheet:
// NVIDIA quotes BF16 "with sparsity", so dense = half (H100/H200 1,979 -> 989.5, rounded down to 989 as the
// H100 row; HGX B200 4.5 PF -> 2.25; GB200 5 PF -> 2.5); AMD quotes dense BF16 (MI300X/MI325X 1,307.4 TFLOPS).
TEST_CASE("peak dense BF16 tensor FLOP/s per GPU kind as the data sheets give it") {
  const struct {
    const char* kind;
    double flops;
  } sheets[] = {{"v100", 125e12}, {"a100", 312e12}, {"h100", 989e12},  {"h200", 989e12},      {"h800", 989e12},
                {"b200", 2.25e15}, {"gb200", 2.5e15}, {"mi300x", 1307.4e12}, {"mi325x", 1307.4e12}};
  const auto& g = gpu_table()["gpus"];
  for (const auto& s : sheets) {
    CAPTURE(s.kind);
    REQUIRE(g.contains(s.kind));
    REQUIRE(g[s.kind].contains("peak_tensor_flops"));
    CHECK(g[s.kind]["peak_tensor_flops"].get<double>() == doctest::Approx(s.flops));
  }
}
