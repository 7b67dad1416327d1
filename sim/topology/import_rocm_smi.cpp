// `rocm-smi --showtopo`: sections "Weight between two GPUs", "Hops between two GPUs", "Link Type between
// two GPUs" (XGMI or PCIE per pair) and "Numa Nodes" ("GPU[0] : (Topology) Numa Node: 0"). A one-hop XGMI
// pair is one Infinity Fabric link of the GPU kind; PCIE pairs meet at their NUMA node's CPU.
#include <map>
#include <vector>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/import_build.hpp"

namespace ccsim::topology {
using namespace import_detail;

namespace {

constexpr long kXgmiHopWeight = 15; // KFD io_link weight of one XGMI hop

struct Section {
  int header_line = 0;
  std::vector<std::vector<std::string_view>> rows; // tokens after the row name, per GPU
  std::vector<int> row_line;
};

// The matrix under a heading containing `title`: a "GPU0 GPU1 ..." line, then one row per GPU.
std::optional<Section> section(const std::vector<Line>& lines, std::string_view title, const std::string& file) {
  std::size_t i = 0;
  while (i < lines.size() && lines[i].text.find(title) == std::string_view::npos) ++i;
  if (i == lines.size()) return std::nullopt;
  Section s;
  int gpus = -1;
  for (++i; i < lines.size(); ++i) {
    const auto toks = split_ws(lines[i].text);
    if (toks.empty()) continue;
    if (toks[0].find("===") != std::string_view::npos) break;
    if (gpus < 0 && toks[0] == "GPU0") {
      gpus = static_cast<int>(toks.size());
      s.header_line = lines[i].number;
      continue;
    }
    if (gpus < 0) continue;
    if (toks[0] != fmt::format("GPU{}", s.rows.size()))
      fail("{} line {}: expected the GPU{} row of '{}'", file, lines[i].number, s.rows.size(), title);
    if (static_cast<int>(toks.size()) != gpus + 1)
      fail("{} line {}: the {} row has {} values, the header {} GPUs", file, lines[i].number, toks[0], toks.size() - 1, gpus);
    s.rows.emplace_back(toks.begin() + 1, toks.end());
    s.row_line.push_back(lines[i].number);
    if (static_cast<int>(s.rows.size()) == gpus) break;
  }
  if (gpus < 1 || static_cast<int>(s.rows.size()) != gpus)
    fail("{}: the '{}' section has no complete GPU matrix", file, title);
  return s;
}

std::map<int, int> numa_nodes(const std::vector<Line>& lines) {
  std::map<int, int> out; // GPU -> NUMA node
  for (const auto& l : lines) {
    // "GPU[0]\t\t: (Topology) Numa Node: 0", or in some releases "GPU 0          : (Topology) Numa Node: 0".
    const auto at = l.text.find("Numa Node:");
    const auto colon = l.text.find(':');
    if (l.text.substr(0, 3) != "GPU" || at == std::string_view::npos || colon >= at) continue;
    auto id = trim(l.text.substr(3, colon - 3));
    if (id.size() >= 2 && id.front() == '[' && id.back() == ']') id = id.substr(1, id.size() - 2);
    const auto g = parse_int(id);
    const auto n = parse_int(trim(l.text.substr(at + 10)));
    if (g && n && *g >= 0 && *g < kMaxDevices && *n >= 0 && *n < kMaxDevices) out[static_cast<int>(*g)] = static_cast<int>(*n);
  }
  return out;
}

// Without "Numa Nodes" lines (a cut paste): PCIE pairs 2 hops apart go through one CPU socket, 3 hops apart
// through both (AMD's MI200 system guide on rocm-smi's hops), so 2-hop PCIE pairs share a CPU and the rest
// do not. GPU -> CPU number, only for GPUs with a PCIE pair.
std::map<int, int> cpus_from_hops(const Section& type, const Section& hops, int G) {
  Dsu sets(static_cast<std::size_t>(G));
  auto cell = [](const Section& sec, int i, int j) { return sec.rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]; };
  std::vector<bool> pcie(static_cast<std::size_t>(G), false);
  for (int i = 0; i < G; ++i)
    for (int j = 0; j < G; ++j)
      if (i != j && cell(type, i, j) == "PCIE") {
        pcie[static_cast<std::size_t>(i)] = true;
        if (const auto h = parse_int(cell(hops, i, j)); h && *h <= 2) sets.unite(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
      }
  std::map<int, int> out;
  std::map<std::size_t, int> cpu_of_root;
  for (int g = 0; g < G; ++g)
    if (pcie[static_cast<std::size_t>(g)]) {
      out[g] = cpu_of_root.emplace(sets.find(static_cast<std::size_t>(g)), static_cast<int>(cpu_of_root.size())).first->second;
    }
  return out;
}

} // namespace

Topology import_rocm_smi(const std::string& text, const std::string& file, const ImportOptions& o) {
  if (text.size() > kMaxImportBytes) fail("{}: larger than {} MiB", file, kMaxImportBytes >> 20);
  const auto lines = split_lines(text);
  const auto type = section(lines, "Link Type between two GPUs", file);
  if (!type) fail("{}: no 'Link Type between two GPUs' section: save the whole `rocm-smi --showtopo` output", file);
  const auto hops = section(lines, "Hops between two GPUs", file);
  const auto weight = section(lines, "Weight between two GPUs", file);
  const int G = static_cast<int>(type->rows.size());
  if ((hops && static_cast<int>(hops->rows.size()) != G) || (weight && static_cast<int>(weight->rows.size()) != G))
    fail("{}: the Weight/Hops/Link Type sections disagree on the number of GPUs", file);
  std::optional<std::string> named;
  std::string where;
  for (const auto& l : lines)
    if (l.text.find("Card") != std::string_view::npos || l.text.find("Marketing Name") != std::string_view::npos ||
        l.text.find("Instinct") != std::string_view::npos)
      if ((named = gpu_kind_from_product(l.text))) {
        where = fmt::format("line {}", l.number);
        break;
      }
  HostBuilder b(file, choose_kind(file, o.gpu, named, where, "rocm-smi --showtopo does not say which GPU it is",
                                  "or add the output of `rocm-smi --showproductname` to the file"),
                G);
  int xgmi = 0;
  for (int i = 0; i < G; ++i)
    for (int j = i + 1; j < G; ++j) {
      const auto cell = type->rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      const int line = type->row_line[static_cast<std::size_t>(i)];
      if (cell == "PCIE") continue;
      if (cell != "XGMI") fail("{} line {}: '{}' between GPU{} and GPU{} is not XGMI or PCIE", file, line, cell, i, j);
      const auto h = hops ? parse_int(hops->rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]) : std::optional<long>(1);
      if (!h) fail("{} line {}: hop count between GPU{} and GPU{} is not a number", file, hops->row_line[static_cast<std::size_t>(i)], i, j);
      if (*h > 1) continue; // reached through another GPU's links
      const std::string w = weight ? std::string(weight->rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]) : "-";
      // rocm-smi and amd-smi print 1 hop for every XGMI pair, linked or not (ROCm/rocm-systems#5763, hwloc#775);
      // the weight counts 15 per XGMI hop (the KFD io_link weight, AMD SMI docs), so 30 and up is not a link.
      if (const auto wv = parse_int(w); wv && *wv >= 2 * kXgmiHopWeight) continue;
      b.gpu_link(b.gpu(i), b.gpu(j), LinkType::Xgmi, 1,
                 fmt::format("line {}: GPU{} row, GPU{} column XGMI, {} hop, weight {}: one Infinity Fabric link", line, i, j, *h, w));
      ++xgmi;
    }
  const auto numa = numa_nodes(lines);
  const auto by_hops = numa.empty() && hops ? cpus_from_hops(*type, *hops, G) : std::map<int, int>{};
  for (int g = 0; g < G; ++g) {
    const auto it = numa.find(g);
    const auto hop = by_hops.find(g);
    const int node = it != numa.end() ? it->second : hop != by_hops.end() ? hop->second : 0;
    b.pcie(b.gpu(g), b.cpu(node, ""),
           it != numa.end()    ? fmt::format("GPU[{}] Numa Node {}: a root port of that NUMA node's CPU", g, node)
           : hop != by_hops.end() ? fmt::format("no Numa Node lines: CPU {} from the PCIE hops (2: one socket, 3: two)", node)
                                  : "no Numa Node line: taken as NUMA node 0, on a root port",
           {}, 0, true);
  }
  auto [smp, smp_why] = socket_link_named_in(lines);
  if (smp_why.rfind("no CPU", 0) == 0) smp = LinkType::Xgmi, smp_why = "no CPU named in the file, AMD EPYC assumed beside AMD GPUs";
  return b.finish(fmt::format("rocm-smi-{}gpu", G),
                  fmt::format("Imported from the rocm-smi --showtopo output {}: {} GPUs, {} one-hop XGMI links.", file, G, xgmi), smp,
                  smp_why);
}

} // namespace ccsim::topology
