// What real topo -m / rocm-smi posts taught the importers (tests/data/import holds the posts; the CLI test
// tests/cli/topo_m_samples.py checks every one of them). Each case is one defect found there, written
// small; expected values are read off the matrix text by hand.
#include <doctest/doctest.h>

#include <string>

#include "node_counts.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/import.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {
// The node a PCIe port of `child` goes up to (the importers add PCIe links child first).
int pcie_parent(const Topology& t, int child) {
  for (const auto& l : t.links)
    if (l.a == child && (l.type == LinkType::Pcie3 || l.type == LinkType::Pcie4 || l.type == LinkType::Pcie5)) return l.b;
  return -1;
}
const char* kPair = "        GPU0    GPU1    CPU Affinity    NUMA Affinity\n"
                    "GPU0     X      SYS     0-15    0\n"
                    "GPU1    SYS      X      16-31   1\n";
} // namespace

TEST_CASE("topo -m: the GPU named by nvidia-smi's table, vLLM or SGLang dumps and gdrcopy picks the kind") {
  const std::string m = kPair;
  CHECK(import_topo_m(m + "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:06:00.0 Off |  0 |\n", "t.txt", {}).gpu_kind ==
        "h100");
  CHECK(import_topo_m("GPU models and configuration : \nGPU 0: NVIDIA GeForce RTX 4090\nGPU 1: NVIDIA GeForce RTX 4090\n" + m,
                      "t.txt", {}).gpu_kind == "rtx4090");
  CHECK(import_topo_m("GPU 0,1: NVIDIA RTX A6000\nGPU 0,1 Compute Capability: 8.6\n" + m, "t.txt", {}).gpu_kind == "rtxa6000");
  CHECK(import_topo_m(m + "GPU id:0; name: NVIDIA A100-SXM4-80GB; Bus id: 0000:5b:00\n", "t.txt", {}).gpu_kind == "a100");
  // "NVIDIA A100 80G..." (the table cut it) could be SXM or PCIe: not a name, so --gpu is asked for.
  CHECK_THROWS_WITH_AS(import_topo_m(m + "|   0  NVIDIA A100 80G...  Off  | 00000001:00:00.0 Off |\n", "t.txt", {}),
                       doctest::Contains("does not say which GPU it is: give --gpu"), Error);
}

TEST_CASE("topo -m: a GPU the catalogue does not know is named in a one-line error unless --gpu chooses") {
  const std::string m = std::string("GPU 0: NVIDIA A16\nGPU 1: NVIDIA A16\n") + kPair;
  CHECK_THROWS_WITH_AS(import_topo_m(m, "a16.txt", {}),
                       doctest::Contains("a16.txt line 1: names the GPU 'NVIDIA A16', which models/gpus.json does not know"),
                       Error);
  CHECK(import_topo_m(m, "a16.txt", {"a40"}).gpu_kind == "a40");
  CHECK_THROWS_WITH_AS(import_topo_m(std::string("#   Rank  0 Pid 1 on h device  0 [0x3b] Tesla K80\n") + kPair, "k80.txt", {}),
                       doctest::Contains("names the GPU 'Tesla K80'"), Error);
  // Kinds the catalogue gained later are read by their names.
  CHECK(import_topo_m(std::string("GPU 0: NVIDIA A30\nGPU 1: NVIDIA A30\n") + kPair, "a30.txt", {}).gpu_kind == "a30");
  CHECK(import_topo_m(std::string("#   Rank  0 Pid 1 on h device  0 [0x3b] Tesla T4\n") + kPair, "t4.txt", {}).gpu_kind == "t4");
}

TEST_CASE("topo -m: two NUMA Affinity nodes are two CPUs even when every pair shows NV18") {
  const auto t = import_topo_m("        GPU0    GPU1    CPU Affinity    NUMA Affinity   GPU NUMA ID\n"
                               "GPU0     X      NV18    0-47,96-143     0               N/A\n"
                               "GPU1    NV18     X      48-95,144-191   1               N/A\n",
                               "h.txt", {"h100"});
  CHECK(test::count_kind(t, NodeKind::Cpu) == 2);
}

TEST_CASE("topo -m: a NUMA Affinity range says nothing, so SYS pairs stay on two CPUs") {
  // Azure NC A100 v4 reports NUMA "0-3" for every GPU; GPU0 and GPU1 are SYS apart.
  const auto vm = import_topo_m("        GPU0    GPU1    CPU Affinity    NUMA Affinity\n"
                                "GPU0     X      SYS     0       0-3\n"
                                "GPU1    SYS      X      0       0-3\n",
                                "vm.txt", {"a100pcie"});
  CHECK(test::count_kind(vm, NodeKind::Cpu) == 2);
  // One NUMA node written as one number is a fact: both GPUs hang off that node's CPU.
  const auto one = import_topo_m("        GPU0    GPU1    CPU Affinity    NUMA Affinity\n"
                                 "GPU0     X      SYS     0-15    0\n"
                                 "GPU1    SYS      X      0-15    0\n",
                                 "one.txt", {"rtx4090"});
  CHECK(test::count_kind(one, NodeKind::Cpu) == 1);
}

TEST_CASE("topo -m: a device PXB to its tree but PIX to nobody gets a bridge of its own") {
  // Savio4's layout: GPU0 and GPU1 PXB to everyone, GPU2+GPU3 PIX (one switch).
  const auto t = import_topo_m("        GPU0    GPU1    GPU2    GPU3\n"
                               "GPU0     X      PXB     PXB     PXB\n"
                               "GPU1    PXB      X      PXB     PXB\n"
                               "GPU2    PXB     PXB      X      PIX\n"
                               "GPU3    PXB     PXB     PIX      X\n",
                               "s.txt", {"l40s"});
  const int p0 = pcie_parent(t, t.gpu_node(0)), p1 = pcie_parent(t, t.gpu_node(1)), p2 = pcie_parent(t, t.gpu_node(2));
  CHECK(p0 != p1);                               // PXB, not PIX
  CHECK(p2 == pcie_parent(t, t.gpu_node(3)));    // PIX: one switch
  CHECK(pcie_parent(t, p0) == pcie_parent(t, p2)); // all under one top switch: PXB, no host bridge
  CHECK(test::count_kind(t, NodeKind::PcieSwitch) == 4);    // top + bridge(GPU0) + bridge(GPU1) + switch(GPU2, GPU3)
}

TEST_CASE("rocm-smi --showtopo: NUMA lines written GPU 0 instead of GPU[0] still place the GPUs") {
  std::string text = "========== Link Type between two GPUs ==========\n       GPU0         GPU1\n"
                     "GPU0   0            XGMI\nGPU1   XGMI         0\n"
                     "========== Numa Nodes ==========\n"
                     "GPU 0          : (Topology) Numa Node: 0\nGPU 0          : (Topology) Numa Affinity: 0\n"
                     "GPU 1          : (Topology) Numa Node: 1\nGPU 1          : (Topology) Numa Affinity: 1\n";
  const auto t = import_rocm_smi(text, "r.txt", {"mi300x"});
  CHECK(test::count_kind(t, NodeKind::Cpu) == 2); // NUMA nodes 0 and 1, not both taken as 0
}

TEST_CASE("topo -m: a DGX-2's 16 GPUs at NV6 from every row meet in one NVSwitch plane") {
  // Written as nvidia-smi prints a DGX-2 (16 V100, 6 NVLinks each, all pairs NV6): 15 x 6 links per GPU
  // is more than a V100 has, so they go through switches.
  std::string text = "       ";
  for (int j = 0; j < 16; ++j) text += "GPU" + std::to_string(j) + "\t";
  text += "CPU Affinity\n";
  for (int i = 0; i < 16; ++i) {
    text += "GPU" + std::to_string(i);
    for (int j = 0; j < 16; ++j) text += i == j ? "\t X " : "\tNV6";
    text += i < 8 ? "\t0-23,48-71\n" : "\t24-47,72-95\n";
  }
  const auto t = import_topo_m(text, "dgx2.txt", {"v100"});
  CHECK(t.num_gpus() == 16);
  CHECK(test::count_kind(t, NodeKind::NvSwitch) == 1);
  int to_switch = 0;
  for (const auto& l : t.links)
    if (l.type == LinkType::NvLink2) {
      CHECK(l.lanes == 6);
      ++to_switch;
    }
  CHECK(to_switch == 16);
}

TEST_CASE("rocm-smi --showtopo: XGMI at weight 30 is two hops, not a link, even where Hops says 1") {
  // MI250 rows as openmm/openmm#3940 posts them (GPU0: 15 to GPU1, GPU2, GPU6; 30 to the rest), Hops all 1
  // as rocm-smi prints for every XGMI pair (ROCm/rocm-systems#5763).
  const int w0[4] = {0, 15, 30, 30};
  std::string text;
  for (const char* title : {"Weight", "Hops", "Link Type"}) {
    text += std::string("====== ") + title + " between two GPUs ======\n       GPU0 GPU1 GPU2 GPU3\n";
    for (int i = 0; i < 4; ++i) {
      text += "GPU" + std::to_string(i);
      for (int j = 0; j < 4; ++j) {
        const int w = i == j ? 0 : (i == 0 || j == 0) ? w0[i + j] : 15; // GPU0 links to GPU1 only; 1-2-3 all linked
        text += std::string(title) == "Weight" ? " " + std::to_string(w) : i == j ? " 0" : std::string(title) == "Hops" ? " 1" : " XGMI";
      }
      text += "\n";
    }
  }
  const auto t = import_rocm_smi(text, "mi250.txt", {"mi300x"});
  int xgmi = 0;
  for (const auto& l : t.links) xgmi += l.type == LinkType::Xgmi && t.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Gpu;
  CHECK(xgmi == 4); // 0-1, 1-2, 1-3, 2-3; not 0-2 or 0-3 (weight 30)
}

TEST_CASE("rocm-smi --showtopo: without NUMA lines, PCIE pairs 2 hops apart share a CPU and 3 hops apart do not") {
  const std::string text = "====== Hops between two GPUs ======\n       GPU0 GPU1 GPU2\n"
                           "GPU0 0 2 3\nGPU1 2 0 3\nGPU2 3 3 0\n"
                           "====== Link Type between two GPUs ======\n       GPU0 GPU1 GPU2\n"
                           "GPU0 0 PCIE PCIE\nGPU1 PCIE 0 PCIE\nGPU2 PCIE PCIE 0\n";
  const auto t = import_rocm_smi(text, "r.txt", {"mi300x"});
  CHECK(test::count_kind(t, NodeKind::Cpu) == 2); // {GPU0, GPU1} through one socket, GPU2 across
  CHECK(pcie_parent(t, t.gpu_node(0)) == pcie_parent(t, t.gpu_node(1)));
  CHECK(pcie_parent(t, t.gpu_node(0)) != pcie_parent(t, t.gpu_node(2)));
}
