// The GPU catalogue (models/gpus.json): what ccsim knows of each GPU kind, every figure with its source.
// `machine:` draws nodes from it; the importers turn a link class or an NV# count into bandwidths with it.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/core/units.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::topology {

struct PcieGen {
  std::string name; // "pcie4"
  LinkType type = LinkType::Pcie4;
  Bandwidth bw = 0;       // x16, per direction
  Bandwidth nop2p_bw = 0; // GPU to GPU staged through host memory
  Time latency = 0;
  int gts = 0;            // line rate per lane, GT/s
  std::string source;
};

struct GpuKind {
  std::string name, vendor, arch, nccl_arch, sm; // sm: "70", or the gfx target for AMD
  int memory_gb = 0;
  PcieGen pcie;
  bool p2p_pcie = true;
  std::optional<LinkType> nvlink; // SXM/NVSwitch parts
  int nvlinks = 0;
  std::optional<LinkType> bridge; // NVLink bridge of PCIe cards
  int bridge_links = 0;
  Bandwidth nvlink_bw = 0;        // per link per direction (NVLink or bridge)
  int xgmi_links = 0;             // AMD Instinct: Infinity Fabric links to peers
  Bandwidth xgmi_bw = 0;
  std::string source;
};

std::string gpu_table_path();
const nlohmann::json& gpu_table(); // the parsed file, loaded once
// Throws Error "<who>: unknown gpu 'x' (known: ...)".
GpuKind gpu_kind(const std::string& name, const std::string& who);
std::vector<std::string> gpu_kind_names();
// The kinds joined by `separator`, for error lines that list them.
std::string gpu_kind_list(std::string_view separator);
// The catalogue's key for a name a user types ("a100-pcie" -> "a100pcie", "A6000" -> "rtxa6000"); the name
// itself when nothing matches (gpu_kind then reports it with the known names).
std::string canonical_gpu_kind(const std::string& name);
// The kind whose product name ("Tesla V100-SXM2-16GB", "NVIDIA GeForce RTX 4090") occurs in `text`.
std::optional<std::string> gpu_kind_from_product(std::string_view text);
PcieGen pcie_gen(const std::string& name, const std::string& who);
// The generation whose line rate is `gts` GT/s per lane (8, 16, 32, 64), if any.
std::optional<std::string> pcie_gen_of_rate(double gts);

// The GPU kind of a topology that names none (the presets): the SXM part of its NVLink generation (p100, v100,
// a100, h100, b200); "" without NVLink.
std::string sxm_kind_of_nvlink(const Topology& t);

} // namespace ccsim::topology
