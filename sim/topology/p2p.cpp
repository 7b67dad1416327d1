#include "sim/topology/p2p.hpp"

#include <algorithm>
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

} // namespace

Topology without_p2p(const Topology& t, const std::string& who) {
  Topology out = t;
  out.links.clear();
  out.route_overrides.clear(); // drawn routes may run over the links dropped here
  out.structure = Structure{};
  std::vector<int> pcie_links(t.nodes.size(), 0);
  for (const auto& l : t.links) {
    if (direct_gpu_link(t, l)) continue;
    Link k = l;
    const bool gpu_end = t.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Gpu || t.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Gpu;
    if (gpu_end && is_pcie(l.type)) {
      const std::string gen = fmt::format("pcie{}", static_cast<int>(l.type) - static_cast<int>(LinkType::Pcie3) + 3);
      const auto staged = pcie_gen(gen, who).nop2p_bw;
      k.bw = std::min(k.bw, staged / static_cast<Bandwidth>(std::max(1, k.lanes)));
      k.source = fmt::format("{}; P2P disabled: host-staged copy speed of {} ({})", l.source, gen, "models/gpus.json nop2p_bw");
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
                             "so one x16 link per GPU to one host is assumed", gen.name));
  }
  out.name = t.name + "-nop2p";
  out.description = t.description + " With P2P disabled (--p2p off, as NCCL_P2P_DISABLE=1): copies staged through host memory.";
  out.validate();
  return out;
}

void set_p2p_mode(const std::string& mode) {
  if (mode != "on" && mode != "off") fail("--p2p: '{}' is not on or off", mode);
  g_p2p_off = mode == "off";
}

bool p2p_disabled() { return g_p2p_off; }

} // namespace ccsim::topology
