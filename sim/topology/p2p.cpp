#include "sim/topology/p2p.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <string_view>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/topology/gpu_catalogue.hpp"

namespace ccsim::topology {
namespace {

// Per thread: `ccsim sweep` parses each point's --p2p on its own worker thread.
thread_local bool g_p2p_off = false;

bool direct_gpu_link(const Topology& t, const Link& l) {
  const auto kind = [&](int n) { return t.nodes[static_cast<std::size_t>(n)].kind; };
  const bool touches_gpu = kind(l.a) == NodeKind::Gpu || kind(l.b) == NodeKind::Gpu;
  return touches_gpu && (is_nvlink(l.type) || l.type == LinkType::Xgmi || kind(l.a) == NodeKind::NvSwitch ||
                         kind(l.b) == NodeKind::NvSwitch || (kind(l.a) == NodeKind::Gpu && kind(l.b) == NodeKind::Gpu));
}

// The PCIe generation a GPU drawn without a host link would have: its catalogue kind's, else the one that
// came with its NVLink generation (NVLink1/2 Gen3, NVLink3 Gen4, NVLink4/5 Gen5).
std::string host_pcie_of(const Topology& t, int node) {
  if (!t.gpu_kind.empty()) return gpu_kind(t.gpu_kind, "topology " + t.name).pcie.name;
  int nvlink = 0;
  for (const auto& l : t.links)
    if ((l.a == node || l.b == node) && is_nvlink(l.type))
      nvlink = std::max(nvlink, static_cast<int>(l.type) - static_cast<int>(LinkType::NvLink1) + 1);
  return nvlink <= 2 ? "pcie3" : nvlink == 3 ? "pcie4" : "pcie5";
}

// The catalogue kind a drawing without one stands for, by its newest NVLink generation: dropping the NVLinks
// must not change the GPU generation --model nccl tunes for (an HGX H100 with P2P off is still Hopper).
std::string kind_of_nvlink(const Topology& t) {
  int newest = 0;
  for (const auto& l : t.links)
    if (is_nvlink(l.type)) newest = std::max(newest, static_cast<int>(l.type) - static_cast<int>(LinkType::NvLink1) + 1);
  constexpr const char* kKinds[] = {"", "p100", "v100", "a100", "h100", "b200"};
  return newest >= 1 && newest <= 5 ? kKinds[newest] : "";
}

} // namespace

Bandwidth host_staged_bw(const Link& l, const std::string& who) {
  return pcie_gen(std::string(to_string(l.type)), who).nop2p_bw / static_cast<Bandwidth>(std::max(1, l.lanes));
}

Topology without_p2p(const Topology& t, const std::string& who) {
  Topology out = t;
  out.links.clear();
  out.route_overrides.clear(); // drawn routes may run over the links dropped here
  // The level NCCL then runs at (NCCL_P2P_DISABLE=1 is level LOC, paths.cc ncclGetLevel), so the NCCL model's
  // header names it instead of its default level on a drawing that has no P2P left.
  out.p2p_level = static_cast<int>(PathClass::Loc);
  out.structure = Structure{};
  std::vector<int> pcie_links(t.nodes.size(), 0);
  for (const auto& l : t.links) {
    if (direct_gpu_link(t, l)) continue;
    Link k = l;
    const bool gpu_end = t.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Gpu || t.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Gpu;
    if (gpu_end && is_pcie(l.type)) {
      k.bw = std::min(k.bw, host_staged_bw(l, who));
      k.host_staged = true;
      k.source = fmt::format("{}; P2P disabled: host-staged copy speed of {} ({})", l.source, to_string(l.type), "models/gpus.json nop2p_bw");
      ++pcie_links[static_cast<std::size_t>(l.a)];
      ++pcie_links[static_cast<std::size_t>(l.b)];
    }
    out.links.push_back(std::move(k));
  }
  // A drawing without the host side (NVSwitch presets): each GPU gets a PCIe x16 link to one host node, of
  // its kind's generation, or the generation that came with its NVLink (as the cluster generator does).
  int host = -1;
  for (int g = 0; g < t.num_gpus(); ++g) {
    const int node = t.gpu_node(g);
    if (pcie_links[static_cast<std::size_t>(node)] != 0) continue;
    if (host < 0) host = out.add_node("p2p-off-host", NodeKind::Cpu);
    const auto gen = pcie_gen(host_pcie_of(t, node), who);
    out.add_link(node, host, gen.type, gen.nop2p_bw, gen.latency, 1,
                 fmt::format("P2P disabled: host-staged copy speed of {} (models/gpus.json nop2p_bw); the drawing has no host side, "
                             "so one x16 link per GPU to one host is assumed", gen.name),
                 true);
  }
  if (out.gpu_kind.empty()) out.gpu_kind = kind_of_nvlink(t);
  out.name = t.name + "-nop2p";
  out.description = t.description + " With P2P disabled (--p2p off, as NCCL_P2P_DISABLE=1): copies staged through host memory.";
  out.validate();
  return out;
}

namespace {
// Per thread and cleared by clear_p2p_level, as --p2p's mode is: `ccsim sweep` parses each point on a worker thread
// and the Python module runs command after command in one process; a level one of them set leaked into the next
// (a point without --p2p-level predicted with the previous point's LOC: 46993 us for 2054 on a DGX-1 at 128 MiB).
thread_local std::optional<PathClass> g_level;
constexpr std::string_view kClassNames[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS"};

// Link ids at each node, for the searches below.
std::vector<std::vector<int>> incident_links(const Topology& t) {
  std::vector<std::vector<int>> incident(t.nodes.size());
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    incident[static_cast<std::size_t>(t.links[i].a)].push_back(static_cast<int>(i));
    incident[static_cast<std::size_t>(t.links[i].b)].push_back(static_cast<int>(i));
  }
  return incident;
}

// The class of a fewest-hop PCIe path from node `from` whose last hop leaves `last`, walked back through
// `prev_of` (a node's predecessor): SYS through two CPUs, PHB through one, PIX through at most one switch, PXB more.
template <class PrevOf>
PathClass pcie_path_class(const Topology& t, int from, int last, PrevOf prev_of) {
  int cpus = 0, switches = 0;
  for (int n = last; n != from; n = prev_of(n)) {
    cpus += t.nodes[static_cast<std::size_t>(n)].kind == NodeKind::Cpu;
    switches += t.nodes[static_cast<std::size_t>(n)].kind == NodeKind::PcieSwitch;
  }
  return cpus >= 2 ? PathClass::Sys : cpus == 1 ? PathClass::Phb : switches <= 1 ? PathClass::Pix : PathClass::Pxb;
}

// NCCL's NVL from node `a`: a direct NVLink/xGMI link, or NVLink through NVSwitches only: one plane, or switches
// joined by NVLink (a DGX-2's two baseboards). `reach(m)` for every node an NVLink leads to from `a` or from a
// switch so reached; `first(m)` marks a node and says whether it was new, in the caller's storage
// (PathClassifier's per-node array, HostSearch's map bounded by one host), so each switch is walked once.
template <class First, class Reach>
void nvl_walk(const Topology& t, const std::vector<std::vector<int>>& incident, int a, First first, Reach reach) {
  std::vector<int> queue{a};
  first(a);
  for (std::size_t q = 0; q < queue.size(); ++q)
    for (const int i : incident[static_cast<std::size_t>(queue[q])]) {
      const auto& l = t.links[static_cast<std::size_t>(i)];
      if (!is_nvlink(l.type) && l.type != LinkType::Xgmi) continue;
      const int m = l.a == queue[q] ? l.b : l.a;
      reach(m);
      if (t.nodes[static_cast<std::size_t>(m)].kind == NodeKind::NvSwitch && first(m)) queue.push_back(m);
    }
}

} // namespace

std::string_view name(PathClass c) { return kClassNames[static_cast<int>(c)]; }

PathClassifier::PathClassifier(const Topology& t) : t_(t), incident_(incident_links(t)) {}

NodeKind PathClassifier::kind(int n) const { return t_.nodes[static_cast<std::size_t>(n)].kind; }

// Both searches run to the end from `a`: a search that stops at one destination sets no predecessor
// differently from one that does not (each node's is set once, when first reached), so every destination
// gets the answer a search of its own would give.
void PathClassifier::search_from(int a) const {
  from_ = a;
  if (nvl_.empty()) {
    const std::size_t n_nodes = t_.nodes.size();
    nvl_.assign(n_nodes, 0);
    seen_.assign(n_nodes, 0);
    prev_.assign(n_nodes, -2);
  }
  for (const int m : touched_) {
    nvl_[static_cast<std::size_t>(m)] = 0;
    seen_[static_cast<std::size_t>(m)] = 0;
    prev_[static_cast<std::size_t>(m)] = -2;
  }
  touched_.clear();
  // NVL (nvl_walk): a node is NVL from `a` when an NVLink leads to it from `a` or from a switch so reached.
  nvl_walk(
      t_, incident_, a,
      [&](int m) {
        char& s = seen_[static_cast<std::size_t>(m)];
        const bool fresh = !s;
        s = 1;
        if (fresh) touched_.push_back(m);
        return fresh;
      },
      [&](int m) {
        if (!nvl_[static_cast<std::size_t>(m)]) touched_.push_back(m), nvl_[static_cast<std::size_t>(m)] = 1;
      });
  // Fewest-hop paths over PCIe and the sockets' links (never through another GPU or the network).
  std::vector<int> queue{a};
  prev_[static_cast<std::size_t>(a)] = -1;
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const int n = queue[q];
    if (n != a && kind(n) == NodeKind::Gpu) continue;
    for (const int i : incident_[static_cast<std::size_t>(n)]) {
      const auto& l = t_.links[static_cast<std::size_t>(i)];
      const int m = l.a == n ? l.b : l.a;
      const bool socket = kind(n) == NodeKind::Cpu && kind(m) == NodeKind::Cpu;
      if (prev_[static_cast<std::size_t>(m)] != -2 || !(is_pcie(l.type) || socket)) continue;
      prev_[static_cast<std::size_t>(m)] = n;
      queue.push_back(m);
    }
  }
  touched_.insert(touched_.end(), queue.begin(), queue.end());
}

PathClass PathClassifier::operator()(int gpu_a, int gpu_b) const {
  const int a = t_.gpu_node(gpu_a), b = t_.gpu_node(gpu_b);
  if (a == b) return PathClass::Loc;
  if (from_ != a) search_from(a);
  if (nvl_[static_cast<std::size_t>(b)]) return PathClass::Nvl;
  if (prev_[static_cast<std::size_t>(b)] == -2) return PathClass::Sys; // no PCIe path drawn: the farthest class
  return pcie_path_class(t_, a, prev_[static_cast<std::size_t>(b)], [&](int n) { return prev_[static_cast<std::size_t>(n)]; });
}

PathClass path_class(const Topology& t, int gpu_a, int gpu_b) { return PathClassifier(t)(gpu_a, gpu_b); }

namespace {
// Searches bounded by one host: a 262,144-GPU torus or a 16,384-GPU cluster asks one class per GPU, and a search
// that clears per-node arrays of the whole machine per GPU would cost GPUs x nodes.
struct HostSearch {
  const Topology& t;
  std::vector<std::vector<int>> incident; // link ids at each node
  std::vector<char> is_nic;
  explicit HostSearch(const Topology& topo) : t(topo), incident(incident_links(topo)), is_nic(topo.nodes.size(), 0) {
    for (std::size_t n = 0; n < t.nodes.size(); ++n) is_nic[n] = t.nodes[n].kind == NodeKind::Nic;
  }
  NodeKind kind(int n) const { return t.nodes[static_cast<std::size_t>(n)].kind; }

  // The class of the closest NIC over PCIe and the sockets' links, never through another GPU or the network, as
  // PathClassifier types a GPU pair: PIX one switch (or a link straight to the GPU), PXB several, PHB through one
  // CPU, SYS through two.
  std::optional<PathClass> nic_class(int gpu) const {
    const int a = t.gpu_node(gpu);
    std::unordered_map<int, int> prev{{a, -1}};
    std::vector<int> queue{a};
    std::optional<PathClass> best;
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const int n = queue[q];
      if ((n != a && kind(n) == NodeKind::Gpu) || is_nic[static_cast<std::size_t>(n)]) continue;
      for (const int i : incident[static_cast<std::size_t>(n)]) {
        const auto& l = t.links[static_cast<std::size_t>(i)];
        const int m = l.a == n ? l.b : l.a;
        const bool socket = kind(n) == NodeKind::Cpu && kind(m) == NodeKind::Cpu;
        if (prev.count(m) || !(is_pcie(l.type) || socket)) continue;
        prev.emplace(m, n);
        queue.push_back(m);
        if (!is_nic[static_cast<std::size_t>(m)]) continue;
        const PathClass c = pcie_path_class(t, a, n, [&](int k) { return prev.at(k); });
        if (!best || c < *best) best = c;
      }
    }
    return best;
  }

  // The GPUs NVL from `gpu` (PathClassifier's NVL: a direct NVLink/xGMI link, or NVLink through NVSwitches only).
  std::vector<int> nvl_gpus(int gpu) const {
    std::unordered_set<int> seen;
    std::vector<int> out;
    const auto first = [&](int m) { return seen.insert(m).second; };
    nvl_walk(t, incident, t.gpu_node(gpu), first, [&](int m) {
      if (kind(m) == NodeKind::Gpu && first(m)) out.push_back(t.nodes[static_cast<std::size_t>(m)].gpu);
    });
    return out;
  }
};
} // namespace

std::vector<std::optional<PathClass>> gpu_nic_classes(const Topology& t, const NicPathRules& rules) {
  std::vector<std::optional<PathClass>> out(static_cast<std::size_t>(t.num_gpus()));
  if (std::none_of(t.nodes.begin(), t.nodes.end(), [](const Node& n) { return n.kind == NodeKind::Nic; })) return out;
  const HostSearch search(t);
  const bool grace = grace_superchip(t);
  for (int g = 0; g < t.num_gpus(); ++g) {
    auto c = search.nic_class(g);
    // paths.cc (v2.27.3-1 on): a GPU-NET path through the CPU whose GPU-CPU hop is C2C is P2C; before, PHB.
    if (c && grace && *c < PathClass::Sys) c = rules.p2c ? PathClass::P2c : PathClass::Phb;
    out[static_cast<std::size_t>(g)] = c;
  }
  if (!rules.pxn) return out;
  // paths.cc PXN: a NIC whose local GPU is an NVLink peer on the same host, within PXB of it (or P2C with
  // NCCL_PXN_C2C), serves a GPU whose own path to it is farther than PXB, through that peer.
  const auto hosts = host_map(t);
  std::vector<std::optional<PathClass>> with_pxn = out;
  for (int g = 0; g < t.num_gpus(); ++g) {
    const auto own = out[static_cast<std::size_t>(g)];
    if (own && *own <= PathClass::Pxn) continue;
    for (const int h : search.nvl_gpus(g)) {
      const auto peer = out[static_cast<std::size_t>(h)];
      if (!peer || hosts.of_gpu(t, h) != hosts.of_gpu(t, g)) continue;
      if (!(*peer <= PathClass::Pxb || (rules.pxn_c2c && *peer == PathClass::P2c))) continue;
      with_pxn[static_cast<std::size_t>(g)] = PathClass::Pxn;
      break;
    }
  }
  return with_pxn;
}

std::optional<PathClass> type_inter(const Topology& t, const std::vector<int>& gpus, const NicPathRules& rules) {
  const auto classes = gpu_nic_classes(t, rules);
  const auto hosts = host_map(t);
  std::vector<std::optional<PathClass>> per_host(static_cast<std::size_t>(hosts.count));
  std::vector<char> seen(static_cast<std::size_t>(hosts.count), 0);
  for (const int g : gpus) {
    const auto h = static_cast<std::size_t>(hosts.of_gpu(t, g));
    seen[h] = 1;
    const auto c = classes[static_cast<std::size_t>(g)];
    if (c && (!per_host[h] || *c < *per_host[h])) per_host[h] = c;
  }
  std::optional<PathClass> worst;
  for (std::size_t h = 0; h < per_host.size(); ++h) {
    if (!seen[h]) continue;
    if (!per_host[h]) return std::nullopt;
    if (!worst || *per_host[h] > *worst) worst = per_host[h];
  }
  return worst;
}

PathClass p2p_level_from(const std::string& text, const std::string& who) {
  for (std::size_t i = 0; i < std::size(kClassNames); ++i)
    if (text == kClassNames[i]) return static_cast<PathClass>(i);
  if (text == "NODE") return PathClass::Phb;
  // NCCL's levelsOldToNew: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS, 5 SYS; a larger number is taken as 5.
  constexpr PathClass kOld[] = {PathClass::Loc, PathClass::Pix, PathClass::Pxb, PathClass::Phb, PathClass::Sys, PathClass::Sys};
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const auto first = text.find_first_not_of('0');
    const std::string digits = first == std::string::npos ? "0" : text.substr(first);
    return digits.size() > 1 ? PathClass::Sys : kOld[std::min(5, digits[0] - '0')];
  }
  fail("{}: '{}' is not a P2P level (LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, or a number)", who, text);
}

Topology with_p2p_level(const Topology& t, PathClass level, const std::string& who) {
  if (level == PathClass::Loc) return without_p2p(t, who);
  std::vector<bool> staged(t.nodes.size(), false);
  bool any = false;
  const PathClassifier path_class(t);
  for (int g = 0; g < t.num_gpus(); ++g)
    for (int h = 0; h < t.num_gpus(); ++h)
      if (g != h && path_class(g, h) > level) staged[static_cast<std::size_t>(t.gpu_node(g))] = any = true;
  if (!any) return t;
  Topology out = t;
  for (auto& l : out.links) {
    const bool gpu_end = staged[static_cast<std::size_t>(l.a)] || staged[static_cast<std::size_t>(l.b)];
    if (!gpu_end || !is_pcie(l.type)) continue;
    l.bw = std::min(l.bw, host_staged_bw(l, who));
    l.host_staged = true;
    l.source += fmt::format("; NCCL_P2P_LEVEL={}: a peer is farther, copies staged through host memory at {}'s host-staged speed "
                            "(models/gpus.json nop2p_bw)", name(level), to_string(l.type));
  }
  out.name = t.name + fmt::format("-p2p-{}", name(level));
  out.validate();
  return out;
}

void set_p2p_level(const std::string& text) { g_level = p2p_level_from(text, "--p2p-level"); }
std::optional<PathClass> p2p_level() { return g_level; }
void clear_p2p_level() { g_level.reset(); }

void set_p2p_mode(const std::string& mode) {
  if (mode != "on" && mode != "off") fail("--p2p: '{}' is not on or off", mode);
  g_p2p_off = mode == "off";
}

bool p2p_disabled() { return g_p2p_off; }

} // namespace ccsim::topology
