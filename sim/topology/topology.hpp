// The machine as a graph: nodes (GPUs, switches, CPUs, NICs) and full-duplex links.
// Each link has two directed channels (2*i: a->b, 2*i+1: b->a); channels are what the engine
// schedules on, so "a link shared by two transfers in the same direction" is one queue.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/topology/lazy_vector.hpp"
#include "sim/topology/torus_formula.hpp"

namespace ccsim::topology {

enum class NodeKind { Gpu, NvSwitch, PcieSwitch, Cpu, Nic, NetSwitch };

// Link technologies; "ideal" is the textbook uniform link used by generated test machines.
// xgmi: AMD's Infinity Fabric, between sockets (the peer of Intel's QPI/UPI) or between Instinct GPUs.
// Google's fabrics are link types of their own (models/README.md "Google's GPU networks"): gib is RoCEv2 through
// Google's gIB NCCL plugin, tcpx and tcpxo TCP with device-memory receive (GPUDirect-TCPX, GPUDirect-TCPXO).
enum class LinkType { NvLink1, NvLink2, NvLink3, NvLink4, NvLink5, Pcie3, Pcie4, Pcie5, Pcie6, Qpi, Upi, Xgmi, Ib, Roce, Efa,
                      Ethernet, Slingshot, Gib, Tcpx, Tcpxo, Ideal };

std::string_view to_string(NodeKind k);
std::string_view to_string(LinkType t);
std::optional<NodeKind> node_kind_from(std::string_view s);
std::optional<LinkType> link_type_from(std::string_view s);
bool is_nvlink(LinkType t);
bool is_network(LinkType t);
bool is_pcie(LinkType t);

struct Node {
  std::string name;
  NodeKind kind = NodeKind::Gpu;
  int gpu = -1; // GPU index (0..G-1) for GPUs, -1 otherwise
};

inline constexpr int kMaxLanes = 1024;                       // bonded links between one pair
inline constexpr Bandwidth kMaxBandwidth = 10'000'000'000'000'000; // 1e16 B/s, as parse_bandwidth

struct Link {
  int a = 0, b = 0; // node ids
  LinkType type = LinkType::Ideal;
  Bandwidth bw = 0;  // per direction, per lane
  Time latency = 0;  // alpha of one traversal
  int lanes = 1;     // bonded links (e.g. NV2 = 2 NVLinks between a pair)
  std::string source; // where the numbers come from
  // A GPU's PCIe port whose GPU-GPU copies are staged through host memory (NCCL's SHM transport: P2P off,
  // a peer beyond NCCL_P2P_LEVEL, a GeForce driver without P2P). A fact of the drawing, not of `bw`: the
  // file's "host_staged": true; set by without_p2p, with_p2p_level, machine:...,p2p=off and the importers.
  bool host_staged = false;
  // Both directions of the link together, bytes/s over all its lanes; 0: full duplex (each direction its own
  // `bw` x lanes). A PCIe port whose peer-to-peer traffic both ways at once is held to less than twice one
  // way (the pair's "Bidirectional P2P=Enabled" figure of CUDA's p2pBandwidthLatencyTest below twice its
  // unidirectional one): set by machine:...,pcie_duplex= on every GPU's PCIe port; --model nccl reads it
  // (models/README.md "PCIe both ways at once"); a file's link "duplex": "75GB/s".
  Bandwidth duplex = 0;
  Bandwidth capacity() const { return bw * static_cast<Bandwidth>(lanes); }
};

using ChannelId = std::uint32_t; // directed link: 2*link + (0: a->b, 1: b->a)

// Regular shapes let the router compute routes on demand instead of storing all pairs.
struct Structure {
  enum class Kind { General, Crossbar, Torus } kind = Kind::General;
  std::vector<int> dims; // torus extents, GPU g has row-major coordinates over dims
};

class Topology {
 public:
  std::string name;
  std::string description;
  std::string origin; // file it was loaded from, or "generated"
  std::string gpu_kind; // models/gpus.json kind of its GPUs when known ("v100"), else empty
  // The hosts' CPU vendor, "intel" or "amd", as the description says it (a file's "cpu", machine:...,cpu=, the
  // vendor an NCCL XML's <cpu> or a topo -m paste names); empty when nothing says, where sockets joined by
  // xGMI are taken as AMD's and any other host as Intel's (model::nccl::cpu_is_amd). NCCL reads the vendor
  // from the CPU itself (xml.cc cpuid), so a one-socket host has one too.
  std::string cpu_vendor;
  // NCCL_P2P_LEVEL as the user set it (--p2p-level; a topology::PathClass, p2p.hpp), -1 unset: NCCL's own
  // default for the host, release and GPU count. --model nccl applies it per GPU pair (a pair farther than
  // the level runs NCCL's SHM transport: sim/model/nccl/p2p_level.hpp); other models see the drawing.
  int p2p_level = -1;
  // In-network reduction on the fabric (InfiniBand SHARP): "" none, else the SHARP generation of its
  // network switches ("v2", "v3", "v4"; parameters in models/sharp.json, sim/topology/sharp.hpp).
  std::string sharp;
  // The AWS EC2 instance type ("p5.48xlarge"; needs an EFA network) or Google Cloud machine type ("a3-megagpu-8g";
  // needs its own fabric: cloud_machines.hpp) of the nodes, lower case, as named (`instance=`, a file's "instance").
  // --model nccl reads the EFA transport aws-ofi-nccl runs there from the plugin's platform table (models/nccl.json
  // net_kinds efa instances); without it, from the GPU generation (by_arch). Empty when none is named.
  std::string instance;
  // A generated crossbar or torus fills these on first use (see CrossbarFormula, TorusFormula); reading them
  // builds them.
  LazyVector<Node> nodes;
  LazyVector<Link> links;
  Structure structure;
  // Explicit route overrides: (src node, dst node) -> node path including both ends.
  struct RouteOverride {
    int src, dst;
    std::vector<int> path;
  };
  std::vector<RouteOverride> route_overrides;

  int add_node(std::string name, NodeKind kind);
  int add_link(int a, int b, LinkType type, Bandwidth bw, Time latency, int lanes = 1, std::string source = {},
               bool host_staged = false);

  // A generated crossbar as its formula, so a million GPUs cost no node and link objects: GPU g is node
  // g ("gpu<g>"), the switch is node `gpus` ("switch"), link g joins GPU g to the switch (channel 2g up,
  // 2g + 1 down), every link Ideal, one lane of `bw`, `latency`, source "generated". The lists are
  // built, exactly so, when something reads them; until then the accessors below answer from this.
  struct CrossbarFormula {
    int gpus = 0;
    Bandwidth bw = 0;
    Time latency = 0;
  };
  void set_crossbar_formula(CrossbarFormula f);
  // The formula while the node and link lists are unbuilt, else nullptr (loaded, built or edited lists).
  const CrossbarFormula* crossbar_formula() const { return active() == Formula::Crossbar ? &crossbar_ : nullptr; }
  // A generated torus kept the same way (sim/topology/torus_formula.hpp: GPU i is node i, links numbered
  // as make_torus lists them).
  void set_torus_formula(TorusFormula f);
  const TorusFormula* torus_formula() const { return active() == Formula::Torus ? &torus_ : nullptr; }
  // Either formula: every link Ideal, one lane of `bw`, `latency`, no list built to say so; else nullptr.
  struct LinkFormula {
    Bandwidth bw = 0;
    Time latency = 0;
  };
  const LinkFormula* link_formula() const { return active() != Formula::None ? &link_ : nullptr; }

  int num_gpus() const {
    switch (active()) {
      case Formula::Crossbar: return crossbar_.gpus;
      case Formula::Torus: return torus_.gpus();
      default: return static_cast<int>(gpu_nodes_.size());
    }
  }
  int gpu_node(int gpu) const {
    if (active() != Formula::None && static_cast<unsigned>(gpu) < static_cast<unsigned>(num_gpus())) return gpu;
    return gpu_nodes_.at(static_cast<std::size_t>(gpu));
  }
  // GPU index of a node (-1: not a GPU), without building the node list.
  int gpu_of_node(int node) const {
    if (active() != Formula::None) return node < num_gpus() ? node : -1;
    return nodes[static_cast<std::size_t>(node)].gpu;
  }
  std::size_t num_nodes() const {
    switch (active()) {
      case Formula::Crossbar: return static_cast<std::size_t>(crossbar_.gpus) + 1;
      case Formula::Torus: return static_cast<std::size_t>(torus_.gpus());
      default: return nodes.size();
    }
  }
  std::size_t num_links() const {
    switch (active()) {
      case Formula::Crossbar: return static_cast<std::size_t>(crossbar_.gpus);
      case Formula::Torus: return torus_.num_links();
      default: return links.size();
    }
  }
  std::optional<int> find_node(std::string_view name) const;
  std::size_t num_channels() const { return num_links() * 2; }

  static ChannelId channel(int link, bool reverse) { return static_cast<ChannelId>(2 * link + (reverse ? 1 : 0)); }
  const Link& link_of(ChannelId c) const { return links[c / 2]; }
  // A channel's capacity and latency, without building the link list.
  Bandwidth channel_capacity(ChannelId c) const { return active() != Formula::None ? link_.bw : links[c / 2].capacity(); }
  Time channel_latency(ChannelId c) const { return active() != Formula::None ? link_.latency : links[c / 2].latency; }
  int channel_from(ChannelId c) const {
    switch (active()) {
      case Formula::Crossbar: return c % 2 ? crossbar_.gpus : static_cast<int>(c / 2);
      case Formula::Torus: return c % 2 ? torus_.ends(c / 2).second : torus_.ends(c / 2).first;
      default: return c % 2 ? links[c / 2].b : links[c / 2].a;
    }
  }
  int channel_to(ChannelId c) const {
    switch (active()) {
      case Formula::Crossbar: return c % 2 ? static_cast<int>(c / 2) : crossbar_.gpus;
      case Formula::Torus: return c % 2 ? torus_.ends(c / 2).first : torus_.ends(c / 2).second;
      default: return c % 2 ? links[c / 2].a : links[c / 2].b;
    }
  }
  std::string channel_name(ChannelId c) const;

  // Checks the invariants every loader and generator must meet; throws Error naming `origin`.
  void validate() const;

 private:
  void validate_link(const Link& l, const std::string& where) const;
  LazyVector<int> gpu_nodes_;
  enum class Formula { None, Crossbar, Torus };
  Formula formula_ = Formula::None; // set by a generator; in force while both lists are unbuilt
  Formula active() const { return formula_ != Formula::None && nodes.pending() && links.pending() ? formula_ : Formula::None; }
  CrossbarFormula crossbar_;
  TorusFormula torus_;
  LinkFormula link_;
  // Name index, built on the first find_node (a generated million-GPU crossbar is never searched by name, and
  // hashing its names was a third of its set-up); keeps loading a 262k-GPU torus linear, not quadratic.
  mutable std::unordered_map<std::string, int> by_name_;
  mutable std::size_t indexed_ = 0; // nodes [0, indexed_) are in by_name_
};

// Which host (server, "node" in NCCL's sense) each topology node belongs to: nodes joined by anything
// but network links and network switches share a host (on a generated crossbar every GPU does).
// Network switches belong to none (-1). The one way ccsim groups GPUs by host.
struct HostMap {
  std::vector<int> of_node; // host id per topology node, -1 for network switches
  int count = 0;             // hosts with GPUs (ids 0..count-1, numbered in order of their first GPU)
  int of_gpu(const Topology& t, int gpu) const { return of_node[static_cast<std::size_t>(t.gpu_node(gpu))]; }
};
HostMap host_map(const Topology& t);

// The hosts' CPU is AMD's (NCCL_TOPO_CPU_VENDOR_AMD): as Topology::cpu_vendor says; when it says nothing, where
// xGMI joins two CPU sockets (EPYC's link; Intel's are UPI/QPI), else not: Intel, the default.
bool cpu_is_amd(const Topology& t);

// A link between two CPU sockets (UPI / QPI / xGMI / SMP), and the machine's first such link (nullptr: one socket).
bool is_socket_link(const Topology& t, const Link& l);
const Link* first_socket_link(const Topology& t);

// The GPUs are Grace superchips' (GPU kind gh* or gb*: GH200, GB200, GB300): Arm hosts, each GPU on its Grace by
// NVLink-C2C.
bool grace_superchip(const Topology& t);

} // namespace ccsim::topology
