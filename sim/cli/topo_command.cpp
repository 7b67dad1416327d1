#include "sim/cli/topo_command.hpp"

#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/common.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/cloud_machines.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

namespace ccsim::cli {
namespace {

struct TopoOptions {
  std::string name = "dgx1";
  int max_pairs_gpus = 64;
  bool dot = false;
  // gen
  std::string kind, dims, bw = "100GB/s", alpha, output;
  int ranks = 8;
  // gen cluster
  int nodes = 2, leaf_ports = 32, oversub = 1;
  std::string node = "hgx-h100", nics = "8x400G", fabric = "switch", net = "ib", sharp, nic_at = "gpu", instance;
  // import / export
  std::string file, gpu;
  bool nccl_xml = false;
};

// Graphviz: GPUs are boxes, switches/CPUs/NICs ellipses; colour = link family, pen width = lanes.
std::string dot_colour(topology::LinkType t) {
  using topology::LinkType;
  if (topology::is_nvlink(t)) return "#76b900";
  if (topology::is_pcie(t)) return "#1f77b4";
  if (t == LinkType::Qpi || t == LinkType::Upi || t == LinkType::Xgmi) return "#9467bd";
  if (topology::is_network(t)) return "#ff7f0e";
  return "#7f7f7f";
}


std::string dot(const topology::Topology& t) {
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) o += c == '"' ? std::string("\\\"") : c == '\\' ? std::string("/") : c == '\n' ? std::string(" ") : std::string(1, c);
    return o;
  };
  auto q = [&](const std::string& s) { return "\"" + esc(s) + "\""; };
  std::string out = fmt::format("graph {} {{\n  // {}\n  // colours: nvlink green, pcie blue, qpi/upi/xgmi purple, "
                                "network orange, ideal grey; pen width = lanes; labels: kind x lanes, bandwidth per direction\n  graph [overlap=false];\n",
                                q(t.name), esc(t.description));
  for (const auto& n : t.nodes)
    out += n.gpu >= 0 ? fmt::format("  {} [shape=box, style=filled, fillcolor=\"#d9f2b4\"];\n", q(n.name))
                      : fmt::format("  {} [shape=ellipse, label=\"{}\\n{}\"];\n", q(n.name), esc(n.name),
                                    topology::to_string(n.kind));
  for (const auto& l : t.links)
    out += fmt::format("  {} -- {} [color=\"{}\", penwidth={}, label={}, tooltip={}];\n",
                       q(t.nodes[static_cast<std::size_t>(l.a)].name), q(t.nodes[static_cast<std::size_t>(l.b)].name),
                       dot_colour(l.type), l.lanes,
                       // The bandwidth per direction as `topo show` lists it: "ideal x1" alone left a crossbar's
                       // 25 GB/s, or a NIC's 400G, out of the picture.
                       q(fmt::format("{} x{}, {}", topology::to_string(l.type), l.lanes, format_bandwidth(l.capacity()))),
                       q(l.source));
  return out + "}\n";
}

std::string route_text(const topology::Topology& t, std::span<const topology::ChannelId> r) {
  std::string s = t.nodes[static_cast<std::size_t>(t.channel_from(r.front()))].name;
  for (auto c : r) s += " -> " + t.nodes[static_cast<std::size_t>(t.channel_to(c))].name;
  return s;
}

std::string show(const TopoOptions& o) {
  const auto t = topology::resolve_topology(o.name);
  if (o.dot) return dot(t);
  std::string out = fmt::format("topology {} ({})\n{}\n\n", t.name, t.origin, t.description);
  out += fmt::format("nodes ({}):\n", t.nodes.size());
  for (const auto& n : t.nodes)
    out += n.gpu >= 0 ? fmt::format("  {:<12} gpu {}\n", n.name, n.gpu) : fmt::format("  {:<12} {}\n", n.name, topology::to_string(n.kind));
  out += fmt::format("\nlinks ({}), full duplex unless a both-ways budget is shown, bandwidth per direction:\n", t.links.size());
  for (const auto& l : t.links)
    out += fmt::format("  {:<10} - {:<10} {:<8} x{} {:>10}  latency {:<8}  {}{}source: {}\n", t.nodes[static_cast<std::size_t>(l.a)].name,
                       t.nodes[static_cast<std::size_t>(l.b)].name, topology::to_string(l.type), l.lanes,
                       format_bandwidth(l.capacity()), format_duration(l.latency),
                       l.host_staged ? "host-staged (SHM)  " : "",
                       l.duplex > 0 ? fmt::format("both ways together {}  ", format_bandwidth(l.duplex)) : "",
                       l.source.empty() ? "-" : l.source);
  if (t.num_gpus() > o.max_pairs_gpus) {
    out += fmt::format("\n({} GPUs: GPU-pair routes not listed; raise --max-gpus to see them)\n", t.num_gpus());
    return out;
  }
  out += "\nroutes between GPUs (widest path, then lowest latency):\n";
  topology::Router router(t);
  for (int a = 0; a < t.num_gpus(); ++a)
    for (int b = 0; b < t.num_gpus(); ++b) {
      if (a == b) continue;
      const auto r = router.route(t.gpu_node(a), t.gpu_node(b));
      const auto info = router.info(r);
      std::string kinds;
      for (auto c : r) kinds += (kinds.empty() ? "" : "+") + std::string(topology::to_string(t.link_of(c).type));
      out += fmt::format("  gpu {} -> gpu {}: {} hop(s), bottleneck {}, latency {}  [{}]  {}\n", a, b, info.hops,
                         format_bandwidth(info.bottleneck), format_duration(info.latency), kinds, route_text(t, r));
    }
  return out;
}

std::string generate(const TopoOptions& o) {
  if (o.kind == "cluster") {
    // nics empty: a cloud machine type's own NICs (--instance without --nics).
    std::string spec = fmt::format("cluster:nodes={},node={},{}fabric={},kind={},leaf_ports={},oversub={}", o.nodes, o.node,
                                   o.nics.empty() ? "" : "nics=" + o.nics + ",", o.fabric, o.net, o.leaf_ports, o.oversub);
    if (!o.alpha.empty()) spec += ",alpha=" + o.alpha;
    if (!o.sharp.empty()) spec += ",sharp=" + o.sharp;
    if (!o.instance.empty()) spec += ",instance=" + o.instance;
    // Read here too, so that a refusal names the flag (the spec's own reading names the spec).
    (void)topology::nic_at_from(o.nic_at, "--nic-at:");
    spec += ",nic_at=" + o.nic_at;
    return topology::topology_to_text(topology::generate_from_spec(spec));
  }
  const Bandwidth bw = parse_bandwidth(o.bw, "--bw");
  const Time alpha = parse_duration(o.alpha.empty() ? "1us" : o.alpha, "--alpha");
  topology::Topology t;
  if (o.kind == "torus") {
    if (o.dims.empty()) fail("topo gen torus: --dims is required (e.g. 4x4x4)");
    t = topology::make_torus(topology::parse_dims(o.dims, "--dims"), bw, alpha);
  } else if (o.kind == "crossbar") {
    // The generator checks the count (its own bound) but names no flag; here the count is --ranks.
    if (o.ranks < 1) fail("--ranks: {} is not a GPU count (1 or more)", o.ranks);
    try {
      t = topology::make_crossbar(o.ranks, bw, alpha);
    } catch (const Error& e) {
      fail("--ranks {}: {}", o.ranks, e.what());
    }
  } else {
    fail("topo gen: unknown generator '{}' (torus, crossbar, cluster)", o.kind);
  }
  return topology::topology_to_text(t);
}

// A generator reads only its own flags: one given for another kind is refused, never silently ignored.
void check_gen_flags(const CLI::App& gen, const std::string& kind) {
  if (kind != "torus" && kind != "crossbar" && kind != "cluster") return; // generate() names the unknown kind
  const std::pair<const char*, std::string_view> readers[] = {
      {"--dims", "torus"},       {"--ranks", "crossbar"},     {"--bw", "torus crossbar"}, {"--nodes", "cluster"},
      {"--node", "cluster"},     {"--nics", "cluster"},       {"--fabric", "cluster"},    {"--kind", "cluster"},
      {"--leaf-ports", "cluster"}, {"--oversub", "cluster"}, {"--sharp", "cluster"}, {"--nic-at", "cluster"},
      {"--instance", "cluster"}};
  for (const auto& [flag, kinds] : readers)
    if (gen.count(flag) > 0 && kinds.find(kind) == std::string_view::npos)
      fail("{}: topo gen {} does not read it (only {})", flag, kind, kinds);
}

} // namespace

void add_topo_command(CLI::App& app) {
  auto opts = std::make_shared<TopoOptions>();
  auto* topo = app.add_subcommand("topo", "Inspect or generate topologies");
  topo->require_subcommand(1);
  auto* show_cmd = topo->add_subcommand("show", "Print nodes, links, and the route and bottleneck of every GPU pair");
  show_cmd->add_option("name", opts->name, "Topology file, shipped name, or generator spec")->required();
  show_cmd->add_option("--max-gpus", opts->max_pairs_gpus, "List GPU-pair routes only up to this many GPUs");
  show_cmd->add_flag("--dot", opts->dot, "Print Graphviz DOT instead (link kinds as colours, lanes as pen width)");
  show_cmd->callback([opts] { write_stdout(show(*opts)); });

  auto* gen = topo->add_subcommand("gen", "Generate a topology file: torus, crossbar or cluster");
  gen->add_option("kind", opts->kind, "torus | crossbar | cluster")->required();
  gen->add_option("--dims", opts->dims, "Torus extents, e.g. 4x4x4");
  gen->add_option("--ranks", opts->ranks, "Crossbar: number of GPUs");
  gen->add_option("--bw", opts->bw, "Bandwidth per link per direction")->capture_default_str();
  gen->add_option("--alpha", opts->alpha,
                  "Latency per hop (torus), end to end (crossbar), NIC to NIC (cluster); default 1us, cluster 2.7us");
  gen->add_option("--nodes", opts->nodes, "Cluster: number of machines")->capture_default_str();
  gen->add_option("--node", opts->node, "Cluster: the machine (shipped name or file)")->capture_default_str();
  gen->add_option("--nics", opts->nics, "Cluster: NICs per machine and their speed, COUNTxSPEED")->capture_default_str();
  gen->add_option("--fabric", opts->fabric, "Cluster: switch | fattree")->capture_default_str();
  gen->add_option("--kind", opts->net, "Cluster: ib | roce | efa | slingshot | ethernet | gib | tcpx | tcpxo")->capture_default_str();
  gen->add_option("--leaf-ports", opts->leaf_ports, "Cluster fat tree: NIC ports per leaf")->capture_default_str();
  gen->add_option("--oversub", opts->oversub, "Cluster fat tree: leaf down:up ratio")->capture_default_str();
  gen->add_option("--sharp", opts->sharp, "Cluster on InfiniBand: SHARP in the switches (0, 1, v2, v3, v4)");
  gen->add_option("--nic-at", opts->nic_at,
                  "Cluster: where each NIC sits: gpu (beside its GPU), cpu (a root port of the GPU's socket), numa (a NUMA "
                  "node without GPUs; the machine needs two sockets)")->capture_default_str();
  gen->add_option("--instance", opts->instance,
                  "Cluster: the AWS EC2 instance type of the nodes (e.g. p5.48xlarge; EFA: --kind defaults to efa; p4d, p4de, p5, "
                  "p5e, p5en, p6-b200 and p6-b300 also set --nics to their EFA devices) or the "
                  "Google Cloud machine type (a3-highgpu-8g, a3-megagpu-8g, a3-ultragpu-8g, a4-highgpu-8g, a4x-highgpu-4g, "
                  "a4x-maxgpu-4g-metal: --kind defaults to its fabric, --nics to its NICs)");
  gen->add_option("-o,--output", opts->output, "Output file (default stdout)");
  gen->callback([opts, gen] {
    check_gen_flags(*gen, opts->kind);
    if (gen->count("--instance") > 0 && opts->instance.empty()) fail("--instance: empty: name an EC2 instance type (e.g. p5.48xlarge)");
    // An EC2 instance's network is EFA; a Google Cloud machine type's is its own, on its own NICs.
    const auto* gcp = gen->count("--instance") > 0 ? topology::cloud_machine(opts->instance) : nullptr;
    if (gen->count("--instance") > 0 && gen->count("--kind") == 0) opts->net = gcp ? std::string(topology::to_string(gcp->kind)) : "efa";
    // An AWS type whose EFA devices cloud_machines.hpp lists (p5en.48xlarge: 16 x 200G) gives its own NICs too.
    const bool own_nics = gcp || (gen->count("--instance") > 0 && topology::aws_machine(opts->instance));
    if (own_nics && gen->count("--nics") == 0) opts->nics.clear();
    write_output(opts->output, generate(*opts), "-o/--output");
  });

  auto* imp = topo->add_subcommand("import", "Read nvidia-smi topo -m, NCCL topology XML, rocm-smi --showtopo or amd-smi topology; write ccsim JSON");
  imp->add_option("file", opts->file, "The tool's output, saved to a file")->required();
  imp->add_option("--gpu", opts->gpu, "GPU kind (models/gpus.json) when the file does not name it");
  imp->add_option("-o,--output", opts->output, "Output file (default stdout)");
  imp->callback([opts] {
    write_output(opts->output, topology::topology_to_text(topology::import_topology_file(opts->file, {opts->gpu})), "-o/--output");
  });
  show_cmd->add_option_function<std::string>("--gpu", topology::set_default_import_gpu,
                                             "GPU kind of an imported file that does not name it");
  auto* exp = topo->add_subcommand("export", "Write a topology in another tool's format");
  exp->add_flag("--nccl-xml", opts->nccl_xml, "NCCL topology XML, for NCCL_TOPO_FILE")->required();
  exp->add_option("name", opts->name, "Topology file, shipped name, or generator spec")->required();
  exp->add_option_function<std::string>("--gpu", topology::set_default_import_gpu, "GPU kind of an imported file");
  exp->add_option("-o,--output", opts->output, "Output file (default stdout)");
  exp->callback([opts] { write_output(opts->output, topology::export_nccl_xml(topology::resolve_topology(opts->name)), "-o/--output"); });

  auto* list = topo->add_subcommand("list", "List shipped topologies");
  list->callback([] {
    std::string out;
    for (const auto& n : topology::shipped_topologies()) {
      const auto t = topology::resolve_topology(n);
      out += fmt::format("{:<16} {:>3} GPUs  {}\n", n, t.num_gpus(), t.description.substr(0, t.description.find('.')));
    }
    write_stdout(out);
  });
}

} // namespace ccsim::cli
