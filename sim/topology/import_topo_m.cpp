// `nvidia-smi topo -m`: a matrix of path classes between GPUs (and NICs), as NCCL sees them:
// PIX one PCIe switch, PXB several switches, PHB through the host bridge, NODE across host bridges in
// one NUMA node, SYS across the CPU interconnect, NV# a bonded set of # NVLinks. The PCIe tree is
// rebuilt from those classes; what the matrix does not say (PCIe generation, link speeds, which NUMA
// nodes share a socket) comes from the GPU kind and is said so in each link's source.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "sim/core/ascii.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/import_build.hpp"

namespace ccsim::topology {
using namespace import_detail;

namespace {

enum class Cls { Unknown, Self, Sys, Node, Phb, Pxb, Pix, Nv };

struct Cell {
  Cls cls = Cls::Unknown;
  int nv = 0;
  int line = 0;
};

struct Matrix {
  std::vector<std::string> cols; // GPU0.. then NICs, in column order
  int gpus = 0;
  int header_line = 0;
  std::vector<int> row_line;                 // per device, 0 = no row
  std::vector<std::vector<Cell>> cell;       // [row device][column device]
  std::vector<std::optional<long>> numa;     // per device, from "NUMA Affinity"
  std::vector<std::string> cpu_affinity;     // per device
  std::map<std::string, std::string> legend; // NIC0 -> mlx5_0
};

std::string_view strip_comment(std::string_view s) {
  s = trim(s);
  while (!s.empty() && s.front() == '#') s.remove_prefix(1);
  return trim(s);
}

bool is_gpu_name(std::string_view t) { return t.size() > 3 && t.substr(0, 3) == "GPU" && parse_int(t.substr(3)).has_value(); }

Cell parse_cell(std::string_view tok, const std::string& file, int line, const std::string& row, const std::string& col) {
  Cell c;
  c.line = line;
  if (tok == "X") c.cls = Cls::Self;
  else if (tok == "SYS" || tok == "SOC") c.cls = Cls::Sys; // SOC: older drivers' name for SYS
  else if (tok == "NODE") c.cls = Cls::Node;
  else if (tok == "PHB") c.cls = Cls::Phb;
  else if (tok == "PXB") c.cls = Cls::Pxb;
  else if (tok == "PIX" || tok == "PSB") c.cls = Cls::Pix; // PSB: older drivers' single PCIe switch
  else if (tok.size() > 2 && tok.substr(0, 2) == "NV") {
    const auto n = parse_int(tok.substr(2));
    if (!n || *n < 1 || *n > 64) fail("{} line {}: '{}' in the {} row, {} column: NV# needs a link count 1-64", file, line, tok, row, col);
    c.cls = Cls::Nv;
    c.nv = static_cast<int>(*n);
  } else {
    fail("{} line {}: '{}' in the {} row, {} column is not a topo -m path class (X SYS NODE PHB PXB PIX NV#)", file, line, tok,
         row, col);
  }
  return c;
}

std::string class_name(const Cell& c) {
  switch (c.cls) {
    case Cls::Self: return "X";
    case Cls::Sys: return "SYS";
    case Cls::Node: return "NODE";
    case Cls::Phb: return "PHB";
    case Cls::Pxb: return "PXB";
    case Cls::Pix: return "PIX";
    case Cls::Nv: return fmt::format("NV{}", c.nv);
    case Cls::Unknown: break;
  }
  return "?";
}

// Header: "GPU0 GPU1 ... NIC0 ... CPU Affinity NUMA Affinity GPU NUMA ID" (some columns optional, "..." = cut).
void read_header(Matrix& m, const std::vector<std::string_view>& toks, bool& cpu_col, bool& numa_col) {
  for (std::size_t i = 0; i < toks.size(); ++i) {
    if (toks[i] == "CPU" || toks[i] == "NUMA" || toks[i] == "GPU" || toks[i] == "...") {
      for (std::size_t k = i; k + 1 < toks.size(); ++k) {
        cpu_col |= toks[k] == "CPU" && toks[k + 1] == "Affinity";
        numa_col |= toks[k] == "NUMA" && toks[k + 1] == "Affinity" && (k == 0 || toks[k - 1] != "GPU");
      }
      break;
    }
    m.cols.emplace_back(toks[i]);
    if (is_gpu_name(toks[i])) {
      if (m.gpus != static_cast<int>(i) || *parse_int(toks[i].substr(3)) != m.gpus) return;
      ++m.gpus;
    }
  }
}

Matrix read_matrix(const std::vector<Line>& lines, const std::string& file) {
  Matrix m;
  std::size_t h = 0;
  for (; h < lines.size(); ++h) {
    const auto toks = split_ws(strip_comment(lines[h].text));
    if (toks.size() >= 2 && toks[0] == "GPU0" && toks[1] != "X") break;
  }
  if (h == lines.size()) fail("{}: no `nvidia-smi topo -m` matrix (a header line 'GPU0 GPU1 ...' followed by GPU rows)", file);
  bool cpu_col = false, numa_col = false;
  read_header(m, split_ws(strip_comment(lines[h].text)), cpu_col, numa_col);
  m.header_line = lines[h].number;
  const std::size_t n = m.cols.size();
  if (n > static_cast<std::size_t>(kMaxDevices)) fail("{} line {}: more than {} columns", file, m.header_line, kMaxDevices);
  m.row_line.assign(n, 0);
  m.cell.assign(n, std::vector<Cell>(n));
  m.numa.assign(n, std::nullopt);
  m.cpu_affinity.assign(n, "");
  bool rows_done = false;
  for (std::size_t r = h + 1; r < lines.size(); ++r) {
    const auto toks = split_ws(strip_comment(lines[r].text));
    if (toks.empty()) {
      rows_done |= m.row_line[0] != 0; // after the matrix: only the NIC legend is read
      continue;
    }
    const auto at = std::find(m.cols.begin(), m.cols.end(), toks[0]);
    if (at == m.cols.end() || rows_done) {
      if (toks.size() >= 2 && toks[0].size() > 1 && toks[0].back() == ':' && toks[0].substr(0, 3) == "NIC")
        m.legend[std::string(toks[0].substr(0, toks[0].size() - 1))] = std::string(toks[1]);
      continue; // legend, trailing text
    }
    const std::size_t d = static_cast<std::size_t>(at - m.cols.begin());
    if (m.row_line[d]) fail("{} line {}: a second {} row (first on line {})", file, lines[r].number, toks[0], m.row_line[d]);
    m.row_line[d] = lines[r].number;
    std::size_t k = 1;
    for (std::size_t c = 0; c < n && k < toks.size() && toks[k] != "..."; ++c, ++k)
      m.cell[d][c] = parse_cell(toks[k], file, lines[r].number, m.cols[d], m.cols[c]);
    if (k < toks.size() && toks[k] == "...") continue;
    if (cpu_col && k < toks.size()) m.cpu_affinity[d] = std::string(toks[k++]);
    // Only a single node counts: a VM's "0-3" says the GPU is near all of them, i.e. nothing; the classes decide.
    if (numa_col && k < toks.size()) m.numa[d] = parse_int(toks[k]);
  }
  for (int g = 0; g < m.gpus; ++g)
    if (!m.row_line[static_cast<std::size_t>(g)])
      fail("{} line {}: the header names GPU{} but the matrix has no GPU{} row", file, m.header_line, g, g);
  for (std::size_t i = 0; i < n; ++i)
    if (m.row_line[i] && m.cell[i][i].cls != Cls::Self && m.cell[i][i].cls != Cls::Unknown)
      fail("{} line {}: the {} row must have X in its own column", file, m.row_line[i], m.cols[i]);
  // nvidia-smi prints one relation per pair, twice: rows that disagree are a hand edit or a paste of two
  // machines, and taking either silently would predict a machine nobody has.
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const Cell &a = m.cell[i][j], &b = m.cell[j][i];
      if (a.cls == Cls::Unknown || b.cls == Cls::Unknown || (a.cls == b.cls && a.nv == b.nv)) continue;
      fail("{} line {}: the {} row says {} to {}, but line {}: the {} row says {} to {}; nvidia-smi prints the same class "
           "both ways: correct one of them",
           file, a.line, m.cols[i], class_name(a), m.cols[j], b.line, m.cols[j], class_name(b), m.cols[i]);
    }
  return m;
}

// The class between two devices, from either row.
Cell rel(const Matrix& m, std::size_t i, std::size_t j) {
  const Cell& a = m.cell[i][j];
  return a.cls != Cls::Unknown ? a : m.cell[j][i];
}

// A GPU product name on one of the device lines people paste beside a topo -m matrix, or "".
// `nvidia-smi -L` ("GPU 0: Tesla V100-SXM2-16GB (UUID: ...)"), vLLM/SGLang environment dumps
// ("GPU 0: NVIDIA A30", "GPU 0,1,2,3: NVIDIA H800"), nccl-tests' "Rank 0 ... device 0 [0x4f] NAME",
// gdrcopy's "GPU id:0; name: NAME; Bus id: ..." and the `nvidia-smi` table ("|   0  NAME   On  |").
std::string gpu_product_on(std::string_view s) {
  auto brand = [](std::string_view t) {
    for (std::string_view b : {"NVIDIA", "Tesla", "Quadro", "GeForce", "RTX", "TITAN", "Titan"})
      if (t.substr(0, b.size()) == b) return true;
    return false;
  };
  auto upto = [](std::string_view t, std::string_view stops) { return trim(t.substr(0, t.find_first_of(stops))); };
  if (s.substr(0, 4) == "GPU " && s.find(": ") != std::string_view::npos) {
    const auto name = trim(s.substr(s.find(": ") + 2));
    if (brand(name)) return std::string(upto(name.substr(0, name.find(" (UUID")), "|;"));
  }
  if (s.substr(0, 5) == "Rank " && s.find(" device ") != std::string_view::npos && s.find(']') != std::string_view::npos)
    return std::string(trim(s.substr(s.find(']') + 1)));
  if (s.substr(0, 7) == "GPU id:" && s.find("name: ") != std::string_view::npos)
    return std::string(upto(s.substr(s.find("name: ") + 6), ";"));
  if (s.substr(0, 1) == "|") {
    const auto toks = split_ws(s.substr(1));
    if (toks.size() >= 3 && parse_int(toks[0]) && brand(toks[1])) {
      const auto from = s.find(toks[1]);
      const auto cell = s.substr(from, s.find('|', from) - from);
      return std::string(trim(cell.substr(0, cell.find("  ")))); // the name ends where the column padding starts
    }
  }
  return "";
}

// The GPU kind the text names, with where; a product models/gpus.json does not know is an Error (unless
// --gpu says which kind to use), so a machine is never built from a guessed GPU.
std::optional<std::string> kind_named_in(const std::vector<Line>& lines, const std::string& file, bool have_gpu_option,
                                         std::string& where) {
  for (const auto& l : lines) {
    const auto product = gpu_product_on_line(l.text);
    // nvidia-smi's table cuts long names ("NVIDIA A100 80G..."): too little to tell SXM from PCIe.
    if (product.empty() || product.ends_with("...")) continue;
    if (auto k = gpu_kind_from_product(product)) {
      where = fmt::format("line {} names '{}'", l.number, product);
      return k;
    }
    if (!have_gpu_option)
      fail("{} line {}: names the GPU '{}', which models/gpus.json does not know: give --gpu KIND with the nearest kind ({})",
           file, l.number, product, gpu_kind_list(" "));
  }
  return std::nullopt;
}

void add_nvlinks(HostBuilder& b, const Matrix& m) {
  const GpuKind& k = b.kind();
  const auto G = static_cast<std::size_t>(m.gpus);
  std::vector<int> sum(G, 0), most(G, 0);
  for (std::size_t i = 0; i < G; ++i)
    for (std::size_t j = 0; j < G; ++j) {
      const Cell c = rel(m, i, j);
      if (i == j || c.cls != Cls::Nv) continue;
      if (!k.nvlink && !k.bridge)
        fail("{} line {}: NV{} between GPU{} and GPU{}, but the {} has no NVLink: check --gpu", b.file(), c.line, c.nv, i, j, k.name);
      sum[i] += c.nv;
      most[i] = std::max(most[i], c.nv);
    }
  const int links = k.nvlink ? k.nvlinks : k.bridge_links;
  const LinkType type = k.nvlink ? *k.nvlink : k.bridge ? *k.bridge : LinkType::NvLink1;
  for (std::size_t i = 0; i < G; ++i)
    if (most[i] > links)
      fail("{} line {}: GPU{} shows NV{}, more than the {} NVLinks of a {}: check --gpu", b.file(), m.row_line[i], i, most[i], links,
           k.name);
  const auto switched = std::find_if(sum.begin(), sum.end(), [&](int s) { return s > links; });
  if (switched != sum.end() && k.nvlink) {
    const auto g = static_cast<std::size_t>(switched - sum.begin());
    const int sw = b.add_node("nvswitch", NodeKind::NvSwitch);
    for (std::size_t i = 0; i < G; ++i)
      if (most[i] > 0)
        b.gpu_link(b.gpu(static_cast<int>(i)), sw, type, most[i],
                   fmt::format("line {}: GPU{} row, NV{} to its peers (GPU{} shows {} NVLinks in all, more than the {} a {} has, "
                               "so they meet in an NVSwitch plane; one node for all switch chips)",
                               m.row_line[i], i, most[i], g, sum[g], links, k.name));
    return;
  }
  for (std::size_t i = 0; i < G; ++i)
    for (std::size_t j = i + 1; j < G; ++j) {
      const Cell c = rel(m, i, j);
      if (c.cls == Cls::Nv)
        b.gpu_link(b.gpu(static_cast<int>(i)), b.gpu(static_cast<int>(j)), type, c.nv,
                   fmt::format("line {}: GPU{} row, GPU{} column NV{}{}", c.line, i, j, c.nv, k.bridge ? " (NVLink bridge)" : ""));
    }
}

// Which CPU node each device hangs under: NUMA nodes from the NUMA Affinity column, else from the
// classes (anything closer than SYS shares a NUMA node), then NUMA nodes into sockets.
std::vector<int> sockets_of(const Matrix& m, std::vector<std::string>& why) {
  const std::size_t n = m.cols.size();
  Dsu numa(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const Cls c = rel(m, i, j).cls;
      if (c == Cls::Node || c == Cls::Phb || c == Cls::Pxb || c == Cls::Pix) numa.unite(i, j);
      if (m.numa[i] && m.numa[j] && *m.numa[i] == *m.numa[j]) numa.unite(i, j);
    }
  std::vector<std::size_t> roots; // components in order of their first device
  for (std::size_t i = 0; i < n; ++i)
    if (std::find(roots.begin(), roots.end(), numa.find(i)) == roots.end()) roots.push_back(numa.find(i));
  std::vector<int> comp_socket(roots.size());
  std::string rule;
  std::vector<long> ids;
  for (std::size_t i = 0; i < n; ++i)
    if (m.numa[i]) ids.push_back(*m.numa[i]);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto comp_of = [&](std::size_t d) { return static_cast<std::size_t>(std::find(roots.begin(), roots.end(), numa.find(d)) - roots.begin()); };
  if (roots.size() > 2 && ids.size() > 2) {
    // NPS4-style boxes: each GPU its own NUMA node. Linux numbers NUMA nodes socket by socket.
    rule = fmt::format("the {} NUMA nodes of the NUMA Affinity column taken as 2 sockets, lower half and upper half of the "
                       "numbers (an assumption: topo -m does not say which NUMA nodes share a socket)", ids.size());
    for (std::size_t c = 0; c < roots.size(); ++c) comp_socket[c] = 0;
    for (std::size_t d = 0; d < n; ++d)
      if (m.numa[d]) {
        const auto rank = std::lower_bound(ids.begin(), ids.end(), *m.numa[d]) - ids.begin();
        comp_socket[comp_of(d)] = static_cast<int>(rank * 2 / static_cast<long>(ids.size()));
      }
  } else {
    // Put each NUMA component into the first socket it has no SYS pair with.
    rule = "devices closer than SYS share a socket, SYS pairs and different NUMA Affinity nodes do not";
    std::vector<std::vector<std::size_t>> members(roots.size());
    for (std::size_t d = 0; d < n; ++d) members[comp_of(d)].push_back(d);
    std::vector<std::vector<std::size_t>> socket_members;
    for (std::size_t c = 0; c < roots.size(); ++c) {
      std::size_t s = 0;
      for (; s < socket_members.size(); ++s) {
        bool sys = false;
        for (auto a : members[c])
          for (auto b : socket_members[s]) // SYS, or two NUMA nodes the column names (an all-NV18 matrix shows no SYS)
            sys |= rel(m, a, b).cls == Cls::Sys || (m.numa[a] && m.numa[b] && *m.numa[a] != *m.numa[b]);
        if (!sys) break;
      }
      if (s == socket_members.size()) socket_members.emplace_back();
      socket_members[s].insert(socket_members[s].end(), members[c].begin(), members[c].end());
      comp_socket[c] = static_cast<int>(s);
    }
  }
  std::vector<int> out(n);
  why.assign(n, "");
  for (std::size_t d = 0; d < n; ++d) {
    out[d] = comp_socket[comp_of(d)];
    why[d] = fmt::format("socket {} ({}{})", out[d], rule,
                         m.cpu_affinity[d].empty() ? "" : fmt::format("; CPU affinity {}", m.cpu_affinity[d]));
  }
  return out;
}

std::string partners(const Matrix& m, std::size_t d, Cls cls) {
  std::string s;
  int shown = 0;
  for (std::size_t j = 0; j < m.cols.size(); ++j)
    if (j != d && rel(m, d, j).cls == cls && shown++ < 4) s += (s.empty() ? "" : ", ") + m.cols[j];
  return s;
}

void add_pcie_tree(HostBuilder& b, const Matrix& m, const std::vector<int>& nodes) {
  const std::size_t n = m.cols.size();
  std::vector<std::string> socket_why;
  const auto socket = sockets_of(m, socket_why);
  Dsu tree(n), sw(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const Cls c = rel(m, i, j).cls;
      if (c == Cls::Pix) sw.unite(i, j), tree.unite(i, j);
      if (c == Cls::Pxb) tree.unite(i, j);
    }
  auto row = [&](std::size_t d) {
    return m.row_line[d] ? fmt::format("line {}: {} row", m.row_line[d], m.cols[d]) : fmt::format("{} column", m.cols[d]);
  };
  std::map<std::size_t, int> top_of, sub_of; // tree root -> switch node, switch root -> switch node
  int switches = 0;
  for (std::size_t d = 0; d < n; ++d) {
    const int cpu = b.cpu(socket[d], socket_why[d]);
    const bool gpu_port = static_cast<int>(d) < m.gpus;
    std::size_t tree_size = 0, sw_size = 0;
    for (std::size_t j = 0; j < n; ++j) tree_size += tree.find(j) == tree.find(d), sw_size += sw.find(j) == sw.find(d);
    if (tree_size == 1) {
      b.pcie(nodes[d], cpu, fmt::format("{}: no PIX/PXB peer, so its own root port of {}", row(d), socket_why[d]), {}, 0, gpu_port);
      continue;
    }
    if (!top_of.count(tree.find(d))) {
      const int top = b.add_node(fmt::format("pcie_sw{}", switches++), NodeKind::PcieSwitch);
      top_of[tree.find(d)] = top;
      b.pcie(top, cpu, fmt::format("{}: PCIe switch{} of {}, uplink to {}", row(d), sw_size == tree_size ? "" : " tree (PXB)",
                                   m.cols[d], socket_why[d]));
    }
    int parent = top_of[tree.find(d)];
    std::string why = fmt::format("{}: PIX to {}", row(d), partners(m, d, Cls::Pix));
    if (sw_size != tree_size) {
      why = fmt::format("{}: PXB to {}", row(d), partners(m, d, Cls::Pxb));
      // Its own switch below the top one, also when alone there: two devices straight under one switch
      // would read as PIX, and the matrix says PXB.
      if (!sub_of.count(sw.find(d))) {
        const int sub = b.add_node(fmt::format("pcie_sw{}", switches++), NodeKind::PcieSwitch);
        sub_of[sw.find(d)] = sub;
        b.pcie(sub, parent,
               sw_size > 1 ? fmt::format("{}: PIX to {}, PXB to {}: a switch below a switch", row(d), partners(m, d, Cls::Pix),
                                         partners(m, d, Cls::Pxb))
                           : fmt::format("{}: PXB to {} and no PIX peer: a bridge of its own below the top switch", row(d),
                                         partners(m, d, Cls::Pxb)));
      }
      parent = sub_of[sw.find(d)];
      if (sw_size > 1) why = fmt::format("{}: PIX to {}", row(d), partners(m, d, Cls::Pix));
    }
    b.pcie(nodes[d], parent, why, {}, 0, gpu_port);
  }
}

// The kinds with at least as many NVLinks (or bridge links) as the widest NV# cell of the matrix: a GPU showing
// NV18 to a peer has 18 links or more, whether they go through a switch or straight to that peer. "" when the
// matrix shows no NVLink (every kind may then be the one).
std::string kinds_with_links_of(const Matrix& m) {
  int most = 0;
  std::string cell_at;
  for (int g = 0; g < m.gpus; ++g)
    for (int h = 0; h < m.gpus; ++h)
      if (const int nv = m.cell[static_cast<std::size_t>(g)][static_cast<std::size_t>(h)].nv; nv > most)
        most = nv, cell_at = fmt::format("GPU{} to GPU{}", g, h);
  if (most == 0) return {};
  std::string out;
  for (const auto& name : gpu_kind_names()) {
    const GpuKind k = gpu_kind(name, "models/gpus.json");
    if (std::max(k.nvlinks, k.bridge_links) >= most) out += (out.empty() ? "" : " ") + name;
  }
  if (out.empty()) return {};
  return fmt::format("{}: the kinds with {} or more NVLinks, as NV{} from {} needs", out, most, most, cell_at);
}

} // namespace

std::string gpu_product_on_line(std::string_view line) { return gpu_product_on(strip_comment(line)); }

Topology import_topo_m(const std::string& text, const std::string& file, const ImportOptions& o) {
  if (text.size() > kMaxImportBytes) fail("{}: larger than {} MiB", file, kMaxImportBytes >> 20);
  const auto lines = split_lines(text);
  const Matrix m = read_matrix(lines, file);
  std::string where;
  const auto named = kind_named_in(lines, file, !o.gpu.empty(), where);
  auto kind = choose_kind(file, o.gpu, named, where,
                          "the topo -m matrix does not say which GPU it is",
                          "or add the output of `nvidia-smi -L` to the file", kinds_with_links_of(m));
  HostBuilder b(file, std::move(kind), m.gpus);
  std::vector<int> nodes;
  for (int g = 0; g < m.gpus; ++g) nodes.push_back(b.gpu(g));
  for (std::size_t d = static_cast<std::size_t>(m.gpus); d < m.cols.size(); ++d) {
    const auto it = m.legend.find(m.cols[d]);
    const std::string name = ascii_lower(m.cols[d]);
    nodes.push_back(b.add_node(it == m.legend.end() ? name : name + "-" + it->second, NodeKind::Nic));
  }
  add_nvlinks(b, m);
  add_pcie_tree(b, m, nodes);
  const auto smp = socket_link_named_in(lines);
  return b.finish(fmt::format("topo-m-{}gpu", m.gpus),
                  fmt::format("Imported from the nvidia-smi topo -m matrix of {} (header on line {}): {} GPUs, {} NICs.", file,
                              m.header_line, m.gpus, m.cols.size() - static_cast<std::size_t>(m.gpus)),
                  smp.type, smp.why, smp.vendor);
}

} // namespace ccsim::topology
