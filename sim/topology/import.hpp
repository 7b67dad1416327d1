// Machines described by the tools people already have: `nvidia-smi topo -m`, NCCL's topology XML
// (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE), `rocm-smi --showtopo` and `amd-smi topology`. Each importer is a pure function of
// the text and the file name (for messages and link sources); every link it creates names the line it
// came from and which numbers are the GPU kind's defaults (models/gpus.json). Bad or incomplete input is
// one Error naming the file, the line and what to add. See topologies/README.md, "Importing".
#pragma once
#include <string>
#include <string_view>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

enum class TopoFormat { Json, TopoMatrix, NcclXml, RocmSmi, AmdSmi, Unknown };
TopoFormat detect_topology_format(std::string_view text);
std::string_view to_string(TopoFormat f);

struct ImportOptions {
  std::string gpu; // GPU kind from --gpu; wins over what the file says
};

Topology import_topo_m(const std::string& text, const std::string& file, const ImportOptions& o);
Topology import_nccl_xml(const std::string& text, const std::string& file, const ImportOptions& o);
Topology import_rocm_smi(const std::string& text, const std::string& file, const ImportOptions& o);
// `amd-smi topology`, its text tables or its --json list.
Topology import_amd_smi(const std::string& text, const std::string& file, const ImportOptions& o);
bool looks_like_amd_smi_json(std::string_view text);
// Detects the format and imports; JSON goes to topology_from_json.
Topology import_topology(const std::string& text, const std::string& file, const ImportOptions& o);
// Reads the file (at most 16 MiB) and imports it.
Topology import_topology_file(const std::string& path, const ImportOptions& o);

// The GPU product a device line names (`nvidia-smi -L`, nccl-tests' "# Rank 0 ... device 0 [0x4f] NAME", the
// nvidia-smi table, gdrcopy, environment dumps; leading '#' ignored), or "": what topo -m pastes and compare's
// traces are read with.
std::string gpu_product_on_line(std::string_view line);

// `--gpu KIND` of the main command applies to every topology file it resolves.
void set_default_import_gpu(const std::string& kind);
const std::string& default_import_gpu();

// An XML NCCL reads as NCCL_TOPO_FILE (format of NCCL's src/graph/xml.cc) for the same machine.
std::string export_nccl_xml(const Topology& t);

} // namespace ccsim::topology
