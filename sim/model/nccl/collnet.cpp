#include "sim/model/nccl/collnet.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <mutex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/schedule/algorithms/switch_reduce.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::model::nccl {
using schedule::Op;
using topology::Topology;

namespace {

CollNetTables parse_collnet(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  const JsonValue root(doc, path);
  CollNetTables t;
  t.path = path;
  const auto c = root["collnet"];
  constexpr const char* kAlgo[] = {"direct", "chain"};
  constexpr const char* kPath[] = {"nvlink", "pci", "net"};
  for (std::size_t a = 0; a < 2; ++a) {
    t.base_latency_us[a] = c["base_latency_us"][kAlgo[a]].as_double(0, 1e6);
    for (std::size_t h = 0; h < 3; ++h) t.hw_latency_us[h][a] = c["hw_latency_us"][kPath[h]][kAlgo[a]].as_double(0, 1e6);
  }
  t.arity_serialization_us = c["direct_arity_serialization_us"].as_double(0, 1e6);
  t.max_direct_heads = static_cast<int>(c["max_direct_heads"].as_int(1, 64));
  t.direct_hopper_factor = c["direct_hopper_factor"].as_double(0.01, 1);
  t.thread_threshold = c["thread_threshold_bytes"].as_double(1, 1e9);
  t.node_threshold = static_cast<int>(c["node_threshold"].as_int(1, 65536));
  t.nvls_net_latency_us = c["nvls_net_latency_us"].as_double(0, 1e6);
  for (const auto& [name, g] : root["generations"].items()) {
    CollNetTables::Generation gen;
    gen.aggregation_GBps_per_port = g["aggregation_GBps_per_port"].as_double(0.001, 1e6);
    gen.streaming_trees_per_switch = static_cast<int>(g["streaming_trees_per_switch"].as_int(0, 1 << 20));
    gen.max_message_bytes = g["max_message_bytes"].as_double(1, 1e18);
    t.generations[name] = gen;
  }
  return t;
}

// The network switch every given NIC reaches in the fewest links summed (the top of SHARP's tree for
// this job: the one switch of a single-switch fabric, the common leaf or a spine of a fat tree).
int reduction_switch(const Topology& t, topology::Router& router, const std::vector<int>& nics) {
  int best = -1;
  std::size_t best_cost = SIZE_MAX;
  for (std::size_t s = 0; s < t.nodes.size(); ++s) {
    if (t.nodes[s].kind != topology::NodeKind::NetSwitch) continue;
    std::size_t cost = 0;
    for (int nic : nics) {
      const auto route = router.route(nic, static_cast<int>(s));
      if (route.empty()) cost = SIZE_MAX;
      if (cost == SIZE_MAX) break;
      cost += route.size();
    }
    if (cost < best_cost) best_cost = cost, best = static_cast<int>(s);
  }
  return best;
}

double highest_speed_under(const std::vector<double>& speeds, double cap) {
  for (double s : speeds)
    if (s <= cap + 1e-9) return s;
  return cap;
}

} // namespace

const CollNetTables& load_collnet_tables(const std::string& path_in) {
  static std::mutex m;
  static std::map<std::string, std::unique_ptr<const CollNetTables>> cache;
  const std::string path = path_in.empty() ? data_dir() + "/models/sharp.json" : path_in;
  std::lock_guard lock(m);
  auto& slot = cache[path];
  if (!slot) slot = std::make_unique<const CollNetTables>(parse_collnet(path));
  return *slot;
}

bool is_collnet(Algo a) { return a == Algo::CollNetDirect || a == Algo::CollNetChain; }

CollNetGraph make_collnet_graph(const Topology& t, const Tables& tab, const CollNetTables& ct, const Graph& g,
                                const std::vector<int>& placement) {
  CollNetGraph cg;
  const auto no = [&](std::string why) {
    cg = {};
    cg.why_not = std::move(why);
    return cg;
  };
  if (t.sharp.empty()) return no("the fabric has no SHARP (describe it with cluster:...,kind=ib,sharp=1)");
  const auto gen = ct.generations.find(t.sharp);
  if (gen == ct.generations.end()) return no(fmt::format("SHARP generation '{}' is not in {}", t.sharp, ct.path));
  cg.generation = t.sharp;
  cg.port_GBps = gen->second.aggregation_GBps_per_port;
  std::map<int, std::size_t> node_index; // host -> position in node_gpus
  for (int gpu : placement) {
    const int host = g.host_of_gpu[static_cast<std::size_t>(gpu)];
    const auto [it, fresh] = node_index.emplace(host, cg.node_gpus.size());
    if (fresh) cg.node_gpus.emplace_back();
    cg.node_gpus[it->second].push_back(gpu);
  }
  const int nodes = static_cast<int>(cg.node_gpus.size());
  if (nodes < std::max(2, ct.node_threshold)) return no(fmt::format("CollNet needs at least {} nodes", std::max(2, ct.node_threshold)));
  cg.ppn = static_cast<int>(cg.node_gpus.front().size());
  for (const auto& n : cg.node_gpus)
    if (static_cast<int>(n.size()) != cg.ppn) return no("CollNet needs the same number of GPUs on every node");
  topology::Router router(t);
  std::vector<int> nics;
  double min_head = 1e300;
  for (const auto& gpus : cg.node_gpus) {
    auto heads = nic_heads(t, tab, router, gpus, &nics);
    if (heads.empty()) return no("CollNet needs NICs on every node");
    // NCCL's search spreads channels over its NICs' local GPUs in bandwidth order.
    std::stable_sort(heads.begin(), heads.end(), [](const NicHead& a, const NicHead& b) { return a.GBps > b.GBps; });
    heads.resize(std::min<std::size_t>(heads.size(), static_cast<std::size_t>(ct.max_direct_heads)));
    cg.head_gpus.emplace_back();
    for (const auto& h : heads) cg.head_gpus.back().push_back(h.gpu), min_head = std::min(min_head, h.GBps);
  }
  std::size_t h = SIZE_MAX;
  for (const auto& hg : cg.head_gpus) h = std::min(h, hg.size());
  for (auto& hg : cg.head_gpus) hg.resize(h);
  cg.heads = static_cast<int>(h);
  cg.reduce_switch = reduction_switch(t, router, nics);
  if (cg.reduce_switch < 0) return no("CollNet needs a network switch every node's NICs reach");
  for (const auto& node : t.nodes) cg.nvswitch = cg.nvswitch || node.kind == topology::NodeKind::NvSwitch;
  // Speeds: bwInter the search's first inter-node speed a head's NIC path carries; pass 2 raises bwIntra
  // while it is below 2x bwInter (search.cc: "increase bwIntra for trees (2 nodes or collnet)").
  const auto& speeds = tab.nvls ? tab.nvls->speed_inter[static_cast<std::size_t>(g.arch)] : std::vector<double>{};
  cg.bw_inter = highest_speed_under(speeds, min_head);
  cg.bw_intra = cg.bw_inter;
  for (auto it = speeds.rbegin(); it != speeds.rend(); ++it)
    if (*it > cg.bw_intra && cg.bw_intra < 2 * cg.bw_inter) cg.bw_intra = *it;
  cg.chain_channels = std::min(cg.heads, std::max(1, g.channels));
  return cg;
}

std::vector<Candidate> collnet_candidates(const CollNetTables& ct, const Graph& g, const CollNetGraph& cg, Op op, int p,
                                          Bytes nbytes) {
  std::vector<Candidate> out;
  if (cg.heads < 1 || op != Op::AllReduce || p < 2) return out;
  const double ppn = cg.ppn;
  // interLat: with one GPU per node NCCL uses the Tree network latency (14 us, reference §3.3).
  const double tree_net = 14.0;
  const auto path = static_cast<std::size_t>(g.path);
  for (Algo algo : {Algo::CollNetDirect, Algo::CollNetChain}) {
    const std::size_t a = algo == Algo::CollNetDirect ? 0 : 1;
    if (algo == Algo::CollNetDirect && !cg.nvswitch) continue; // NCCL: "Disable CollNet+Direct if not on an NVSwitch system"
    Candidate c;
    c.algo = algo;
    c.proto = Proto::Simple;
    const int nch = algo == Algo::CollNetDirect ? cg.heads : cg.chain_channels;
    c.busbw = nch * cg.bw_intra;
    if (algo == Algo::CollNetDirect) {
      // "Collnet+Direct requires all GPUs to have a local NIC to work at full speed": GPU/NIC ratio f.
      double f = ppn / nch;
      f -= (f - 1) / 2;
      c.busbw /= f;
      if (g.arch >= Arch::Hopper) c.busbw *= ct.direct_hopper_factor;
    }
    c.algbw = c.busbw * 0.5;
    const double intra = ct.hw_latency_us[path][a];
    const double inter = cg.ppn == 1 ? tree_net : ct.hw_latency_us[2][a];
    c.lat_us = ct.base_latency_us[a] + (algo == Algo::CollNetDirect
                                            ? 2 * (std::min(1.0, ppn - 1) * intra + (ppn - 1) * ct.arity_serialization_us) + inter
                                            : 2 * (ppn - 1) * intra + inter);
    c.time_us = c.lat_us + static_cast<double>(nbytes) / (1000.0 * c.algbw);
    out.push_back(c);
  }
  return out;
}

std::vector<Candidate> nvls_collnet_candidates(const Tables& tab, const CollNetTables& ct, const Graph& g, const CollNetGraph& cg,
                                               Op op, int p, Bytes nbytes) {
  const auto& n = g.nvls;
  if (!tab.nvls || cg.heads < 1 || !n.tree || n.channels < 2 || op != Op::AllReduce || p < 2) return {};
  const double eff = tab.nvls->efficiency[static_cast<std::size_t>(g.arch)];
  Candidate c;
  c.algo = Algo::Nvls;
  c.busbw = n.channels * std::min(n.bw_intra * eff * (n.channels - 1) / n.channels * 2.0, n.bw_inter);
  c.algbw = c.busbw * p / (2.0 * (p - 1));
  c.lat_us = tab.nvls->nvlink_latency_us + ct.nvls_net_latency_us;
  c.time_us = c.lat_us + static_cast<double>(nbytes) / (1000.0 * c.algbw);
  if (!(c.busbw > 0)) return {};
  return {c};
}

int collnet_channels(const CollNetTables& ct, const CollNetGraph& cg, Algo algo, Bytes nbytes) {
  int nc = algo == Algo::CollNetDirect ? cg.heads : cg.chain_channels;
  constexpr double kThreads = 640; // NCCL_MAX_NTHREADS: CollNet's thread count
  while (nc > 1 && static_cast<double>(nbytes) < nc * kThreads * ct.thread_threshold) --nc;
  return std::max(1, nc);
}

engine::RunPlan collnet_plan(engine::RunPlan plan, const CollNetGraph& cg, const metrics::RunConfig& cfg, metrics::SizePlan size,
                             double chunk_bytes, int max_segments) {
  const auto elt = cfg.dtype.size;
  // NCCL runs as many CollNet channels as the size keeps (plan.choice.channels); each carries a head's share.
  const int used = std::clamp(plan.choice.channels, 1, cg.heads);
  const std::vector<int> even(static_cast<std::size_t>(used), 1);
  const auto shares = engine::split_by_weight(size.count, even);
  for (int h = 0; h < used; ++h) {
    const std::uint64_t mine = shares[static_cast<std::size_t>(h)];
    if (mine == 0) continue;
    const double bytes = static_cast<double>(mine * elt);
    const auto k = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::ceil(bytes / chunk_bytes)), 1,
                                             static_cast<std::uint64_t>(std::max(1, max_segments)));
    plan.choice.loops = std::max<int>(plan.choice.loops, static_cast<int>(k));
    schedule::CollArgs a;
    a.op = Op::AllReduce;
    a.ranks = static_cast<int>(cg.head_gpus.size()) + 1;
    a.count = mine;
    a.elt_size = elt;
    std::vector<int> heads;
    for (const auto& node : cg.head_gpus) heads.push_back(node[static_cast<std::size_t>(h)]);
    engine::add_job(plan, std::make_unique<schedule::SwitchAllReduce>(a, k), heads, elt);
    plan.jobs.back().node_of_rank.push_back(cg.reduce_switch);
    plan.job_names.push_back(fmt::format("sharp head {}", h));
  }
  // Inside each node the heads gather the node's partial sums and spread the result: a reduce-scatter and
  // an allgather of the vector over the node's GPUs, each GPU sending (ppn-1)/ppn of it per phase.
  if (cg.ppn > 1)
    for (Op op : {Op::ReduceScatter, Op::AllGather})
      for (std::size_t n = 0; n < cg.node_gpus.size(); ++n) {
        schedule::CollArgs a;
        a.op = op;
        a.ranks = cg.ppn;
        a.count = std::max<std::uint64_t>(1, (size.count + static_cast<std::uint64_t>(cg.ppn) - 1) / static_cast<std::uint64_t>(cg.ppn));
        a.elt_size = elt;
        engine::add_job(plan, schedule::require_algorithm(op, "ring").make(a), cg.node_gpus[n], elt);
        plan.job_names.push_back(fmt::format("node {} {}", n, op == Op::ReduceScatter ? "reduce-scatter" : "allgather"));
      }
  return plan;
}

} // namespace ccsim::model::nccl

namespace ccsim::model::nccl {

CollNetGraph collnet_graph_for(const Topology& t, const Tables& tab, const Graph& g, const std::vector<std::vector<int>>& placements) {
  if (t.sharp.empty() || placements.empty() || placements.front().empty()) {
    CollNetGraph none;
    none.why_not = "the fabric has no SHARP (describe it with cluster:...,kind=ib,sharp=1)";
    return none;
  }
  return make_collnet_graph(t, tab, load_collnet_tables(), g, placements.front());
}

std::string describe_collnet(const CollNetGraph& cg) {
  if (cg.heads < 1) return {};
  return fmt::format(", CollNet (SHARP {}) {} head(s) x {:.1f}/{:.1f} GB/s", cg.generation, cg.heads, cg.bw_intra, cg.bw_inter);
}

void cap_sharp_ports(Topology& view, const CollNetGraph& cg) {
  if (cg.reduce_switch < 0 || cg.port_GBps <= 0) return;
  const auto cap = static_cast<Bandwidth>(cg.port_GBps * 1e9);
  for (auto& l : view.links)
    if (l.a == cg.reduce_switch || l.b == cg.reduce_switch) l.bw = std::min(l.bw, cap);
}

} // namespace ccsim::model::nccl
