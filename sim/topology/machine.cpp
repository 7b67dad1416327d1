// `machine:gpu=h200,gpus=8,intra=nvswitch`: a node drawn from what a buyer knows of it. The GPU's links
// come from models/gpus.json (each number with its source); the node is written as the
// same JSON document a preset is, so it passes the same checks and `topo gen` can save it.
#include <map>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/topology_json.hpp"

namespace ccsim::topology {
namespace {

using nlohmann::json;

std::string gpu_name(int i) { return fmt::format("gpu{}", i); }

// GPUs 0..n-1 in groups of `group`, every pair of a group joined by `lanes` links of `type`.
void add_groups(json& links, int gpus, int group, const std::string& type, int lanes, const std::string& source) {
  for (int i = 0; i < gpus; ++i)
    for (int j = i + 1; j < gpus && j / group == i / group; ++j)
      links.push_back({{"a", gpu_name(i)}, {"b", gpu_name(j)}, {"type", type}, {"lanes", lanes}, {"source", source}});
}

// MI250/MI250X: ccsim's GPU is one GCD. The two GCDs of a package share 4 in-package links; the packages
// join in the ring AMD's CDNA 2 whitepaper draws (figure 2b: "two bi-directional rings for all-reduce"),
// GCD 2p+1 to GCD 2p+2 and the last back to GCD 0 (a part-filled last package leaves the ring open). Both
// rings cross each package boundary once per GCD, so the one ring drawn here carries 2 external links per
// hop; the node's other external links are not drawn.
void add_gcd_ring(json& links, const json& g, int gpus) {
  const int per = g.at("gcds").get<int>();
  const int cross = g.value("ring_links", 2);
  add_groups(links, gpus, per, "xgmi", g.at("gcd_links").get<int>(), "the GCDs of one package: in-package Infinity Fabric");
  const int packages = (gpus + per - 1) / per;
  for (int p = 0; p + 1 < packages; ++p)
    links.push_back({{"a", gpu_name(p * per + per - 1)}, {"b", gpu_name((p + 1) * per)}, {"type", "xgmi"}, {"lanes", cross},
                     {"source", "package ring (CDNA 2 whitepaper figure 2b): the two rings' links across this boundary"}});
  if (packages >= 2 && gpus == packages * per)
    links.push_back({{"a", gpu_name(gpus - 1)}, {"b", gpu_name(0)}, {"type", "xgmi"}, {"lanes", cross},
                     {"source", "package ring (CDNA 2 whitepaper figure 2b): closing the ring"}});
}

// AMD Instinct platforms: every GPU has one Infinity Fabric link to each of its peers; PCIe cards with
// bridge boards (xgmi_hive) form hives of that many GPUs, several hives joined only over PCIe.
void add_xgmi_mesh(json& types, json& links, const json& g, const MachineSpec& m) {
  const int xlinks = g.at("xgmi_links").get<int>();
  const int hive = g.value("xgmi_hive", xlinks + 1);
  if (!g.contains("xgmi_hive") && !g.contains("gcds") && m.gpus > xlinks + 1)
    fail("machine: {} has {} Infinity Fabric links, so a full mesh holds at most {} GPUs", m.gpu, xlinks, xlinks + 1);
  types["xgmi"] = {{"bw", g.at("xgmi_bw")},
                   {"latency", "0.6us"},
                   {"source", g.at("source").get<std::string>() +
                                  "; latency: taken equal to NCCL's 0.6 us NVLink hop (reference §3.3; no RCCL figure at hand)"}};
  if (g.contains("gcds")) return add_gcd_ring(links, g, m.gpus);
  for (int i = 0; i < m.gpus; ++i)
    for (int j = i + 1; j < m.gpus && j / hive == i / hive; ++j)
      links.push_back({{"a", gpu_name(i)}, {"b", gpu_name(j)}, {"type", "xgmi"},
                       {"source", g.contains("xgmi_hive") ? "Infinity Fabric bridge: one link per GPU pair of a hive"
                                                          : "Infinity Fabric full mesh: one link per GPU pair"}});
}

// The link between two sockets: its type tells --model nccl the CPU family (NCCL's socket figure per family,
// models/nccl.json cpu_link_GBps: UPI 10 or 22 beside Gen5 root ports, AMD 16).
void add_socket_link_type(json& types, const MachineSpec& m) {
  if (m.cpu == "amd") {
    types["xgmi"] = {{"bw", "36GB/s"}, {"latency", "1us"},
                     {"source", "socket link: one x16 xGMI link of a 2-socket AMD EPYC at 18 GT/s = 36 GB/s per direction, 4 of them "
                                "(as topologies/rtx4090-pcie-8gpu.json); latency taken equal to a PCIe hop"}};
    return;
  }
  types["upi"] = {{"bw", "22.4GB/s"}, {"latency", "1us"},
                  {"source", "socket link: Intel UPI at 11.2 GT/s x 2 bytes = 22.4 GB/s per direction (as topologies/pcie-gen4-8gpu.json); "
                             "latency taken equal to a PCIe hop"}};
}

// A link's own source replaces its type's (topology_json.cpp): "2 GPU(s) per PCIe switch" said where a link sits, and
// `topo show` printed 63 GB/s or a socket's 22.4 GB/s with nothing saying where the figure comes from. Each link's source
// gets the origin of its bandwidth: the catalogue entry (models/gpus.json) and the figure's own citation.
void add_figure_sources(json& links, const json& types, const json& g, const MachineSpec& m, const std::string& pcie, bool p2p,
                        const std::string& nvl) {
  // The clause of a "bw: ...; latency: ...; nop2p_bw: ..." source that cites one figure.
  const auto clause = [](const std::string& src, const std::string& key) {
    for (std::size_t at = 0; at < src.size();) {
      const auto end = std::min(src.find("; ", at), src.size());
      if (src.compare(at, key.size() + 2, key + ": ") == 0) return src.substr(at + key.size() + 2, end - at - key.size() - 2);
      at = end + 2;
    }
    return std::string();
  };
  std::map<std::string, std::string> figure;
  const std::string pcie_src = gpu_table()["pcie"].at(pcie).at("source").get<std::string>();
  figure[pcie] = fmt::format("{} per direction from models/gpus.json pcie.{}.{}: {}", types.at(pcie).at("bw").get<std::string>(), pcie,
                             p2p ? "bw" : "nop2p_bw", clause(pcie_src, p2p ? "bw" : "nop2p_bw"));
  const std::string socket = m.cpu == "amd" ? "xgmi" : "upi";
  if (types.contains(socket)) { // cpu=amd: "xgmi" is the socket link (intra=xgmi with cpu=amd is refused above)
    const std::string src = types.at(socket).at("source").get<std::string>();
    figure[socket] = src.substr(0, src.find("; latency"));
  }
  if (!nvl.empty() && types.contains(nvl))
    figure[nvl] = fmt::format("{} per link per direction from models/gpus.json gpus.{}.nvlink_bw", g.at("nvlink_bw").get<std::string>(), m.gpu);
  if (m.cpu != "amd" && g.contains("xgmi_bw") && types.contains("xgmi"))
    figure["xgmi"] = fmt::format("{} per link per direction from models/gpus.json gpus.{}.xgmi_bw", g.at("xgmi_bw").get<std::string>(), m.gpu);
  for (auto& l : links) {
    const auto f = figure.find(l.value("type", std::string()));
    if (f != figure.end() && l.contains("source") && !f->second.empty()) l["source"] = l["source"].get<std::string>() + "; " + f->second;
  }
}

// bridge=2way|4way|none: the NVLink bridge the cards carry, as NVIDIA sells them. models/gpus.json bridge_group
// is the widest bridge a kind comes with (2 unless it says 4: H200 NVL has 2- and 4-way bridges). Returns the
// intra the bridge means ("" when not given) and sets `group` to the GPUs one bridge joins (0: the default).
std::string intra_of_bridge(const json& g, const MachineSpec& m, int& group) {
  group = 0;
  if (m.bridge.empty()) return m.intra;
  const std::string want = m.bridge == "none" ? "pcie" : "bridge";
  if (m.bridge != "none" && m.bridge != "2way" && m.bridge != "4way")
    fail("machine: bridge '{}' is not 2way, 4way or none", m.bridge);
  if (!m.intra.empty() && m.intra != want) fail("machine: bridge={} and intra={} disagree: give one of them", m.bridge, m.intra);
  if (m.bridge == "none") return want;
  const int ways = m.bridge == "2way" ? 2 : 4;
  const int widest = g.value("bridge_group", 2);
  if (!g.contains("bridge"))
    fail("machine: {} is not sold with an NVLink bridge (models/gpus.json has no bridge for it); use bridge=none", m.gpu);
  if (ways > widest)
    fail("machine: {} comes with {}-way NVLink bridges only (models/gpus.json bridge_group), not bridge={}", m.gpu, widest, m.bridge);
  if (m.gpus % ways != 0) fail("machine: bridge={} joins the cards in {}s: gpus must be a multiple of {}, got {}", m.bridge, ways, ways, m.gpus);
  group = ways;
  return want;
}

} // namespace

Topology make_machine(const MachineSpec& m) {
  const json& table = gpu_table();
  const GpuKind kind = gpu_kind(m.gpu, "machine"); // checks the name and every field
  const json& g = table["gpus"][m.gpu];
  if (m.gpus < 1 || m.gpus > kMaxMachineGpus) fail("machine: gpus must be between 1 and {}, got {}", kMaxMachineGpus, m.gpus);
  int bridge_ways = 0;
  const std::string asked = intra_of_bridge(g, m, bridge_ways);
  // A kind whose default is the DGX-1 cube-mesh (p100) has no other NVLink board here: fewer or more GPUs than
  // the DGX-1's 8 are a PCIe machine (the name says so: machine-4xp100-pcie), as a first try with gpus=4 expects.
  const bool cube_default = asked.empty() && g.value("intra", std::string{}) == "cubemesh";
  const std::string intra = cube_default && m.gpus != 8 ? "pcie"
                          : asked.empty()               ? (g.contains("intra")        ? g["intra"].get<std::string>()
                                               : g.contains("nvlink")     ? "nvswitch"
                                               : g.contains("xgmi_links") ? "xgmi"
                                               : g.contains("bridge")     ? "bridge"
                                                                          : "pcie")
                                          : asked;
  // NVSwitch came with Volta (the DGX-2): a kind with NVLink but no models/gpus.json nvswitch_domain (P100) was
  // never built on one, so a switch board for it would be a machine nobody can measure.
  if (intra == "nvswitch" && g.contains("nvlink") && !g.contains("nvswitch_domain"))
    fail("machine: no NVSwitch board was made for {} (models/gpus.json has no nvswitch_domain for it): write intra=cubemesh "
         "(the DGX-1 {}, gpus=8) or intra=pcie",
         m.gpu, m.gpu == "p100" ? "P100" : m.gpu);
  if (intra == "cubemesh") {
    // The hybrid cube-mesh is one specific board, shipped as a preset with its exact link matrix.
    if (m.gpus != 8 || (m.gpu != "v100" && m.gpu != "p100"))
      fail("machine: intra=cubemesh is the 8-GPU DGX-1 board (gpu=v100 or p100, gpus=8)");
    return resolve_topology(m.gpu == "v100" ? "dgx1-v100" : "dgx1-p100");
  }
  if (intra != "nvswitch" && intra != "pcie" && intra != "bridge" && intra != "xgmi" && intra != "mesh")
    fail("machine: intra '{}' is not nvswitch, cubemesh, pcie, bridge, mesh or xgmi", intra);
  if (intra == "mesh" && !g.contains("mesh_group"))
    fail("machine: {} is not built as a direct NVLink mesh (gh200 and the 4-GPU a100 board are); use intra=nvswitch or pcie", m.gpu);
  // A kind whose mesh is one board beside its usual NVSwitch board (HGX A100 4-GPU) has no host with two such
  // boards; GH200, meshed by default, keeps its several 4-superchip groups.
  if (intra == "mesh" && g.value("intra", std::string{}) != "mesh" && m.gpus > g.at("mesh_group").get<int>())
    fail("machine: the {} mesh board holds {} GPUs, got gpus={}; use intra=nvswitch for more", m.gpu, g.at("mesh_group").get<int>(), m.gpus);
  if (intra == "xgmi" && !g.contains("xgmi_links")) fail("machine: {} has no Infinity Fabric links; use intra=pcie", m.gpu);
  if (intra == "nvswitch" && !g.contains("nvlink")) fail("machine: {} has no NVLink for an NVSwitch board; use intra=pcie", m.gpu);
  // One NVLink domain holds at most models/gpus.json nvswitch_domain GPUs: the HGX/DGX board (8; 16 for the DGX-2's
  // V100) or the rack (GB200/GB300 NVL72: 72). More GPUs are more of them, joined by a network.
  if (intra == "nvswitch" && g.contains("nvswitch_domain") && m.gpus > g["nvswitch_domain"].get<int>()) {
    const int domain = g["nvswitch_domain"].get<int>();
    const char* unit = domain > 16 ? "racks" : "nodes";
    fail("machine: one {} NVLink domain holds at most {} GPUs (models/gpus.json nvswitch_domain), got gpus={}; more GPUs are more {}: {}",
         m.gpu, domain, m.gpus, unit,
         m.gpus % domain == 0 ? fmt::format("gpus={},nodes={},nics=MxSPEED (e.g. nics={}x400G)", domain, m.gpus / domain, domain)
                              : fmt::format("gpus={},nodes=N,nics=MxSPEED", domain));
  }
  if (intra == "bridge" && !g.contains("bridge")) fail("machine: {} has no NVLink bridge; use intra=pcie", m.gpu);
  // Peer-to-peer over PCIe as the stock driver gives it when the spec does not say: GeForce cards have it
  // off (models/gpus.json p2p_pcie, the fact the topo -m importer follows too); p2p=on models a patched driver.
  const bool p2p = m.p2p_given || intra != "pcie" ? m.p2p : kind.p2p_pcie;
  if (!p2p && intra != "pcie") fail("machine: p2p=off applies to intra=pcie (NVLink traffic is always peer to peer)");
  if (m.sockets < 0 || m.sockets > 2) fail("machine: sockets must be 1 or 2, got {}", m.sockets);
  if (m.sockets > m.gpus) fail("machine: {} socket(s) for {} GPU(s): every socket needs a GPU", m.sockets, m.gpus);
  if (m.gpus_per_switch < 1 || m.gpus_per_switch > kMaxGpusPerSwitch)
    fail("machine: gpus_per_switch must be between 1 and {}, got {}", kMaxGpusPerSwitch, m.gpus_per_switch);
  if (m.cpu != "intel" && m.cpu != "amd") fail("machine: cpu '{}' is not intel or amd", m.cpu);

  const std::string pcie = g.at("pcie").get<std::string>();
  const json& pc = table["pcie"].at(pcie);
  json doc;
  if (m.cpu == "amd" && intra == "xgmi") fail("machine: cpu=amd with intra=xgmi: the xgmi link type is the GPUs' mesh here");
  std::string layout = m.pcie_switch ? "" : "-rootports";
  if (m.sockets > 0) layout += fmt::format("-{}socket", m.sockets);
  if (m.gpus_per_switch != 2) layout += fmt::format("-{}perswitch", m.gpus_per_switch);
  if (m.cpu != "intel") layout += "-" + m.cpu;
  if (bridge_ways > 0) layout += fmt::format("-{}way", bridge_ways);
  doc["name"] = fmt::format("machine-{}x{}-{}{}{}", m.gpus, m.gpu, intra, p2p ? "" : "-nop2p", layout);
  doc["description"] = fmt::format("Generated by machine:gpu={},gpus={},intra={}{}{} from models/gpus.json. {}.", m.gpu, m.gpus, intra,
                                   p2p ? "" : ",p2p=off", bridge_ways > 0 ? fmt::format(",bridge={}way", bridge_ways) : "",
                                   g.at("source").get<std::string>());
  json types;
  if (p2p) {
    types[pcie] = {{"bw", pc.at("bw")}, {"latency", pc.at("latency")}, {"source", pc.at("source")}};
  } else {
    // Without peer-to-peer a copy is staged through host memory: the GPU's port runs at the measured
    // staged speed, and each of the two ports a copy crosses takes half the measured latency.
    types[pcie] = {{"bw", pc.at("nop2p_bw")}, {"latency", "5.5us"},
                   {"source", pc.at("source").get<std::string>() + "; P2P off: bw = nop2p_bw, latency = half of the ~11 us "
                              "staged GPU-to-GPU latency measured on the RTX 4090 box (same header)"}};
  }
  add_socket_link_type(types, m);
  const std::string nvl = g.value("nvlink", g.value("bridge", std::string{}));
  if (!nvl.empty() && intra != "pcie")
    types[nvl] = {{"bw", g.at("nvlink_bw")},
                  {"latency", intra == "nvswitch" ? "0.3us" : "0.6us"},
                  {"source", g.at("source").get<std::string>() + (intra == "nvswitch"
                                 ? "; latency: half of NCCL's 0.6 us NVLink hop (reference §3.3), a message crosses two links via the switch"
                                 : "; latency: NCCL's 0.6 us NVLink hop (reference §3.3)")}};

  json nodes = json::array(), links = json::array();
  for (int i = 0; i < m.gpus; ++i) nodes.push_back({{"name", fmt::format("gpu{}", i)}, {"kind", "gpu"}});
  const int sockets = m.sockets > 0 ? m.sockets : m.gpus >= 4 ? 2 : 1;
  for (int s = 0; s < sockets; ++s) nodes.push_back({{"name", fmt::format("cpu{}", s)}, {"kind", "cpu"}});
  if (sockets == 2)
    links.push_back({{"a", "cpu0"}, {"b", "cpu1"}, {"type", m.cpu == "amd" ? "xgmi" : "upi"}, {"lanes", m.cpu == "amd" ? 4 : 1},
                     {"source", m.cpu == "amd" ? "two sockets, 4 xGMI links between them (2-socket EPYC boards)" : "two sockets"}});
  // GPUs fill the sockets in order (the first half on cpu0), so the ring 0..n-1 crosses between them twice,
  // as NCCL's search keeps it.
  auto socket_of = [&](int gpu) { return gpu * sockets / m.gpus; };
  // Host side: a PCIe switch per two GPUs on server boards (where cluster NICs attach, as on DGX/HGX);
  // GPUs straight on CPU root ports when peer-to-peer is off, on bridge (workstation) boards, or when asked
  // (pcie_switch=off: boards whose GPUs have no switch, such as many 4-8 GPU GeForce servers).
  const bool switches = m.pcie_switch && (intra == "nvswitch" || intra == "xgmi" || intra == "mesh" || (intra == "pcie" && p2p));
  for (int i = 0; i < m.gpus; ++i) {
    if (switches) {
      const int per = m.gpus_per_switch;
      if (i % per == 0) {
        const auto sw = fmt::format("pcie_sw{}", i / per);
        nodes.push_back({{"name", sw}, {"kind", "pcie_switch"}});
        links.push_back({{"a", sw}, {"b", fmt::format("cpu{}", socket_of(i))}, {"type", pcie}, {"source", "switch uplink to its socket"}});
      }
      links.push_back({{"a", fmt::format("pcie_sw{}", i / per)}, {"b", fmt::format("gpu{}", i)}, {"type", pcie},
                       {"source", fmt::format("{} GPU(s) per PCIe switch", per)}});
    } else {
      links.push_back({{"a", fmt::format("gpu{}", i)}, {"b", fmt::format("cpu{}", socket_of(i))}, {"type", pcie}, {"source", "GPU on a CPU root port"}});
      if (!p2p) links.back()["host_staged"] = true; // the port's copies go through host memory (NCCL's SHM)
    }
  }
  if (intra == "nvswitch") {
    nodes.push_back({{"name", "nvswitch"}, {"kind", "nvswitch"}});
    for (int i = 0; i < m.gpus; ++i)
      links.push_back({{"a", fmt::format("gpu{}", i)}, {"b", "nvswitch"}, {"type", nvl}, {"lanes", g.at("nvlinks")},
                       {"source", "every NVLink of the GPU into the switch plane (one node for all switch chips)"}});
  }
  if (intra == "bridge") {
    // A 2-way bridge joins a pair; a 4-way bridge (bridge_group 4, H200 NVL) splits the GPU's links over 3 peers.
    const int group = bridge_ways > 0 ? bridge_ways : m.gpus <= 2 ? 2 : g.value("bridge_group", 2);
    add_groups(links, m.gpus, group, nvl, g.at("bridge_links").get<int>() / (group - 1),
               group == 2 ? "NVLink bridge joins GPUs in pairs" : fmt::format("{}-way NVLink bridge: every pair of its GPUs", group));
  }
  if (intra == "mesh") {
    const int group = g.at("mesh_group").get<int>();
    add_groups(links, m.gpus, group, nvl, g.at("nvlinks").get<int>() / (group - 1),
               fmt::format("boards of {} GPUs joined all-to-all by their NVLinks", group));
  }
  if (intra == "xgmi") add_xgmi_mesh(types, links, g, m);
  add_figure_sources(links, types, g, m, pcie, p2p, nvl);
  doc["link_types"] = types;
  doc["gpu"] = m.gpu;
  if (m.cpu != "intel") doc["cpu"] = m.cpu; // Intel is what a host is taken as when nothing says (topology.hpp)
  doc["nodes"] = nodes;
  doc["links"] = links;
  Topology t = topology_from_json(doc, fmt::format("machine:gpu={},gpus={},intra={}", m.gpu, m.gpus, intra));
  t.origin = "generated (machine:)";
  // pcie_duplex: every GPU's PCIe port (to its switch or root port) carries at most this much both ways together.
  if (m.pcie_duplex > 0) {
    for (auto& l : t.links)
      if (is_pcie(l.type) && (t.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Gpu || t.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Gpu))
        l.duplex = m.pcie_duplex;
    t.name += "-duplex";
    t.description += fmt::format(" PCIe ports of the GPUs: {:.1f} GB/s both directions together (pcie_duplex).", static_cast<double>(m.pcie_duplex) / 1e9);
  }
  return t;
}

} // namespace ccsim::topology
