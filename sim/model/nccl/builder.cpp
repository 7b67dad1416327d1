#include "sim/model/nccl/builder.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include <fmt/format.h>

#include "sim/core/ascii.hpp"
#include "sim/core/error.hpp"
#include "sim/model/launch_kind.hpp"
#include "sim/model/launch_overlap.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/net_latency.hpp"
#include "sim/model/nccl/ring_local.hpp"
#include "sim/model/nccl/threshold_choice.hpp"
#include "sim/model/nccl/p2p_plan.hpp"
#include "sim/model/nccl/rccl.hpp"
#include "sim/model/nccl/ring_chunking.hpp"
#include "sim/model/nccl/shm.hpp"
#include "sim/model/protocol_place.hpp"
#include "sim/topology/cloud_machines.hpp"
#include "sim/topology/gpu_catalogue.hpp"
#include "sim/schedule/algorithms/switch_reduce.hpp"
#include "sim/schedule/algorithms/tree_pipeline.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::model::nccl {
using schedule::Op;

namespace {
// --nccl-algo's words, in AlgoMode's order (what_if_note names a forced mode by them).
constexpr std::string_view kAlgoModeNames[] = {"auto", "ring", "tree", "nvls", "fastest", "collnet_direct", "collnet_chain"};
static_assert(std::size(kAlgoModeNames) == static_cast<std::size_t>(AlgoMode::CollNetChain) + 1);
} // namespace

AlgoMode algo_mode_from(const std::string& given) {
  // Case-insensitive, as NCCL_ALGO is (parseList's strcasecmp): --nccl-algo Tree is NCCL_ALGO=Tree.
  std::string s = ascii_lower(given);
  if (s == "collnetdirect" || s == "collnetchain") s.insert(7, "_"); // NCCL's own spelling of the two
  for (std::size_t i = 0; i < std::size(kAlgoModeNames); ++i)
    if (s == kAlgoModeNames[i]) return static_cast<AlgoMode>(i);
  fail("--nccl-algo: unknown '{}' (auto, ring, tree, nvls, collnet_direct, collnet_chain, fastest)", given);
}

NvlsMode nvls_mode_from(const std::string& s, const char* flag) {
  if (s == "auto") return NvlsMode::Auto;
  if (s == "on" || s == "1") return NvlsMode::On;
  if (s == "off" || s == "0") return NvlsMode::Off;
  fail("{}: unknown '{}' (auto, on, off)", flag, s);
}

MscclMode msccl_mode_from(const std::string& s) {
  if (s == "auto") return MscclMode::Auto;
  if (s == "off" || s == "0") return MscclMode::Off;
  fail("--msccl: unknown '{}' (auto, off)", s);
}

// The topology as one (algorithm, protocol) sees it; routes come from the Builder's one router on the drawing.
struct Builder::View {
  Algo algo;
  Proto proto;
  double shm_share; // shm_ring_loop_share of the op and ranks the view was made for
  topology::Topology topo;
  topology::Router* router; // the Builder's drawn_router()
  int ring_channels = 0;    // ring_view: the CUDA channels its network caps were made for (0: no caps)
  bool both_ways = true;    // duplex_both_ways of the op and ranks: a duplex-held port gives each direction half
};

namespace {
// --collnet on and --nccl-algo collnet_* where CollNet cannot run: one line saying why.
void check_collnet(const metrics::RunConfig& cfg, const Options& o, const CollNetGraph& cn) {
  if (o.collnet == NvlsMode::On && cn.heads == 0) fail("--collnet on: {}", cn.why_not);
  if (o.mode != AlgoMode::CollNetDirect && o.mode != AlgoMode::CollNetChain) return;
  const char* flag = o.mode == AlgoMode::CollNetDirect ? "--nccl-algo collnet_direct" : "--nccl-algo collnet_chain";
  if (o.collnet == NvlsMode::Off) fail("{}: --collnet is off", flag);
  if (cn.heads == 0) fail("{}: {}", flag, cn.why_not);
  if (cfg.op != Op::AllReduce) fail("{}: CollNet runs allreduce only", flag);
  if (o.mode == AlgoMode::CollNetDirect && !cn.nvswitch) fail("{}: NCCL runs CollNet Direct on NVSwitch nodes only (try collnet_chain)", flag);
}

bool amd_gpus(const topology::Topology& t) {
  return !t.gpu_kind.empty() && topology::gpu_kind(t.gpu_kind, "topology " + t.name).vendor == "amd";
}

// Sends and receives per peer in NCCL, no collective (p2p_plan.hpp): on one rank, sends to oneself.
bool is_p2p(Op op) {
  return op == Op::SendRecv || op == Op::AllToAll || op == Op::Gather || op == Op::Scatter || op == Op::HyperCube;
}

// NICs on the host (NCCL's node) of `gpu`: the count RCCL's node models (rome_models.cc) match on.
int nics_on_host_of(const topology::Topology& t, int gpu) {
  const auto hosts = topology::host_map(t);
  const int host = hosts.of_gpu(t, gpu);
  int n = 0;
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    if (t.nodes[i].kind == topology::NodeKind::Nic && hosts.of_node[i] == host) ++n;
  return n;
}

// No tables named: RCCL's on AMD GPUs (rccl-tests and RCCL keep NCCL's API, not its tuning), NCCL's otherwise.
std::string tables_for(const topology::Topology& t, const std::string& named) {
  return named.empty() && amd_gpus(t) ? default_rccl_tables_path() : named;
}
} // namespace

std::string launch_kind_for(const topology::Topology& t, int gpus_per_thread, const std::string& nccl_version) {
  const bool amd = amd_gpus(t);
  return launch_kind(amd, gpus_per_thread, !amd && pipelined_launch_in_release(nccl_version_from(nccl_version)));
}

Builder::Builder(const topology::Topology& t, Options o) : topo_(t), tab_(load_tables(tables_for(t, o.tables))), opt_(std::move(o)) {
  // The launch terms of this machine's kind (runtime x GPUs per launching thread x the release's launch: summed
  // up to 2.12, pipelined from 2.13.4), where the set has them.
  const std::string kind = launch_kind_for(t, opt_.gpus_per_thread, opt_.nccl_version);
  // One rank runs no collective kernel, so no NCCL/RCCL latency holds its launch: it costs what one launch
  // costs a thread issuing them in series, the -g N kind's per-GPU term (hip/g1's is 0 because RCCL's 12 us
  // base latency already holds a one-GPU-per-process floor, not because a HIP launch is free).
  one_rank_launch_us_ = for_launch_kind(opt_.params, launch_kind(amd_gpus(t), 2)).launch_per_gpu_us;
  opt_.params = for_launch_kind(std::move(opt_.params), kind);
  // The protocol factors measured over this replay's base (protocol_place.hpp for_library): RCCL's data shares
  // where the tables are RCCL's, NCCL's busBw ratios otherwise.
  opt_.params = for_library(std::move(opt_.params), tab_.rccl ? "rccl" : "nccl");
  launch_overlaps_ = launch_overlaps(kind);
  release_ = nccl_version_from(opt_.nccl_version); // a bad --nccl-version fails here, before any size
  memory_GBps_ = gpu_memory_GBps(topo_, tab_);
  // The fabric's own NCCL profile (Google's nccl-env-profile.sh for GPUDirect-TCPX/TCPXO: net_kinds nccl_env), where
  // neither the command line nor the trace says otherwise: NCCL reads the environment the profile exports. The
  // profile of the release modelled: Google changed TCPXO's as its plugin moved to newer NCCL (net_kinds.tcpxo).
  if (const auto* env = tab_.net_env(topo_, release_.value_or(NcclVersion{0, 0, 0}))) {
    if (!env->proto.empty() && !opt_.protos.restricted()) opt_.protos = proto_set_from(env->proto, "NCCL_PROTO");
    if (env->nvls_off && opt_.nvls == NvlsMode::Auto) opt_.nvls = NvlsMode::Off;
    if (env->algo == "Ring" && opt_.mode == AlgoMode::Auto) opt_.mode = AlgoMode::Ring;
    // A run's own NCCL_MIN/MAX_NCHANNELS replace the profile's channel count (the same two settings).
    if (env->channels > 0 && opt_.channels == 0 && opt_.min_channels == 0 && opt_.max_channels == 0) opt_.channels = env->channels;
  }
  // An instance type the net plugin's table does not hold fails here, before any size (Tables::instance_of).
  // Google's machine types (topology::cloud_machine) name no net plugin table: their fabric is their link type.
  if (!topo_.instance.empty() && !topology::cloud_machine(topo_.instance)) {
    try {
      (void)tab_.instance_of(topology::LinkType::Efa, topo_.instance);
    } catch (const Error& e) {
      // A topology file names the instance: say which file (a --topo spec's refusal names the word already).
      if (topo_.origin.empty() || topo_.origin.starts_with("generated")) throw;
      fail("{}: {}", topo_.origin, e.what());
    }
  }
  if (tab_.rccl && amd_gpus(topo_)) rccl_sm_ = topology::gpu_kind(topo_.gpu_kind, "topology " + topo_.name).sm;
}
Builder::~Builder() = default;

int Builder::coll_channels(const metrics::RunConfig& cfg) {
  const int own = own_coll_channels(cfg);
  if (opt_.channels > 0 || (opt_.min_channels == 0 && opt_.max_channels == 0)) return own;
  // NVIDIA/nccl src/graph/connect.cc (ncclTopoPostset, v2.17.1-1 to v2.29.2-1): after the search's channels are doubled,
  // nChannels = min(nChannels, NCCL_MAX_NCHANNELS, maxCTAs), then copyChannels duplicates the first ones up to
  // max(NCCL_MIN_NCHANNELS, minCTAs): the max first, then the min, so a min above the max wins. The release's
  // MAXCHANNELS caps both (ncclMinNchannels/ncclMaxNchannels; src/include/device.h: 32 through v2.24.3, 64 from v2.25.1).
  const int most = max_channels_in_release(release_);
  int nc = own > 0 ? own : std::max(1, graph(cfg).channels) * tab_.cuda_channels_per_search_channel;
  if (opt_.max_channels > 0) nc = std::min(nc, std::min(opt_.max_channels, most));
  return std::max(nc, std::min(opt_.min_channels, most));
}

int Builder::own_coll_channels(const metrics::RunConfig& cfg) {
  if (opt_.channels > 0 || !tab_.rccl || rccl_sm_.empty()) return opt_.channels;
  const int p = metrics::ranks_of(cfg), nodes = graph(cfg).nodes;
  // RCCL's own count on one node of a full xGMI mesh (rccl.json one_node_channels): init.cc's multiplier `nc` of the
  // node model's S search channels, which connect.cc ncclTopoPostset applies after its own doubling, so the count is
  // max(2 S, min(max / S, nc) S): 2, 4, 8 x gfx950 on RCCL 2.26.6 log 8, 24, 112 (nc 4); gfx942 from 2.20.5 runs
  // 32 and 24 on 2 and 4 GPUs (nc 16 and 4, RCCL's README), 56 on 8 (nc 2). The count before the thread-threshold shrink.
  if (nodes == 1) {
    const auto& rule = tab_.rccl->one_node_channels;
    const auto m = rule.by_sm.find(rccl_sm_);
    if (rule.max_channels <= 0 || m == rule.by_sm.end()) return opt_.channels;
    // S: the node model's where RCCL matches one (8 GPUs: rome_model_79's 28 rings), else the search's, which ccsim's
    // reproduces on a part of the mesh (2 and 4 GPUs: 2 and 6, as RCCL 2.26.6's graph dumps).
    const auto s = rule.search_by_ranks.find(p);
    const int S = s != rule.search_by_ranks.end() ? s->second : std::max(1, graph(cfg).channels), most = rule.max_channels;
    int nc = 2; // NCCL's duplication alone, before the release that set the multiplier
    if (!release_ || !(*release_ < m->second.from)) {
      const auto r = m->second.nc_by_ranks.find(p);
      nc = r != m->second.nc_by_ranks.end() ? r->second : m->second.nc;
    }
    const int doubled = S <= most / 2 ? 2 * S : S;
    return std::min(most, std::max(doubled, std::min(most / S, nc) * S));
  }
  // Across nodes (multi_node_channels_by_sm: gfx950's 64, connect.cc's cap on several nodes, until 2.30.4's 48).
  const auto it = tab_.rccl->multi_node_channels_by_sm.find(rccl_sm_);
  if (it == tab_.rccl->multi_node_channels_by_sm.end() || p != it->second.gpus_per_node * nodes || (release_ && !(*release_ < it->second.until)))
    return opt_.channels;
  return it->second.channels;
}

int Builder::rccl_nics_per_node(const metrics::RunConfig& cfg) {
  if (!rccl_nics_per_node_)
    rccl_nics_per_node_ = cfg.placements.empty() || cfg.placements.front().empty() ? 0 : nics_on_host_of(topo_, cfg.placements.front().front());
  return *rccl_nics_per_node_;
}

const Graph& Builder::graph(const metrics::RunConfig& cfg) {
  if (graph_for_.empty() || graph_for_ != cfg.placements) {
    graph_ = make_graph(topo_, tab_, cfg.placements, opt_.gpu_arch, amd_sys_same_channels_in_release(release_));
    // LL128 as the release enables it by default (RCCL's tables carry their own switch).
    if (!tab_.rccl)
      graph_.ll128 = graph_.ll128 && ll128_in_release(tab_, release_, compute_capability(topo_, graph_.arch), graph_.arch);
    // Across nodes, LL128 only where the GPU-NIC path class is close enough (nccl_version.hpp
    // ll128_type_inter_limit); RCCL's tuning.cc keeps it to PXB, its paths.cc has PXN but no P2C.
    if (graph_.nodes > 1 && !cfg.placements.empty()) {
      const auto rules = tab_.rccl ? topology::NicPathRules{true, false, false} : nic_path_rules(release_);
      graph_.type_inter = topology::type_inter(topo_, cfg.placements.front(), rules);
      const int sm = compute_capability(topo_, graph_.arch);
      const auto limit = tab_.rccl ? topology::PathClass::Pxb : ll128_type_inter_limit(release_, sm);
      if (graph_.ll128 && graph_.type_inter && *graph_.type_inter > limit) {
        graph_.ll128 = false;
        graph_.ll128_off = fmt::format("GPU-NIC path {}: {} keeps LL128 across nodes up to {}{}", topology::name(*graph_.type_inter),
                                       tab_.rccl ? std::string("RCCL") : release_ ? "NCCL " + opt_.nccl_version : std::string(kTablesReleaseName),
                                       topology::name(limit), tab_.rccl ? "" : fmt::format(" on sm{}", sm));
      }
    }
    graph_.nvls.sm100_tree_tuning = nvls_sm100_tree_tuning_in_release(release_);
    graph_.nvls.chunk_bytes = static_cast<double>(opt_.nvls_chunk_bytes);
    graph_.nvls.tree_max_chunk_bytes = static_cast<double>(opt_.nvls_tree_max_chunk_bytes);
    if (tab_.nvls && !tab_.rccl)
      graph_.nvls.domain_cuda_channels =
          nvls_domain_channels_in_release(release_, graph_.arch, tab_.nvls->cuda_channels[static_cast<std::size_t>(graph_.arch)]);
    // NCCL_MIN/MAX_CTAS at the release's MAXCHANNELS, a min above the max lowered to it (src/init.cc, v2.17.1-1 on).
    const int most = max_channels_in_release(release_);
    graph_.nvls.max_ctas = std::min(opt_.max_ctas, most);
    graph_.nvls.min_ctas = std::min(opt_.min_ctas, most);
    if (graph_.nvls.max_ctas > 0 && graph_.nvls.min_ctas > graph_.nvls.max_ctas) graph_.nvls.min_ctas = graph_.nvls.max_ctas;
    graph_.nvls.logged_cuda_channels = opt_.nvls_channels;
    graph_.nvls.user_cuda_channels = opt_.nvls_nchannels ? nvls_nchannels_in_release(release_, *opt_.nvls_nchannels) : 0;
    collnet_ = collnet_graph_for(topo_, tab_, graph_, cfg.placements);
    fabric_hops_ = tab_.fabric_hops(topo_, graph_.arch);
    // A release before the topology search (2.4.x) builds its own rings on one node: its channel count
    // (release_pick), and its one ring in rank order where no NVLink ring passes every GPU.
    const auto* rule = tab_.rccl || cfg.placements.empty() ? nullptr : threshold_rule(tab_, release_);
    release_rings_ = rule ? release_rings_for(topo_, *rule, cfg.placements.front()) : std::nullopt;
    if (release_rings_ && release_rings_->kind == ReleaseRings::Kind::NoRing) graph_.rings = {cfg.placements.front()};
    graph_for_ = cfg.placements;
    views_.clear();
    ring_routers_.reset();
    ring_router_store_.clear();
  }
  return graph_;
}

Time Builder::launch() const {
  if (launch_overlaps_) return 0;
  if (tab_.rccl) return from_us(rccl_launch_us(opt_.params, opt_.gpus_per_thread));
  return from_us(opt_.params.launch_per_gpu_us * opt_.gpus_per_thread);
}

Time Builder::host_issue() const { return launch_overlaps_ ? from_us(opt_.params.launch_per_gpu_us * opt_.gpus_per_thread) : 0; }

// Every plan of a machine whose launches overlap the GPU time carries the host's issue time per
// iteration; execute() pipelines the two over nccl-tests' iterations (launch_overlap.hpp).
std::vector<engine::RunPlan> Builder::plans(const metrics::RunConfig& cfg, metrics::SizePlan size) {
  auto out = plans_of(cfg, size);
  for (auto& p : out) {
    p.host_issue = in_place_work(cfg) == InPlaceWork::Nothing ? 0 : host_issue(); // nothing issued, nothing to overlap
    p.pipeline_iters = kNcclTestsIters;
  }
  return out;
}

// NCCL's per-lane bandwidth x fitted efficiency x the pair's bandwidth relative to ring Simple in NCCL's
// model (protocol efficiency, per-channel caps) x the search's speed quantisation. Link latency moves into
// the per-hop alpha (NCCL counts hops of the ring or tree, not cables), except network links, which carry
// the extra of NCCL's network hop latency over its intra-node one (split over the two NIC-switch links).
Builder::View& Builder::view(Algo algo, Proto proto, const metrics::RunConfig& cfg) {
  const double shm_share = shm_ring_loop_share(cfg.op, algo, metrics::ranks_of(cfg));
  const bool both_ways = duplex_both_ways(cfg.op, metrics::ranks_of(cfg));
  for (auto& v : views_)
    if (v->algo == algo && v->proto == proto && v->shm_share == shm_share && v->ring_channels == 0 && v->both_ways == both_ways)
      return *v;
  const Graph& g = graph(cfg);
  // The protocol's share of a link. RCCL's ring and tree: the protocol's data share (rccl.hpp
  // protocol_data_share), as RCCL's bwRatio is a tuning figure only its choice weighs. Otherwise NCCL's own busBw
  // of the pair over ring/Simple's, each relative to its graph's raw figure: the 2-node tree's doubled bwIntra
  // (Graph::tree_bw) is the inter-node hop used both ways, which the replay moves itself, not a faster link.
  // The fitted protocol factor is applied per link below: it differs inside a node and on the network
  // (protocol_place.hpp).
  const bool data_share = tab_.rccl && (algo == Algo::Ring || algo == Algo::Tree);
  double share = data_share ? protocol_data_share(proto) : 1.0;
  if (!data_share) {
    double simple = 0, mine = 0;
    for (const auto& c : candidates(tab_, g, cfg.op, metrics::ranks_of(cfg), Bytes{1} << 20)) {
      if (c.algo == Algo::Ring && c.proto == Proto::Simple) simple = c.busbw / graph_bus(g, Algo::Ring);
      if (c.algo == algo && c.proto == proto) mine = c.busbw / (c.algo == Algo::Tree ? graph_bus(g, Algo::Tree) : graph_bus(g, Algo::Ring));
    }
    if (simple > 0 && mine > 0) share = mine / simple;
  }
  double f = share * g.graph_efficiency;
  // NVLS: each GPU's switch links together carry NCCL's NVLS algorithm bandwidth each way (the
  // switch schedule moves the vector once up and once down), so the replay meets NCCL's figure (without
  // its bwInter cap on one NVLink domain: nvls_replay_bus_bandwidth).
  if (algo == Algo::Nvls) {
    const int p = metrics::ranks_of(cfg);
    const double algbw = nvls_replay_bus_bandwidth(tab_, g, Op::AllReduce, p) * p / (2.0 * (p - 1));
    if (algbw > 0) f = algbw / g.nvls.switch_GBps;
  }
  auto v = std::make_unique<View>(View{algo, proto, shm_share, topo_, nullptr, 0, both_ways});
  // CollNet: its latency is charged once (plan.fixed), as NVLS's; no per-hop part on the links.
  // NCCL's hwLat has Ring and Tree rows only; NVLS and CollNet charge no per-hop part.
  const bool per_hop = algo == Algo::Ring || algo == Algo::Tree;
  const double intra =
      per_hop ? tab_.hw_latency_us[static_cast<std::size_t>(g.path)][static_cast<std::size_t>(algo)][static_cast<std::size_t>(proto)] : 0.0;
  const double inter = per_hop ? net_hop_us(tab_, algo, proto) : 0.0;
  // A fitted latency multiplier scales NCCL's figures for the protocol, the network hop's included.
  const double lat = per_hop ? opt_.params.proto_latency(name(proto)) : 1.0;
  // Ring and tree hops between GPUs farther apart than the P2P level run NCCL's SHM transport: their ports
  // stage through host memory in this view (p2p_level.hpp), the other hops stay P2P.
  if (algo == Algo::Ring || algo == Algo::Tree)
    if (const auto level = p2p_level_of(cfg)) stage_shm_ports(v->topo, shm_ring_hops(topo_, g, level->level));
  const bool staging = stages_through_host(v->topo);
  for (auto& l : v->topo.links) {
    // NCCL's view of the link, but never more than the link as drawn carries (a host-staged copy, a
    // slow bridge): busbw must not exceed what the hardware can carry. A socket link carries NCCL's
    // figure for host-staged traffic across sockets (AMD_BW 16, ...) or, for P2P across EPYC's xGMI, its
    // drawn rate (Tables::replay_lane_GBps): the link-type efficiency (fitted on GPU xGMI meshes) applies to
    // neither. Nor does it to NVLS: its
    // figure already carries what NVLS loses on the switch links (NCCL's per-architecture NVLS efficiency,
    // 0.74 on Blackwell), and the link efficiency is what rings and P2P lose against NCCL's per-lane figure:
    // both on one link would count the loss twice (8 B200/GB300 NVLS measure NCCL's uncapped 829 GB/s, while
    // 4-GPU GB200/GB300 rings run at ~0.92-0.95 of their 720).
    const double eff = tab_.socket_figure(topo_, l) || algo == Algo::Nvls ? 1.0 : opt_.params.efficiency(l.type);
    const double pf = proto_efficiency_on(opt_.params, name(proto), on_network_path(topo_, l));
    const double seen = tab_.replay_lane_GBps(topo_, l, staging) * 1e9 * eff * f * pf;
    // A GPU's port staged through host memory (SHM) idles one direction in one primitive per ring loop (shm.hpp).
    double carried = static_cast<double>(l.bw) * (l.host_staged ? shm_share : 1.0);
    // A port held to a duplex budget (Link::duplex, machine:...,pcie_duplex=): where the op loads both its directions
    // at once, as every GPU's port on a ring (it sends to the next GPU while it receives from the previous one), each
    // direction gets half; a 2-GPU broadcast or reduce moves one way and may take it all.
    if (l.duplex > 0) carried = std::min(carried, static_cast<double>(l.duplex) / (both_ways ? 2.0 : 1.0) / std::max(1, l.lanes));
    l.bw = static_cast<Bandwidth>(std::max(1.0, std::round(std::min(seen, carried))));
    l.latency = topology::is_network(l.type) ? from_us(std::max(0.0, inter - intra) * lat / 2.0) : 0;
  }
  if (is_collnet(algo)) cap_sharp_ports(v->topo, collnet_);
  // Routes follow the machine as drawn, not the view's scaled figures: NCCL picks a pair's path from the
  // hardware (its P2P path between two GPUs of one host never leaves the host), and a protocol factor that
  // differs inside a node and on the network must not make a NIC loopback look wider than the PCIe path.
  v->router = &drawn_router();
  views_.push_back(std::move(v));
  return *views_.back();
}

double ring_block_net_GBps(Arch arch, Proto proto) {
  if (arch != Arch::Hopper && arch != Arch::Blackwell) return 0;
  const double data = proto == Proto::LL ? kLLDataPerLineByte : proto == Proto::LL128 ? 120.0 / 128.0 : 1.0;
  return kP2pWriteBlockGBps * data;
}

// A ring across nodes runs one thread block per CUDA channel, and channel c on search ring c % R
// (ring_plan), so a NIC carries the blocks of the channels whose rings leave or enter a host through it. NCCL
// sizes those channels by the search, not by what a block moves: on 8 GPUs and 8 NICs a node, 8 search channels
// at 48 GB/s, doubled once (src/graph/connect.cc ncclTopoPostset, v2.20.3-1 to v2.30.7-1), give 16 blocks, 2 a NIC;
// only below 16 channels does ncclTopoPostset double again ("Use 4 compute channels per search channel to reach
// peak BW on <8 PPN", sm90+, bwIntra > 45). Two blocks at 20.05 GB/s carry 40.1 of the 48 GB/s NCCL moves on a
// 400G NIC: each network link of the view is capped at its blocks' rate, as P2pPlanner::capped caps a P2P send's links.
// RCCL on one node likewise over xGMI: a block copies 304 / 56 GB/s under Simple (rccl.json ring_block_GBps_by_sm),
// which binds where RCCL runs 8 blocks a link or fewer (2 and 4 of 8 GPUs; mid sizes after the thread-threshold shrink).
double Builder::recv_passes(const topology::Link& l) const {
  if (!topology::is_network(l.type) || !device_unpack_in_release(release_)) return 1.0;
  const auto it = tab_.net_kinds.find(l.type);
  return it != tab_.net_kinds.end() && it->second.device_unpack ? 2.0 : 1.0;
}

Builder::View& Builder::ring_view(Proto proto, const metrics::RunConfig& cfg, int channels) {
  View& base = view(Algo::Ring, proto, cfg);
  const Graph& g = graph(cfg);
  // RCCL on one node: a block's copy over xGMI (rccl.json ring_block_GBps_by_sm, Simple only) caps each xGMI link
  // at its blocks' rate, so a part of the mesh (2 or 4 of 8 GPUs, 8 blocks a link) carries what 8 blocks copy.
  const bool rccl_mesh = tab_.rccl && g.nodes == 1 && proto == Proto::Simple;
  double rate = ring_block_net_GBps(g.arch, proto);
  if (tab_.rccl) {
    const auto it = tab_.rccl->ring_block_GBps_by_sm.find(rccl_sm_);
    rate = rccl_mesh && it != tab_.rccl->ring_block_GBps_by_sm.end() ? it->second : 0.0;
  } else if (g.nodes <= 1) {
    rate = 0;
  }
  if (rate <= 0 || channels <= 0 || g.rings.empty()) return base;
  const auto capped_link = [&](const topology::Link& l) { return rccl_mesh ? l.type == topology::LinkType::Xgmi : topology::is_network(l.type); };
  for (auto& v : views_)
    if (v->algo == Algo::Ring && v->proto == proto && v->shm_share == base.shm_share && v->ring_channels == channels &&
        v->both_ways == base.both_ways)
      return *v;
  auto v = std::make_unique<View>(View{Algo::Ring, proto, base.shm_share, base.topo, base.router, channels, base.both_ways});
  const int R = static_cast<int>(g.rings.size());
  // NCCL 2.18.1-2.19.x on Hopper doubled the ring's channels once more, up to 32, where the ring graph's bwIntra
  // exceeds 45 GB/s (nccl_version.hpp ring_net_doubled_to_max_in_release): ccsim's split keeps the later releases'
  // channels, so each ring crossing a NIC runs twice the blocks there. The graph's speed is NCCL's inter-node search
  // speed: the first of speedArrayInter a NIC of the host carries (search.cc ncclTopoCompute).
  constexpr int kMaxChannelsThen = 32; // MAXCHANNELS through v2.24.3 (src/include/device.h; 64 from v2.25.1)
  int blocks_per_channel = 1;
  if (!tab_.rccl && ring_net_doubled_to_max_in_release(release_, compute_capability(topo_, g.arch)) && 2 * channels <= kMaxChannelsThen) {
    std::vector<double> nic_GBps;
    nic_heads(topo_, tab_, *base.router, first_host_gpus(g), nullptr, &nic_GBps);
    if (tab_.nvls && !nic_GBps.empty()) {
      const auto& speeds = tab_.nvls->speed_inter[static_cast<std::size_t>(g.arch)];
      const double fastest = *std::max_element(nic_GBps.begin(), nic_GBps.end());
      const std::size_t i = speeds.empty() ? 0 : first_inter_speed(speeds, fastest);
      if (i < speeds.size() && speeds[i] <= fastest + 1e-9 && speeds[i] > 45.0) blocks_per_channel = 2;
    }
  }
  std::vector<int> blocks(2 * v->topo.links.size(), 0); // per directed channel: the CUDA channels whose ring crosses it
  const auto& spread = ring_routers(cfg);
  for (int ring = 0; ring < std::min(channels, R); ++ring) {
    const int on_ring = channels / R + (ring < channels % R ? 1 : 0);
    const auto& order = g.rings[static_cast<std::size_t>(ring)];
    std::vector<char> seen(blocks.size(), 0); // a ring that crosses one link twice still runs its blocks once on it
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int a = order[i], b = order[(i + 1) % order.size()];
      if (a == b) continue;
      topology::Router& routes = spread[static_cast<std::size_t>(ring)] ? *spread[static_cast<std::size_t>(ring)] : *base.router;
      for (auto c : routes.route(topo_.gpu_node(a), topo_.gpu_node(b)))
        if (capped_link(topo_.link_of(c)) && !seen[c]) seen[c] = 1, blocks[c] += on_ring * blocks_per_channel;
    }
  }
  for (std::size_t i = 0; i < v->topo.links.size(); ++i) {
    const int most = std::max(blocks[2 * i], blocks[2 * i + 1]);
    if (most == 0) continue;
    auto& l = v->topo.links[i];
    // GPUDirect-TCPX (a kind with device_unpack): each slice's receiving block first copies the bytes from the
    // plugin's bounce pages into NCCL's buffer (ncclNetDeviceUnpack), then, after a barrier, runs its own copy
    // (NVIDIA/nccl src/device/prims_simple.h genericOp, v2.19.3-1 to v2.30.7-1): two passes at the block's rate.
    const double passes = rccl_mesh ? 1.0 : recv_passes(topo_.links[i]);
    const double cap = most * rate / passes * 1e9 / std::max(1, l.lanes);
    l.bw = std::min(l.bw, static_cast<Bandwidth>(std::max(1.0, std::round(cap))));
  }
  views_.push_back(std::move(v));
  return *views_.back();
}

std::optional<P2pLevel> Builder::p2p_level_of(const metrics::RunConfig& cfg) {
  if (tab_.rccl && topo_.p2p_level < 0) return std::nullopt;
  static const std::vector<int> kNone;
  return p2p_level_for(topo_, graph(cfg), cfg.placements.empty() ? kNone : cfg.placements.front(), release_);
}

std::string Builder::what_if_note(const metrics::RunConfig& cfg) {
  std::string s;
  switch (opt_.mode) {
    case AlgoMode::Auto: break;
    case AlgoMode::Fastest: s += ", --nccl-algo fastest (the faster replay of NCCL's best ring and best tree, not NCCL's pick)"; break;
    default: {
      s += fmt::format(", algorithm forced: {} (--nccl-algo, as NCCL_ALGO: NCCL's tuner weighs that one alone)",
                       kAlgoModeNames[static_cast<std::size_t>(opt_.mode)]);
    }
  }
  if (opt_.nvls == NvlsMode::Off && graph(cfg).nvls.channels > 0)
    s += ", NVLS off (--nvls off, as NCCL_NVLS_ENABLE=0: the NVLS graph above is not a candidate)";
  if (opt_.collnet == NvlsMode::Off) s += ", CollNet off (--collnet off, as NCCL_COLLNET_ENABLE=0)";
  if (opt_.msccl == MscclMode::Off && tab_.rccl) s += ", MSCCL off (--msccl off, as RCCL_MSCCL_ENABLE=0: RCCL's tuner picks every size)";
  return s;
}

std::string Builder::p2p_note(const metrics::RunConfig& cfg) {
  const auto level = p2p_level_of(cfg);
  if (!level || is_p2p(cfg.op)) return ""; // sends and receives: no ring hops to name (p2p_level.hpp)
  const auto hops = shm_ring_hops(topo_, graph(cfg), level->level);
  return hops.empty() && !level->user ? "" : ", " + describe_p2p(*level, hops);
}

// Whether the network's transport forces NCCL_PROTO=simple: a fact of the drawing, looked up once, not per size.
bool Builder::simple_only_net(Arch arch) {
  if (!simple_only_ || simple_only_->first != arch) simple_only_ = std::pair{arch, tab_.simple_only(topo_, arch)};
  return simple_only_->second;
}

// The net plugin's reported latency: a fact of the drawing (a scan of its links), looked up once, not per size.
double Builder::reported_net_latency(Arch arch) {
  if (!reported_latency_ || reported_latency_->first != arch) reported_latency_ = std::pair{arch, reported_net_latency_us(tab_, topo_, arch)};
  return reported_latency_->second;
}

// One router for every view: routes follow the machine as drawn, so the views would each compute the same ones.
topology::Router& Builder::drawn_router() {
  if (!router_) {
    router_ = std::make_unique<topology::Router>(topo_);
    if (!opt_.relay_gpus.empty()) router_->set_relay_gpus(opt_.relay_gpus);
  }
  return *router_;
}

std::vector<engine::RunPlan> Builder::plans_of(const metrics::RunConfig& cfg, metrics::SizePlan size) {
  // NCCL has no barrier and no scan collective: refuse rather than predict a ring it would never run.
  if (cfg.op == Op::Barrier || cfg.op == Op::Scan)
    fail("--model nccl: NCCL has no {} collective; use an alpha-beta model (--model fifo)", schedule::to_string(cfg.op));
  const Graph& g = graph(cfg);
  const int p = metrics::ranks_of(cfg);
  if (opt_.mode == AlgoMode::Tree && (cfg.op != Op::AllReduce || p <= 2))
    fail("--nccl-algo tree: NCCL's tree runs allreduce on more than 2 ranks only");
  if (opt_.nvls == NvlsMode::On && g.nvls.channels == 0) fail("--nvls on: {}", g.nvls.why_not);
  if (opt_.mode == AlgoMode::Nvls && (opt_.nvls == NvlsMode::Off || g.nvls.channels == 0))
    fail("--nccl-algo nvls: {}", opt_.nvls == NvlsMode::Off ? std::string("--nvls is off") : g.nvls.why_not);
  check_collnet(cfg, opt_, collnet_);
  if (p == 1)
    if (auto copy = one_rank_copy(cfg, size)) {
      std::vector<engine::RunPlan> one;
      one.push_back(std::move(*copy));
      return one;
    }
  if (auto direct = rccl_direct(cfg, size)) {
    std::vector<engine::RunPlan> one;
    one.push_back(std::move(*direct));
    return one;
  }
  // A sendrecv on 1 rank (nccl-tests runs it) is a copy inside one GPU's memory: without the GPU's memory figure
  // it is refused rather than predicted at link speeds it never touches.
  if ((cfg.op == Op::SendRecv || cfg.op == Op::HyperCube) && p < 2)
    fail("--model nccl: {} on 1 rank is a copy inside one GPU's memory, and ccsim has no memory figure for this GPU "
         "(models/nccl.json hbm_GBps_by_gpu); give 2 or more ranks (an alpha-beta model such as --model fifo charges "
         "the copy nothing)", schedule::to_string(cfg.op));
  // Alltoall, gather, scatter and sendrecv are no collectives in NCCL: sends and receives per peer (p2p_plan.hpp).
  if (is_p2p(cfg.op) && p >= 2) {
    if (!p2p_) {
      // NCCL_P2P_LEVEL=LOC turns P2P off for every pair, NVLink ones too (paths.cc ncclTopoCheckP2p: the path
      // type must be within the level): every GPU's port staged. Other levels, the user's or NCCL's default,
      // go per pair of the op's sends, as for ring hops (P2pPlanner::plan).
      if (topo_.p2p_level == static_cast<int>(topology::PathClass::Loc))
        p2p_topo_ = topology::with_p2p_level(topo_, topology::PathClass::Loc, "--p2p-level");
      p2p_ = std::make_unique<P2pPlanner>(p2p_topo_ ? *p2p_topo_ : topo_, tab_, opt_.params, opt_.relay_gpus,
                                          p2p_ll_in_release(release_), p2p_ll_per_peer_threshold(release_),
                                          p2p_max_peers_in_release(release_), p2p_net_channel_rule(release_),
                                          p2p_split_rule(release_), p2p_net_chunk_doubled_on_gbx_in_release(release_));
    }
    const Graph& ring = p2p_->ring_graph(cfg.placements, g, opt_.gpu_arch);
    const int comm_channels = p2p_comm_channels(channels_used(tab_, ring, Algo::Ring, Proto::Simple, p, Bytes{1} << 40, opt_.channels),
                                                ring.arch, ring.nodes, ring.bw, opt_.channels > 0);
    std::vector<engine::RunPlan> one;
    const auto level = p2p_level_of(cfg);
    one.push_back(p2p_->plan(g, comm_channels, cfg, size, from_us(opt_.params.launch_us) + launch(),
                             level ? std::optional{level->level} : std::nullopt));
    return one;
  }
  auto cands = candidates(tab_, g, cfg.op, p, size.size, opt_.nvls != NvlsMode::Off, nvls_tree_tuner_rule(tab_, release_),
                          ring_ll128_tuner_caps(tab_, release_));
  // The latency the net plugin reports to NCCL (aws-ofi-nccl's platform table: 75 us on p4d/p4de/p5/p5e, 35 us from
  // p5en) enters NCCL's tuner from v2.18.1-1 once per network hop of its latency formula and twice for Simple, "the
  // flush extra latency" (tuning.cc interLat; kNetLatencyAddedFrom). It moves NCCL's pick only: the replay charges the
  // wire (with_fabric_hops), so time_us (what the tuner weighs) takes it and lat_us (what a closed form runs) does not.
  const double reported = g.nodes > 1 && !tab_.rccl && (!release_ || !(*release_ < kNetLatencyAddedFrom))
                              ? reported_net_latency(g.arch) : 0.0;
  const auto tuner_extra_us = [&](const Candidate& c) {
    return network_hops(cfg.op, c.algo, g.nodes) * reported * (c.proto == Proto::Simple ? 2.0 : 1.0);
  };
  const auto as_run = [&](const Candidate& c) { // the candidate as the replay times it, without the tuner's term
    Candidate r = c;
    r.time_us -= tuner_extra_us(c);
    return r;
  };
  if (reported > 0)
    for (auto& c : cands) c.time_us += tuner_extra_us(c);
  // A network transport that does not deliver LL/LL128's lines in order makes its plugin set
  // NCCL_PROTO=simple (aws-ofi-nccl on pre-Hopper EFA instances: net_kinds efa by_arch).
  if (g.nodes > 1 && simple_only_net(g.arch))
    std::erase_if(cands, [](const Candidate& c) { return c.proto != Proto::Simple; });
  // NCCL_PROTO (--nccl-proto, or the trace's own): NCCL's tuner never costs a protocol the list leaves out.
  const bool any_before = !cands.empty();
  std::erase_if(cands, [&](const Candidate& c) { return !opt_.protos.allows(c.proto); });
  if (any_before && cands.empty())
    fail("--nccl-proto {}: none of {} runs here (LL128 stays off where NCCL's default leaves it off)", opt_.protos.stated,
         opt_.protos.allowed_names());
  if (opt_.collnet != NvlsMode::Off && collnet_.heads > 0)
    for (const auto& list : {collnet_candidates(load_collnet_tables(), g, collnet_, cfg.op, p, size.size),
                             opt_.nvls == NvlsMode::Off ? std::vector<Candidate>{}
                                                        : nvls_collnet_candidates(tab_, load_collnet_tables(), g, collnet_, cfg.op, p, size.size)})
      cands.insert(cands.end(), list.begin(), list.end());
  auto best_of = [&](std::optional<Algo> only) {
    const Candidate* b = nullptr;
    for (const auto& c : cands)
      if ((!only || c.algo == *only || (*only == Algo::Nvls && c.algo == Algo::NvlsTree)) && (!b || c.time_us < b->time_us)) b = &c;
    return b;
  };
  const std::optional<Algo> only = opt_.mode == AlgoMode::Ring   ? std::optional(Algo::Ring)
                                   : opt_.mode == AlgoMode::Tree ? std::optional(Algo::Tree)
                                   : opt_.mode == AlgoMode::Nvls ? std::optional(Algo::Nvls)
                                   : opt_.mode == AlgoMode::CollNetDirect ? std::optional(Algo::CollNetDirect)
                                   : opt_.mode == AlgoMode::CollNetChain  ? std::optional(Algo::CollNetChain)
                                                                          : std::nullopt;
  // A release before NCCL's tuning model (2.4.x) picks by its thresholds, on the channels LL fills.
  int release_channels = 0;
  const Candidate* pick = release_pick(cands, cfg, size, only, release_channels);
  if (!pick) pick = best_of(only);
  if (!pick) fail("nccl model: no algorithm/protocol is enabled");
  // RCCL across nodes runs the protocol its tuning model's size ranges name over its tuner's, unless NCCL_PROTO
  // is set (rccl.hpp rccl_forced_protocol); the algorithm stays the tuner's.
  Candidate forced;
  std::string forced_note;
  if (tab_.rccl && !opt_.protos.restricted() && (pick->algo == Algo::Ring || pick->algo == Algo::Tree))
    if (const auto proto = rccl_forced_protocol(tab_, release_, rccl_sm_, g.nodes, rccl_nics_per_node(cfg), cfg.op, p, size.size);
        proto && *proto != pick->proto) {
      Graph with_ll128 = g;
      with_ll128.ll128 = true; // the node model's ll128Enabled: LL128 is costed like every pair
      for (const auto& c : candidates(tab_, with_ll128, cfg.op, p, size.size, false))
        if (c.algo == pick->algo && c.proto == *proto) {
          forced_note = fmt::format("RCCL {}: {} over its tuner's {} (the tuning model's protocol range for this size)",
                                    opt_.nccl_version, name(*proto), name(pick->proto));
          forced = c;
          pick = &forced;
        }
    }
  std::vector<engine::RunPlan> out;
  out.push_back(with_fabric_hops(plan_for(as_run(*pick), cfg, size, release_channels), *pick, cfg, size.size, p));
  if (!forced_note.empty()) out.front().choice.note = forced_note;
  // What the tuner weighed, each pair with its own estimate (`--why`); the pick is the plan's algo/proto.
  for (const auto& c : cands)
    out.front().choice.weighed.push_back({std::string(name(c.algo)), std::string(name(c.proto)), c.time_us});
  if (opt_.mode == AlgoMode::Fastest && out.front().choice.simulated)
    if (const auto* other = best_of(pick->algo == Algo::Ring ? Algo::Tree : Algo::Ring)) {
      auto alt = with_fabric_hops(plan_for(as_run(*other), cfg, size), *other, cfg, size.size, p);
      alt.choice.note = "replayed faster than NCCL's pick";
      if (alt.choice.simulated) out.push_back(std::move(alt));
    }
  return out;
}

// A fabric whose network hop is slower than NCCL's NET hwLat (net_kinds hop_us: EFA) adds the difference
// once per network hop of NCCL's latency model (network_hops), not per message of the replay: NCCL keeps
// NCCL_STEPS (8) steps in flight per connection, so a hop's latency does not repeat for every segment.
//
// A write (RDMA) protocol's rendezvous (net_kinds rdma_eager_max_bytes; aws-ofi-nccl's RDMA protocol on p5 and
// later): a message above the eager limit is written only into the buffer the receiver's control message names,
// so the first one of a connection waits that message's trip. Every receiver posts at the collective's start, so
// the trips overlap: one hop per collective, not per hop of the chain. The largest message of a connection is a
// channel's share of the buffer (a ring: of one of its `ranks` chunks), on the wire (LL doubles it, LL128 adds
// 8 B a 120).
//
// A two-sided (SENDRECV) transport (aws-ofi-nccl's SENDRECV protocol through libfabric's EFA provider) sends a
// message above the provider's eager size by a protocol with more round trips (Tables::TwoSided): per hop.
engine::RunPlan Builder::with_fabric_hops(engine::RunPlan plan, const Candidate& c, const metrics::RunConfig& cfg, Bytes nbytes,
                                          int ranks) const {
  const Graph& g = graph_;
  if (g.nodes <= 1 || (c.algo != Algo::Ring && c.algo != Algo::Tree && c.algo != Algo::NvlsTree)) return plan;
  // NCCL's hwLat table has Ring and Tree rows only; NVLS-tree's network hop is its own figure.
  const double nccl_hop = c.algo == Algo::NvlsTree ? tab_.nvls->tree_net_latency_us : net_hop_us(tab_, c.algo, c.proto);
  const double extra = fabric_hops_.extra_us(nccl_hop);
  const double hops = network_hops(cfg.op, c.algo, g.nodes);
  const double wire = c.proto == Proto::LL ? 2.0 : c.proto == Proto::LL128 ? 128.0 / 120.0 : 1.0;
  const double share = static_cast<double>(std::max(1, plan.choice.channels)) * (c.algo == Algo::Ring ? std::max(1, ranks) : 1);
  const double share_bytes = static_cast<double>(nbytes) * wire / share;
  // A two-sided (SENDRECV) transport's provider protocols: a message above its eager size adds round trips (the
  // read, the CTS windows) on every network hop of the chain, as the hop itself (Tables::TwoSided). NCCL's net
  // proxy sends a Simple slice at once: 2 steps on a ring's allreduce, allgather and reduce-scatter
  // (src/include/collectives.h *_SLICESTEPS NCCL_STEPS / 4), 1 on a tree and a ring's broadcast or reduce.
  const bool two_slice = c.algo == Algo::Ring && (cfg.op == Op::AllReduce || cfg.op == Op::AllGather || cfg.op == Op::ReduceScatter);
  const double two_sided = fabric_hops_.two_sided_us(share_bytes, two_slice ? 2 : 1);
  const double add_us = std::max(0.0, hops * extra) + hops * two_sided + fabric_hops_.rendezvous_us(share_bytes);
  if (add_us <= 0) return plan;
  if (plan.closed_form) *plan.closed_form += from_us(add_us);
  else plan.fixed += from_us(add_us);
  return plan;
}

// RCCL's paths outside its tuning model (rccl.hpp): MSCCL all-pairs allreduce where it has an algorithm
// for the size (it runs before the tuner, so only NCCL_ALGO unset, and only with MSCCL on: --msccl), alltoall as
// direct sends on a mesh. Alltoall stays direct without MSCCL: RCCL's ncclAllToAll then groups one ncclSend and one
// ncclRecv per peer (ROCm/rccl 0cbce2a src/collectives.cc; its pivot kernel only where a rome model sets
// pivotA2AEnabled, 4 x gfx90a rings), the same sends over the mesh's direct links.
std::optional<engine::RunPlan> Builder::rccl_direct(const metrics::RunConfig& cfg, metrics::SizePlan size) {
  if (!tab_.rccl || size.count == 0) return std::nullopt;
  const bool a2a = cfg.op == Op::AllToAll;
  // RCCL before 2.21 ran no MSCCL when one process drives several GPUs (kRcclMscclSingleProcessFrom).
  const bool one_process_without_msccl = opt_.gpus_per_thread > 1 && release_ && *release_ < kRcclMscclSingleProcessFrom;
  if (!a2a && (cfg.op != Op::AllReduce || opt_.mode != AlgoMode::Auto || opt_.msccl == MscclMode::Off || one_process_without_msccl))
    return std::nullopt;
  const Graph& g = graph(cfg);
  const int p = metrics::ranks_of(cfg);
  const double link = mesh_link_GBps(topo_, tab_, cfg.placements.front());
  const auto eff = [&](Proto pr) { return opt_.params.efficiency(topology::LinkType::Xgmi) * opt_.params.proto_efficiency(std::string(name(pr))); };
  int channels = 1;
  auto c = a2a ? direct_alltoall(tab_, g, link, p, size.size, eff(Proto::Simple))
               : direct_allreduce(tab_, g, link, p, size.size, size.count, 1.0, 0.0, &channels);
  if (!c || !opt_.protos.allows(c->proto)) return std::nullopt; // NCCL_PROTO leaves RCCL's direct protocol out
  c = a2a ? direct_alltoall(tab_, g, link, p, size.size, eff(c->proto))
          : direct_allreduce(tab_, g, link, p, size.size, size.count, eff(c->proto), memory_GBps_, &channels);
  engine::RunPlan plan;
  plan.choice.algo = std::string(name(c->algo));
  plan.choice.proto = std::string(name(c->proto));
  plan.choice.channels = a2a ? p - 1 : channels;
  plan.choice.simulated = false;
  plan.choice.outside_tuner =
      a2a ? "RCCL's alltoall: a direct send to every peer over the mesh, not a tuner pick"
          : "RCCL's MSCCL all-pairs allreduce, run before RCCL's tuner for this size (models/rccl.json rccl.direct, from "
            "ROCm/rccl tools/msccl-algorithms allreduce-allpairs-8n-*.xml; --msccl off for the tuner's pick)";
  plan.params = cfg.model;
  plan.network = &engine::fifo_network();
  plan.closed_form = from_us(c->time_us + opt_.params.launch_us + opt_.params.step_us * (a2a ? 1 : 2)) + launch();
  return plan;
}

// One rank: NCCL runs no collective kernel. enqueue.cc hands a 1-rank communicator's collective to
// ncclLaunchOneRank (src/device/onerank.cu, NCCL master 5067397c), a cudaMemcpyAsync of the buffer to the
// output when they differ (a kernel only for a PreMulSum average). RCCL runs the same path (ROCm/rccl 0cbce2a
// src/enqueue.cc ncclLaunchOneRank, onerank.cu: ncclCudaMemcpyAsync, a hipMemcpyAsync). A send to oneself is
// the P2P kernel's local copy (src/device/sendrecv.h, "peer == rank": reduceCopy when the buffers differ).
// nccl-tests' out-of-place column times the copy: the buffer read and written once at the GPU's data-sheet
// memory rate (a floor, as ring_local.hpp), plus the launch. nullopt without a memory figure.
// In place (nccl-tests' in-place half, sendbuff == recvbuff) nothing is copied: see in_place_work.
std::optional<engine::RunPlan> Builder::one_rank_copy(const metrics::RunConfig& cfg, metrics::SizePlan size) {
  engine::RunPlan plan;
  plan.params = cfg.model;
  plan.network = &engine::fifo_network();
  plan.choice.simulated = false;
  const InPlaceWork work = in_place_work(cfg);
  if (work != InPlaceWork::Copy) {
    plan.choice.algo = work == InPlaceWork::Nothing ? "none" : "launch";
    plan.choice.proto = "in-place";
    plan.closed_form = work == InPlaceWork::Nothing ? Time{0} : from_us(opt_.params.launch_us + one_rank_launch_us_);
    return plan;
  }
  if (memory_GBps_ <= 0) return std::nullopt;
  plan.choice.algo = "copy";
  plan.choice.proto = is_p2p(cfg.op) ? "self-send" : tab_.rccl ? "hipMemcpy" : "cudaMemcpy";
  plan.closed_form = from_us(2.0 * static_cast<double>(size.size) / (1000.0 * memory_GBps_) + opt_.params.launch_us + one_rank_launch_us_);
  return plan;
}

// What a one-rank call puts on the stream when nccl-tests passes one buffer (in place). A collective: nothing,
// ncclLaunchOneRank copies only when dst != src in every release read (NCCL 2.4.8 enqueue.cc saveKernel, 2.7.8
// ncclSaveKernel, 2.12.7 and 2.18.3 ncclSetupCollKernel, 2.19.3 to master, RCCL 0cbce2a), except a
// floating-point average, which hostToDevRedOp turns into PreMulSum and oneRankReduce runs as a kernel over the
// buffer even in place. A send to oneself (sendrecv, alltoall, gather, scatter, hypercube): NCCL 2.22.3 skips it
// on the host ("Skip send to self in-place", enqueue.cc); before it, and in RCCL 0cbce2a, which lacks that
// branch, the P2P kernel is launched and copies nothing (sendrecv.h: the copy only when the buffers differ,
// NCCL 2.7.8 to 2.21.5). With nothing enqueued nccl-tests times NCCL's host call alone, not modelled: 0.
Builder::InPlaceWork Builder::in_place_work(const metrics::RunConfig& cfg) const {
  if (!cfg.in_place || metrics::ranks_of(cfg) != 1) return InPlaceWork::Copy;
  if (is_p2p(cfg.op)) {
    if (tab_.rccl) return InPlaceWork::Launch;
    return !release_ || *release_ >= kSelfInPlaceSkipFrom ? InPlaceWork::Nothing : InPlaceWork::Launch;
  }
  const auto& t = cfg.dtype.name;
  const bool float_type = t == "half" || t == "float" || t == "double" || t == "bfloat16" || t == "fp8";
  return cfg.redop == "avg" && float_type ? InPlaceWork::Copy : InPlaceWork::Nothing;
}

// NCCL 2.4.x (threshold_choice.hpp): the candidate its thresholds name, and the channels it runs on; nullptr
// for a release with a tuning model, an unknown release, RCCL, --nccl-algo fastest/nvls/collnet.
const Candidate* Builder::release_pick(const std::vector<Candidate>& cands, const metrics::RunConfig& cfg, metrics::SizePlan size,
                                       std::optional<Algo> only, int& channels) {
  const auto* rule = threshold_rule(tab_, release_);
  if (!rule || tab_.rccl || opt_.mode == AlgoMode::Fastest) return nullptr;
  const Graph& g = graph(cfg);
  const int p = metrics::ranks_of(cfg);
  const int comm_channels = opt_.channels > 0  ? opt_.channels
                            : release_rings_ ? release_rings_->channels
                                             : g.channels * tab_.cuda_channels_per_search_channel;
  const auto tc = threshold_choice(*rule, cfg.op, p, g.nodes, g.path == Path::NvLink, compute_capability(topo_, g.arch),
                                   comm_channels, size.size, only);
  if (!tc || (only && tc->algo != *only)) return nullptr; // a forced algorithm the release cannot run here
  for (const auto& c : cands)
    if (c.algo == tc->algo && c.proto == tc->proto) {
      channels = tc->channels;
      return &c;
    }
  return nullptr;
}

engine::RunPlan Builder::plan_for(const Candidate& c, const metrics::RunConfig& cfg, metrics::SizePlan size, int channels) {
  const int p = metrics::ranks_of(cfg);
  engine::RunPlan plan;
  plan.choice.algo = std::string(name(c.algo));
  plan.choice.proto = std::string(name(c.proto));
  plan.choice.channels = channels > 0 ? channels : is_collnet(c.algo) ? collnet_channels(load_collnet_tables(), collnet_, c.algo, size.size)
                                            : channels_used(tab_, graph(cfg), c.algo, c.proto, p, size.size,
                                                            c.algo == Algo::Ring || c.algo == Algo::Tree ? coll_channels(cfg) : 0);
  plan.params = cfg.model;
  plan.params.semantics = engine::Semantics::mpi; // NCCL's tuning model charges every step its hop latency: lockstep
  plan.network = &engine::fifo_network();
  if (size.count > 0 && p >= 2) {
    if (c.algo == Algo::Tree && cfg.op == Op::AllReduce) return tree_plan(std::move(plan), c.proto, cfg, size);
    if (c.algo == Algo::Nvls && cfg.op == Op::AllReduce && graph(cfg).nodes == 1) return nvls_plan(std::move(plan), c, cfg, size);
    if (is_collnet(c.algo) && cfg.op == Op::AllReduce) {
      View& v = view(c.algo, Proto::Simple, cfg);
      plan.topo = &v.topo;
      plan.router = v.router;
      plan.params.alpha_sw += from_us(opt_.params.step_us);
      plan.fixed = from_us(c.lat_us + opt_.params.launch_us) + launch();
      return collnet_plan(std::move(plan), collnet_, cfg, size, tab_.chunk_simple, 4 * tab_.max_loops_simulated);
    }
    if (c.algo == Algo::Ring && schedule::find_algorithm(cfg.op, "ring")) return ring_plan(std::move(plan), c.proto, cfg, size);
  }
  plan.choice.simulated = false;
  // NVLS-tree is not replayed: NCCL's closed form at the stages' own bandwidth (nvls_tree_replay_bus_bandwidth),
  // NCCL's own mid-size factor where it applies (Blackwell, x86 hosts), plus the pipeline fill it leaves out.
  double time_us = c.time_us, fill = 0;
  if (c.algo == Algo::NvlsTree) {
    const Graph& g = graph(cfg);
    fill = nvls_tree_fill_us(tab_, g, plan.choice.channels, size.size, p);
    fill += nvls_tree_step_handoff_us(tab_, g, plan.choice.channels, size.size);
    const double bus = nvls_tree_replay_bus_bandwidth(tab_, g, cfg.op, p) * nvls_tree_size_factor(tab_, g, size.size);
    if (bus > 0) time_us = c.lat_us + static_cast<double>(size.size) / (1000.0 * bus * p / (2.0 * (p - 1)));
  }
  // A ring or tree NCCL's closed form times (broadcast, reduce, ...): its latency term at the fitted multiplier.
  if (c.algo == Algo::Ring || c.algo == Algo::Tree) time_us += c.lat_us * (opt_.params.proto_latency(name(c.proto)) - 1.0);
  plan.closed_form = from_us(time_us + fill + opt_.params.launch_us) + launch();
  return plan;
}

// Every network link of the machine is InfiniBand (kind=ib): NCCL's own IB verbs transport on an IB fabric.
// RoCE (gIB and Spectrum-X are written as it), Slingshot, EFA and sockets are not. A fact of the drawing: one pass
// over the links per builder, not one per ring or tree plan (a sweep plans every size).
bool Builder::network_is_infiniband() {
  if (!infiniband_) {
    bool any = false, all = true;
    for (const auto& l : topo_.links)
      if (topology::is_network(l.type)) {
        if (l.type != topology::LinkType::Ib) {
          all = false;
          break;
        }
        any = true;
      }
    infiniband_ = any && all;
  }
  return *infiniband_;
}

// NCCL's ring search across nodes gives each search channel a NIC and takes that channel's speed off the NIC's
// bandwidth (net.bw -= bw: NVIDIA/nccl v2.7.8-1 to v2.29.2-1 src/graph/search.cc ncclTopoSearchRecNet, the same in
// ROCm/rccl 0cbce2a), skipping a NIC with less left than the speed; the NICs come in ncclTopoSelectNets' order (a
// GPU's nearest path type first, NET index order), and with NCCL_CROSS_NIC off a channel leaves every host through
// the NIC it entered by (ncclTopoSearchRecGpu: the same asic and port as the channel's first NET). ccsim's rings
// across nodes are one per NIC already (ring_search.cpp nic_rings: ring j leaves each host through NIC j), but the
// drawn router sends a GPU's traffic through the first NIC in link order among equally near ones (NICs on the
// CPU's root complex, PCIe-card servers with fewer NICs than GPUs), so every ring went through one NIC pair. Here
// ring r's host-crossing hops go through NIC r where it is among those equally near both of its GPUs, else the
// r-th of them (mod their count), by their index in each host's list, so the same NIC on both hosts; where both GPUs' nearest sets share no index,
// or a single NIC is nearest on both sides, the drawn route stays. Equally near: the same narrowest link and the
// same number of links from the GPU, among the host's NICs that reach the network (node order, as nic_rings).
const std::vector<topology::Router*>& Builder::ring_routers(const metrics::RunConfig& cfg) {
  const Graph& g = graph(cfg);
  if (ring_routers_) return *ring_routers_;
  ring_routers_.emplace(g.rings.size(), nullptr);
  if (g.nodes <= 1 || g.rings.size() < 2) return *ring_routers_;
  topology::Router& drawn = drawn_router();
  const auto hosts = topology::host_map(topo_);
  std::vector<std::vector<int>> nics_of(static_cast<std::size_t>(std::max(0, hosts.count)));
  std::vector<char> cabled(topo_.nodes.size(), 0);
  for (const auto& l : topo_.links)
    if (topology::is_network(l.type)) cabled[static_cast<std::size_t>(l.a)] = cabled[static_cast<std::size_t>(l.b)] = 1;
  for (std::size_t i = 0; i < topo_.nodes.size(); ++i)
    if (topo_.nodes[i].kind == topology::NodeKind::Nic && cabled[i] && hosts.of_node[i] >= 0 && hosts.of_node[i] < hosts.count)
      nics_of[static_cast<std::size_t>(hosts.of_node[i])].push_back(static_cast<int>(i));
  std::map<int, std::vector<int>> near_of; // GPU node -> the indices (in its host's list) of its equally nearest NICs
  const auto near = [&](int gpu_node) -> const std::vector<int>& {
    const auto [it, fresh] = near_of.try_emplace(gpu_node);
    if (!fresh) return it->second;
    const int host = hosts.of_node[static_cast<std::size_t>(gpu_node)];
    if (host < 0 || host >= hosts.count) return it->second;
    Bandwidth best_bw = 0;
    int best_hops = 0;
    const auto& nics = nics_of[static_cast<std::size_t>(host)];
    for (std::size_t k = 0; k < nics.size(); ++k) {
      const auto info = drawn.info(drawn.route(gpu_node, nics[k]));
      if (info.hops == 0) continue;
      if (info.bottleneck > best_bw || (info.bottleneck == best_bw && info.hops < best_hops)) {
        best_bw = info.bottleneck, best_hops = info.hops;
        it->second.assign(1, static_cast<int>(k));
      } else if (info.bottleneck == best_bw && info.hops == best_hops) {
        it->second.push_back(static_cast<int>(k));
      }
    }
    return it->second;
  };
  const auto append = [&](std::vector<int>& path, int from, int to) {
    for (auto c : drawn.route(from, to)) path.push_back(topo_.channel_to(c));
  };
  for (std::size_t r = 0; r < g.rings.size(); ++r) {
    const auto& order = g.rings[r];
    std::vector<topology::Topology::RouteOverride> over;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int na = topo_.gpu_node(order[i]), nb = topo_.gpu_node(order[(i + 1) % order.size()]);
      const int ha = hosts.of_node[static_cast<std::size_t>(na)], hb = hosts.of_node[static_cast<std::size_t>(nb)];
      if (na == nb || ha == hb || ha < 0 || hb < 0) continue;
      const auto& out = near(na);
      const auto& in = near(nb);
      std::vector<int> both; // NIC indices equally near on both sides (sorted: near() walks the lists in order)
      std::set_intersection(out.begin(), out.end(), in.begin(), in.end(), std::back_inserter(both));
      if (both.size() < 2) continue;
      // Ring r's own NIC r where it is among them (nic_rings' ring j through NIC j), else the r-th of them.
      const bool own = std::binary_search(both.begin(), both.end(), static_cast<int>(r));
      const auto k = own ? r : static_cast<std::size_t>(both[r % both.size()]);
      const int nic_out = nics_of[static_cast<std::size_t>(ha)][k], nic_in = nics_of[static_cast<std::size_t>(hb)][k];
      std::vector<int> path{na};
      append(path, na, nic_out);
      append(path, nic_out, nic_in);
      append(path, nic_in, nb);
      std::vector<int> drawn_path{na};
      append(drawn_path, na, nb);
      if (path != drawn_path) over.push_back({na, nb, std::move(path)});
    }
    if (over.empty()) continue;
    // This ring's overrides on top of a router of the drawn topology, not a copy of the topology (a copy per ring was
    // megabytes a ring on a cluster: 1024 nodes of 8 H100 on 2 NICs at the CPU, scripts/bench.sh), nor a router of its
    // own: every other pair is asked of one shared router, whose route trees the rings would each have computed again.
    // Its base is the drawn router with the run's relay GPUs, as every other route of the run: NCCL's topology holds
    // the communicator's GPUs only, so no ring hop relays through another (before, a ring with overrides asked a
    // router without them, and a hop between two chosen GPUs on one node could relay through one outside --gpus).
    ring_router_store_.push_back(std::make_unique<topology::Router>(drawn, over));
    (*ring_routers_)[r] = ring_router_store_.back().get();
  }
  return *ring_routers_;
}

engine::RunPlan Builder::ring_plan(engine::RunPlan plan, Proto proto, const metrics::RunConfig& cfg, metrics::SizePlan size) {
  const Graph& g = graph(cfg);
  const int p = metrics::ranks_of(cfg);
  // Across nodes each network link carries at most its channels' thread blocks, on one AMD node each xGMI link (ring_view).
  View& v = ring_view(proto, cfg, plan.choice.channels);
  // Chunk: Simple ring AR/AG/RS use CHUNKSTEPS steps, other collectives one step (§3.6).
  const bool multi_step = cfg.op == Op::AllReduce || cfg.op == Op::AllGather || cfg.op == Op::ReduceScatter;
  const double chunk = proto == Proto::Simple ? (multi_step ? tab_.chunk_simple : tab_.chunk_simple_one_step)
                       : proto == Proto::LL   ? tab_.chunk_ll
                                              : tab_.chunk_ll128;
  // CUDA channel c runs on search ring c % R; channels that share a ring share its links at the same
  // time (not one after another), so they are one job per ring carrying their combined share.
  const int nc = plan.choice.channels, R = static_cast<int>(g.rings.size()), used_rings = std::min(nc, R);
  std::vector<int> weight(static_cast<std::size_t>(used_rings), 0);
  for (int c = 0; c < nc; ++c) ++weight[static_cast<std::size_t>(c % R)];
  const double per_channel = static_cast<double>(size.size) / nc;
  // NCCL's loops (ring_chunking.hpp): nRanks chunks per loop on a ring, one on broadcast/reduce's chain, whose
  // LL/LL128 lines move on at once: that chain as finely pipelined as the replay allows.
  const int max_loops = std::max(1, tab_.max_loops_simulated / used_rings);
  plan.choice.loops = chain_pipelined_per_line(cfg.op, proto) ? max_loops : std::min(ring_loops(cfg.op, p, per_channel, chunk), max_loops);
  // NCCL's split over the channels is not even; each channel runs at its 1/nc of the links (NCCL's busBw is
  // nChannels x a per-channel figure), so the busiest one sets the time: every channel carries its share.
  double imbalance = tab_.rccl ? 1.0
                               : channel_imbalance(split_rule(release_), tab_, cfg.op, proto, p, size.size, nc, chunk);
  // LL128 on sm80 over NVLink: a step lasts whole waves of the block's warps (ring_chunking.hpp
  // ll128_wave_imbalance), a part-filled wave as long as a full one. The A100 class (OCI, SuperBench, two thanos
  // runs: allreduce 4 -> 8 MiB adds 125-150 GB/s busbw, 8 -> 16 MiB 150-247) shows it; Hopper's LL128 rows are
  // already below the model at 1-8 MiB (models/README.md "LL128 waves on A100"), so only sm80 is charged.
  if (!tab_.rccl && proto == Proto::LL128 && g.nodes == 1 && g.path == Path::NvLink &&
      compute_capability(topo_, g.arch) == 80)
    imbalance = ll128_wave_imbalance(split_rule(release_), tab_, cfg.op, p, size.size, nc, chunk);
  plan.topo = &v.topo;
  plan.router = v.router;
  // Across nodes each step of RCCL's ring waits for its receive, not for its own send to land: a connection has
  // NCCL_STEPS (8) slots, so the latency chains hop by hop around the ring, (nsteps - nInterSteps) x intraLat +
  // nInterSteps x interLat as ncclTopoTuneModel charges it (ROCm/rccl 0cbce2a src/graph/tuning.cc, device.h).
  // Lockstep (mpi) charged every step the network hop (2 MI300X nodes ring/Simple 2 MiB: 30 x 15 us = 457 us of a
  // 474 us prediction, 82 us measured). NVIDIA's rings kept the lockstep there (models/README.md "RCCL across
  // nodes": measured for both, kept for RCCL only), but NVIDIA's ring/LL over InfiniBand pipelines the same way:
  // an LL step's receive is its lines' flags landing in the GPU's buffer, read by the GPU itself (prims_ll.h),
  // with no receive-proxy round on the data path, where Simple waits for the proxy's test (and GDR flush) and its
  // tail write (NVIDIA/nccl v2.26.2-1 src/transport/net.cc recvProxyProgress; sendProxyProgress isends an LL step
  // once its flags read ready, without the GPU's tail).
  // Kept lockstep for Simple/LL128 and for every other fabric (models/README.md "NVIDIA ring/LL across InfiniBand").
  if (g.nodes > 1 && (tab_.rccl || (proto == Proto::LL && network_is_infiniband())))
    plan.params.semantics = engine::Semantics::gpu;
  // A Simple broadcast/reduce chain on one node: the replayed job's 512 KiB segments are its channels' chunks,
  // which NCCL's channels move at once, each sender running ahead into its connection's NCCL_STEPS slots
  // (v2.29.3-1 src/device/broadcast.h, reduce.h; prims_simple.h waitPeer). Lockstep made every chunk wait for
  // the one before it to land, its hop latency paid once per chunk (8 B200 16 MiB: 32 x 3.4 us, 168.8 us
  // replayed against 53.7 measured); now it is paid once per hop: (p-1) x (latency + wire) + (k-1) x wire.
  if (!tab_.rccl && g.nodes == 1 && proto == Proto::Simple && (cfg.op == Op::Broadcast || cfg.op == Op::Reduce))
    plan.params.semantics = engine::Semantics::gpu;
  const auto& algo = schedule::require_algorithm(cfg.op, "ring");
  const auto& spread = ring_routers(cfg);
  const std::vector<int> even(static_cast<std::size_t>(plan.choice.loops), 1);
  const auto carried = static_cast<std::uint64_t>(std::llround(static_cast<double>(size.count) * imbalance));
  const auto ring_shares = engine::split_by_weight(carried, weight);
  for (int ring = 0; ring < used_rings; ++ring)
    for (std::uint64_t count : engine::split_by_weight(ring_shares[static_cast<std::size_t>(ring)], even)) {
      schedule::CollArgs a;
      a.op = cfg.op;
      a.ranks = p;
      a.count = count;
      a.root = cfg.root;
      a.elt_size = cfg.dtype.size;
      engine::add_job(plan, algo.make(a), g.rings[static_cast<std::size_t>(ring)], cfg.dtype.size);
      plan.jobs.back().router = spread[static_cast<std::size_t>(ring)];
      plan.job_names.push_back(fmt::format("ring {} loop {}", ring, plan.job_names.size() % plan.choice.loops));
    }
  // The closed form's multi-node corrections (network floor, ring plateau) scale the same terms here.
  const double plateau = ring_plateau(tab_, g, cfg.op, proto, p, size.size);
  const double lat = opt_.params.proto_latency(name(proto));
  plan.params.alpha_sw += from_us(intra_hop_us(tab_, g, Algo::Ring, proto) * plateau * lat + opt_.params.step_us);
  plan.fixed = from_us(tab_.base_latency_us[0][static_cast<int>(proto)] * plateau * lat + opt_.params.launch_us) + launch();
  // Each chunk's last primitive copies while no link of the ring is busy (ring_local.hpp): NVIDIA GPUs of one
  // node over NVLink whose memory figure is known (RCCL's xGMI figures are measured ring rates, which hold it).
  if (!tab_.rccl && g.nodes == 1 && g.path == Path::NvLink && memory_GBps_ > 0 &&
      ring_last_primitive_copies(opt_.gpus_per_thread > 1, compute_capability(topo_, g.arch) == 80, release_))
    plan.fixed += from_us(ring_local_bytes(cfg.op, proto, p, static_cast<double>(size.size)) / (1000.0 * memory_GBps_));
  return plan;
}

engine::RunPlan Builder::tree_plan(engine::RunPlan plan, Proto proto, const metrics::RunConfig& cfg, metrics::SizePlan size) {
  const Graph& g = graph(cfg);
    View& v = view(Algo::Tree, proto, cfg);
  // CUDA channel c runs search ring c % R through its NIC, on tree (c / R) % 2, so every NIC carries
  // both trees; channels on the same (ring, tree) share its links at the same time: one job each.
  const int nc = plan.choice.channels, R = static_cast<int>(g.rings.size());
  std::map<std::pair<int, int>, int> weight;
  for (int c = 0; c < nc; ++c) ++weight[{c % R, (c / R) % 2}];
  std::vector<int> weights;
  for (const auto& [key, w] : weight) weights.push_back(w);
  const auto shares = engine::split_by_weight(size.count, weights);
  double chunk = proto == Proto::Simple ? tab_.chunk_simple_one_step : proto == Proto::LL ? tab_.chunk_ll : tab_.chunk_ll128;
  // RCCL's tree runs its own chunk rules (rccl.hpp rccl_tree_chunk_bytes); NVIDIA's replay keeps the step as measured before.
  if (tab_.rccl && g.nodes > 1) chunk = rccl_tree_chunk_bytes(proto, chunk, size.size, nc, g.nodes, metrics::ranks_of(cfg));
  const auto max_segments = static_cast<std::uint64_t>(4 * tab_.max_loops_simulated);
  // NVIDIA's tree allreduce is runTreeSplit under every protocol (src/device/all_reduce.h, v2.19.3-1..v2.29.2-1; not
  // CUDA 11.2-11.3 on sm80): a block's reduce-up and broadcast-down groups run at once, each sender running ahead into
  // its connection's NCCL_STEPS = 8 slots (prims_simple.h waitPeer; the tree's ProtoSimple<1, 1> puts a chunk in one
  // slot). Replayed as two pipelines under gpu semantics with 8 credits, a hop's latency is paid once along the tree,
  // not once a segment: the shared lockstep ticks paid it per 512 KiB chunk (2 x 8 A100 over IB, 1 GiB tree/Simple:
  // 24.8 ms at 32 segments a job, 26.6 at 256). Across nodes, where every network link is InfiniBand (NCCL's own IB
  // verbs transport, as the ring/LL chain above). Every other fabric keeps the lockstep: the four runs with tree rows
  // past 8 MiB (EFA p4d / p4de, RoCE L40S and A100, Slingshot Polaris) all measure below the pipelined replay's rate
  // (every moved row worse, models/README.md "NVIDIA's tree across nodes"), so the per-segment latency stands in for
  // a shortfall there that no source read gives.
  const bool split = !tab_.rccl && g.nodes > 1 && network_is_infiniband();
  if (split) plan.params.semantics = engine::Semantics::gpu;
  plan.topo = &v.topo;
  plan.router = v.router;
  std::size_t i = 0;
  for (const auto& [key, w] : weight) {
    const auto& ring = g.rings[static_cast<std::size_t>(key.first)];
    const std::uint64_t mine = shares[i++];
    const double bytes = static_cast<double>(mine * cfg.dtype.size);
    // RCCL's Simple across nodes: the job stands for w channels, each moving its own chunk at the same time through
    // its NCCL_STEPS slots, so one segment of the job is w chunks; cutting it into single chunks queued the w
    // channels' chunks one behind another on every hop (64 channels on 2 x 8 gfx950: 4 to a job, 2158 us at 128 MiB).
    // LL and LL128 forward every line as it lands (prims_ll.h, prims_ll128.h): their segments stand in for that
    // finer pipeline, so they keep the single chunk.
    const double segment = tab_.rccl && g.nodes > 1 && proto == Proto::Simple ? chunk * w : chunk;
    const auto k = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::ceil(bytes / segment)), 1, max_segments);
    plan.choice.loops = std::max<int>(plan.choice.loops, static_cast<int>(k));
    schedule::CollArgs a;
    a.op = Op::AllReduce;
    a.ranks = static_cast<int>(ring.size());
    a.count = mine;
    a.elt_size = cfg.dtype.size;
    if (split) {
      a.ranks *= 2; // ranks 0..p-1 the up groups, p..2p-1 the down groups, on the same GPUs
      std::vector<int> gpus(ring);
      gpus.insert(gpus.end(), ring.begin(), ring.end());
      engine::add_job(plan, std::make_unique<schedule::TreeSplitAllReduce>(a, tree_parents(ring, g.host_of_gpu, key.second), k), gpus,
                      cfg.dtype.size);
    } else {
      engine::add_job(plan, std::make_unique<schedule::TreePipelineAllReduce>(a, tree_parents(ring, g.host_of_gpu, key.second), k),
                      ring, cfg.dtype.size);
    }
    plan.job_names.push_back(fmt::format("ring {} tree {}", key.first, key.second));
  }
  // The channels' trees (and mirror trees) share NIC and NVLink links at the same time, their packets
  // interleaved by the hardware: fair sharing (the flow network), not whole segments queued behind each
  // other. Under FIFO the lock-step trees convoyed, and busbw fell as the size doubled (2 H100 nodes
  // tree/LL128: 202 GB/s at 128 MiB, 139 at 4 GiB; 256 H100 GPUs 103 GB/s at 1 GiB, 272 fair-shared).
  if (const auto* flow = engine::find_network("flow")) plan.network = flow;
  // RCCL's tree across nodes waits for its receives, not for its sends to land, as its ring does (ring_plan: NCCL_STEPS
  // slots per connection): its segments pipeline up and down the tree instead of one hop per lockstep step.
  if (tab_.rccl && g.nodes > 1) plan.params.semantics = engine::Semantics::gpu;
  const double lat = opt_.params.proto_latency(name(proto));
  plan.params.alpha_sw += from_us(intra_hop_us(tab_, g, Algo::Tree, proto) * lat + opt_.params.step_us);
  plan.fixed = from_us(tab_.base_latency_us[1][static_cast<int>(proto)] * lat + opt_.params.launch_us) + launch();
  return plan;
}

// One job per switch every GPU links to (its share of the data by the GPU's lanes into it): the GPUs
// and, as the last rank, the switch, which reduces and multicasts. Pipelined in segments of NCCL's
// NVLS chunk over its CUDA channels. NCCL's NVLS latency is one term (no per-hop part): charged once.
engine::RunPlan Builder::nvls_plan(engine::RunPlan plan, const Candidate& c, const metrics::RunConfig& cfg, metrics::SizePlan size) {
  const Graph& g = graph(cfg);
  View& v = view(Algo::Nvls, Proto::Simple, cfg);
  plan.topo = &v.topo;
  plan.router = v.router;
  const auto& gpus = cfg.placements.front();
  const auto shares = engine::split_by_weight(size.count, g.nvls.weights);
  const double round = tab_.nvls->chunk_bytes * std::max(1, plan.choice.channels);
  for (std::size_t i = 0; i < g.nvls.switches.size(); ++i) {
    const double bytes = static_cast<double>(shares[i] * cfg.dtype.size);
    const auto k = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::ceil(bytes / round)), 1,
                                             static_cast<std::uint64_t>(4 * tab_.max_loops_simulated));
    plan.choice.loops = std::max<int>(plan.choice.loops, static_cast<int>(k));
    schedule::CollArgs a;
    a.op = Op::AllReduce;
    a.ranks = static_cast<int>(gpus.size()) + 1;
    a.count = shares[i];
    a.elt_size = cfg.dtype.size;
    engine::add_job(plan, std::make_unique<schedule::SwitchAllReduce>(a, k), gpus, cfg.dtype.size);
    plan.jobs.back().node_of_rank.push_back(g.nvls.switches[i]);
    plan.job_names.push_back(fmt::format("nvls switch {}", i));
  }
  plan.params.alpha_sw += from_us(opt_.params.step_us);
  // NCCL's kernel puts a scatter stage before the switch's reduce/multicast and a gather stage after, one
  // loop apart each: their fill and drain is charged once, less the first segment's up-then-down pass the
  // replay already runs in series (tuning.hpp nvls_replay_fill_us; that pass is most of a 1-8 MiB call).
  const int p = static_cast<int>(gpus.size());
  const double algbw = nvls_replay_bus_bandwidth(tab_, g, Op::AllReduce, p) * p / (2.0 * (p - 1)) *
                       opt_.params.proto_efficiency(std::string(name(Proto::Simple)));
  const double fill = nvls_replay_fill_us(*tab_.nvls, static_cast<double>(size.count * cfg.dtype.size),
                                          std::max(1, plan.choice.channels), g.nvls.channels, algbw, plan.choice.loops);
  // Each loop step's handoff a chunk below NCCL_NVLS_CHUNKSIZE pays beyond NCCL's efficiency (tuning.hpp).
  const double handoff = nvls_step_handoff_us(tab_, g, static_cast<double>(size.count * cfg.dtype.size), std::max(1, plan.choice.channels));
  plan.fixed = from_us(c.lat_us + fill + handoff + opt_.params.launch_us) + launch();
  return plan;
}

std::vector<int> tree_parents(const std::vector<int>& ring, const std::vector<int>& host_of_gpu, int tree) {
  std::vector<std::vector<int>> runs; // ring positions of each host, in ring order
  auto host = [&](int pos) { return host_of_gpu[static_cast<std::size_t>(ring[static_cast<std::size_t>(pos)])]; };
  for (std::size_t i = 0; i < ring.size(); ++i)
    if (runs.empty() || host(runs.back().back()) != host(static_cast<int>(i))) runs.emplace_back(1, static_cast<int>(i));
    else runs.back().push_back(static_cast<int>(i));
  std::vector<int> parent(ring.size(), -1);
  const int n = static_cast<int>(runs.size());
  auto in_order_parent = [n](int x) {
    if (x == 0) return -1;
    const int low = x & -x;
    const int up = (x ^ low) | (low << 1);
    return up < n ? up : x ^ low;
  };
  for (int x = 0; x < n; ++x) {
    const auto& run = runs[static_cast<std::size_t>(x)];
    for (std::size_t i = 0; i + 1 < run.size(); ++i) parent[static_cast<std::size_t>(run[i])] = run[i + 1];
    const int up = tree == 0 ? in_order_parent(x) : (in_order_parent(n - 1 - x) < 0 ? -1 : n - 1 - in_order_parent(n - 1 - x));
    if (up >= 0) parent[static_cast<std::size_t>(run.back())] = runs[static_cast<std::size_t>(up)].back();
  }
  return parent;
}

} // namespace ccsim::model::nccl
