#include "sim/model/nccl/p2p_level.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

namespace ccsim::model::nccl {
using topology::PathClass;

topology::PathClass default_p2p_level(const std::optional<NcclVersion>& v, HostCpu cpu, int gpus_on_host, int sockets) {
  const auto from = [&](NcclVersion r) { return !v || *v >= r; };
  if (from({2, 23, 4})) return cpu == HostCpu::Amd && gpus_on_host <= 2 ? PathClass::Sys : PathClass::Pxb;
  if (from({2, 9, 6})) return cpu == HostCpu::Amd ? PathClass::Sys : PathClass::Pxb;
  if (from({2, 7, 3})) return cpu == HostCpu::Arm ? PathClass::Pxb : cpu == HostCpu::Intel ? PathClass::Phb : PathClass::Sys;
  if (from({2, 6, 0})) return cpu == HostCpu::Arm ? PathClass::Pxb : PathClass::Sys;
  if (from({2, 5, 0})) return sockets <= 1 ? PathClass::Pxb : PathClass::Phb;
  return PathClass::Phb;
}

P2pLevel p2p_level_for(const topology::Topology& t, const Graph& g, const std::vector<int>& placement,
                       const std::optional<NcclVersion>& v) {
  if (t.p2p_level >= 0) return {static_cast<PathClass>(t.p2p_level), true};
  const auto host = [&](int gpu) { return g.host_of_gpu.empty() ? 0 : g.host_of_gpu[static_cast<std::size_t>(gpu)]; };
  const int first = placement.empty() ? 0 : host(placement.front());
  const int on_host = static_cast<int>(std::count_if(placement.begin(), placement.end(), [&](int gpu) { return host(gpu) == first; }));
  int cpus = 0;
  for (const auto& n : t.nodes) cpus += n.kind == topology::NodeKind::Cpu;
  const int sockets = std::max(1, cpus / std::max(1, topology::host_map(t).count)); // per host of the machine, placed or not
  const HostCpu cpu = g.arm_cpu ? HostCpu::Arm : g.amd_cpu ? HostCpu::Amd : HostCpu::Intel;
  return {default_p2p_level(v, cpu, on_host, sockets), false};
}

std::vector<std::pair<int, int>> shm_pairs(const topology::Topology& t, const Graph& g, topology::PathClass level,
                                           const std::vector<std::pair<int, int>>& pairs) {
  std::vector<std::pair<int, int>> out;
  if (t.link_formula() || level == PathClass::Sys) return out; // generated crossbars and tori: no host side
  std::optional<topology::PathClassifier> path_class; // built at the first pair inside a host
  const auto host = [&](int gpu) { return g.host_of_gpu.empty() ? 0 : g.host_of_gpu[static_cast<std::size_t>(gpu)]; };
  for (const auto& [a, b] : pairs) {
    if (a == b || host(a) != host(b)) continue;
    if (!path_class) path_class.emplace(t);
    if ((*path_class)(a, b) <= level) continue;
    out.emplace_back(a, b);
  }
  // Each pair once, where it first came. Sorted copies, not a std::set: an alltoall's p^2 pairs are distinct
  // already, and a 1,024-GPU crossbar's million set nodes were a quarter of its plan's time.
  std::vector<std::pair<std::pair<int, int>, std::size_t>> order(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) order[i] = {out[i], i};
  std::sort(order.begin(), order.end());
  if (std::adjacent_find(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first == y.first; }) == order.end())
    return out;
  std::vector<char> first(out.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i)
    if (i == 0 || order[i].first != order[i - 1].first) first[order[i].second] = 1;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (first[i]) out[kept++] = out[i];
  out.resize(kept);
  return out;
}

std::vector<std::pair<int, int>> shm_ring_hops(const topology::Topology& t, const Graph& g, topology::PathClass level) {
  std::vector<std::pair<int, int>> hops;
  if (t.link_formula() || level == PathClass::Sys) return hops;
  for (const auto& ring : g.rings)
    for (std::size_t i = 0; ring.size() > 1 && i < ring.size(); ++i) hops.emplace_back(ring[i], ring[(i + 1) % ring.size()]);
  return shm_pairs(t, g, level, hops);
}

void stage_shm_ports(topology::Topology& view, const std::vector<std::pair<int, int>>& hops) {
  std::vector<char> staged(view.nodes.size(), 0); // the GPU nodes of the pairs (a million on a 1,024-GPU crossbar)
  for (const auto& [a, b] : hops) {
    staged[static_cast<std::size_t>(view.gpu_node(a))] = 1;
    staged[static_cast<std::size_t>(view.gpu_node(b))] = 1;
  }
  for (auto& l : view.links) {
    if (l.host_staged || !topology::is_pcie(l.type) || (!staged[static_cast<std::size_t>(l.a)] && !staged[static_cast<std::size_t>(l.b)])) continue;
    l.bw = std::min(l.bw, topology::host_staged_bw(l, "--model nccl (SHM between GPUs beyond the P2P level)"));
    l.host_staged = true;
  }
}

std::string describe_p2p(const P2pLevel& level, const std::vector<std::pair<int, int>>& hops) {
  std::string s = fmt::format("P2P level {} ({})", topology::name(level.level), level.user ? "NCCL_P2P_LEVEL" : "NCCL's default");
  if (hops.empty()) return s + ": every ring hop P2P";
  s += ": SHM ";
  constexpr std::size_t kShown = 8;
  for (std::size_t i = 0; i < hops.size() && i < kShown; ++i)
    s += fmt::format("{}gpu{}->gpu{}", i ? ", " : "", hops[i].first, hops[i].second);
  if (hops.size() > kShown) s += fmt::format(" and {} more", hops.size() - kShown);
  return s + ", P2P elsewhere";
}

} // namespace ccsim::model::nccl
