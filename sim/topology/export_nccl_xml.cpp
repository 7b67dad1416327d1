// Topology -> NCCL topology XML (what NCCL_TOPO_DUMP_FILE writes and NCCL_TOPO_FILE reads; element and
// attribute names as NCCL's src/graph/xml.cc and topo.cc use them). Bus ids are made up, one per device;
// the GPU kind goes in a comment that NCCL skips and ccsim's importer reads.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/import.hpp"

namespace ccsim::topology {
namespace {

const char* gen_speed(LinkType t) {
  switch (t) {
    case LinkType::Pcie3: return "8.0 GT/s PCIe";
    case LinkType::Pcie4: return "16.0 GT/s PCIe";
    case LinkType::Pcie5: return "32.0 GT/s PCIe";
    default: return "64.0 GT/s PCIe";
  }
}

std::string kind_of(const Topology& t) {
  if (!t.gpu_kind.empty()) return t.gpu_kind;
  if (!default_import_gpu().empty()) return default_import_gpu();
  if (auto kind = sxm_kind_of_nvlink(t); !kind.empty()) return kind;
  fail("topo export --nccl-xml: {} does not say its GPU kind (NCCL needs the sm): give --gpu KIND", t.name);
}

class Writer {
 public:
  Writer(const Topology& t, GpuKind kind) : t_(t), kind_(std::move(kind)) {
    for (std::size_t i = 0; i < t.links.size(); ++i) {
      adj_[t.links[i].a].push_back(static_cast<int>(i));
      adj_[t.links[i].b].push_back(static_cast<int>(i));
    }
    for (std::size_t n = 0; n < t.nodes.size(); ++n) busid_[static_cast<int>(n)] = fmt::format("{:04x}:{:02x}:00.0", (n + 1) / 256, (n + 1) % 256);
  }

  std::string write() {
    check_links();
    out_ = fmt::format("<!-- ccsim gpu kind: {} -->\n<!-- written by ccsim topo export --nccl-xml from {}{} -->\n<system version=\"1\">\n",
                       kind_.name, t_.name, switch_note());
    int numa = 0;
    for (std::size_t n = 0; n < t_.nodes.size(); ++n)
      if (t_.nodes[n].kind == NodeKind::Cpu) cpu(static_cast<int>(n), numa++);
    std::vector<int> rest; // GPUs (and NICs) no CPU reaches over PCIe: NCCL needs them under one
    for (std::size_t n = 0; n < t_.nodes.size(); ++n)
      if (!placed_.count(static_cast<int>(n)) && (t_.nodes[n].kind == NodeKind::Gpu || t_.nodes[n].kind == NodeKind::Nic))
        rest.push_back(static_cast<int>(n));
    if (!rest.empty()) {
      out_ += fmt::format("  <!-- no host side in {}: these devices are put on CPU {} at the {} default PCIe link -->\n", t_.name, numa, kind_.name);
      out_ += cpu_open(numa);
      for (int n : rest) device(n, -1, 2);
      out_ += "  </cpu>\n";
    }
    return out_ + "</system>\n";
  }

 private:
  void check_links() const {
    for (const auto& l : t_.links) {
      const auto ka = t_.nodes[static_cast<std::size_t>(l.a)].kind, kb = t_.nodes[static_cast<std::size_t>(l.b)].kind;
      const bool ok = is_pcie(l.type) || is_nvlink(l.type) || is_network(l.type) || l.type == LinkType::Qpi || l.type == LinkType::Upi ||
                      l.type == LinkType::Xgmi;
      if (!ok || (ka == NodeKind::NetSwitch && kb == NodeKind::NetSwitch))
        fail("topo export --nccl-xml: link {} - {} is {}, which NCCL's topology XML cannot express", t_.nodes[static_cast<std::size_t>(l.a)].name,
             t_.nodes[static_cast<std::size_t>(l.b)].name, to_string(l.type));
    }
  }
  std::string switch_note() const {
    int switches = 0;
    for (const auto& n : t_.nodes) switches += n.kind == NodeKind::NvSwitch;
    return switches > 1 ? fmt::format("; its {} NVSwitch nodes are one NVSwitch plane here, as NCCL sees them", switches) : "";
  }
  std::string cpu_open(int numa) const {
    const bool amd = cpu_is_amd(t_);
    const bool qpi = std::any_of(t_.links.begin(), t_.links.end(), [](const Link& l) { return l.type == LinkType::Qpi; });
    return amd ? fmt::format("  <cpu numaid=\"{}\" arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"23\" modelid=\"49\">\n", numa)
               : fmt::format("  <cpu numaid=\"{}\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"{}\">\n", numa,
                             qpi ? 79 : 85);
  }
  void cpu(int node, int numa) {
    out_ += cpu_open(numa);
    placed_.insert(node);
    for (int li : adj_[node]) {
      const Link& l = t_.links[static_cast<std::size_t>(li)];
      const int other = l.a == node ? l.b : l.a;
      if (is_pcie(l.type) && !placed_.count(other)) device(other, li, 2);
    }
    out_ += "  </cpu>\n";
  }
  std::string pci_attrs(int node, int link) const {
    const auto& n = t_.nodes[static_cast<std::size_t>(node)];
    const char* cls = n.kind == NodeKind::Gpu ? "0x030200" : n.kind == NodeKind::Nic ? "0x020000" : "0x060400";
    LinkType type = kind_.pcie.type;
    int width = 16;
    if (link >= 0) {
      const Link& l = t_.links[static_cast<std::size_t>(link)];
      type = l.type;
      const PcieGen gen = pcie_gen(std::string(to_string(l.type)), "topo export");
      // The staged (no P2P) port of a GeForce card is not a narrower link: the importer stages it again.
      const bool staged = n.kind == NodeKind::Gpu && !kind_.p2p_pcie;
      for (int w : {1, 2, 4, 8, 16, 32})
        if (!staged && gen.bw * w / 16 <= l.capacity()) width = w;
    }
    return fmt::format("busid=\"{}\" class=\"{}\" link_speed=\"{}\" link_width=\"{}\"", busid_.at(node), cls, gen_speed(type), width);
  }
  void device(int node, int link, int depth) {
    placed_.insert(node);
    const auto& n = t_.nodes[static_cast<std::size_t>(node)];
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    out_ += pad + "<pci " + pci_attrs(node, link) + ">\n";
    if (n.kind == NodeKind::Gpu) gpu(node, depth + 1);
    if (n.kind == NodeKind::Nic) nic(node, depth + 1);
    if (n.kind == NodeKind::PcieSwitch)
      for (int li : adj_[node]) {
        const Link& l = t_.links[static_cast<std::size_t>(li)];
        const int other = l.a == node ? l.b : l.a;
        if (is_pcie(l.type) && !placed_.count(other) && t_.nodes[static_cast<std::size_t>(other)].kind != NodeKind::Cpu) device(other, li, depth + 1);
      }
    out_ += pad + "</pci>\n";
  }
  void gpu(int node, int depth) {
    const auto& n = t_.nodes[static_cast<std::size_t>(node)];
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    const bool amd = kind_.vendor == "amd";
    // NCCL's sm is the compute capability x10; RCCL writes gfx9xx as sm 9x beside gcn.
    const std::string sm = amd ? kind_.sm.substr(3, 2) : kind_.sm;
    out_ += pad + fmt::format("<gpu dev=\"{}\" sm=\"{}\"{} rank=\"{}\" gdr=\"1\">\n", n.gpu, sm, amd ? fmt::format(" gcn=\"{}\"", kind_.sm) : "", n.gpu);
    std::map<std::pair<std::string, std::string>, int> targets; // (target, tclass) -> count
    for (int li : adj_[node]) {
      const Link& l = t_.links[static_cast<std::size_t>(li)];
      const int other = l.a == node ? l.b : l.a;
      const auto okind = t_.nodes[static_cast<std::size_t>(other)].kind;
      if (!is_nvlink(l.type) && !(l.type == LinkType::Xgmi && okind == NodeKind::Gpu)) continue;
      if (okind == NodeKind::NvSwitch) targets[{"ffff:ff:1f.0", "0x068000"}] += l.lanes;
      else if (okind == NodeKind::Gpu) targets[{busid_.at(other), "0x030200"}] += l.lanes;
    }
    for (const auto& [key, count] : targets)
      out_ += pad + fmt::format("  <{} target=\"{}\" count=\"{}\" tclass=\"{}\"/>\n", amd ? "xgmi" : "nvlink", key.first, count, key.second);
    out_ += pad + "</gpu>\n";
  }
  void nic(int node, int depth) {
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    Bandwidth speed = 0;
    for (int li : adj_[node])
      if (is_network(t_.links[static_cast<std::size_t>(li)].type)) speed = std::max(speed, t_.links[static_cast<std::size_t>(li)].capacity());
    out_ += pad + "<nic>\n" +
            pad + fmt::format("  <net name=\"{}\" dev=\"{}\" speed=\"{}\" port=\"1\" gdr=\"1\" maxconn=\"131072\"/>\n",
                              t_.nodes[static_cast<std::size_t>(node)].name, nic_dev_++, speed > 0 ? speed * 8 / 1'000'000 : 100000) +
            pad + "</nic>\n";
  }

  const Topology& t_;
  GpuKind kind_;
  std::map<int, std::vector<int>> adj_;
  std::map<int, std::string> busid_;
  std::set<int> placed_;
  std::string out_;
  int nic_dev_ = 0;
};

} // namespace

std::string export_nccl_xml(const Topology& t) { return Writer(t, gpu_kind(kind_of(t), "topo export --nccl-xml")).write(); }

} // namespace ccsim::topology
