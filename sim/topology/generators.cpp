#include "sim/topology/generators.hpp"
#include "sim/topology/cloud_machines.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cstring>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "sim/core/ascii.hpp"
#include "sim/core/ceil_div.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/topology/sharp.hpp"

namespace ccsim::topology {

// 2^20 GPUs: a 1M-rank crossbar (implicit, see make_crossbar) takes ~270 MiB and ~0.7 s to run a broadcast on;
// 16M took 8.6 GB and 88 s (and died of bad_alloc under a memory limit).
constexpr int kMaxGeneratedGpus = 1 << 20;
constexpr int kMaxClusterNodes = 1 << 16;
constexpr int kMaxNicsPerNode = 1024;

// A whole number of a spec whose reader checks the range it takes, [lo, hi], in its own words. A value beyond int
// never reaches that check: it is refused here naming the same range, not int's ("nodes=99999999999": 1..65536,
// where it said -2147483648..2147483647).
int whole_int(std::string_view text, std::string_view what, int lo, int hi) {
  long long n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec == std::errc::invalid_argument || end != text.data() + text.size()) fail("{}: '{}' is not a whole number", what, text);
  if (ec == std::errc::result_out_of_range || n < INT32_MIN || n > INT32_MAX) fail("{}: {} is out of range ({}..{})", what, text, lo, hi);
  return static_cast<int>(n);
}

std::vector<int> parse_dims(const std::string& text, const std::string& what) {
  std::vector<int> dims;
  std::stringstream ss(text);
  std::string part;
  long total = 1;
  while (std::getline(ss, part, 'x')) {
    if (part.empty() || part.find_first_not_of("-0123456789") != std::string::npos)
      fail("{}: '{}' is not a list of extents like 4x4x4", what, text);
    const int d = whole_int(part, what, 1, kMaxGeneratedGpus);
    if (d < 1) fail("{}: extent {} must be >= 1", what, d);
    total *= d;
    if (total > kMaxGeneratedGpus) fail("{}: '{}' has more than {} nodes (the generators' limit)", what, text, kMaxGeneratedGpus);
    dims.push_back(d);
  }
  if (dims.empty()) fail("{}: empty dimension list", what);
  return dims;
}

Topology make_crossbar(int ranks, Bandwidth bw, Time alpha) {
  if (ranks < 1 || ranks > kMaxGeneratedGpus) fail("crossbar: ranks must be between 1 and {}, got {}", kMaxGeneratedGpus, ranks);
  if (alpha % 2 != 0) fail("crossbar: alpha must be an even number of picoseconds, got {}", alpha);
  Topology t;
  t.name = fmt::format("crossbar-{}", ranks);
  t.description = fmt::format("Ideal crossbar: {} GPUs, each with a private {} full-duplex link to one non-blocking "
                              "switch; end-to-end alpha {}",
                              ranks, format_bandwidth(bw), format_duration(alpha));
  t.origin = "generated";
  t.structure.kind = Structure::Kind::Crossbar;
  // GPUs gpu0.., then "switch", each GPU's link to it: kept as the formula (a million GPUs would be a million
  // node and link objects), built into lists only if something reads them. Each message crosses two links
  // (up to the switch, down to the peer): half of alpha on each.
  t.set_crossbar_formula({ranks, bw, alpha / 2});
  t.validate();
  return t;
}

Topology make_torus(const std::vector<int>& dims, Bandwidth bw, Time alpha) {
  long total = 1;
  for (int d : dims) {
    if (d < 1) fail("torus: extent {} must be >= 1", d);
    total *= d;
    if (total > kMaxGeneratedGpus) fail("torus: more than {} nodes (the generators' limit)", kMaxGeneratedGpus);
  }
  if (dims.empty()) fail("torus: needs at least one dimension");
  Topology t;
  std::string shape;
  for (int d : dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  t.name = "torus-" + shape;
  t.description = fmt::format("{} torus with wraparound, {} per direction per link, {} per hop", shape,
                              format_bandwidth(bw), format_duration(alpha));
  t.origin = "generated";
  t.structure.kind = Structure::Kind::Torus;
  t.structure.dims = dims;
  // GPU i is node i; per GPU, per dimension, the link to its + neighbour (sim/topology/torus_formula.hpp):
  // kept as the formula, built into lists only if something reads them.
  t.set_torus_formula(TorusFormula(dims, bw, alpha));
  t.validate();
  return t;
}

std::pair<int, Bandwidth> parse_nics(const std::string& given, const std::string& what) {
  // Written as a cluster is described: "8 x 400G", "8X400G", "8*400G", "8×400G" all mean 8x400G.
  std::string text;
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (given[i] == ' ') continue;
    if (given.compare(i, 2, "\xc3\x97") == 0) { text += 'x'; ++i; continue; }
    text += given[i] == '*' || given[i] == 'X' ? 'x' : given[i];
  }
  const auto x = text.find('x');
  const std::string count_s = text.substr(0, x);
  if (x == std::string::npos || count_s.empty() || count_s.find_first_not_of("-0123456789") != std::string::npos)
    fail("{}: '{}' is not COUNTxSPEED like 8x400G", what, given);
  const int count = whole_int(count_s, what, 1, kMaxNicsPerNode);
  if (count < 1 || count > kMaxNicsPerNode) fail("{}: NIC count must be between 1 and {}, got {}", what, kMaxNicsPerNode, count);
  std::string speed = text.substr(x + 1);
  // A bare number is ambiguous (400 Gb/s or 400 B/s?): ask for the unit rather than guess.
  if (!speed.empty() && speed.find_first_not_of("0123456789.") == std::string::npos)
    fail("{}: '{}' gives no unit for the NIC speed: 8x400G (Gb/s, as NICs are sold) or 8x50GB/s", what, given);
  // NICs are sold in bits: "400G" is 400 Gb/s, and so are "400Gb" and "400GbE" as data sheets write them (a
  // lower-case b is a bit). Explicit units ("50GB/s", "400Gbps") pass through.
  for (const char* bits : {"bE", "b"})
    if (speed.size() > std::strlen(bits) + 1 && speed.ends_with(bits) &&
        std::string("GMT").find(speed[speed.size() - std::strlen(bits) - 1]) != std::string::npos) {
      speed.resize(speed.size() - std::strlen(bits));
      break;
    }
  if (!speed.empty() && std::string("GgMmTt").find(speed.back()) != std::string::npos) speed += "bps";
  return {count, parse_bandwidth(speed, what)};
}

namespace {

// PCIe x16 per direction by generation (reference §5.2), for a GPU whose file has no PCIe link.
struct PcieGuess {
  LinkType type;
  Bandwidth bw;
};
PcieGuess pcie_for(LinkType nvlink) {
  switch (nvlink) {
    case LinkType::NvLink1:
    case LinkType::NvLink2: return {LinkType::Pcie3, 15'750'000'000};
    case LinkType::NvLink3: return {LinkType::Pcie4, 31'500'000'000};
    default: return {LinkType::Pcie5, 63'000'000'000};
  }
}

// How one machine's NICs hang off it: an existing NIC node, or a new one linked to `host`.
struct NicPlan {
  int existing = -1; // node id in the machine, or -1 for a new NIC
  int host = -1;     // new NIC: node it is linked to (a PCIe switch or a GPU)
  int lanes = 1;     // NICs merged into this one (several on one GPU act as one bonded port)
  bool numa = false; // new NIC on the node's NIC-only NUMA node (nic_at=numa), made once per node; `host` unused
  LinkType type = LinkType::Pcie4;
  Bandwidth bw = 0;
  Time latency = 0;
  std::string source;
};

// nic_at=cpu|numa: NIC k on a root port of GPU (k mod G)'s socket, or of a NUMA node without GPUs, its link as
// that GPU's PCIe link.
std::vector<NicPlan> plan_cpu_nics(const Topology& m, int extra, ClusterSpec::NicAt at, const std::string& label) {
  const int G = m.num_gpus();
  const char* key = at == ClusterSpec::NicAt::Cpu ? "nic_at=cpu" : "nic_at=numa";
  if (at == ClusterSpec::NicAt::Numa && !first_socket_link(m))
    fail("cluster: nic_at=numa of {}: the machine draws no link between CPUs to join the NICs' NUMA node by (try sockets=2)", label);
  std::vector<NicPlan> plan;
  for (int k = 0; k < extra; ++k) {
    const int gpu = m.gpu_node(k % G);
    // The GPU's socket: the first CPU its PCIe links lead to, never through another GPU.
    std::vector<char> seen(m.nodes.size(), 0);
    std::vector<int> queue{gpu};
    seen[static_cast<std::size_t>(gpu)] = 1;
    const Link* port = nullptr;
    int cpu = -1;
    for (std::size_t q = 0; q < queue.size() && cpu < 0; ++q)
      for (const auto& l : m.links) {
        const int n = queue[q];
        if ((l.a != n && l.b != n) || !is_pcie(l.type)) continue;
        const int o = l.a == n ? l.b : l.a;
        if (seen[static_cast<std::size_t>(o)] || m.nodes[static_cast<std::size_t>(o)].kind == NodeKind::Gpu) continue;
        if (n == gpu && !port) port = &l;
        seen[static_cast<std::size_t>(o)] = 1;
        if (m.nodes[static_cast<std::size_t>(o)].kind == NodeKind::Cpu) {
          cpu = o;
          break;
        }
        queue.push_back(o);
      }
    if (cpu < 0 || !port) fail("cluster: {} of {}: GPU {} reaches no CPU over PCIe", key, label, k % G);
    NicPlan p;
    p.host = cpu;
    p.numa = at == ClusterSpec::NicAt::Numa;
    p.type = port->type;
    p.bw = port->bw;
    p.latency = port->latency;
    p.source = p.numa ? fmt::format("cluster generator (nic_at=numa): NIC on a root port of a NUMA node without GPUs; link as GPU {}'s port ({})",
                                    k % G, port->source)
                      : fmt::format("cluster generator (nic_at=cpu): NIC on a root port of {}, GPU {}'s socket; link as the GPU's port ({})",
                                    m.nodes[static_cast<std::size_t>(cpu)].name, k % G, port->source);
    plan.push_back(std::move(p));
  }
  return plan;
}

std::vector<NicPlan> plan_nics(const Topology& m, int nics, ClusterSpec::NicAt at, const std::string& label) {
  std::vector<int> own, switches;
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    if (m.nodes[i].kind == NodeKind::Nic) own.push_back(static_cast<int>(i));
    if (m.nodes[i].kind == NodeKind::PcieSwitch) switches.push_back(static_cast<int>(i));
  }
  std::vector<NicPlan> plan;
  for (int i = 0; i < std::min<int>(nics, static_cast<int>(own.size())); ++i) {
    NicPlan p;
    p.existing = own[static_cast<std::size_t>(i)];
    plan.push_back(std::move(p));
  }
  const int extra = nics - static_cast<int>(plan.size());
  const int G = m.num_gpus();
  auto link_at = [&](int node, auto pred) -> const Link* {
    for (const auto& l : m.links)
      if ((l.a == node || l.b == node) && pred(l, l.a == node ? l.b : l.a)) return &l;
    return nullptr;
  };
  if (extra > 0 && at != ClusterSpec::NicAt::Gpu) {
    auto more = plan_cpu_nics(m, extra, at, label);
    plan.insert(plan.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  } else if (extra >= G) {
    // One NIC per GPU (NCCL pairs each GPU with its PIX NIC); a second NIC on the same GPU is a second lane.
    for (int g = 0; g < G; ++g) {
      const int gpu = m.gpu_node(g);
      NicPlan p;
      p.host = gpu;
      p.lanes = extra / G + (g < extra % G ? 1 : 0);
      const Link* l = link_at(gpu, [](const Link& x, int) { return is_pcie(x.type); });
      const bool pcie_peers = G >= 2 && !link_at(gpu, [&](const Link& x, int other) {
        return !is_pcie(x.type) && m.nodes[static_cast<std::size_t>(other)].kind != NodeKind::Cpu;
      });
      if (l && pcie_peers) {
        // No NVLink or xGMI: the GPU's one PCIe port carries its peer traffic and its network traffic, so the
        // NIC hangs off the switch (or root complex) behind that port, beside it, not on a port of its own.
        p.host = l->a == gpu ? l->b : l->a;
        p.type = l->type;
        p.bw = l->bw;
        p.latency = l->latency;
        p.source = "cluster generator: NIC beside GPU " + std::to_string(g) + " on " + m.nodes[static_cast<std::size_t>(p.host)].name +
                   ", sharing the GPU's PCIe port (no NVLink: peers and NIC both through it); link as its GPU port (" + l->source + ")";
      } else if (l) {
        // GPU and NIC both sit on x16 ports of a non-blocking switch (or root port), the GPU's peers on NVLink
        // or xGMI: one link of that speed per NIC, with the latency of the two PCIe hops it stands for.
        p.type = l->type;
        p.bw = l->bw;
        p.latency = 2 * l->latency;
        p.source = "cluster generator: NIC beside GPU " + std::to_string(g) + ", its PCIe link speed and twice its latency (" +
                   l->source + ")";
      } else {
        const Link* nv = link_at(gpu, [](const Link& x, int) { return is_nvlink(x.type); });
        const auto guess = pcie_for(nv ? nv->type : LinkType::NvLink4);
        p.type = guess.type;
        p.bw = guess.bw;
        p.latency = 2 * kPsPerUs;
        p.source = "cluster generator: the machine file has no PCIe link, so PCIe x16 of the GPU's generation "
                   "(reference §5.2) and two PCIe hops at NCCL hwLat[PCI][Ring][LL] = 1.0 us (reference §3.3)";
      }
      plan.push_back(std::move(p));
    }
  } else if (extra > 0 && switches.empty()) {
    // No PCIe switch (GPUs on CPU root ports): a NIC takes a root port of its own, round-robin over the
    // sockets, and GPUs reach it through their CPU, as NCCL's PHB/SYS paths do.
    std::vector<int> cpus;
    for (std::size_t i = 0; i < m.nodes.size(); ++i)
      if (m.nodes[i].kind == NodeKind::Cpu) cpus.push_back(static_cast<int>(i));
    if (cpus.empty())
      fail("cluster: {} has neither a PCIe switch nor a CPU, so NICs attach one per GPU: nics must be at least {} beyond its own "
           "{} NIC(s)", label, G, own.size());
    for (int k = 0; k < extra; ++k) {
      const int cpu = cpus[static_cast<std::size_t>(k) % cpus.size()];
      const Link* l = link_at(cpu, [&](const Link& x, int other) { return is_pcie(x.type) && m.nodes[static_cast<std::size_t>(other)].gpu >= 0; });
      if (!l) fail("cluster: CPU '{}' of {} has no GPU on a PCIe root port to copy for a NIC", m.nodes[static_cast<std::size_t>(cpu)].name, label);
      NicPlan p;
      p.host = cpu;
      p.type = l->type;
      p.bw = l->bw;
      p.latency = l->latency;
      p.source = "cluster generator: NIC on a root port of " + m.nodes[static_cast<std::size_t>(cpu)].name + ", link as its GPU port (" +
                 l->source + ")";
      plan.push_back(std::move(p));
    }
  } else if (extra > 0) {
    for (int k = 0; k < extra; ++k) {
      const int sw = switches[static_cast<std::size_t>(k) % switches.size()];
      NicPlan p;
      p.host = sw;
      const Link* l = link_at(sw, [&](const Link& x, int other) { return is_pcie(x.type) && m.nodes[static_cast<std::size_t>(other)].gpu >= 0; });
      if (!l) l = link_at(sw, [](const Link& x, int) { return is_pcie(x.type); });
      if (!l) fail("cluster: PCIe switch '{}' of {} has no PCIe link to copy for a NIC", m.nodes[static_cast<std::size_t>(sw)].name, label);
      p.type = l->type;
      p.bw = l->bw;
      p.latency = l->latency;
      p.source = "cluster generator: NIC on " + m.nodes[static_cast<std::size_t>(sw)].name + ", link as its GPU port (" + l->source + ")";
      plan.push_back(std::move(p));
    }
  }
  // Every GPU must reach a NIC without passing through another GPU (GPUs do not forward).
  std::vector<std::vector<int>> adj(m.nodes.size());
  for (const auto& l : m.links) {
    adj[static_cast<std::size_t>(l.a)].push_back(l.b);
    adj[static_cast<std::size_t>(l.b)].push_back(l.a);
  }
  std::vector<bool> is_nic(m.nodes.size(), false), near_new(m.nodes.size(), false);
  for (const auto& p : plan) {
    if (p.existing >= 0) is_nic[static_cast<std::size_t>(p.existing)] = true;
    else near_new[static_cast<std::size_t>(p.host)] = true;
  }
  for (int g = 0; g < G; ++g) {
    std::vector<bool> seen(m.nodes.size(), false);
    std::vector<int> frontier{m.gpu_node(g)};
    seen[static_cast<std::size_t>(frontier.back())] = true;
    bool found = false;
    while (!frontier.empty() && !found) {
      const int v = frontier.back();
      frontier.pop_back();
      if (is_nic[static_cast<std::size_t>(v)] || near_new[static_cast<std::size_t>(v)]) found = true;
      for (int w : adj[static_cast<std::size_t>(v)])
        if (!seen[static_cast<std::size_t>(w)] && m.nodes[static_cast<std::size_t>(w)].gpu < 0)
          seen[static_cast<std::size_t>(w)] = true, frontier.push_back(w);
    }
    if (!found)
      fail("cluster: GPU {} of {} reaches none of the {} NIC(s) without crossing another GPU; give more NICs", g, label, nics);
  }
  return plan;
}

} // namespace

Topology make_cluster(const Topology& m, const ClusterSpec& spec, const std::string& label) {
  if (spec.nodes < 1 || spec.nodes > kMaxClusterNodes) fail("cluster: nodes must be between 1 and {}, got {}", kMaxClusterNodes, spec.nodes);
  if (spec.nics < 1) fail("cluster: needs at least one NIC per node");
  if (!is_network(spec.kind)) fail("cluster: kind must be a network link type (ib, roce, efa, slingshot, ethernet)");
  if (spec.leaf_ports < 2) fail("cluster: leaf_ports must be at least 2, got {}", spec.leaf_ports);
  if (spec.oversub < 1) fail("cluster: oversub must be at least 1, got {}", spec.oversub);
  const auto plan = plan_nics(m, spec.nics, spec.nic_at, label);
  const bool tree = spec.fabric == ClusterSpec::Fabric::FatTree;
  const int links_on_longest = tree ? 4 : 2; // NIC-switch-NIC, or NIC-leaf-spine-leaf-NIC
  if (spec.alpha % links_on_longest != 0)
    fail("cluster: alpha must be a multiple of {} ps so it splits evenly over the fabric's links", links_on_longest);
  const Time hop = spec.alpha / links_on_longest;

  Topology t;
  t.name = fmt::format("cluster-{}x{}", spec.nodes, m.name);
  // The network as the user described it, in every header that names the topology: the name says only the node,
  // so `kind=roce` against `kind=ib` (which often predict alike) left no sign in the output that the kind was read.
  t.origin = fmt::format("generated: {} nodes, {} x {:g} Gb/s {} NIC(s) each, {}", spec.nodes, spec.nics,
                         static_cast<double>(spec.nic_bw) * 8 / 1e9, to_string(spec.kind),
                         tree ? fmt::format("fat tree {}:1", spec.oversub)
                         : std::string(spec.rail ? "rail-optimised (one non-blocking switch: a leaf per rail, no cross-rail hop)"
                                                 : "one switch"));
  if (spec.nic_at != ClusterSpec::NicAt::Gpu)
    t.origin += spec.nic_at == ClusterSpec::NicAt::Cpu ? ", NICs on their GPU's socket" : ", NICs on a NUMA node without GPUs";
  if (!spec.instance.empty()) t.origin += ", instance " + spec.instance;
  t.gpu_kind = m.gpu_kind;
  t.cpu_vendor = m.cpu_vendor;
  t.instance = spec.instance;
  t.description = fmt::format("{} x {} ({} GPUs each), {} NIC(s) per node at {} ({}), joined by {}; NIC-to-NIC alpha {}",
                              spec.nodes, m.name, m.num_gpus(), spec.nics, format_bandwidth(spec.nic_bw), to_string(spec.kind),
                              tree ? fmt::format("a two-level fat tree ({} NIC ports per leaf, {}:1 oversubscription)",
                                                 spec.leaf_ports, spec.oversub)
                                   : std::string("one non-blocking switch"),
                              format_duration(spec.alpha));
  t.nodes.reserve(static_cast<std::size_t>(spec.nodes) * (m.nodes.size() + plan.size()) + 64);
  const std::string net_source = fmt::format(
      "cluster generator: {} NIC port at {} per direction ({}); latency = alpha {} split over the {} links of the "
      "longest NIC-to-NIC path",
      to_string(spec.kind), format_bandwidth(spec.nic_bw), spec.nics_source.empty() ? "given" : spec.nics_source,
      format_duration(spec.alpha), links_on_longest);
  std::vector<std::pair<int, int>> nic_ports; // (NIC node, ports) in node-major order
  for (int k = 0; k < spec.nodes; ++k) {
    const int base = static_cast<int>(t.nodes.size());
    for (const auto& n : m.nodes) t.add_node(fmt::format("n{}.{}", k, n.name), n.kind);
    for (const auto& l : m.links) {
      t.add_link(base + l.a, base + l.b, l.type, l.bw, l.latency, l.lanes, l.source, l.host_staged);
      t.links.back().duplex = l.duplex;
    }
    for (const auto& r : m.route_overrides) {
      Topology::RouteOverride ro{base + r.src, base + r.dst, r.path};
      for (int& v : ro.path) v += base;
      t.route_overrides.push_back(std::move(ro));
    }
    int fresh = 0;
    int numa = -1; // nic_at=numa: this node's NUMA node without GPUs, joined to each socket as the sockets are
    for (const auto& p : plan) {
      int nic = base + p.existing;
      if (p.numa && numa < 0) {
        numa = t.add_node(fmt::format("n{}.nic_numa", k), NodeKind::Cpu);
        if (const Link* l = first_socket_link(m))
          for (const int c : {l->a, l->b})
            t.add_link(numa, base + c, l->type, l->bw, l->latency, l->lanes,
                       "cluster generator (nic_at=numa): the NICs' NUMA node, joined to each socket as the sockets are (" + l->source + ")");
      }
      if (p.existing < 0) {
        nic = t.add_node(fmt::format("n{}.xnic{}", k, fresh++), NodeKind::Nic);
        t.add_link(p.numa ? numa : base + p.host, nic, p.type, p.bw, p.latency, p.lanes, p.source);
      }
      nic_ports.emplace_back(nic, p.lanes);
    }
  }
  if (!tree) {
    const int sw = t.add_node("fabric", NodeKind::NetSwitch);
    for (auto [nic, ports] : nic_ports) t.add_link(nic, sw, spec.kind, spec.nic_bw, hop, ports, net_source);
  } else {
    // NIC ports fill leaves in order, so a node's NICs share a leaf when they fit.
    std::vector<int> leaves, down;
    int used = spec.leaf_ports;
    for (auto [nic, ports] : nic_ports) {
      if (ports > spec.leaf_ports) fail("cluster: a NIC with {} ports does not fit a {}-port leaf", ports, spec.leaf_ports);
      if (used + ports > spec.leaf_ports) {
        leaves.push_back(t.add_node(fmt::format("leaf{}", leaves.size()), NodeKind::NetSwitch));
        down.push_back(0);
        used = 0;
      }
      t.add_link(nic, leaves.back(), spec.kind, spec.nic_bw, hop, ports, net_source);
      used += ports;
      down.back() += ports;
    }
    if (leaves.size() > 1) {
      // The spine switches are one node: ECMP spreads a leaf's flows over all its uplinks, which a
      // single-path route can only express as one bonded link.
      const int spine = t.add_node("spine", NodeKind::NetSwitch);
      for (std::size_t i = 0; i < leaves.size(); ++i)
        t.add_link(leaves[i], spine, spec.kind, spec.nic_bw, hop, ceil_div(down[i], spec.oversub),
                   fmt::format("cluster generator: leaf uplinks = ceil({} down ports / oversub {}) at the NIC speed; "
                               "latency = alpha/4",
                               down[i], spec.oversub));
    }
  }
  t.validate();
  return t;
}

namespace {

// A link latency above one second is a typo; the bound keeps simulated times inside 64 bits.
Time generator_alpha(const std::string& text) {
  const Time t = parse_duration(text, "--topo alpha");
  if (t > kPsPerSec) fail("--topo alpha: '{}' is more than 1 s", text);
  return t;
}

std::map<std::string, std::string> parse_kv(const std::string& body, const std::string& spec) {
  std::map<std::string, std::string> kv;
  // "machine:gpu=h100|machine:gpu=b200" read as one spec ran the second machine under the first one's name.
  if (body.find('|') != std::string::npos)
    fail("--topo {}: one topology per run here ('|' joins one topology per run of compare's trace only): run once per machine", spec);
  std::stringstream ss(body);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos) fail("--topo {}: '{}' is not key=value", spec, item);
    // "gpu=h200, nodes=16" as people write lists: spaces around keys and values are no part of them.
    const auto trimmed = [](std::string t) {
      t.erase(0, t.find_first_not_of(" \t"));
      t.erase(t.find_last_not_of(" \t") + 1);
      return t;
    };
    const std::string key = trimmed(item.substr(0, eq));
    if (!kv.emplace(key, trimmed(item.substr(eq + 1))).second) fail("--topo {}: '{}' is given twice", spec, key);
  }
  return kv;
}

std::string take(std::map<std::string, std::string>& kv, const std::string& k, const std::string& spec,
                 const std::string& dflt = {}) {
  auto it = kv.find(k);
  if (it == kv.end()) {
    if (dflt.empty()) fail("--topo {}: missing '{}='", spec, k);
    return dflt;
  }
  std::string v = it->second;
  kv.erase(it);
  return v;
}

void no_leftovers(const std::map<std::string, std::string>& kv, const std::string& spec) {
  if (!kv.empty()) fail("--topo {}: unknown parameter '{}'", spec, kv.begin()->first);
}

// A whole-number key of a spec; its builder checks the range it takes, [lo, hi], in its own words.
int int_value(const std::string& v, const std::string& key, const std::string& spec, int lo, int hi) {
  if (v.empty() || v.find_first_not_of("-0123456789") != std::string::npos) fail("--topo {}: {} '{}' is not a number", spec, key, v);
  return whole_int(v, fmt::format("--topo {}: {}", spec, key), lo, hi);
}

// The network half of a cluster spec: nodes, nics, fabric, kind, alpha, leaf_ports, oversub.
// `node_gpu` / `node_gpus`: the node's GPU kind and count ("" / 0 where not known), for a cloud machine type's words.
ClusterSpec cluster_spec(std::map<std::string, std::string>& kv, const std::string& spec, const std::string& default_nodes,
                         const std::string& node_gpu, int node_gpus) {
  ClusterSpec c;
  c.nodes = int_value(take(kv, "nodes", spec, default_nodes), "nodes", spec, 1, kMaxClusterNodes);
  // instance= naming a Google Cloud GPU machine type (cloud_machines.hpp) says what the nodes' NICs are: one per
  // GPU of the type's line rate (one per two GPUs on A3 High), unless nics= says otherwise.
  // An AWS EC2 GPU instance type of cloud_machines.hpp's list ("p5.48xlarge") says the same: its EFA devices.
  const auto it_inst = kv.find("instance");
  const CloudMachine* gcp = it_inst == kv.end() ? nullptr : cloud_machine(it_inst->second);
  const CloudMachine* known = gcp ? gcp : it_inst == kv.end() ? nullptr : aws_machine(it_inst->second);
  if (known && !node_gpu.empty() && node_gpu != known->gpu)
    fail("--topo {}: instance={} has {} GPUs, not {}", spec, known->name, known->gpu, node_gpu);
  // A node that does not say its GPU kind (a PCIe preset) cannot be checked against the type's GPU: refused, not
  // silently given another machine's NICs.
  if (known && node_gpu.empty())
    fail("--topo {}: instance={} has {} GPUs, and this node does not say its GPU kind: write machine:instance={} "
         "or a node of {} GPUs", spec, known->name, known->gpu, known->name, known->gpu);
  if (known && !kv.count("nics")) {
    if (node_gpus <= 0 || node_gpus * known->host_nics % known->host_gpus != 0)
      fail("--topo {}: instance={} gives {} NIC(s) per {} GPUs: add nics=MxSPEED for this node", spec, known->name, known->host_nics, known->host_gpus);
    kv["nics"] = fmt::format("{}x{}G", node_gpus * known->host_nics / known->host_gpus, known->nic_gbps);
    c.nics_source = gcp ? fmt::format("instance {}: Google's Networking and GPU machines page, cloud_machines.hpp", known->name)
                        : fmt::format("instance {}: AWS's instance page, cloud_machines.hpp", known->name);
  }
  // An EC2 type whose NICs ccsim does not list (models/nccl.json knows more names than cloud_machines.hpp gives
  // NICs for): the NICs are the missing word, and the types it does list are the ones that need none.
  const std::string inst_lower = it_inst == kv.end() ? "" : ascii_lower(it_inst->second);
  if (!gcp && (inst_lower.starts_with("a3-") || inst_lower.starts_with("a4-") || inst_lower.starts_with("a4x-")))
    fail("--topo {}: instance '{}' is not a Google Cloud GPU machine type ccsim knows (a3-highgpu-8g, a3-megagpu-8g, a3-ultragpu-8g, "
         "a4-highgpu-8g, a4x-highgpu-4g, a4x-maxgpu-4g-metal)", spec, inst_lower);
  if (!known && it_inst != kv.end() && !kv.count("nics"))
    fail("--topo {}: instance={}: ccsim does not list this type's NICs (it does for p4d.24xlarge, p4de.24xlarge, p5.48xlarge, "
         "p5e.48xlarge, p5en.48xlarge, p6-b200.48xlarge, p6-b300.48xlarge and Google's a3/a4 types): add nics=MxSPEED", spec,
         it_inst->second);
  // "machine:gpu=mi300x,nodes=4" as a what-if with more nodes: the network between them is the missing word.
  if (!kv.count("nics"))
    fail("--topo {}: nodes are joined by a network: add nics=MxSPEED, the NICs per node and their speed "
         "(e.g. nics=8x400G; topologies/README.md lists common machines)", spec);
  std::tie(c.nics, c.nic_bw) = parse_nics(take(kv, "nics", spec), "--topo nics");
  const std::string fabric = ascii_lower(take(kv, "fabric", spec, "switch"));
  // "rail-optimised", as cluster builders write it: each NIC index on a leaf of its own. A GPU's traffic across
  // nodes stays on its rail (NCCL's rings and trees pair same-index NICs; PXN moves the rest onto the rail inside
  // the node), so the one non-blocking switch carries what those leaves carry (README "SHARP in the fabric").
  c.rail = fabric == "rail" || fabric == "rails" || fabric == "rail-optimised" || fabric == "rail-optimized";
  if (fabric == "fattree" || fabric == "fat-tree") c.fabric = ClusterSpec::Fabric::FatTree;
  else if (fabric != "switch" && !c.rail)
    fail("--topo {}: fabric '{}' is not switch, rail (rail-optimised: one switch) or fattree", spec, fabric);
  // Fabrics are written as sold ("IB", "RoCE", "InfiniBand", "EFA", "TCPXO"): the kind is matched without case
  // (topologies/README.md "Network kinds").
  // instance=: an AWS EC2 instance type ("p5.48xlarge"), whose nodes are joined by EFA: the kind defaults to efa
  // and may not be another. Which names --model nccl knows is its table's business (models/nccl.json). A Google
  // Cloud machine type ("a3-megagpu-8g") defaults the kind to its own fabric (tcpx, tcpxo or gib) and may not be
  // another either.
  const bool named_instance = kv.count("instance") > 0;
  c.instance = ascii_lower(take(kv, "instance", spec, "-"));
  if (c.instance == "-") c.instance.clear();
  if (named_instance && (c.instance.empty() || c.instance.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") != std::string::npos))
    fail("--topo {}: instance '{}' is not an EC2 instance type nor a Google Cloud machine type (letters, digits, '.' and '-', "
         "e.g. p5.48xlarge, a3-megagpu-8g)", spec, c.instance);
  // A word shaped like a Google machine type (a3-..., a4-..., a4x-...) that is not one is refused, not read as an
  // EC2 type whose refusal would name AWS's table.
  if (!gcp && (c.instance.starts_with("a3-") || c.instance.starts_with("a4-") || c.instance.starts_with("a4x-")))
    fail("--topo {}: instance '{}' is not a Google Cloud GPU machine type ccsim knows (a3-highgpu-8g, a3-megagpu-8g, a3-ultragpu-8g, "
         "a4-highgpu-8g, a4x-highgpu-4g, a4x-maxgpu-4g-metal)", spec, c.instance);
  const std::string dflt_kind = gcp ? std::string(to_string(gcp->kind)) : c.instance.empty() ? "ib" : "efa";
  std::string k = take(kv, "kind", spec, dflt_kind);
  const std::string lower = ascii_lower(k);
  // Names a fabric is sold under: Spectrum-X is RoCEv2. Google's gIB, GPUDirect-TCPX and -TCPXO are link types of
  // their own (their NCCL plugins and profiles differ: models/README.md "Google's GPU networks").
  static const std::map<std::string, std::string, std::less<>> sold_as = {
      {"infiniband", "ib"}, {"rocev2", "roce"}, {"roce2", "roce"}, {"spectrumx", "roce"}, {"spectrum-x", "roce"},
      // AMD Pensando Pollara 400 AI NIC: RDMA over Ethernet at 400 Gb/s (RoCEv2, "UEC-ready"; amd.com/en/products/
      // network-interface-cards/pensando.html); its UEC transport features (packet spraying) are not modelled.
      {"pollara", "roce"}, {"pollara400", "roce"}, {"pollara-400", "roce"}};
  const auto named = sold_as.find(lower);
  const auto lt = link_type_from(named == sold_as.end() ? lower : named->second);
  if (!lt || !is_network(*lt))
    fail("--topo {}: kind '{}' is not ib, roce, efa, slingshot, ethernet, gib, tcpx or tcpxo (nor spectrumx or pollara: roce)", spec, k);
  c.kind = *lt;
  if (gcp && c.kind != gcp->kind)
    fail("--topo {}: instance={} runs {} (Google Cloud's {} machine type): write kind={} or leave kind out", spec, c.instance,
         to_string(gcp->kind), gcp->name, to_string(gcp->kind));
  if (!gcp && !c.instance.empty() && c.kind != LinkType::Efa)
    fail("--topo {}: instance={} names an AWS EC2 instance type, whose network is EFA: write kind=efa or leave kind out", spec, c.instance);
  // NCCL 2.30 hwLat[NET][Ring][LL] = 2.7 us per network step (reference §3.3).
  c.alpha = generator_alpha(take(kv, "alpha", spec, "2.7us"));
  c.leaf_ports = int_value(take(kv, "leaf_ports", spec, "32"), "leaf_ports", spec, 2, INT32_MAX);
  c.nic_at = nic_at_from(take(kv, "nic_at", spec, "gpu"), fmt::format("--topo {}: nic_at", spec));
  // Oversubscription is written as a ratio by the people who buy fabrics ("2:1"); N:1 is oversub N.
  std::string oversub = take(kv, "oversub", spec, "1");
  if (oversub.size() > 2 && oversub.compare(oversub.size() - 2, 2, ":1") == 0) oversub.resize(oversub.size() - 2);
  c.oversub = int_value(oversub, "oversub", spec, 1, INT32_MAX);
  // The single-switch fabric has no leaves: an oversubscription given to it would be dropped without a word,
  // predicting the full-bandwidth fabric the user said they do not have.
  if (c.fabric != ClusterSpec::Fabric::FatTree && (c.oversub != 1 || c.leaf_ports != 32))
    fail("--topo {}: {} applies to a fat tree (leaves under a spine), but the fabric is one switch: add fabric=fattree",
         spec, c.oversub != 1 ? fmt::format("oversub={}", c.oversub) : fmt::format("leaf_ports={}", c.leaf_ports));
  return c;
}

// "GB200 NVL72" -> "72": the digits after NVL in a product name (NVIDIA's rack-scale names count the GPUs of one
// NVLink domain). "H100 NVL" (a PCIe card pair) has none.
std::optional<std::string> nvl_domain_gpus(const std::string& name) {
  const std::string lower = ascii_lower(name);
  const auto at = lower.rfind("nvl");
  if (at == std::string::npos) return std::nullopt;
  std::string digits;
  for (std::size_t i = at + 3; i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i])); ++i) digits += lower[i];
  if (digits.empty() || digits.size() > 4 || at + 3 + digits.size() != lower.size()) return std::nullopt;
  return digits;
}

Topology build_from_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  auto kv = parse_kv(spec.substr(colon + 1), spec);
  if (kind == "crossbar") {
    const auto ranks_s = take(kv, "ranks", spec);
    const int ranks = int_value(ranks_s, "ranks", spec, 1, kMaxGeneratedGpus);
    const Bandwidth bw = parse_bandwidth(take(kv, "bw", spec, "25GB/s"), "--topo bw");
    const Time alpha = generator_alpha(take(kv, "alpha", spec, "1us"));
    no_leftovers(kv, spec);
    return make_crossbar(ranks, bw, alpha);
  }
  if (kind == "torus") {
    const auto dims = parse_dims(take(kv, "dims", spec), "--topo dims");
    const Bandwidth bw = parse_bandwidth(take(kv, "bw", spec, "100GB/s"), "--topo bw");
    const Time alpha = generator_alpha(take(kv, "alpha", spec, "1us"));
    no_leftovers(kv, spec);
    return make_torus(dims, bw, alpha);
  }
  if (kind == "cluster") {
    const std::string node = take(kv, "node", spec);
    if (node.rfind("cluster:", 0) == 0) fail("--topo {}: a cluster node cannot itself be a cluster", spec);
    const Topology one = resolve_topology(node);
    // A preset drawn from a JSON file may not name its GPU kind; its NVLink generation does (nvlink2: v100).
    const std::string one_gpu = one.gpu_kind.empty() ? sxm_kind_of_nvlink(one) : one.gpu_kind;
    const ClusterSpec c = cluster_spec(kv, spec, "", one_gpu, one.num_gpus());
    const std::string sharp = take(kv, "sharp", spec, "0");
    no_leftovers(kv, spec);
    Topology t = make_cluster(one, c, node);
    set_sharp(t, sharp, "--topo " + spec);
    return t;
  }
  if (kind == "machine") {
    MachineSpec m;
    // A cloud user knows the instance type, not the board: instance= alone names the GPU and its count per host.
    const auto it_inst = kv.find("instance");
    const CloudMachine* cloud = it_inst == kv.end() ? nullptr : cloud_machine(it_inst->second);
    if (!cloud && it_inst != kv.end()) cloud = aws_machine(it_inst->second);
    if (cloud && !kv.count("gpu")) {
      kv["gpu"] = std::string(cloud->gpu);
      if (!kv.count("gpus")) kv["gpus"] = std::to_string(cloud->host_gpus);
    }
    if (!cloud && it_inst != kv.end() && !kv.count("gpu")) {
      const std::string lower = ascii_lower(it_inst->second);
      if (lower.starts_with("a3-") || lower.starts_with("a4-") || lower.starts_with("a4x-"))
        fail("--topo {}: instance '{}' is not a Google Cloud GPU machine type ccsim knows (a3-highgpu-8g, a3-megagpu-8g, "
             "a3-ultragpu-8g, a4-highgpu-8g, a4x-highgpu-4g, a4x-maxgpu-4g-metal)", spec, lower);
      fail("--topo {}: instance={}: ccsim does not list this type's GPUs and NICs (it does for p4d.24xlarge, p4de.24xlarge, "
           "p5.48xlarge, p5e.48xlarge, p5en.48xlarge, p6-b200.48xlarge, p6-b300.48xlarge and Google's a3/a4 types): add "
           "gpu=KIND and nics=MxSPEED", spec, it_inst->second);
    }
    const std::string gpu_named = take(kv, "gpu", spec);
    m.gpu = canonical_gpu_kind(gpu_named);
    // A rack-scale product ("GB200 NVL72", "gb300-nvl72", "GB200 NVL4") names its NVLink domain's GPU count:
    // that is the machine's gpus unless given (it was read as the GPU alone: an 8-GPU node, silently).
    m.gpus = int_value(take(kv, "gpus", spec, nvl_domain_gpus(gpu_named).value_or("8")), "gpus", spec, 1, kMaxMachineGpus);
    if (kv.count("racks"))
      fail("--topo {}: racks is not a parameter: a rack of one NVLink domain is one node here (nodes=N, "
           "gpu=gb200-nvl72 or gpus=72 for its GPUs)", spec);
    m.intra = take(kv, "intra", spec, "-");
    if (m.intra == "-") m.intra.clear();
    m.p2p_given = kv.count("p2p") > 0;
    const std::string p2p = take(kv, "p2p", spec, "on");
    if (p2p != "on" && p2p != "off") fail("--topo {}: p2p '{}' is not on or off", spec, p2p);
    m.p2p = p2p == "on";
    const std::string sw = take(kv, "pcie_switch", spec, "on");
    if (sw != "on" && sw != "off") fail("--topo {}: pcie_switch '{}' is not on or off", spec, sw);
    m.pcie_switch = sw == "on";
    m.sockets = int_value(take(kv, "sockets", spec, "0"), "sockets", spec, 0, 2);
    m.gpus_per_switch = int_value(take(kv, "gpus_per_switch", spec, "2"), "gpus_per_switch", spec, 1, kMaxGpusPerSwitch);
    m.cpu = take(kv, "cpu", spec, "intel");
    m.bridge = take(kv, "bridge", spec, "-");
    if (m.bridge == "-") m.bridge.clear();
    if (kv.count("pcie_duplex")) {
      m.pcie_duplex = parse_bandwidth(take(kv, "pcie_duplex", spec), "--topo pcie_duplex");
      if (m.pcie_duplex <= 0) fail("--topo {}: pcie_duplex must be above 0", spec);
    }
    Topology node = make_machine(m);
    if (!kv.count("nodes") && !kv.count("nics") && !kv.count("instance")) {
      no_leftovers(kv, spec);
      return node;
    }
    const ClusterSpec c = cluster_spec(kv, spec, "1", m.gpu, m.gpus);
    const std::string sharp = take(kv, "sharp", spec, "0");
    no_leftovers(kv, spec);
    Topology t = make_cluster(node, c, node.name);
    set_sharp(t, sharp, "--topo " + spec);
    return t;
  }
  fail("--topo {}: unknown generator '{}' (crossbar, torus, cluster)", spec, kind);
}

} // namespace

ClusterSpec::NicAt nic_at_from(const std::string& text, const std::string& who) {
  if (text == "gpu") return ClusterSpec::NicAt::Gpu;
  if (text == "cpu") return ClusterSpec::NicAt::Cpu;
  if (text == "numa") return ClusterSpec::NicAt::Numa;
  fail("{} '{}' is not gpu, cpu or numa", who, text);
}

Topology generate_from_spec(const std::string& spec) {
  try {
    return build_from_spec(spec);
  } catch (const Error& e) {
    // The builders' own checks ("cluster: nodes must be between 1 and 65536, got -1") name the generator, not the
    // flag or the spec the user typed: say both, as the key parsers above do.
    if (std::string_view(e.what()).starts_with("--topo")) throw;
    fail("--topo {}: {}", spec, e.what());
  }
}

} // namespace ccsim::topology
