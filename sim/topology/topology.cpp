#include "sim/topology/topology.hpp"
#include "sim/topology/cloud_machines.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::topology {
namespace {

constexpr std::array<std::pair<NodeKind, std::string_view>, 6> kNodeKinds{{
    {NodeKind::Gpu, "gpu"},
    {NodeKind::NvSwitch, "nvswitch"},
    {NodeKind::PcieSwitch, "pcie_switch"},
    {NodeKind::Cpu, "cpu"},
    {NodeKind::Nic, "nic"},
    {NodeKind::NetSwitch, "net_switch"},
}};

constexpr std::array<std::pair<LinkType, std::string_view>, 21> kLinkTypes{{
    {LinkType::NvLink1, "nvlink1"}, {LinkType::NvLink2, "nvlink2"}, {LinkType::NvLink3, "nvlink3"},
    {LinkType::NvLink4, "nvlink4"}, {LinkType::NvLink5, "nvlink5"}, {LinkType::Pcie3, "pcie3"},
    {LinkType::Pcie4, "pcie4"},     {LinkType::Pcie5, "pcie5"},     {LinkType::Pcie6, "pcie6"},     {LinkType::Qpi, "qpi"},
    {LinkType::Upi, "upi"},         {LinkType::Xgmi, "xgmi"},       {LinkType::Ib, "ib"},           {LinkType::Roce, "roce"},
    {LinkType::Efa, "efa"},         {LinkType::Ethernet, "ethernet"}, {LinkType::Slingshot, "slingshot"},
    {LinkType::Gib, "gib"},         {LinkType::Tcpx, "tcpx"},       {LinkType::Tcpxo, "tcpxo"},     {LinkType::Ideal, "ideal"},
}};

} // namespace

std::string_view to_string(NodeKind k) {
  for (auto& [kind, name] : kNodeKinds)
    if (kind == k) return name;
  return "?";
}
std::string_view to_string(LinkType t) {
  for (auto& [type, name] : kLinkTypes)
    if (type == t) return name;
  return "?";
}
std::optional<NodeKind> node_kind_from(std::string_view s) {
  for (auto& [kind, name] : kNodeKinds)
    if (name == s) return kind;
  return std::nullopt;
}
std::optional<LinkType> link_type_from(std::string_view s) {
  for (auto& [type, name] : kLinkTypes)
    if (name == s) return type;
  return std::nullopt;
}
bool is_nvlink(LinkType t) { return t >= LinkType::NvLink1 && t <= LinkType::NvLink5; }
bool is_pcie(LinkType t) { return t >= LinkType::Pcie3 && t <= LinkType::Pcie6; }
bool is_network(LinkType t) {
  return t == LinkType::Ib || t == LinkType::Roce || t == LinkType::Efa || t == LinkType::Ethernet || t == LinkType::Slingshot ||
         t == LinkType::Gib || t == LinkType::Tcpx || t == LinkType::Tcpxo;
}

int Topology::add_node(std::string node_name, NodeKind kind) {
  Node n{std::move(node_name), kind, -1};
  if (kind == NodeKind::Gpu) {
    n.gpu = static_cast<int>(gpu_nodes_.size());
    gpu_nodes_.push_back(static_cast<int>(nodes.size()));
  }
  nodes.push_back(std::move(n));
  return static_cast<int>(nodes.size()) - 1;
}

int Topology::add_link(int a, int b, LinkType type, Bandwidth bw, Time latency, int lanes, std::string source, bool host_staged) {
  links.push_back(Link{a, b, type, bw, latency, lanes, std::move(source), host_staged});
  return static_cast<int>(links.size()) - 1;
}

std::optional<int> Topology::find_node(std::string_view node_name) const {
  if (indexed_ > nodes.size()) by_name_.clear(), indexed_ = 0; // nodes were removed: index afresh
  for (; indexed_ < nodes.size(); ++indexed_) by_name_.emplace(nodes[indexed_].name, static_cast<int>(indexed_));
  auto it = by_name_.find(std::string(node_name));
  if (it == by_name_.end()) return std::nullopt;
  const auto i = static_cast<std::size_t>(it->second);
  if (nodes[i].name == node_name) return it->second;
  // A node was renamed in place since it was indexed: find the name by scanning.
  for (std::size_t k = 0; k < nodes.size(); ++k)
    if (nodes[k].name == node_name) return static_cast<int>(k);
  return std::nullopt;
}

void Topology::set_crossbar_formula(CrossbarFormula f) {
  formula_ = Formula::Crossbar;
  crossbar_ = f;
  link_ = {f.bw, f.latency};
  nodes.defer([f](std::vector<Node>& v) {
    v.reserve(static_cast<std::size_t>(f.gpus) + 1);
    for (int i = 0; i < f.gpus; ++i) v.push_back(Node{fmt::format("gpu{}", i), NodeKind::Gpu, i});
    v.push_back(Node{"switch", NodeKind::NetSwitch, -1});
  });
  links.defer([f](std::vector<Link>& v) {
    v.reserve(static_cast<std::size_t>(f.gpus));
    for (int i = 0; i < f.gpus; ++i) v.push_back(Link{i, f.gpus, LinkType::Ideal, f.bw, f.latency, 1, "generated", false});
  });
  gpu_nodes_.defer([f](std::vector<int>& v) {
    v.resize(static_cast<std::size_t>(f.gpus));
    for (int i = 0; i < f.gpus; ++i) v[static_cast<std::size_t>(i)] = i;
  });
}

// The lists exactly as make_torus used to add them: node i "gpu<i>", then per GPU per dimension its link.
void Topology::set_torus_formula(TorusFormula f) {
  formula_ = Formula::Torus;
  link_ = {f.bw(), f.latency()};
  torus_ = std::move(f);
  const TorusFormula& tf = torus_;
  nodes.defer([tf](std::vector<Node>& v) {
    v.reserve(static_cast<std::size_t>(tf.gpus()));
    for (int i = 0; i < tf.gpus(); ++i) v.push_back(Node{fmt::format("gpu{}", i), NodeKind::Gpu, i});
  });
  links.defer([tf](std::vector<Link>& v) {
    v.reserve(tf.num_links());
    for (std::size_t l = 0; l < tf.num_links(); ++l) {
      const auto [a, b] = tf.ends(static_cast<std::uint32_t>(l));
      v.push_back(Link{a, b, LinkType::Ideal, tf.bw(), tf.latency(), 1, "generated", false});
    }
  });
  gpu_nodes_.defer([n = tf.gpus()](std::vector<int>& v) {
    v.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  });
}

std::string Topology::channel_name(ChannelId c) const {
  if (torus_formula()) return fmt::format("gpu{}->gpu{}", channel_from(c), channel_to(c));
  if (crossbar_formula()) {
    const auto node_name = [&](int node) { return node == crossbar_.gpus ? std::string("switch") : fmt::format("gpu{}", node); };
    return fmt::format("{}->{}", node_name(channel_from(c)), node_name(channel_to(c)));
  }
  return fmt::format("{}->{}", nodes[static_cast<std::size_t>(channel_from(c))].name,
                     nodes[static_cast<std::size_t>(channel_to(c))].name);
}

void Topology::validate() const {
  const std::string& where = origin.empty() ? name : origin;
  if (num_gpus() == 0) fail("{}: topology has no GPU", where);
  if (!cpu_vendor.empty() && cpu_vendor != "intel" && cpu_vendor != "amd") fail("{}: cpu '{}' is not intel or amd", where, cpu_vendor);
  if (!instance.empty()) {
    // An EC2 instance type names an AWS machine, whose nodes talk over EFA: on another fabric the name would be
    // read for nothing (the transport it selects is aws-ofi-nccl's, over EFA only).
    // A Google Cloud machine type names its own fabric likewise (cloud_machines.hpp).
    const auto* gcp = cloud_machine(instance);
    const LinkType want = gcp ? gcp->kind : LinkType::Efa;
    bool found = false;
    for (const auto& l : links) found = found || l.type == want;
    if (!found && gcp)
      fail("{}: instance '{}' names Google Cloud's {} machine type, whose network is {}, but no link is of type {}", where, instance,
           gcp->name, to_string(want), to_string(want));
    if (!found) fail("{}: instance '{}' names an AWS EC2 instance type, whose network is EFA, but no link is of type efa", where, instance);
  }
  if (crossbar_formula()) { // every link is link 0's twin, and every GPU is one link from the switch
    validate_link(Link{0, crossbar_.gpus, LinkType::Ideal, crossbar_.bw, crossbar_.latency, 1, {}, false}, where);
    return;
  }
  if (const auto* tf = torus_formula()) { // links alike, between neighbours of a connected grid
    if (tf->num_links() > 0) validate_link(Link{tf->ends(0).first, tf->ends(0).second, LinkType::Ideal, tf->bw(), tf->latency(), 1, {}, false}, where);
    return;
  }
  for (const auto& l : links) validate_link(l, where);
  // Every GPU must reach every other: union-find over the links (flat; per-node adjacency vectors cost a
  // million allocations on a million-GPU crossbar), then every GPU in the first GPU's set.
  std::vector<int> parent(nodes.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<int>(i);
  auto root = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  };
  for (const auto& l : links) parent[static_cast<std::size_t>(root(l.a))] = root(l.b);
  const int home = root(gpu_nodes_.front());
  for (int g : gpu_nodes_)
    if (root(g) != home)
      fail("{}: GPU '{}' is not connected to '{}'", where, nodes[static_cast<std::size_t>(g)].name,
           nodes[static_cast<std::size_t>(gpu_nodes_.front())].name);
}

void Topology::validate_link(const Link& l, const std::string& where) const {
  const int n = static_cast<int>(num_nodes());
  if (l.a < 0 || l.a >= n || l.b < 0 || l.b >= n) fail("{}: link refers to a node that does not exist", where);
  if (l.a == l.b) fail("{}: link from '{}' to itself", where, nodes[static_cast<std::size_t>(l.a)].name);
  if (l.bw == 0) fail("{}: link {}-{} has zero bandwidth", where, nodes[static_cast<std::size_t>(l.a)].name,
                      nodes[static_cast<std::size_t>(l.b)].name);
  if (l.lanes < 1 || l.lanes > kMaxLanes)
    fail("{}: link {}-{} has {} lanes (need 1..{})", where, nodes[static_cast<std::size_t>(l.a)].name,
         nodes[static_cast<std::size_t>(l.b)].name, l.lanes, kMaxLanes);
  // bw x lanes must not wrap around (a wrapped capacity of 0 divides by zero in the engine).
  if (l.bw > kMaxBandwidth / static_cast<Bandwidth>(l.lanes))
    fail("{}: link {}-{}: {} lanes of {} B/s is more than {:g} B/s", where, nodes[static_cast<std::size_t>(l.a)].name,
         nodes[static_cast<std::size_t>(l.b)].name, l.lanes, l.bw, static_cast<double>(kMaxBandwidth));
  // Only a GPU's PCIe port can be staged through host memory (NCCL's SHM transport copies over it).
  const auto gpu = [&](int node) { return nodes[static_cast<std::size_t>(node)].kind == NodeKind::Gpu; };
  if (l.host_staged && (!is_pcie(l.type) || !(gpu(l.a) || gpu(l.b))))
    fail("{}: link {}-{}: host_staged marks a GPU's PCIe port, and this is a {} link{}", where,
         nodes[static_cast<std::size_t>(l.a)].name, nodes[static_cast<std::size_t>(l.b)].name, to_string(l.type),
         is_pcie(l.type) ? " without a GPU end" : "");
}

HostMap host_map(const Topology& t) {
  if (t.link_formula()) { // one host: every node is joined to the others by Ideal links (as the walk below finds)
    HostMap m;
    m.of_node.assign(t.num_nodes(), 0);
    m.count = 1;
    return m;
  }
  std::vector<int> parent(t.nodes.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<int>(i);
  auto find = [&](int x) {
    while (parent[static_cast<std::size_t>(x)] != x)
      x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
    return x;
  };
  const bool crossbar = t.structure.kind == Structure::Kind::Crossbar;
  auto is_net_switch = [&](int n) { return t.nodes[static_cast<std::size_t>(n)].kind == NodeKind::NetSwitch; };
  for (const auto& l : t.links) {
    if (is_network(l.type)) continue;
    if (!crossbar && (is_net_switch(l.a) || is_net_switch(l.b))) continue;
    parent[static_cast<std::size_t>(find(l.a))] = find(l.b);
  }
  HostMap m;
  m.of_node.assign(t.nodes.size(), -1);
  std::unordered_map<int, int> ids; // root -> host id, numbered in order of first GPU, then other nodes
  auto id_of = [&](int node) { return ids.emplace(find(node), static_cast<int>(ids.size())).first->second; };
  for (int g = 0; g < t.num_gpus(); ++g) m.of_node[static_cast<std::size_t>(t.gpu_node(g))] = id_of(t.gpu_node(g));
  m.count = static_cast<int>(ids.size()); // hosts with GPUs: ids 0..count-1
  for (std::size_t n = 0; n < t.nodes.size(); ++n)
    if (m.of_node[n] < 0 && (crossbar || !is_net_switch(static_cast<int>(n)))) m.of_node[n] = id_of(static_cast<int>(n));
  return m;
}

bool cpu_is_amd(const Topology& t) {
  if (!t.cpu_vendor.empty()) return t.cpu_vendor == "amd";
  return std::any_of(t.links.begin(), t.links.end(), [&](const Link& l) { return l.type == LinkType::Xgmi && is_socket_link(t, l); });
}

bool is_socket_link(const Topology& t, const Link& l) {
  return t.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Cpu && t.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Cpu;
}

const Link* first_socket_link(const Topology& t) {
  const auto it = std::find_if(t.links.begin(), t.links.end(), [&](const Link& l) { return is_socket_link(t, l); });
  return it == t.links.end() ? nullptr : &*it;
}

bool grace_superchip(const Topology& t) { return t.gpu_kind.rfind("gh", 0) == 0 || t.gpu_kind.rfind("gb", 0) == 0; }

} // namespace ccsim::topology
