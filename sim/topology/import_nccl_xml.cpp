// NCCL's topology XML (NCCL_TOPO_DUMP_FILE output, NCCL_TOPO_FILE input; format of NCCL's
// src/graph/xml.cc and topo.cc): <cpu numaid> holds a <pci> tree (class 0x0604 bridges = PCIe switches,
// link_speed "16.0 GT/s PCIe" and link_width per device), GPUs as <pci class 0x03..><gpu sm><nvlink
// target count tclass/></gpu>, NICs as <pci><nic><net speed/></nic>. Hint files with only <pci> GPUs
// (class 0x0302) are read too: they give the PCIe/NUMA layout, not the NVLinks.
#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "sim/core/ascii.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/import_build.hpp"
#include "sim/topology/xml_lite.hpp"

namespace ccsim::topology {
using namespace import_detail;

namespace {

long pci_class(const XmlElement& e) {
  const std::string* c = e.attr("class");
  if (!c) return -1;
  std::string_view v = *c;
  if (v.substr(0, 2) == "0x" || v.substr(0, 2) == "0X") v.remove_prefix(2);
  long x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x, 16);
  if (ec != std::errc{} || p != v.data() + v.size()) return -1;
  return v.size() <= 2 ? x << 16 : v.size() <= 4 ? x << 8 : x; // "0x03" and "0x0302" are prefixes of 0x030200
}


bool has_child(const XmlDocument& d, int i, std::string_view name) {
  for (std::size_t k = static_cast<std::size_t>(i) + 1; k < d.elements.size(); ++k)
    if (d.elements[k].parent == i && d.elements[k].name == name) return true;
  return false;
}

struct Device {
  int element = -1; // the <pci> element
  enum class Kind { Gpu, Nic, Switch } kind = Kind::Switch;
  int node = -1;
  int parent = -1; // element index of the parent <pci> device or <cpu>
};

// An sm several kinds share is refused only when --gpu does not settle it (gpu_given).
std::optional<std::string> kind_from_file(const XmlDocument& d, const std::vector<int>& gpu_elems, bool has_nvswitch,
                                          const std::string& file, std::string& where, bool gpu_given) {
  for (const auto& c : d.comments) {
    const auto at = c.find("ccsim gpu kind:");
    if (at == std::string::npos) continue;
    auto toks = split_ws(std::string_view(c).substr(at + 15));
    if (!toks.empty()) {
      where = "the file's ccsim comment";
      return std::string(toks[0]);
    }
  }
  for (int g : gpu_elems)
    for (std::size_t k = static_cast<std::size_t>(g) + 1; k < d.elements.size(); ++k) {
      const auto& e = d.elements[k];
      if (e.parent != g || e.name != "gpu" || !e.attr("sm")) continue;
      // Kinds sharing a compute capability differ in their links (A100 12, A800 8; V100 SXM2 6, V100 PCIe
      // none): a GPU in an NVSwitch plane lists all of its links, elsewhere a dump may list fewer.
      int links = 0;
      for (std::size_t c = k + 1; c < d.elements.size(); ++c)
        if (d.elements[c].parent == static_cast<int>(k) && (d.elements[c].name == "nvlink" || d.elements[c].name == "xgmi"))
          links += static_cast<int>(std::clamp<long>(d.elements[c].attr("count") ? parse_int(*d.elements[c].attr("count")).value_or(1) : 1, 1, 64));
      std::vector<std::string> fits;
      for (const auto& name : gpu_kind_names()) {
        const GpuKind kind = gpu_kind(name, file);
        const int own = kind.nvlink ? kind.nvlinks : kind.bridge ? kind.bridge_links : kind.xgmi_links;
        const bool links_fit = has_nvswitch ? kind.nvlink && own == links : links > 0 ? own >= links : !kind.nvlink;
        if (kind.sm == *e.attr("sm") && links_fit) fits.push_back(name);
      }
      if (fits.size() == 1) {
        where = fmt::format("line {}: sm={}", e.line, *e.attr("sm"));
        return fits.front();
      }
      if (gpu_given) return std::nullopt;
      std::string list;
      for (const auto& f : fits) list += (list.empty() ? "" : ", ") + f;
      fail("{} line {}: sm={} fits {}: give --gpu KIND", file, e.line, *e.attr("sm"), fits.empty() ? "no GPU kind" : list);
    }
  return std::nullopt;
}

} // namespace

Topology import_nccl_xml(const std::string& text, const std::string& file, const ImportOptions& o) {
  if (text.size() > kMaxImportBytes) fail("{}: larger than {} MiB", file, kMaxImportBytes >> 20);
  const XmlDocument d = parse_xml(text, file);
  std::vector<Device> devices;
  std::map<int, std::size_t> device_of; // element -> device
  std::vector<int> gpu_elems;
  bool has_nvswitch = false;
  LinkType smp = LinkType::Upi;
  std::string smp_why = "no <cpu> says its vendor, Intel UPI assumed", vendor;
  for (std::size_t i = 0; i < d.elements.size(); ++i) {
    const auto& e = d.elements[i];
    if (e.name == "nvlink" && e.attr("tclass") && ascii_lower(*e.attr("tclass")) == "0x068000") has_nvswitch = true;
    if (e.name == "cpu" && e.attr("vendor") && smp_why.rfind("no <cpu>", 0) == 0) {
      const bool amd = *e.attr("vendor") == "AuthenticAMD";
      // NCCL's vendors (topo.cc kvDictCpuVendor): GenuineIntel, AuthenticAMD, Zhaoxin's two; ccsim draws the first two.
      vendor = amd ? "amd" : *e.attr("vendor") == "GenuineIntel" ? "intel" : "";
      const auto model = e.attr("modelid") ? parse_int(*e.attr("modelid")) : std::nullopt;
      smp = amd ? LinkType::Xgmi : (model && *model < 0x55) ? LinkType::Qpi : LinkType::Upi; // NCCL: Skylake = model 0x55
      smp_why = fmt::format("line {}: vendor {}{}", e.line, *e.attr("vendor"), model ? fmt::format(" modelid {}", *model) : "");
    }
    if (e.name != "pci") continue;
    int parent = e.parent;
    while (parent >= 0 && d.elements[static_cast<std::size_t>(parent)].name != "cpu" && !device_of.count(parent))
      parent = d.elements[static_cast<std::size_t>(parent)].parent;
    const long cls = pci_class(e);
    Device dev{static_cast<int>(i), Device::Kind::Switch, -1, parent};
    if ((cls >> 16) == 0x03 || has_child(d, static_cast<int>(i), "gpu")) dev.kind = Device::Kind::Gpu, gpu_elems.push_back(static_cast<int>(i));
    else if ((cls >> 16) == 0x02 || has_child(d, static_cast<int>(i), "nic")) dev.kind = Device::Kind::Nic;
    else if ((cls >> 8) != 0x0604) continue; // other devices (NVSwitch PCI functions, storage) carry no GPU traffic
    if (parent < 0) fail("{} line {}: <pci> outside any <cpu>", file, e.line);
    device_of[static_cast<int>(i)] = devices.size();
    devices.push_back(dev);
  }
  if (gpu_elems.empty()) fail("{}: no GPUs (<pci class=\"0x03...\"> or <gpu>) in the NCCL topology XML", file);
  std::string where;
  const auto named = kind_from_file(d, gpu_elems, has_nvswitch, file, where, !o.gpu.empty());
  HostBuilder b(file, choose_kind(file, o.gpu, named, where, "the XML does not say which GPU it is", "or add sm= to its <gpu> elements"),
                static_cast<int>(gpu_elems.size()));
  std::map<std::string, int> gpu_by_busid;
  int gpus = 0, switches = 0, nics = 0;
  for (auto& dev : devices) {
    const auto& e = d.elements[static_cast<std::size_t>(dev.element)];
    const std::string busid = e.attr("busid") ? ascii_lower(*e.attr("busid")) : fmt::format("line{}", e.line);
    if (dev.kind == Device::Kind::Gpu) dev.node = b.gpu(gpus), gpu_by_busid[busid] = gpus++;
    else if (dev.kind == Device::Kind::Switch) dev.node = b.add_node(fmt::format("pcie_sw{}", switches++), NodeKind::PcieSwitch);
    else dev.node = b.add_node(fmt::format("nic{}", nics++), NodeKind::Nic);
    const auto& pe = d.elements[static_cast<std::size_t>(dev.parent)];
    // numaid is an int in NCCL (-1 where the kernel reports no NUMA node); a larger one wrapped to another CPU's (2^32 + 1 -> cpu1).
    const long numa = pe.name == "cpu" && pe.attr("numaid") ? parse_int(*pe.attr("numaid")).value_or(0) : 0;
    if (numa < -1 || numa > 65535) fail("{} line {}: <cpu numaid=\"{}\">: not a NUMA node number (-1 to 65535)", file, pe.line, numa);
    const int parent_node = pe.name == "cpu" ? b.cpu(static_cast<int>(numa), "") : devices[device_of.at(dev.parent)].node;
    std::optional<std::string> gen;
    int width = 0;
    if (const std::string* s = e.attr("link_speed"))
      if (auto gts = parse_num(*s)) gen = pcie_gen_of_rate(*gts);
    if (const std::string* w = e.attr("link_width")) width = static_cast<int>(std::clamp(parse_int(*w).value_or(16), 0L, 32L));
    if (!gen) width = 0;
    b.pcie(dev.node, parent_node,
           fmt::format("line {}: <pci busid={}{}>{}", e.line, busid,
                       dev.kind == Device::Kind::Gpu ? " (GPU)" : dev.kind == Device::Kind::Nic ? " (NIC)" : " (PCIe switch)",
                       gen ? "" : ", no link_speed"),
           gen, width, dev.kind == Device::Kind::Gpu);
  }
  // NVLinks (and RCCL's <xgmi>): one element per GPU and target; both ends list a GPU-GPU link.
  int nvswitch = -1, dropped = 0, nvlinks = 0;
  std::map<std::pair<int, int>, bool> seen;
  for (const auto& e : d.elements) {
    if ((e.name != "nvlink" && e.name != "xgmi") || e.parent < 0) continue;
    const auto& gpu_el = d.elements[static_cast<std::size_t>(e.parent)];
    // A link sits in a <gpu> inside its GPU's <pci>; one under a switch's <pci> or a <nic> is malformed.
    if (gpu_el.name != "gpu") fail("{} line {}: <{}> outside a GPU's <gpu> element", file, e.line, e.name);
    if (gpu_el.parent < 0 || !device_of.count(gpu_el.parent)) continue;
    const auto& gpu_pci = d.elements[static_cast<std::size_t>(gpu_el.parent)];
    const auto owner = gpu_by_busid.find(gpu_pci.attr("busid") ? ascii_lower(*gpu_pci.attr("busid")) : fmt::format("line{}", gpu_pci.line));
    if (owner == gpu_by_busid.end()) fail("{} line {}: <{}> outside a GPU's <gpu> element", file, e.line, e.name);
    const int g = owner->second;
    const auto count = e.attr("count") ? parse_int(*e.attr("count")) : std::optional<long>(1);
    if (!count || *count < 1 || *count > 64) fail("{} line {}: <{}> count must be 1-64", file, e.line, e.name);
    const std::string tclass = e.attr("tclass") ? ascii_lower(*e.attr("tclass")) : "";
    const GpuKind& k = b.kind();
    const LinkType type = e.name == "xgmi" ? LinkType::Xgmi : k.nvlink ? *k.nvlink : k.bridge ? *k.bridge : LinkType::NvLink1;
    const std::string why = fmt::format("line {}: <{} target={} count={} tclass={}>", e.line, e.name,
                                        e.attr("target") ? *e.attr("target") : "?", *count, tclass);
    if (tclass == "0x068000") {
      if (nvswitch < 0) nvswitch = b.add_node("nvswitch", NodeKind::NvSwitch);
      b.gpu_link(b.gpu(g), nvswitch, type, static_cast<int>(*count), why + " (NVSwitch; one node for all switch chips)");
      ++nvlinks;
    } else if (tclass.rfind("0x03", 0) == 0 && e.attr("target")) {
      const auto peer = gpu_by_busid.find(ascii_lower(*e.attr("target")));
      if (peer == gpu_by_busid.end()) {
        ++dropped;
        continue;
      }
      const auto key = std::minmax(g, peer->second);
      if (seen[key]) continue;
      seen[key] = true;
      b.gpu_link(b.gpu(g), b.gpu(peer->second), type, static_cast<int>(*count), why);
      ++nvlinks;
    } else {
      ++dropped; // NVLink to a CPU (POWER9) or an unknown class
    }
  }
  std::string notes;
  if (nvlinks == 0) notes += " No <nvlink> elements: GPUs joined by PCIe only (an NCCL_TOPO_FILE hint; NCCL finds NVLinks through NVML).";
  if (dropped) notes += fmt::format(" {} NVLink element(s) point to devices the file does not list and were dropped.", dropped);
  return b.finish(fmt::format("nccl-xml-{}gpu", gpus),
                  fmt::format("Imported from the NCCL topology XML {}: {} GPUs, {} PCIe switches, {} NICs.{}", file, gpus, switches, nics, notes),
                  smp, smp_why, vendor);
}

} // namespace ccsim::topology
