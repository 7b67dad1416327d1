#include "sim/model/nccl/graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::model::nccl {
using topology::Topology;

namespace {

// The topology names its GPU kind (machine: generators, imports, presets with "gpu"): NCCL's tuning row
// is the catalogue's nccl_arch (an RTX 4090 is Ada, NCCL's Ampere row, whatever links it has); AMD's CDNA
// generations map to the row nccl.json's arch_of_nccl_arch gives them.
std::optional<Arch> arch_of_gpu_kind(const Topology& t, const Tables& tab) {
  if (t.gpu_kind.empty()) return std::nullopt;
  const auto kind = topology::gpu_kind(t.gpu_kind, "topology " + t.name);
  if (const auto a = arch_from(kind.nccl_arch)) return a;
  const auto it = tab.arch_of_nccl_arch.find(kind.nccl_arch);
  if (it != tab.arch_of_nccl_arch.end()) return it->second;
  return std::nullopt;
}

Arch arch_of(const Topology& t, const Tables& tab, const std::string& override_) {
  if (!override_.empty()) return arch_flag(override_);
  if (const auto from_kind = arch_of_gpu_kind(t, tab)) return *from_kind;
  int newest = 0; // no GPU kind named: the generation from the newest NVLink generation present
  for (const auto& l : t.links)
    if (topology::is_nvlink(l.type)) newest = std::max(newest, static_cast<int>(l.type) - static_cast<int>(topology::LinkType::NvLink1) + 1);
  if (newest == 0) return Arch::Volta;
  return tab.arch_of_nvlink[static_cast<std::size_t>(newest - 1)].value_or(Arch::Volta);
}

// The bandwidth NCCL's search sees through one ring: the slowest lane on any hop (per_ring), and the
// slowest hop's total over all its lanes (route_total). NCCL's search sees the nominal per-lane
// speeds of its tables; a fitted link efficiency is applied after the search (NcclBuilder), so that it
// moves the prediction smoothly instead of being swallowed by the search's speed quantisation.
struct RingSpeeds {
  double per_ring = 1e300, route_total = 1e300;
  double intra_lane = 1e300, intra_total = 1e300; // the same over hops inside a host only
  double inter_lane = 1e300, inter_total = 1e300; // and over hops between hosts (the NIC paths)
  bool all_nvlink = true;
};
RingSpeeds ring_speeds(const Topology& t, const Tables& tab, const Graph& g) {
  RingSpeeds s;
  topology::Router router(t);
  for (const auto& ring : g.rings)
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const int ga = ring[i], gb = ring[(i + 1) % ring.size()];
      const int a = t.gpu_node(ga), b = t.gpu_node(gb);
      if (a == b) continue;
      const bool inter = g.host_of_gpu[static_cast<std::size_t>(ga)] != g.host_of_gpu[static_cast<std::size_t>(gb)];
      double lane_min = 1e300, cap_min = 1e300;
      for (auto c : router.route(a, b)) {
        const auto& l = t.link_of(c);
        if (!inter && !topology::is_nvlink(l.type) && l.type != topology::LinkType::Xgmi) s.all_nvlink = false;
        lane_min = std::min(lane_min, tab.lane_GBps(t, l));
        cap_min = std::min(cap_min, tab.lane_GBps(t, l) * l.lanes);
      }
      s.per_ring = std::min(s.per_ring, lane_min);
      s.route_total = std::min(s.route_total, cap_min);
      if (!inter) s.intra_lane = std::min(s.intra_lane, lane_min), s.intra_total = std::min(s.intra_total, cap_min);
      else s.inter_lane = std::min(s.inter_lane, lane_min), s.inter_total = std::min(s.inter_total, cap_min);
    }
  return s;
}

// The most rings any directed GPU pair's direct lanes carry per lane over `rings` (1 when each ring hop has a
// lane of its own; hops without a direct link are left out: their routes are the search's business).
double rings_per_lane(const Topology& t, const std::vector<std::vector<int>>& rings) {
  std::map<std::pair<int, int>, int> uses; // per directed pair
  for (const auto& ring : rings)
    for (std::size_t i = 0; ring.size() > 1 && i < ring.size(); ++i) ++uses[{t.gpu_node(ring[i]), t.gpu_node(ring[(i + 1) % ring.size()])}];
  const auto undirected = [](int a, int b) { return std::pair{std::min(a, b), std::max(a, b)}; };
  std::map<std::pair<int, int>, int> lanes; // between each used pair, either way, in one pass over the links
  for (const auto& [pair, n] : uses) lanes[undirected(pair.first, pair.second)] = 0;
  for (const auto& l : t.links)
    if (const auto it = lanes.find(undirected(l.a, l.b)); it != lanes.end()) it->second += l.lanes;
  double most = 1.0;
  for (const auto& [pair, n] : uses)
    if (const int k = lanes.at(undirected(pair.first, pair.second)); k > 0) most = std::max(most, static_cast<double>(n) / k);
  return most;
}

// NVSwitch machines: NCCL spreads a GPU's channels over all its NVLinks into the switch plane, even when
// a preset draws one link per switch and a route takes only one of them. 0 when not all GPUs have such links.
double nvswitch_total(const Topology& t, const Tables& tab, const std::vector<int>& gpus) {
  if (gpus.empty()) return 0;
  // Each node's NVLink lanes into switches, in one pass over the links (`gpus` may be a whole cluster's).
  std::vector<double> into_switch(t.nodes.size(), 0.0);
  const auto is_switch = [&](int n) { return t.nodes[static_cast<std::size_t>(n)].kind == topology::NodeKind::NvSwitch; };
  for (const auto& l : t.links) {
    if (!topology::is_nvlink(l.type) || l.a == l.b) continue;
    if (is_switch(l.b)) into_switch[static_cast<std::size_t>(l.a)] += tab.lane_GBps(l) * l.lanes;
    if (is_switch(l.a)) into_switch[static_cast<std::size_t>(l.b)] += tab.lane_GBps(l) * l.lanes;
  }
  double total = 1e300;
  for (int gpu : gpus) {
    const double sum = into_switch[static_cast<std::size_t>(t.gpu_node(gpu))];
    if (sum <= 0) return 0;
    total = std::min(total, sum);
  }
  return total;
}

// One ring through switches: NCCL's pass-1 speed search (search.cc ncclTopoCompute, v2.19-v2.30 alike). It
// starts at the first search speed the GPU's links carry (speedArrayIntra), fits as many channels as the links
// take at each speed, keeps a slower speed only when channels x speed grows, and lowers the speed while the next
// one is above 0.49 of the best kept and channels x speed is below the GPU's total (totalBw), or until the
// channels reach the search's maximum. 8 NVLink4 lanes (H800, 164.8 GB/s): 2 x 60, 3 x 50, then 4 x 40 kept;
// taking the first speed that fits gave 2 x 60.
void split_into_channels(const Tables& tab, Graph& g, double route_total) {
  const auto& speeds = tab.speed_intra[static_cast<std::size_t>(g.arch)];
  std::size_t i = 0;
  while (i < speeds.size() && speeds[i] > route_total + 1e-9) ++i;
  if (i == speeds.size()) { // slower than the smallest search speed: one channel at what is there
    g.channels = 1;
    g.bw = route_total;
    g.graph_efficiency = 1.0;
    return;
  }
  // (Clamped in double first: a single GPU has no hop, and route_total stays at its 1e300 "unbounded".)
  const auto fit = [&](double speed) { return std::max(1, static_cast<int>(std::min<double>(tab.max_search_channels, std::floor(route_total / speed + 1e-9)))); };
  int channels = fit(speeds[i]);
  double bw = speeds[i];
  for (++i; i < speeds.size() && channels < tab.max_search_channels && channels * bw < route_total - 1e-9 && speeds[i] / bw > 0.49; ++i)
    if (const int c = fit(speeds[i]); c * speeds[i] > channels * bw + 1e-9) channels = c, bw = speeds[i];
  g.channels = channels;
  g.bw = bw;
  g.graph_efficiency = std::min(1.0, g.channels * g.bw / route_total);
}

// ncclTopoDupChannels: fast channels are split in two of half the speed. The total is unchanged, but the
// per-channel caps (LL128, tree) and the CUDA channel count follow the doubled count.
void dup_channels(const Tables& tab, Graph& g) {
  const bool newer = g.arch > Arch::Ampere;
  const bool skip = newer && g.bw < tab.dup_newer_than_ampere_min_bw && g.channels > tab.dup_newer_than_ampere_max_channels;
  if (g.bw >= tab.dup_min_bw && !skip && 2 * g.channels <= tab.max_search_channels) {
    g.channels *= 2;
    g.bw /= 2;
  }
}

// NCCL's tree bandwidth per search channel. tuning.cc takes the tree graph's bwIntra on up to 2 nodes
// (`nNodes <= 2 ? bwIntra : bwInter`), and search.cc pass 2 raises a tree's bwIntra while it is below 2x
// bwInter and the intra-node chain still carries every channel: on 2 nodes the double binary tree is one
// inter-node hop, which carries each channel's share up (reduce) and down (broadcast) at once, one per
// direction, where a ring's crossing carries 2(n-1)/n of it one way. So bwInter (the NIC per channel) counts
// twice (bwInter: the slowest lane of a channel's path between hosts, the NIC or its PCIe path) where a GPU's
// intra-node links give each channel that much (NVSwitch: the GPU's switch links over the channels; direct
// rings: their own lane). Where they give less, NCCL raises bwIntra only part way; ccsim keeps the ring's
// figure there (not modelled: the one such trace, 2 DGX-1 nodes on NCCL 2.5.6 with single NVLink2 lanes,
// measured ring-level busbw, and the replay of such an intra-bound tree/Simple on 2 HGX A100 nodes with
// 8 x 200G loses 0.6 % busbw from 256 MiB to 2 GiB, a lock-step fair-sharing drift). Called before the
// channels are duplicated. RCCL keeps bw: its measured ratios are relative to it.
double tree_bw_of(const Topology& t, const Tables& tab, const Graph& g, const RingSpeeds& s, bool direct) {
  if (g.nodes != 2 || tab.rccl || g.rings.empty()) return g.bw;
  const double nvs = nvswitch_total(t, tab, first_host_gpus(g));
  const double intra = direct ? std::max(s.intra_lane, nvs / g.channels) : std::max(s.intra_total, nvs) / g.channels;
  const double inter = direct ? s.inter_lane : s.inter_total / g.channels;
  return inter < 1e300 && intra + 1e-9 >= 2.0 * inter ? std::max(g.bw, 2.0 * inter) : g.bw;
}

} // namespace

// NCCL's localGpu of a NIC (topo.cc ncclTopoGetLocalGpu): of the GPUs nearest to the NIC, the first whose
// channel-0 NIC it is, and a GPU's channel-0 NIC is its device index modulo the GPUs local to the NIC, so
// n GPUs behind one PCIe switch with n NICs get one NIC each (two heads per switch on a DGX A100).
std::vector<NicHead> nic_heads(const Topology& t, const Tables& tab, topology::Router& router, const std::vector<int>& gpus,
                               std::vector<int>* nics, std::vector<double>* nic_GBps) {
  const auto hosts = topology::host_map(t);
  const int host = hosts.of_gpu(t, gpus.front());
  std::map<int, double> ports_of, path_of; // head GPU -> its NICs' ports summed, the slowest path to them
  for (std::size_t node = 0; node < t.nodes.size(); ++node) {
    if (t.nodes[node].kind != topology::NodeKind::Nic || hosts.of_node[node] != host) continue;
    double ports = 0;
    for (int li : router.incident(static_cast<int>(node)))
      if (const auto& l = t.links[static_cast<std::size_t>(li)]; topology::is_network(l.type)) ports += tab.lane_GBps(l) * l.lanes;
    int best = -1;
    std::size_t hops = SIZE_MAX;
    double path = 0;
    for (int gpu : gpus) {
      if (hosts.of_gpu(t, gpu) != host) continue;
      const auto route = router.route(t.gpu_node(gpu), static_cast<int>(node));
      if (route.empty() || route.size() > hops) continue;
      // The tie rule: an equally near GPU replaces the pick only if it has no NIC yet and the pick has one.
      if (route.size() == hops && (ports_of.count(gpu) || !ports_of.count(best))) continue;
      hops = route.size(), best = gpu, path = 1e300;
      for (auto c : route) path = std::min(path, tab.lane_GBps(t, t.link_of(c)) * t.link_of(c).lanes);
    }
    if (best < 0 || ports <= 0) continue;
    if (nics) nics->push_back(static_cast<int>(node));
    if (nic_GBps) nic_GBps->push_back(std::min(ports, path));
    ports_of[best] += ports;
    path_of[best] = path_of.count(best) ? std::min(path_of[best], path) : path;
  }
  std::vector<NicHead> heads;
  for (const auto& [gpu, ports] : ports_of) heads.push_back({gpu, std::min(ports, path_of[gpu])});
  return heads;
}

namespace {

// Search channels of NCCL's ring across nodes at one speed: each channel enters a host through a NIC and
// leaves through one (its own: NCCL's crossNic off), and passes every GPU once, in and out through its
// switch links. So a GPU's NVSwitch bandwidth carries floor(total / speed) channels, a NIC
// floor(its GB/s / speed), and the search keeps at most max_search_channels.
int inter_ring_channels(const Tables& tab, double switch_total, const std::vector<double>& nics, double speed) {
  double by_nics = 0;
  for (double n : nics) by_nics += std::floor(n / speed + 1e-9);
  return static_cast<int>(std::min({static_cast<double>(tab.max_search_channels), std::floor(switch_total / speed + 1e-9), by_nics}));
}

} // namespace

// search.cc ncclTopoCompute, ring pattern with a network: speeds from speedArrayInter, starting at the first
// one a NIC path carries (system->maxBw); a lower speed is kept when channels x speed grows, the search stops
// once every channel fits (maxChannels), once channels x speed reaches the GPU's bandwidth (totalBw), or when
// the next speed falls to 0.49 of the best; pass 2 then raises the speed while the channels still fit.
std::size_t first_inter_speed(const std::vector<double>& speeds, double max_nic_GBps) {
  std::size_t i = 0;
  while (i + 1 < speeds.size() && speeds[i] > max_nic_GBps + 1e-9) ++i;
  return i;
}

std::vector<int> first_host_gpus(const Graph& g) {
  std::vector<int> host;
  if (g.rings.empty() || g.rings.front().empty()) return host;
  const int first = g.host_of_gpu[static_cast<std::size_t>(g.rings.front().front())];
  for (int gpu : g.rings.front())
    if (g.host_of_gpu[static_cast<std::size_t>(gpu)] == first) host.push_back(gpu);
  return host;
}

InterRing inter_ring_search(const Tables& tab, Arch arch, double switch_total, const std::vector<double>& nics) {
  InterRing best;
  if (!tab.nvls || nics.empty() || switch_total <= 0) return best;
  const auto& speeds = tab.nvls->speed_inter[static_cast<std::size_t>(arch)];
  for (std::size_t i = first_inter_speed(speeds, *std::max_element(nics.begin(), nics.end())); i < speeds.size(); ++i) {
    if (best.channels > 0 && speeds[i] / best.bw <= 0.49) break;
    const int ch = inter_ring_channels(tab, switch_total, nics, speeds[i]);
    if (ch > 0 && ch * speeds[i] > best.channels * best.bw + 1e-9) best = {ch, speeds[i]};
    if (best.channels == tab.max_search_channels || best.channels * best.bw + 1e-9 >= switch_total) break;
  }
  if (best.channels == 0) return best;
  auto it = std::find(speeds.begin(), speeds.end(), best.bw);
  while (it != speeds.begin() && inter_ring_channels(tab, switch_total, nics, *(it - 1)) >= best.channels) best.bw = *--it;
  return best;
}

namespace {

// search.cc NVLS pattern with a network: one channel per head (at most the NVLS arity and the GPUs of a
// host), searched over the inter-node speeds from the fastest a head's NIC path carries down; a GPU
// carries every channel once on its switch links and its own channel's share once more. NCCL keeps the
// graph with more channels, then the larger channels x speed, and stops once a speed is under half the
// best. Pass 2 raises bwInter while the NICs carry it and it is below 2x bwIntra.
void nvls_tree_graph(const Topology& t, const Tables& tab, Graph& g, const std::vector<int>& gpus, double total) {
  auto& n = g.nvls;
  const auto& speeds = tab.nvls->speed_inter[static_cast<std::size_t>(g.arch)];
  topology::Router router(t);
  const auto heads = nic_heads(t, tab, router, gpus);
  int ppn = 0;
  for (int gpu : gpus) ppn += g.host_of_gpu[static_cast<std::size_t>(gpu)] == g.host_of_gpu[static_cast<std::size_t>(gpus.front())];
  if (heads.empty() || speeds.empty()) return n = {}, void(n.why_not = "NVLS-tree needs NICs on the hosts (NCCL's NVLS heads)");
  if (ppn < 2) return n = {}, void(n.why_not = "NVLS-tree needs at least 2 GPUs per node");
  double max_bw = 0;
  for (const auto& h : heads) max_bw = std::max(max_bw, h.GBps);
  int best_ch = 0;
  double best_bw = 0;
  for (double s : speeds) {
    if (s > max_bw + 1e-9) continue;
    if (best_ch > 0 && s / best_bw <= 0.49) break;
    int fitting_heads = 0;
    for (const auto& h : heads) fitting_heads += h.GBps + 1e-9 >= s;
    const int k = std::min({tab.nvls->max_arity, ppn, fitting_heads, static_cast<int>(std::floor(total / s + 1e-9)) - 1});
    if (k > best_ch || (k > 0 && k * s > best_ch * best_bw)) best_ch = k, best_bw = s;
  }
  if (best_ch < 1) return n = {}, void(n.why_not = "the NVSwitch links are too slow for NCCL's NVLS search");
  n.channels = best_ch;
  n.switch_GBps = total;
  n.bw_intra = n.bw_inter = best_bw;
  std::vector<double> head_bws;
  for (const auto& h : heads) head_bws.push_back(h.GBps);
  std::sort(head_bws.rbegin(), head_bws.rend());
  const double nic_cap = head_bws[static_cast<std::size_t>(std::min<int>(best_ch, static_cast<int>(head_bws.size())) - 1)];
  n.nic_GBps = nic_cap;
  n.ppn = ppn;
  for (auto it = speeds.rbegin(); it != speeds.rend(); ++it)
    if (*it > n.bw_inter && n.bw_inter < 2 * n.bw_intra && *it <= nic_cap + 1e-9) n.bw_inter = *it;
  n.tree = true;
}

// search.cc NVLS pattern on one NVLink domain of p GPUs (graph.cpp nvls_graph says how). channels 0: too slow.
struct DomainNvls {
  int channels = 0;
  double bw_intra = 0, bw_inter = 0;
};
DomainNvls one_domain_search(const Tables& tab, Arch arch, int p, double total) {
  const auto& speeds = tab.speed_intra[static_cast<std::size_t>(arch)];
  const int nch = std::min(tab.nvls->max_arity, p);
  const double head_load = nch + 1.0; // a head GPU's link carries its channel's share twice
  const double widened = total * p / (p - 1.0);
  std::size_t i = 0;
  while (i + 1 < speeds.size() && (speeds[i] > total || speeds[i] * nch > widened)) ++i;
  while (i + 1 < speeds.size() && speeds[i] * head_load > total + 1e-9) ++i;
  if (speeds[i] * head_load > total + 1e-9) return {};
  DomainNvls d{nch, speeds[i], 0};
  while (i > 0 && speeds[i] < 2 * d.bw_intra) --i;
  d.bw_inter = speeds[i];
  return d;
}

// search.cc NVLS pattern: the first speed (from the top, at most what nch channels can share of the
// switch bandwidth, widened by n/(n-1) as for every non-ring pattern) where nch channels plus the head's
// second share fit on a GPU's switch links; then pass 2 raises bw_inter while it is below 2x bw_intra.
void nvls_graph(const Topology& t, const Tables& tab, Graph& g, const std::vector<int>& placement) {
  auto& n = g.nvls;
  // Several nodes: each host's NVLink domain is searched on its own (the first host's, hosts alike).
  std::vector<int> gpus;
  for (int gpu : placement)
    if (g.host_of_gpu[static_cast<std::size_t>(gpu)] == g.host_of_gpu[static_cast<std::size_t>(placement.front())]) gpus.push_back(gpu);
  const auto no = [&](std::string why) { n = {}, n.why_not = std::move(why); };
  if (!tab.nvls) return no("the NCCL tables have no NVLS entry");
  if (gpus.size() < 2) return no("NVLS needs at least 2 GPUs");
  if (g.arch < Arch::Hopper || tab.nvls->efficiency[static_cast<std::size_t>(g.arch)] <= 0)
    return no(fmt::format("NVLS needs Hopper or newer GPUs (arch {})", name(g.arch)));
  // Switches every GPU reaches with NVLink, weighted by the lanes of the first GPU. NVLink lanes per (switch,
  // GPU node) in one pass over the links (per switch and GPU it was quadratic in a cluster's size).
  std::map<int, std::map<int, int>> lanes_at; // switch node -> GPU node -> lanes
  std::set<int> gpu_nodes;
  for (int gpu : gpus) gpu_nodes.insert(t.gpu_node(gpu));
  for (const auto& l : t.links) {
    if (!topology::is_nvlink(l.type)) continue;
    for (auto [sw, gn] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}})
      if (t.nodes[static_cast<std::size_t>(sw)].kind == topology::NodeKind::NvSwitch && gpu_nodes.count(gn)) lanes_at[sw][gn] += l.lanes;
  }
  for (const auto& [sw, by_gpu] : lanes_at) {
    int lanes_first = 0;
    bool all = true;
    for (int gpu : gpus) {
      const auto it = by_gpu.find(t.gpu_node(gpu));
      const int lanes = it == by_gpu.end() ? 0 : it->second;
      if (lanes == 0) all = false;
      if (gpu == gpus.front()) lanes_first = lanes;
    }
    if (all) n.switches.push_back(sw), n.weights.push_back(lanes_first);
  }
  const double total = nvswitch_total(t, tab, gpus);
  if (n.switches.empty() || total <= 0) return no("NVLS needs an NVSwitch that every GPU links to with NVLink");
  const auto domain = one_domain_search(tab, g.arch, static_cast<int>(gpus.size()), total);
  if (g.nodes > 1) {
    nvls_tree_graph(t, tab, g, placement, total);
    if (n.tree) n.domain_channels = domain.channels, n.domain_bw = domain.bw_intra;
    return;
  }
  if (domain.channels == 0) return no("the NVSwitch links are too slow for NCCL's NVLS search");
  n.channels = domain.channels;
  n.switch_GBps = total;
  n.bw_intra = domain.bw_intra;
  n.bw_inter = domain.bw_inter;
}

} // namespace

namespace {
// Several hosts whose GPUs all reach NVSwitches (HGX/DGX boxes, NVL72 racks as NCCL nodes): NCCL's ring
// search across nodes over the first host's GPUs and NICs. channels 0 otherwise (one host, direct links).
struct SwitchRing : InterRing {
  double switch_total = 0; // a GPU's NVSwitch bandwidth
  double carried = 0;      // what the rings' links carry at most: min(switch_total, the host's NICs)
  int nics = 0;            // the host's NIC ports (NCCL's net devices)
  double port_GBps = 0;    // the fastest of them
};
SwitchRing nvswitch_hosts_ring(const Topology& t, const Tables& tab, const Graph& g) {
  if (g.nodes < 2 || g.rings.empty() || tab.rccl) return {};
  const std::vector<int> host = first_host_gpus(g);
  const double total = nvswitch_total(t, tab, host);
  if (host.size() < 2 || total <= 0) return {};
  topology::Router router(t);
  std::vector<double> nics;
  nic_heads(t, tab, router, host, nullptr, &nics);
  SwitchRing r;
  static_cast<InterRing&>(r) = inter_ring_search(tab, g.arch, total, nics);
  r.switch_total = total;
  double nic_sum = 0;
  for (double n : nics) nic_sum += n;
  r.carried = std::min(total, nic_sum);
  // NCCL's NICs are network ports (one net device each, mlx5_0:1 ...): a ccsim NIC node of two ports (the
  // generator's 10 NICs by 8 GPUs: two GPUs with two) counts twice.
  const auto hosts = topology::host_map(t);
  const int h = hosts.of_gpu(t, host.front());
  for (std::size_t node = 0; node < t.nodes.size(); ++node)
    if (t.nodes[node].kind == topology::NodeKind::Nic && hosts.of_node[node] == h)
      for (int li : router.incident(static_cast<int>(node)))
        if (const auto& l = t.links[static_cast<std::size_t>(li)]; topology::is_network(l.type))
          r.nics += l.lanes, r.port_GBps = std::max(r.port_GBps, tab.lane_GBps(l));
  return r;
}
} // namespace

namespace {

// Hosts whose GPUs have no NVLink or xGMI (PCIe boxes, L40S, RTX) across nodes: NCCL's ring search with a
// network (search.cc ncclTopoCompute, ncclTopoSearchRec from a NET, followPath), read at NVIDIA/nccl master
// and v2.19.4-1 (the same rules). NCCL's links are one per direction (topo.cc ncclTopoConnectNodes both ways)
// and followPath subtracts the channel's speed from every link of every path the channel takes, NET -> GPU,
// GPU -> GPU and GPU -> NET alike: a ring channel enters and leaves each GPU once, so a GPU's x16 port carries
// it once each way, the peer hop and the network hop in opposite directions. Three rules make it tighter:
// a path from a NIC into a GPU older than compute capability 8.0 also takes 1/8 of the speed from the GPU's
// link in the reverse direction (followPath: revBw = fwBw / 8), a GPU-started path through one Intel root
// complex takes 6/5 on its PCIe links (INTEL_P2P_OVERHEAD), and channels are searched from
// speedArrayInter, starting at the fastest GPU -> NET path (system->maxBw) and at most the GPU's PCIe link
// (system->totalBw); pass 1 keeps the speed with the most channels x speed, stopping once a speed falls to
// 0.49 of the best or channels x speed reaches totalBw; pass 2 raises the speed while the channels still fit.
// Each channel follows the placement's rings in turn (NCCL's sameChannels replay), through the routes of the
// drawing; links outside the hosts (the fabric behind the NIC ports) are not NCCL's to see. channels 0: not
// such a machine.
struct PcieRing {
  int channels = 0;
  double bw = 0;
  double carried = 0; // what the rings' links carry at most (channels x speed's ceiling, the replay's view)
  // NCCL's tree graph on these hosts: its own channels, bwInter, bwIntra (tree_channels 0: none found).
  int tree_channels = 0;
  double tree_inter = 0, tree_intra = 0;
  bool same_channels_only = false; // one GPU order for every channel (Graph::same_channels_only)
};
PcieRing pcie_hosts_ring(const Topology& t, const Tables& tab, const Graph& g, bool amd_sys_same_channels) {
  if (g.nodes < 2 || g.rings.empty() || tab.rccl || !tab.nvls) return {};
  for (const auto& ring : g.rings)
    if (ring.empty()) return {};
  const auto gpu_end = [&](const topology::Link& l) {
    return t.nodes[static_cast<std::size_t>(l.a)].kind == topology::NodeKind::Gpu || t.nodes[static_cast<std::size_t>(l.b)].kind == topology::NodeKind::Gpu;
  };
  for (const auto& l : t.links)
    if ((topology::is_nvlink(l.type) || l.type == topology::LinkType::Xgmi) && gpu_end(l)) return {};
  const auto hosts = topology::host_map(t);
  const auto in_host = [&](const topology::Link& l) {
    return hosts.of_node[static_cast<std::size_t>(l.a)] >= 0 || hosts.of_node[static_cast<std::size_t>(l.b)] >= 0;
  };
  const bool reverse_eighth = g.arch < Arch::Ampere; // cudaCompCap < 80
  // The CPU's vendor (Graph::amd_cpu: what the description says, else AMD where xGMI joins the sockets), Arm on Grace.
  const bool intel = !g.amd_cpu && !g.arm_cpu;
  // typeIntra SYS: a hop of the first ring between two GPUs of one host crosses the CPU sockets' link (no NVLink
  // here, so every ring through those GPUs does).
  bool same_channels_only = false;
  if (g.amd_cpu && !g.arm_cpu && amd_sys_same_channels) {
    const topology::PathClassifier path_class(t);
    const auto& ring = g.rings.front();
    for (std::size_t i = 0; i < ring.size() && !same_channels_only; ++i) {
      const int a = ring[i], b = ring[(i + 1) % ring.size()];
      same_channels_only = a != b && g.host_of_gpu[static_cast<std::size_t>(a)] == g.host_of_gpu[static_cast<std::size_t>(b)] &&
                           path_class(a, b) == topology::PathClass::Sys;
    }
  }
  topology::Router router(t);
  // One ring's directed links inside the hosts and how many channel speeds each carries per channel: `search`
  // as NCCL's search counts them (the two overheads), `moved` as the replay moves them; each in ascending
  // directed-link order, no link twice.
  using Loads = std::vector<std::pair<topology::ChannelId, double>>;
  struct Load {
    Loads search, moved;
  };
  const auto is_cpu = [&](int node) { return t.nodes[static_cast<std::size_t>(node)].kind == topology::NodeKind::Cpu; };
  const auto is_nic = [&](int node) { return t.nodes[static_cast<std::size_t>(node)].kind == topology::NodeKind::Nic; };
  // NCCL's path between two GPUs of one host never leaves the host (its system has no link past a NET):
  // where ccsim's router loops a pair through two NICs and the fabric, the search takes the fewest hops
  // inside the host instead, through no other GPU (the CPUs' socket link: NCCL's SYS path).
  const auto host_route = [&](int a, int b) {
    return router.fewest_hops(a, b, [](const topology::Link& l) { return !topology::is_network(l.type); });
  };
  // What one ring hop ga -> gb adds, in the order ring_load adds it. The orientations below put the same GPU
  // pairs next to each other again and again, so each pair's hop is routed once.
  struct Hop {
    std::vector<topology::ChannelId> moved;                      // +1 each
    std::vector<std::pair<topology::ChannelId, double>> search; // + the amount each
  };
  std::unordered_map<std::uint64_t, Hop> hops;
  const auto hop = [&](int ga, int gb) -> const Hop& {
    const auto key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(ga)) << 32) | static_cast<std::uint32_t>(gb);
    const auto [at, fresh] = hops.try_emplace(key);
    Hop& h = at->second;
    if (!fresh) return h;
    const int a = t.gpu_node(ga), b = t.gpu_node(gb);
    if (a == b) return h;
    const auto drawn = router.route(a, b);
    const bool inter = g.host_of_gpu[static_cast<std::size_t>(ga)] != g.host_of_gpu[static_cast<std::size_t>(gb)];
    for (auto c : drawn)
      if (in_host(t.link_of(c))) h.moved.push_back(c);
    const bool loops_out = !inter && std::any_of(drawn.begin(), drawn.end(), [&](auto c) { return topology::is_network(t.link_of(c).type); });
    const std::vector<topology::ChannelId> route = loops_out ? host_route(a, b) : std::vector<topology::ChannelId>(drawn.begin(), drawn.end());
    // The part NCCL starts at a GPU: the whole peer hop, or up to the NIC (GPU -> NET). Through exactly one
    // CPU's root complex (PATH_PHB; two CPUs are SYS) on an Intel host its PCIe links carry 6/5 of the
    // speed (INTEL_P2P_OVERHEAD: the CPU turns P2P into 64 B TLPs).
    std::size_t from_gpu = 0;
    int cpus = 0;
    for (; from_gpu < route.size(); ++from_gpu) {
      const int head = t.channel_to(route[from_gpu]);
      if (inter && is_nic(head)) break;
      cpus += is_cpu(head);
    }
    const double pci = cpus == 1 && intel ? 6.0 / 5 : 1.0;
    for (std::size_t k = 0; k < route.size(); ++k) {
      const auto c = route[k];
      if (in_host(t.link_of(c))) h.search.emplace_back(c, k <= from_gpu && topology::is_pcie(t.link_of(c).type) ? pci : 1.0);
    }
    // NET -> GPU into a GPU below sm80: the GPU's link the other way carries an eighth (followPath revBw).
    if (inter && reverse_eighth && !route.empty()) h.search.emplace_back(route.back() ^ 1, 1.0 / 8);
    return h;
  };
  // A ring's hops summed per directed link, in hop order (so each sum is the same double whatever holds it),
  // in one dense array per kind; `touched` lists the links a ring reached, and the arrays are left zeroed.
  std::vector<double> sum_search(2 * t.links.size()), sum_moved(2 * t.links.size());
  std::vector<topology::ChannelId> touched_search, touched_moved;
  const auto drain = [](std::vector<double>& sum, std::vector<topology::ChannelId>& touched) {
    std::sort(touched.begin(), touched.end());
    Loads out;
    out.reserve(touched.size());
    for (auto c : touched) out.emplace_back(c, std::exchange(sum[c], 0.0));
    touched.clear();
    return out;
  };
  const auto ring_load = [&](const std::vector<int>& ring) {
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const Hop& h = hop(ring[i], ring[(i + 1) % ring.size()]);
      for (auto c : h.moved) {
        if (sum_moved[c] == 0) touched_moved.push_back(c);
        sum_moved[c] += 1;
      }
      for (const auto& [c, n] : h.search) {
        if (sum_search[c] == 0) touched_search.push_back(c); // every amount is positive
        sum_search[c] += n;
      }
    }
    return Load{drain(sum_search, touched_search), drain(sum_moved, touched_moved)};
  };
  // A directed link's speed, once per link: the channel search asks it for every link of every ring it tries.
  std::vector<double> link_GBps = tab.lane_GBps_all(t);
  for (std::size_t li = 0; li < t.links.size(); ++li) link_GBps[li] *= t.links[li].lanes;
  const auto cap = [&](topology::ChannelId c) { return link_GBps[c / 2]; };
  // Channels that fit at one speed: channel k takes ring k mod R (NCCL's sameChannels replay).
  // Loads only grow with k, so only the links channel k adds to can newly overflow: checking those alone gives
  // the same k as checking every link (on 512 PCIe hosts the full check was most of the sweep's set-up).
  std::vector<double> carried_by(2 * t.links.size()); // per directed link, the channels fitted so far
  const auto fit = [&](const std::vector<Load>& loads, double speed) {
    std::fill(carried_by.begin(), carried_by.end(), 0.0);
    for (int k = 0; k < tab.max_search_channels; ++k)
      for (const auto& [c, n] : loads[static_cast<std::size_t>(k) % loads.size()].search)
        if ((carried_by[c] += n) * speed > cap(c) + 1e-6) return k;
    return tab.max_search_channels;
  };
  // system->maxBw: the fastest GPU -> NIC path of the first host (NCCL's path bandwidth is its slowest
  // link, the NIC's network port included); system->totalBw: a GPU's PCIe link.
  const int host0 = g.host_of_gpu[static_cast<std::size_t>(g.rings.front().front())];
  double max_bw = 0, total_bw = 0;
  for (int gpu = 0; gpu < t.num_gpus(); ++gpu) {
    if (g.host_of_gpu[static_cast<std::size_t>(gpu)] != host0) continue;
    const int node = t.gpu_node(gpu);
    for (int li : router.incident(node))
      if (const auto& l = t.links[static_cast<std::size_t>(li)]; topology::is_pcie(l.type)) total_bw = std::max(total_bw, tab.lane_GBps(t, l) * l.lanes);
    for (std::size_t nic = 0; nic < t.nodes.size(); ++nic) {
      if (!is_nic(static_cast<int>(nic)) || hosts.of_node[nic] != host0) continue;
      const auto route = router.route(node, static_cast<int>(nic));
      if (route.empty()) continue;
      double path = 1e300;
      for (auto c : route) path = std::min(path, cap(c));
      for (int li : router.incident(static_cast<int>(nic)))
        if (const auto& l = t.links[static_cast<std::size_t>(li)]; topology::is_network(l.type)) path = std::min(path, tab.lane_GBps(t, l) * l.lanes);
      max_bw = std::max(max_bw, path);
    }
  }
  const auto& speeds = tab.nvls->speed_inter[static_cast<std::size_t>(g.arch)];
  if (speeds.empty() || max_bw <= 0 || total_bw <= 0) return {};
  const auto search = [&](const std::vector<Load>& loads) {
    PcieRing best;
    for (std::size_t i = first_inter_speed(speeds, std::min(max_bw, total_bw)); i < speeds.size(); ++i) {
      if (best.channels > 0 && speeds[i] / best.bw <= 0.49) break;
      const int ch = fit(loads, speeds[i]);
      if (ch > 0 && ch * speeds[i] > best.channels * best.bw + 1e-9) best.channels = ch, best.bw = speeds[i];
      if (best.channels == tab.max_search_channels || (best.channels > 0 && best.channels * best.bw + 1e-9 >= total_bw)) break;
    }
    if (best.channels == 0) return best;
    for (auto it = std::find(speeds.begin(), speeds.end(), best.bw); it != speeds.begin() && fit(loads, *(it - 1)) >= best.channels;)
      best.bw = *--it;
    return best;
  };
  // NCCL searches the GPUs' order inside a host too (which GPU the NIC feeds, which hops cross a root
  // complex); ccsim tries its rings with every host's run of GPUs rotated and reversed alike, a subset of
  // NCCL's orders, and keeps the first with the most channels x speed (a lower bound on NCCL's figure).
  const auto reoriented = [&](const std::vector<int>& ring, std::size_t rot, bool reverse) {
    std::vector<int> out;
    for (std::size_t i = 0; i < ring.size();) {
      std::size_t j = i;
      while (j < ring.size() && g.host_of_gpu[static_cast<std::size_t>(ring[j])] == g.host_of_gpu[static_cast<std::size_t>(ring[i])]) ++j;
      std::vector<int> run(ring.begin() + static_cast<std::ptrdiff_t>(i), ring.begin() + static_cast<std::ptrdiff_t>(j));
      std::rotate(run.begin(), run.begin() + static_cast<std::ptrdiff_t>(rot % run.size()), run.end());
      if (reverse) std::reverse(run.begin(), run.end());
      out.insert(out.end(), run.begin(), run.end());
      i = j;
    }
    return out;
  };
  std::size_t longest = 0; // the longest run of one host's GPUs in a ring: the rotations that differ
  for (const auto& ring : g.rings)
    for (std::size_t i = 0, j = 0; i < ring.size(); i = j) {
      while (j < ring.size() && g.host_of_gpu[static_cast<std::size_t>(ring[j])] == g.host_of_gpu[static_cast<std::size_t>(ring[i])]) ++j;
      longest = std::max(longest, j - i);
    }
  // With alternate set, every other channel runs the reversed order (NCCL's sameChannels 0 pass lets each
  // channel take its own order): a ring that crosses a socket link once then uses both of its directions.
  // On an x86 AMD host whose rings need a SYS hop (GPUs under both sockets: typeIntra SYS) NCCL 2.19.1 on skips
  // that pass (search.cc ncclTopoCompute: "except when going through AMD CPUs"): every channel replays channel
  // 0's order (ncclTopoSearchRecNet, FORCED_ORDER_REPLAY), so one order, ring 0's, is tried for all channels.
  const int alternates = same_channels_only ? 1 : 2;
  const std::size_t orders = same_channels_only ? 1 : g.rings.size();
  PcieRing best;
  for (int alternate = 0; alternate < alternates; ++alternate)
    for (int reverse = 0; reverse < 2; ++reverse)
      for (std::size_t rot = 0; rot < longest; ++rot) {
        std::vector<Load> loads;
        for (std::size_t o = 0; o < orders; ++o) {
          const auto& ring = g.rings[o];
          loads.push_back(ring_load(reoriented(ring, rot, reverse == 1)));
          if (alternate) loads.push_back(ring_load(reoriented(ring, rot, reverse == 0)));
        }
        const auto found = search(loads);
        if (found.channels * found.bw > best.channels * best.bw + 1e-9) best = found;
      }
  best.same_channels_only = same_channels_only;
  if (best.channels == 0) return best;
  // What the links carry for the replay, which runs ccsim's own rings: the tightest directed link over
  // the channels' loads (without NCCL's two overheads, which the replay does not move).
  std::map<topology::ChannelId, double> moved;
  for (int k = 0; k < best.channels; ++k)
    for (const auto& [c, n] : ring_load(g.rings[static_cast<std::size_t>(k) % g.rings.size()]).moved) moved[c] += n;
  best.carried = 1e300;
  for (const auto& [c, n] : moved) best.carried = std::min(best.carried, cap(c) * best.channels / n);

  // NCCL's tree graph (search.cc pattern BALANCED_TREE; TREE when a host has one GPU), searched on one host as
  // the ring: NET n -> g0 at bwInter; g0 -> NET n and g1 -> NET n (the same NIC: its return and crossNic off)
  // at bwInter / 2 each ("count half of the bandwidth on the first two GPUs"); the chain g0 -> g1 -> ... -> gk
  // at bwIntra, with no hop back to g0. Each path takes the ring's overheads (the reverse eighth into a pre-sm80
  // GPU from the NIC, 6/5 on a GPU-started PHB path on Intel) and the NIC's port bwInter per channel. The orders
  // tried are the first host's runs of the ring orders above, entering at their ring's NIC.
  struct TreeLoad {
    std::map<topology::ChannelId, double> inter, intra; // speeds carried per channel, of bwInter and of bwIntra
  };
  const auto add_path = [&](std::map<topology::ChannelId, double>& to, const std::vector<topology::ChannelId>& route, double share) {
    int cpus = 0;
    const bool from_gpu = !route.empty() && t.nodes[static_cast<std::size_t>(t.channel_from(route.front()))].kind == topology::NodeKind::Gpu;
    for (std::size_t k = 0; k + 1 < route.size(); ++k) cpus += is_cpu(t.channel_to(route[k]));
    const double pci = from_gpu && cpus == 1 && intel ? 6.0 / 5 : 1.0;
    for (auto c : route)
      if (in_host(t.link_of(c))) to[c] += share * (topology::is_pcie(t.link_of(c).type) ? pci : 1.0);
  };
  const auto net_port = [&](int nic) { // the NIC's first network link, leaving it: its port for NCCL's net.bw
    for (int li : router.incident(nic))
      if (topology::is_network(t.links[static_cast<std::size_t>(li)].type)) return Topology::channel(li, t.links[static_cast<std::size_t>(li)].a != nic);
    return UINT32_MAX;
  };
  const auto tree_load = [&](const std::vector<int>& ring) {
    TreeLoad load;
    std::size_t first = 0; // the first host's run, g0 .. gk, and the GPU before it
    while (g.host_of_gpu[static_cast<std::size_t>(ring[first])] != host0 ||
           g.host_of_gpu[static_cast<std::size_t>(ring[(first + ring.size() - 1) % ring.size()])] == host0)
      if (++first == ring.size()) return load;
    std::vector<int> run;
    for (std::size_t i = first; g.host_of_gpu[static_cast<std::size_t>(ring[i % ring.size()])] == host0 && run.size() < ring.size(); ++i)
      run.push_back(ring[i % ring.size()]);
    const int g0 = t.gpu_node(run.front());
    const auto in = router.route(t.gpu_node(ring[(first + ring.size() - 1) % ring.size()]), g0);
    std::size_t at = in.size(); // the entry NIC: the last NIC of the first host on the drawn route into g0
    for (std::size_t k = 0; k < in.size(); ++k)
      if (const int from = t.channel_from(in[k]); is_nic(from) && hosts.of_node[static_cast<std::size_t>(from)] == host0) at = k;
    if (at == in.size()) return load;
    const int nic = t.channel_from(in[at]);
    add_path(load.inter, std::vector<topology::ChannelId>(in.begin() + static_cast<std::ptrdiff_t>(at), in.end()), 1.0);
    if (reverse_eighth) load.inter[in.back() ^ 1] += 1.0 / 8;
    if (const auto port = net_port(nic); port != UINT32_MAX) load.inter[port] += 1.0;
    const auto out = [&](int gpu, double share) {
      const auto r = router.route(t.gpu_node(gpu), nic);
      add_path(load.inter, std::vector<topology::ChannelId>(r.begin(), r.end()), share);
    };
    out(run[0], run.size() > 1 ? 0.5 : 1.0);
    if (run.size() > 1) out(run[1], 0.5);
    for (std::size_t i = 0; i + 1 < run.size(); ++i) {
      const int a = t.gpu_node(run[i]), b = t.gpu_node(run[i + 1]);
      const auto drawn = router.route(a, b);
      const bool loops_out = std::any_of(drawn.begin(), drawn.end(), [&](auto c) { return topology::is_network(t.link_of(c).type); });
      add_path(load.intra, loops_out ? host_route(a, b) : std::vector<topology::ChannelId>(drawn.begin(), drawn.end()), 1.0);
    }
    return load;
  };
  const auto tree_fit = [&](const std::vector<TreeLoad>& loads, double inter, double intra) {
    std::map<topology::ChannelId, double> used;
    for (int k = 0; k < tab.max_search_channels; ++k) {
      const auto& l = loads[static_cast<std::size_t>(k) % loads.size()];
      for (const auto& [c, n] : l.inter) used[c] += n * inter;
      for (const auto& [c, n] : l.intra) used[c] += n * intra;
      for (const auto& [c, n] : used)
        if (n > cap(c) + 1e-6) return k;
    }
    return tab.max_search_channels;
  };
  int host_gpus = 0;
  for (int gpu = 0; gpu < t.num_gpus(); ++gpu) host_gpus += g.host_of_gpu[static_cast<std::size_t>(gpu)] == host0;
  // Not a ring: no hop back to the first NIC, so the search may start from totalBw x n / (n - 1).
  const double tree_total = host_gpus > 1 ? total_bw * host_gpus / (host_gpus - 1.0) : total_bw;
  const auto tree_search = [&](const std::vector<TreeLoad>& loads) {
    std::size_t i = 0;
    while (i + 1 < speeds.size() && (speeds[i] > max_bw + 1e-9 || speeds[i] > tree_total + 1e-9)) ++i;
    PcieRing found; // channels, bw = bwInter; tree_intra = bwIntra
    for (; i < speeds.size(); ++i) {
      if (found.channels > 0 && speeds[i] / found.bw <= 0.49) break;
      const int ch = tree_fit(loads, speeds[i], speeds[i]);
      if (ch > 0 && ch * speeds[i] > found.channels * found.bw + 1e-9) found.channels = ch, found.bw = speeds[i];
      if (found.channels == tab.max_search_channels || (found.channels > 0 && found.channels * found.bw + 1e-9 >= total_bw)) break;
    }
    found.tree_intra = found.bw;
    return found;
  };
  // The ring's order sets, and (each_rotation) one where channel k takes the k-th rotation of the host's run,
  // so the heads, which carry the most (s/8 + s/2 + s up on a pre-sm80 GPU), take turns.
  // (On an AMD host at SYS, as the ring: one order for every channel, the same search rule.)
  std::vector<std::vector<TreeLoad>> order_sets;
  for (int alternate = 0; alternate < alternates; ++alternate)
    for (int reverse = 0; reverse < 2; ++reverse)
      for (std::size_t rot = 0; rot < longest; ++rot) {
        auto& loads = order_sets.emplace_back();
        for (std::size_t o = 0; o < orders; ++o) {
          const auto& ring = g.rings[o];
          loads.push_back(tree_load(reoriented(ring, rot, reverse == 1)));
          if (alternate) loads.push_back(tree_load(reoriented(ring, rot, reverse == 0)));
        }
      }
  for (int reverse = 0; reverse < 2 && !same_channels_only; ++reverse) {
    auto& loads = order_sets.emplace_back();
    for (std::size_t rot = 0; rot < longest; ++rot)
      for (const auto& ring : g.rings) loads.push_back(tree_load(reoriented(ring, rot, reverse == 1)));
  }
  PcieRing tree;
  for (const auto& loads : order_sets) {
    auto found = tree_search(loads);
    if (found.channels == 0) continue;
    // ncclTopoDupChannels between the passes, as the ring's (dup_channels); then pass 2 raises bwIntra one
    // speed at a time while it is under 2 x bwInter and the channels still fit.
    Graph dup;
    dup.arch = g.arch, dup.channels = found.channels, dup.bw = found.bw;
    dup_channels(tab, dup);
    if (dup.channels != found.channels) found.channels = dup.channels, found.bw /= 2, found.tree_intra /= 2;
    auto it = std::find_if(speeds.begin(), speeds.end(), [&](double v) { return v <= found.bw + 1e-9; });
    while (it != speeds.begin() && found.tree_intra < 2 * found.bw - 1e-9) {
      const int ch = tree_fit(loads, found.bw, *(it - 1));
      if (ch < found.channels) break;
      found.tree_intra = *--it, found.channels = ch;
    }
    if (found.channels * found.tree_intra > tree.channels * tree.tree_intra + 1e-9) tree = found;
  }
  best.tree_channels = tree.channels;
  best.tree_inter = tree.bw;
  best.tree_intra = tree.tree_intra;
  return best;
}
} // namespace

Graph make_graph(const Topology& t, const Tables& tab, const std::vector<std::vector<int>>& placements,
                 const std::string& arch_override, bool amd_sys_same_channels) {
  Graph g;
  g.rings = placements;
  const auto hosts = topology::host_map(t);
  for (int gpu = 0; gpu < t.num_gpus(); ++gpu) g.host_of_gpu.push_back(hosts.of_gpu(t, gpu));
  // NCCL's nNodes counts the communicator's hosts, not the machine's: 8 ranks on the first node of a 4-node cluster
  // (a one-node run compared against the whole cluster's description) are one node (as P2pPlanner::facts counts them).
  std::set<int> placed_hosts;
  for (const auto& ring : placements)
    for (const int gpu : ring) placed_hosts.insert(g.host_of_gpu[static_cast<std::size_t>(gpu)]);
  g.nodes = placed_hosts.empty() ? hosts.count : static_cast<int>(placed_hosts.size());
  g.arch = arch_of(t, tab, arch_override);
  if (!t.gpu_kind.empty()) {
    const auto kind = topology::gpu_kind(t.gpu_kind, "topology " + t.name);
    g.amd_gpu = kind.vendor == "amd";
    if (arch_override.empty() && !arch_from(kind.nccl_arch)) g.kind_arch = kind.nccl_arch;
  }
  g.arm_cpu = topology::grace_superchip(t); // Arm hosts
  // NCCL's tuner keys its multi-node LL cap and network overhead on the CPU vendor, its search the Intel P2P
  // overhead (pcie_hosts_ring).
  g.amd_cpu = !g.arm_cpu && topology::cpu_is_amd(t);
  // Rings made of direct GPU-GPU links (DGX-1 style, one lane per ring per hop) come as several rings.
  bool direct = placements.size() > 1;
  auto speeds = ring_speeds(t, tab, g);
  g.path = speeds.all_nvlink ? Path::NvLink : Path::Pci;
  if (!direct && g.nodes == 1)
    if (const double nvs = nvswitch_total(t, tab, placements.empty() ? std::vector<int>{} : placements.front()); nvs > 0)
      speeds.route_total = std::max(speeds.route_total, nvs);
  // NCCL's ring search over NVSwitch hosts (a Router and the first host's NICs): once, for the graph and the idle-NIC line below.
  const auto switch_ring = nvswitch_hosts_ring(t, tab, g);
  if (const auto& ring = switch_ring; ring.channels > 0 && static_cast<double>(placements.size()) * speeds.per_ring > ring.switch_total) {
    // NIC rings over NVSwitch hosts that, one lane each, would claim more than a GPU's switch links carry
    // (an NVL72 rack as one NCCL node: 64 NICs, 64 rings x 40.1 GB/s against 18 x 40.1): NCCL's inter-node
    // search instead. (HGX boxes keep one NVLink lane per NIC ring, 8 x 20.6 on H100/H200, which their
    // fits are built on; NCCL's search would give them 8 x 45, not modelled: it flips the tuner's 1-2 MiB
    // picks to tree/LL128, 33-36 % fast on 2 H200 nodes.)
    g.channels = ring.channels;
    g.bw = ring.bw;
    g.graph_efficiency = std::min(1.0, g.channels * g.bw / ring.carried);
    // The tree on 2 nodes: bwIntra raised to 2x bwInter where the switch links carry it (tree_bw_of).
    g.tree_bw = g.nodes == 2 && ring.switch_total / g.channels + 1e-9 >= 2.0 * g.bw ? 2.0 * g.bw : g.bw;
    direct = false;
  } else if (const auto pcie = pcie_hosts_ring(t, tab, g, amd_sys_same_channels); pcie.channels > 0) {
    g.same_channels_only = pcie.same_channels_only;
    // One ring per NIC (ccsim's placement) is not one search channel at a hop's full speed each: NCCL's
    // channels share the GPUs' ports (pcie_hosts_ring).
    g.channels = pcie.channels;
    g.bw = pcie.bw;
    g.graph_efficiency = std::min(1.0, g.channels * g.bw / pcie.carried);
    // NCCL's tree graph, searched on its own (tuning.cc: bwIntra on up to 2 nodes, else bwInter).
    if (pcie.tree_channels > 0) g.tree_channels = pcie.tree_channels, g.tree_bw = g.nodes <= 2 ? pcie.tree_intra : pcie.tree_inter;
    direct = false;
  } else if (direct) {
    g.channels = static_cast<int>(placements.size());
    // Rings that share a direct link's lanes (a 4- or 6-GPU full mesh, ring_search.cpp pack_rings) run at the
    // lane's share: NCCL's search speed for them (search.cc, half a link for two channels per directed link).
    g.bw = speeds.per_ring / std::max(1.0, rings_per_lane(t, placements));
    g.graph_efficiency = 1.0;
  } else {
    split_into_channels(tab, g, speeds.route_total);
  }
  // More NICs on a host than NCCL's ring search makes channels (10 NICs by 8 H100s): the search stops once
  // channels x speed reaches a GPU's NVLink total (search.cc ncclTopoCompute: nChannels*bwInter >= totalBw; each
  // channel crosses a GPU's switch links, ncclTopoFollowPath taking its speed from them), so the extra NICs carry
  // no ring. Said in the model line: the prediction is the same as with one NIC per channel, as NCCL's would be.
  // The search's first speed is the first of speedArrayInter a NIC carries (system->maxBw), one channel a NIC.
  if (const auto& ring = switch_ring; ring.switch_total > 0 && ring.nics > 0 && ring.port_GBps > 0 && tab.nvls) {
    const auto& inter = tab.nvls->speed_inter[static_cast<std::size_t>(g.arch)];
    const double speed = inter.empty() ? 0 : inter[first_inter_speed(inter, ring.port_GBps)];
    const int enough = speed > 0 ? std::min(tab.max_search_channels, static_cast<int>(std::ceil(ring.switch_total / speed - 1e-9))) : 0;
    // Only where that stop is what binds, the graph's own channels as many: a graph of fewer channels (an NVL72 rack
    // as one node, 2 x 24 for 64 NICs) leaves NICs idle for reasons of its own, not said here.
    if (enough > 0 && ring.channels >= enough && g.channels >= enough && ring.nics > enough)
      g.idle_nics = fmt::format("{} NICs a node, NCCL's ring search stops at {} channel(s): {} x {:.1f} GB/s reach a GPU's NVLink "
                                "total {:.1f} GB/s (search.cc ncclTopoCompute: nChannels*bwInter >= totalBw), so {} NIC(s) carry no ring",
                                ring.nics, enough, enough, speed, ring.switch_total, ring.nics - enough);
  }
  if (g.tree_bw <= 0) g.tree_bw = tree_bw_of(t, tab, g, speeds, direct);
  const double undup_bw = g.bw;
  dup_channels(tab, g);
  // Duplicated channels split the tree's figure as the ring's (a tree graph of its own was duplicated in its search).
  if (undup_bw > 0 && g.tree_channels == 0) g.tree_bw *= g.bw / undup_bw;
  g.ll128 = g.arch >= tab.ll128_min_arch && g.path == Path::NvLink && (!tab.rccl || tab.rccl->ll128);
  nvls_graph(t, tab, g, placements.empty() ? std::vector<int>{} : placements.front());
  return g;
}

std::string Graph::describe() const {
  // An AMD box reads "path nvlink (NCCL's class of xGMI) ... arch hopper (the tuning row of cdna3)".
  std::string s = fmt::format("{} search channel(s) x {:.1f} GB/s, path {}{}, {} node(s), arch {}{}, LL128 {}", channels, bw,
                              path == Path::NvLink ? "nvlink" : "pci", path == Path::NvLink && amd_gpu ? " (NCCL's class of xGMI)" : "",
                              nodes, name(arch), kind_arch.empty() ? "" : fmt::format(" (the tuning row of {})", kind_arch),
                              ll128 ? "on" : "off");
  if (!ll128_off.empty()) s += fmt::format(" ({})", ll128_off);
  else if (type_inter) s += fmt::format(" (GPU-NIC path {})", topology::name(*type_inter));
  if (!idle_nics.empty()) s += ", " + idle_nics;
  if (same_channels_only) s += ", every channel on one GPU order (x86 AMD host, typeIntra SYS: NCCL's search skips its sameChannels 0 pass)";
  if (tree_channels > 0) s += fmt::format(", tree {} channel(s) x {:.1f} GB/s", tree_channels, tree_bw);
  else if (tree_bw != bw) s += fmt::format(", tree {:.1f} GB/s per channel", tree_bw);
  if (nvls.channels > 0)
    s += fmt::format(", {} {} channel(s) x {:.1f}/{:.1f} GB/s", nvls.tree ? "NVLS-tree" : "NVLS", nvls.channels, nvls.bw_intra, nvls.bw_inter);
  return s;
}

} // namespace ccsim::model::nccl
