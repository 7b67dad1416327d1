// rocm-smi --showtopo and amd-smi topology, read alike: a one-hop XGMI pair is one Infinity Fabric link of the
// GPU kind; PCIE pairs meet at their NUMA node's CPU; P2P the file reports disabled is staged through the host.
#include "sim/topology/import_amd.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::topology::import_detail {

namespace {

constexpr long kXgmiHopWeight = 15; // KFD io_link weight of one XGMI hop

bool ends_table(const std::vector<std::string_view>& toks) {
  return toks[0].find("===") != std::string_view::npos || toks.back() == "TABLE:";
}

// Without NUMA lines (amd-smi never prints them; a cut rocm-smi paste): PCIE pairs 2 hops apart go through one
// CPU socket, 3 hops apart through both (AMD's MI200 system guide on the hops; ROCm/rocm-systems#7372), so 2-hop
// PCIE pairs share a CPU and the rest do not. GPU -> CPU number, only for GPUs with a PCIE pair.
std::map<int, int> cpus_from_hops(const AmdMatrix& type, const AmdMatrix& hops, int G) {
  Dsu sets(static_cast<std::size_t>(G));
  std::vector<bool> pcie(static_cast<std::size_t>(G), false);
  for (int i = 0; i < G; ++i)
    for (int j = 0; j < G; ++j)
      if (i != j && type.at(i, j) == "PCIE") {
        pcie[static_cast<std::size_t>(i)] = true;
        if (const auto h = parse_int(hops.at(i, j)); h && *h <= 2) sets.unite(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
      }
  std::map<int, int> out;
  std::map<std::size_t, int> cpu_of_root;
  for (int g = 0; g < G; ++g)
    if (pcie[static_cast<std::size_t>(g)])
      out[g] = cpu_of_root.emplace(sets.find(static_cast<std::size_t>(g)), static_cast<int>(cpu_of_root.size())).first->second;
  return out;
}

// A GPU whose every PCIE peer the access matrix marks DISABLED (either way) has no P2P over PCIe.
std::vector<bool> p2p_disabled(const AmdTopo& t, int G) {
  std::vector<bool> off(static_cast<std::size_t>(G), false);
  if (!t.access) return off;
  for (int i = 0; i < G; ++i) {
    int peers = 0, disabled = 0;
    for (int j = 0; j < G; ++j)
      if (i != j && t.type.at(i, j) == "PCIE") {
        ++peers;
        disabled += t.access->at(i, j) == "DISABLED" || t.access->at(j, i) == "DISABLED";
      }
    off[static_cast<std::size_t>(i)] = peers > 0 && disabled == peers;
  }
  return off;
}

int add_xgmi_links(HostBuilder& b, const AmdTopo& t, int G) {
  int xgmi = 0;
  for (int i = 0; i < G; ++i)
    for (int j = i + 1; j < G; ++j) {
      const std::string& cell = t.type.at(i, j);
      const int line = t.type.line[static_cast<std::size_t>(i)];
      const std::string at = line > 0 ? fmt::format("{} line {}", b.file(), line) : b.file();
      if (cell == "PCIE") continue;
      if (cell != "XGMI") fail("{}: '{}' between GPU{} and GPU{} is not XGMI or PCIE", at, cell, i, j);
      const auto h = t.hops ? parse_int(t.hops->at(i, j)) : std::optional<long>(1);
      if (!h) {
        const int hl = t.hops->line[static_cast<std::size_t>(i)];
        fail("{}: hop count '{}' between GPU{} and GPU{} is not a number", hl > 0 ? fmt::format("{} line {}", b.file(), hl) : b.file(),
             t.hops->at(i, j), i, j);
      }
      if (*h > 1) continue; // reached through another GPU's links
      const std::string w = t.weight ? t.weight->at(i, j) : "-";
      // Both tools print 1 hop for every XGMI pair, linked or not (ROCm/rocm-systems#5763, hwloc#775); the weight
      // counts 15 per XGMI hop (the KFD io_link weight, AMD SMI docs), so 30 and up is not a link.
      if (const auto wv = parse_int(w); wv && *wv >= 2 * kXgmiHopWeight) continue;
      const std::string where = line > 0 ? fmt::format("line {}: GPU{} row", line, i) : fmt::format("GPU{}'s links", i);
      b.gpu_link(b.gpu(i), b.gpu(j), LinkType::Xgmi, 1,
                 fmt::format("{}, GPU{} column XGMI, {} hop, weight {}: one Infinity Fabric link", where, j, *h, w));
      ++xgmi;
    }
  return xgmi;
}

} // namespace

std::optional<AmdMatrix> amd_table(const std::vector<Line>& lines, std::string_view title, const std::string& file) {
  // The title opens its line, after rocm-smi's "=====" banner: a comment that quotes it is not the table.
  auto is_title = [&](std::string_view l) {
    l = trim(l);
    while (!l.empty() && (l.front() == '=' || l.front() == ' ')) l.remove_prefix(1);
    return l.substr(0, title.size()) == title;
  };
  std::size_t i = 0;
  while (i < lines.size() && !is_title(lines[i].text)) ++i;
  if (i == lines.size()) return std::nullopt;
  AmdMatrix m;
  std::vector<std::string_view> header;
  for (++i; i < lines.size(); ++i) {
    const auto toks = split_ws(lines[i].text);
    if (toks.empty()) continue;
    if (ends_table(toks)) break;
    if (header.empty()) {
      if (toks.size() > static_cast<std::size_t>(kMaxDevices)) fail("{} line {}: more than {} GPUs", file, lines[i].number, kMaxDevices);
      header = toks;
      continue;
    }
    const auto& label = header[m.size()];
    if (toks[0] != label) fail("{} line {}: expected the {} row of '{}'", file, lines[i].number, label, title);
    if (toks.size() != header.size() + 1)
      fail("{} line {}: the {} row has {} values, the header {} GPUs", file, lines[i].number, toks[0], toks.size() - 1, header.size());
    m.cells.emplace_back(toks.begin() + 1, toks.end());
    m.line.push_back(lines[i].number);
    if (m.size() == header.size()) break;
  }
  if (header.empty() || m.size() != header.size()) fail("{}: the '{}' section has no complete GPU matrix", file, title);
  return m;
}

Topology build_amd_topology(const std::string& file, const ImportOptions& o, const std::vector<Line>& lines, const AmdTopo& t,
                            const std::string& name) {
  const int G = static_cast<int>(t.type.size());
  for (const auto* m : {&t.hops, &t.weight, &t.access})
    if (*m && static_cast<int>((*m)->size()) != G) fail("{}: the {} matrices disagree on the number of GPUs", file, t.tool);
  // The tools are AMD's: name its kinds, not the catalogue's NVIDIA cards.
  std::string amd_kinds;
  for (const auto& k : gpu_kind_names())
    if (gpu_kind(k, "models/gpus.json").vendor == "amd") amd_kinds += (amd_kinds.empty() ? "" : " ") + k;
  HostBuilder b(file,
                choose_kind(file, o.gpu, t.kind, t.kind_where, t.tool + " does not say which GPU it is", t.add_kind_hint,
                            amd_kinds + ": the AMD kinds"),
                G);
  const int xgmi = add_xgmi_links(b, t, G);
  const auto by_hops = t.numa.empty() && t.hops ? cpus_from_hops(t.type, *t.hops, G) : std::map<int, int>{};
  const auto off = p2p_disabled(t, G);
  for (int g = 0; g < G; ++g) {
    const auto it = t.numa.find(g);
    const auto hop = by_hops.find(g);
    const int node = it != t.numa.end() ? it->second : hop != by_hops.end() ? hop->second : 0;
    std::string why = it != t.numa.end()     ? fmt::format("GPU[{}] Numa Node {}: a root port of that NUMA node's CPU", g, node)
                      : hop != by_hops.end() ? fmt::format("no Numa Node lines: CPU {} from the PCIE hops (2: one socket, 3: two)", node)
                                             : std::string("no Numa Node line: taken as NUMA node 0, on a root port");
    if (off[static_cast<std::size_t>(g)]) why += fmt::format("; P2P to every PCIE peer of GPU{} DISABLED in the access table", g);
    b.pcie(b.gpu(g), b.cpu(node, ""), why, {}, 0, true, off[static_cast<std::size_t>(g)]);
  }
  auto smp = socket_link_named_in(lines);
  if (smp.vendor.empty()) smp = {LinkType::Xgmi, "no CPU named in the file, AMD EPYC assumed beside AMD GPUs", "amd"};
  return b.finish(fmt::format("{}-{}gpu", name, G),
                  fmt::format("Imported from the {} output {}: {} GPUs, {} one-hop XGMI links.", t.tool, file, G, xgmi), smp.type, smp.why, smp.vendor);
}

} // namespace ccsim::topology::import_detail
