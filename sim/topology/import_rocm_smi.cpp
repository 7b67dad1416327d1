// `rocm-smi --showtopo`: sections "Weight between two GPUs", "Hops between two GPUs", "Link Type between
// two GPUs" (XGMI or PCIE per pair) and "Numa Nodes" ("GPU[0] : (Topology) Numa Node: 0"), built by the
// builder amd-smi shares (import_amd.hpp).
#include <map>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/import_amd.hpp"

namespace ccsim::topology {
using namespace import_detail;

namespace {

std::map<int, int> numa_nodes(const std::vector<Line>& lines) {
  std::map<int, int> out; // GPU -> NUMA node
  for (const auto& line : lines) {
    // "GPU[0]\t\t: (Topology) Numa Node: 0", or in some releases "GPU 0          : (Topology) Numa Node: 0"; indented as
    // a paste from an indented code block is, whose tables amd_table reads (an indented Numa line was skipped, and
    // every GPU silently put on NUMA node 0).
    const auto text = trim(line.text);
    const auto at = text.find("Numa Node:");
    const auto colon = text.find(':');
    if (text.substr(0, 3) != "GPU" || at == std::string_view::npos || colon >= at) continue;
    auto id = trim(text.substr(3, colon - 3));
    if (id.size() >= 2 && id.front() == '[' && id.back() == ']') id = id.substr(1, id.size() - 2);
    const auto g = parse_int(id);
    const auto n = parse_int(trim(text.substr(at + 10)));
    if (g && n && *g >= 0 && *g < kMaxDevices && *n >= 0 && *n < kMaxDevices) out[static_cast<int>(*g)] = static_cast<int>(*n);
  }
  return out;
}

} // namespace

Topology import_rocm_smi(const std::string& text, const std::string& file, const ImportOptions& o) {
  if (text.size() > kMaxImportBytes) fail("{}: larger than {} MiB", file, kMaxImportBytes >> 20);
  const auto lines = split_lines(text);
  auto type = amd_table(lines, "Link Type between two GPUs", file);
  if (!type) fail("{}: no 'Link Type between two GPUs' section: save the whole `rocm-smi --showtopo` output", file);
  AmdTopo t{.tool = "rocm-smi --showtopo",
            .type = std::move(*type),
            .hops = amd_table(lines, "Hops between two GPUs", file),
            .weight = amd_table(lines, "Weight between two GPUs", file),
            .access = std::nullopt,
            .numa = numa_nodes(lines),
            .kind = std::nullopt,
            .kind_where = "",
            .add_kind_hint = "or add the output of `rocm-smi --showproductname` to the file"};
  for (const auto& l : lines)
    if (l.text.find("Card") != std::string_view::npos || l.text.find("Marketing Name") != std::string_view::npos ||
        l.text.find("Instinct") != std::string_view::npos)
      if ((t.kind = gpu_kind_from_product(l.text))) {
        t.kind_where = fmt::format("line {}", l.number);
        break;
      }
  return build_amd_topology(file, o, lines, t, "rocm-smi");
}

} // namespace ccsim::topology
