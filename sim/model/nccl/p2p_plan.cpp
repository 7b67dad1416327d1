#include "sim/model/nccl/p2p_plan.hpp"
#include "sim/model/protocol_place.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>

#include <fmt/format.h>

#include "sim/core/ceil_div.hpp"
#include "sim/model/nccl/p2p_level.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/ring_search.hpp"

namespace ccsim::model::nccl {
using schedule::Op;

int pow2_up(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

int nvlink_peer_channels(double path_GBps, double lane_GBps) {
  return 2 * std::max(1, lane_GBps > 0 ? static_cast<int>(path_GBps / lane_GBps) : 1);
}

int net_peer_channels(int nics, double nic_GBps) {
  // ncclTopoGetNchannels (src/graph/paths.cc@v2.29.2-1): 2 when no NIC is local to the GPU, else
  // max(netCount, divUp((int)netBw, 14)): the bandwidth is truncated to whole GB/s before the division.
  if (nics <= 0) return 2;
  const int per = static_cast<int>(kP2pPerChannelNetGBps);
  return std::max(nics, ceil_div(static_cast<int>(nic_GBps), per));
}

Bytes p2p_chunk_bytes(int nodes, bool all_nvlink, bool arm_blackwell) {
  if (nodes > 1) return (arm_blackwell ? 2 : 1) * kP2pNetChunk;
  return all_nvlink ? kP2pNvlChunk : kP2pPciChunk;
}

double p2p_channel_GBps(double nvlink_lane_GBps, Arch arch, bool ll) {
  const double bytes = arch == Arch::Hopper || arch == Arch::Blackwell ? kP2pWriteBlockGBps
                                                                       : nvlink_lane_GBps / kP2pChannelsPerNvlinkLane;
  // The rate counts the bytes a block moves (Simple's are all data); an LL line is half flags, as the LL view's
  // links are (view(): the same half).
  return ll ? bytes * kLLDataPerLineByte : bytes;
}

int p2p_comm_channels(int ring_cuda_channels, Arch arch, int nodes, double ring_bw_intra, bool logged) {
  const bool hopper_up = arch == Arch::Hopper || arch == Arch::Blackwell;
  if (logged || !hopper_up || nodes <= 1 || ring_bw_intra <= 45.0 || ring_cuda_channels >= 16) return ring_cuda_channels;
  return std::min(kP2pMaxChannels, 2 * ring_cuda_channels);
}

int net_peer_channels_in(P2pNetChannelRule rule, int by_bw, int ranks, int p2p_channels) {
  switch (rule) {
    case P2pNetChannelRule::One: return 1;
    case P2pNetChannelRule::Two: return 2;
    case P2pNetChannelRule::ScaledTwo: {
      // "Avoid overloading channels with 8+ operations": 2 halved while 2 x nRanks > p2pnChannels x 4; one NIC.
      int most = 2;
      while (most * ranks > p2p_channels * 4 && most > 1) most /= 2;
      return most;
    }
    case P2pNetChannelRule::ByNicBandwidth: break;
  }
  return by_bw;
}

int p2p_channels_of(int comm_channels) { return pow2_up(std::clamp(comm_channels, 1, kP2pMaxChannels)); }

P2pComm p2p_comm(int ranks, int nodes, int comm_channels, int peer_channels, Bytes chunk, int max_peers,
                 bool halve_for_peers, P2pSplitRule split) {
  P2pComm c;
  c.split = split;
  c.ranks = std::max(1, ranks);
  c.nodes = std::max(1, nodes);
  c.chunk = chunk;
  c.channels = p2p_channels_of(comm_channels);
  c.per_peer = pow2_up(std::max(1, peer_channels));
  if (c.nodes > 1 && halve_for_peers) {
    const int batches = ceil_div(max_peers > 0 ? std::min(max_peers, c.ranks) : c.ranks, kP2pOpsPerBatch);
    while (c.per_peer * batches > c.channels && c.per_peer > 1) c.per_peer /= 2;
  } else {
    c.per_peer = std::min(c.channels, c.per_peer);
  }
  c.min_per_op = c.per_peer;
  while (c.min_per_op * c.ranks > c.channels && c.min_per_op > 1) c.min_per_op /= 2;
  // Before v2.20.3-1, on one node: "Avoid overloading channels with 8+ operations" (nChannelsMax halved; the
  // halving that starts from the same per-peer count never passes nChannelsMin's).
  if (c.nodes == 1 && (split == P2pSplitRule::Group || split == P2pSplitRule::Halved))
    while (c.per_peer * c.ranks > c.channels * 4 && c.per_peer > 1) c.per_peer /= 2;
  return c;
}

P2pOp p2p_op(const P2pComm& c, Bytes bytes, bool ll_buffers, bool ll_per_peer) {
  P2pOp op;
  // The channels a send of `bytes` splits over for a step of `step` bytes (addP2pToPlan's min/max parts).
  const auto split = [&](Bytes step) {
    if (c.nodes == 1 && c.split != P2pSplitRule::Current && bytes > 0) {
      constexpr Bytes kStep = Bytes{1} << 19; // the Simple buffer (4 MiB) / NCCL_STEPS, these releases' P2P step
      if (c.split == P2pSplitRule::PerPeer) {
        // v2.7.x: p2pnChannelsPerPeer parts, each rounded up to 4 steps.
        const Bytes part = std::max<Bytes>(1, ceil_div(ceil_div(bytes, static_cast<Bytes>(c.per_peer)), 4 * kStep)) * 4 * kStep;
        return static_cast<int>(ceil_div(bytes, part));
      }
      // getP2pChunkSize (v2.8.3-1) / calcP2pChunkSize (v2.13.4-1): a part of at least minSize from nChannelsMin
      // channels, channels doubled while the part exceeds maxSize, the part aligned up to minSize; the channels
      // that carry data are the parts it takes.
      const Bytes min_part = c.split == P2pSplitRule::Group ? kStep : step / 8;
      const Bytes max_part = c.split == P2pSplitRule::Group ? 4 * kStep : step * 32;
      int n = c.min_per_op;
      Bytes part = std::max(min_part, ceil_div(bytes, static_cast<Bytes>(n)));
      while (part > max_part && n <= c.per_peer / 2) {
        n *= 2;
        part = ceil_div(bytes, static_cast<Bytes>(n));
      }
      part = ceil_div(part, min_part) * min_part;
      return static_cast<int>(ceil_div(bytes, part));
    }
    const Bytes min_part = c.nodes > 1 ? step / 2 : step / 8, max_part = c.nodes > 1 ? step : step * 32;
    int channels = 1;
    if (bytes > 0) {
      channels = static_cast<int>(std::min<Bytes>(static_cast<Bytes>(c.min_per_op), ceil_div(bytes, min_part)));
      Bytes part = std::max(min_part, ceil_div(bytes, static_cast<Bytes>(channels)));
      while (part > max_part && channels <= c.per_peer / 2) {
        channels *= 2;
        part = ceil_div(bytes, static_cast<Bytes>(channels));
      }
    }
    return channels;
  };
  if (ll_per_peer) {
    // NCCL 2.22.3-2.28: the protocol first, from the per-peer channels; an LL send splits on LL's step,
    // DEFAULT_LL_BUFFSIZE / NCCL_STEPS = 8 lines x 512 threads x 8 steps x 16 B / 8 = 64 KiB (init.cc).
    op.ll = ll_buffers && bytes <= static_cast<Bytes>(c.per_peer) * kP2pLLThreshold;
    op.channels = split(op.ll ? kP2pLLStep : c.chunk);
  } else {
    op.channels = split(c.chunk);
    op.ll = ll_buffers && bytes <= static_cast<Bytes>(op.channels) * kP2pLLThreshold;
  }
  // LL's step is its buffer over NCCL_STEPS, 64 KiB carrying 32 KiB of data (DEFAULT_LL_BUFFSIZE); Simple's the chunk.
  const Bytes data_per_step = op.ll ? kP2pLLStep / 2 : c.chunk;
  op.steps = static_cast<int>(std::max<Bytes>(1, ceil_div(ceil_div(bytes, static_cast<Bytes>(op.channels)), data_per_step)));
  op.concurrent = std::max(1, c.channels / std::max(1, op.channels)) * kP2pOpsPerBatch;
  return op;
}

int p2p_channel_base(const P2pComm& c, int round, int group_size) {
  int base = round;
  if (c.nodes > 1) {
    const int g = std::max(1, group_size);
    base = round / g * ceil_div(g, kP2pOpsPerBatch) + round % g / kP2pOpsPerBatch;
  }
  int bits = 0;
  while ((1 << bits) < c.channels) ++bits;
  int reversed = 0; // reverseBits(base, log2Up(p2pnChannels)): the low `bits` bits, mirrored
  for (int i = 0; i < bits; ++i)
    if (base & (1 << i)) reversed |= 1 << (bits - 1 - i);
  return reversed;
}

int p2p_batch_channels(const P2pComm& c, int per_op, int first, int rounds, int group_size) {
  std::vector<char> used(static_cast<std::size_t>(std::max(1, c.channels)), 0);
  for (int k = first; k < first + rounds; ++k) {
    const int base = p2p_channel_base(c, k, group_size);
    for (int part = 0; part < std::min(per_op, c.channels); ++part)
      used[static_cast<std::size_t>((base + part) & (c.channels - 1))] = 1;
  }
  return static_cast<int>(std::count(used.begin(), used.end(), 1));
}

P2pRounds p2p_rounds(const std::vector<int>& node_of_rank) {
  const int p = static_cast<int>(node_of_rank.size());
  std::map<int, int> index; // node -> NCCL's node number (in order of first rank)
  std::vector<std::vector<int>> ranks_of;  // node number -> its ranks (localRankToRank)
  std::vector<int> node(static_cast<std::size_t>(p)), local(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    const auto [it, added] = index.try_emplace(node_of_rank[static_cast<std::size_t>(r)], static_cast<int>(ranks_of.size()));
    if (added) ranks_of.emplace_back();
    auto& mine = ranks_of[static_cast<std::size_t>(it->second)];
    node[static_cast<std::size_t>(r)] = it->second;
    local[static_cast<std::size_t>(r)] = static_cast<int>(mine.size());
    mine.push_back(r);
  }
  int group_size = 0;
  for (const auto& n : ranks_of) group_size = std::max(group_size, static_cast<int>(n.size()));
  if (ranks_of.size() > 1) group_size = kP2pOpsPerBatch; // NCCL_P2P_SCHEDULE_GROUP_SIZE
  for (const auto& n : ranks_of) {
    const int l = static_cast<int>(n.size());
    if (l % group_size != 0 || l < group_size) group_size = std::gcd(group_size, l);
  }
  const int groups = p / group_size, groups_pow2 = pow2_up(groups);
  std::vector<int> group_node, group_local, first_group;
  for (std::size_t n = 0; n < ranks_of.size(); ++n) {
    first_group.push_back(static_cast<int>(group_node.size()));
    for (int g = 0; g < static_cast<int>(ranks_of[n].size()) / group_size; ++g) {
      group_node.push_back(static_cast<int>(n));
      group_local.push_back(g * group_size);
    }
  }
  P2pRounds out;
  out.group = group_size;
  out.send.resize(static_cast<std::size_t>(p) * static_cast<std::size_t>(p));
  out.recv.resize(out.send.size());
  for (int r = 0; r < p; ++r) {
    const int l = local[static_cast<std::size_t>(r)], mine = l % group_size;
    const int group = first_group[static_cast<std::size_t>(node[static_cast<std::size_t>(r)])] + l / group_size;
    auto at = [&](int g, int loc) {
      return ranks_of[static_cast<std::size_t>(group_node[static_cast<std::size_t>(g)])]
                     [static_cast<std::size_t>(group_local[static_cast<std::size_t>(g)] + loc)];
    };
    std::size_t i = static_cast<std::size_t>(r) * static_cast<std::size_t>(p);
    // Group deltas (x^2 + x) / 2 mod pow2Up(groups), those >= groups skipped: every group once.
    for (int round = 0, delta = 0; round < groups_pow2; delta = (delta + ++round) & (groups_pow2 - 1)) {
      if (delta >= groups) continue;
      const int to_group = (group + delta) % groups, from_group = (group - delta + groups) % groups;
      for (int d = 0; d < group_size; ++d, ++i) {
        out.send[i] = at(to_group, (mine + d) % group_size);
        out.recv[i] = at(from_group, (mine - d + group_size) % group_size);
      }
    }
  }
  return out;
}

namespace {

// A rank's rounds in NCCL's order (p2p_rounds); round r's send and receive run in batch r / `batch`,
// a batch's sends at once, batch after batch. The round whose peer is the rank itself is its copy.
// Alltoall: a send and a receive every round. Gather / scatter (NCCL 2.30 enqueue.cc turns ncclGather /
// ncclScatter into the same P2P tasks): only the root's rounds with each peer, and each peer's one round
// with the root; blocks at rank x count as in ccsim's gather and scatter buffers. (Sendrecv and hypercube
// talk to one peer per step and run their own registered schedules: P2pPlanner::plan.)
class P2pExchange final : public schedule::Schedule {
 public:
  P2pExchange(schedule::CollArgs a, P2pRounds rounds, int batch)
      : Schedule(std::move(a)), rounds_(std::move(rounds)), batch_(std::max(1, batch)) {}
  bool step(int r, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    const int p = args_.ranks, root = args_.root;
    if (s * batch_ >= p) return false;
    for (int d = s * batch_; d < std::min(p, (s + 1) * batch_); ++d) {
      const auto i = static_cast<std::size_t>(r) * static_cast<std::size_t>(p) + static_cast<std::size_t>(d);
      const int to = rounds_.send[i], from = rounds_.recv[i];
      if (args_.op == schedule::Op::Gather) {
        if (to == root && r != root) schedule::send(out, root, block(r));
        if (r == root && from != r) schedule::recv(out, from, block(from));
      } else if (args_.op == schedule::Op::Scatter) {
        if (r == root && to != r) schedule::send(out, to, block(to));
        if (from == root && r != root) schedule::recv(out, root, block(r));
      } else if (to == r) {
        schedule::copy(out, block(p + r).off, block(r).off, args_.count);
      } else {
        schedule::send(out, to, block(to));
        schedule::recv(out, from, block(p + from));
      }
    }
    return true;
  }

 private:
  schedule::Block block(int i) const { return {static_cast<std::uint64_t>(i) * args_.count, args_.count}; }
  P2pRounds rounds_;
  int batch_;
};

bool nvlink_class(topology::LinkType t) { return topology::is_nvlink(t) || t == topology::LinkType::Xgmi; }

} // namespace

// What NCCL's init computes from the machine for one placement.
struct P2pPlanner::Facts {
  int nodes = 1;
  bool all_nvlink = true;  // every GPU pair inside a host on an NVLink path (isAllNvlink)
  int peer_channels = 64;  // min over peers of ncclTopoGetNchannels (v2.29.2-1's network figure)
  int local_peer_channels = 64; // min over the peers on the same host
  bool net_peer = false;   // some peer is on another host
  std::vector<int> local;  // per rank: index among its host's ranks (NCCL's device index for PXN)
};

struct P2pPlanner::View {
  bool ll = false;
  topology::Topology topo;
  std::unique_ptr<topology::Router> router;
  int per_op = 0; // capped views: channels per send (0: the uncapped view)
  CapKey key;     // capped views: what else the caps follow from
  std::vector<std::pair<int, int>> shm; // the pairs staged through host memory
  // A capped view routes as its uncapped view does: the caps bound rates, they move no send to another path.
  topology::Router* routes = nullptr;
  topology::Router& route() { return routes ? *routes : *router; }
  // The capacity of every network link at a NIC, summed (the closed-form alltoall's NIC bound): walked once per view.
  std::optional<double> nic_capacity = std::nullopt;
  double nic_total() {
    if (!nic_capacity) {
      nic_capacity = 0.0;
      for (const auto& l : topo.links)
        if (topology::is_network(l.type) && (topo.nodes[static_cast<std::size_t>(l.a)].kind == topology::NodeKind::Nic ||
                                              topo.nodes[static_cast<std::size_t>(l.b)].kind == topology::NodeKind::Nic))
          *nic_capacity += static_cast<double>(l.capacity());
    }
    return *nic_capacity;
  }
};

P2pPlanner::P2pPlanner(const topology::Topology& t, const Tables& tab, const ParamSet& params, std::vector<int> relay_gpus,
                       bool ll_in_release, bool ll_per_peer, bool sendrecv_max_peers, P2pNetChannelRule net_rule,
                       P2pSplitRule split_rule, bool gbx_net_chunk_doubled)
    : topo_(t), tab_(tab), params_(params), relay_gpus_(std::move(relay_gpus)), ll_in_release_(ll_in_release),
      ll_per_peer_(ll_per_peer), sendrecv_max_peers_(sendrecv_max_peers), net_rule_(net_rule), split_rule_(split_rule),
      gbx_net_chunk_doubled_(gbx_net_chunk_doubled),
      has_nvlink_(std::any_of(t.links.begin(), t.links.end(), [](const topology::Link& l) { return topology::is_nvlink(l.type); })),
      has_duplex_(!t.link_formula() && std::any_of(t.links.begin(), t.links.end(), [](const topology::Link& l) { return l.duplex > 0; })) {}
P2pPlanner::~P2pPlanner() = default;

const P2pPlanner::Facts& P2pPlanner::facts(const Graph& g, const std::vector<int>& gpus) {
  if (facts_ && placed_ == gpus) return *facts_;
  views_.clear();
  placed_ = gpus;
  auto f = std::make_unique<Facts>();
  topology::Router router(topo_);
  if (!relay_gpus_.empty()) router.set_relay_gpus(relay_gpus_);
  auto host = [&](int gpu) { return g.host_of_gpu[static_cast<std::size_t>(gpu)]; };
  std::map<int, int> seen; // host -> ranks so far
  for (int gpu : gpus) f->local.push_back(seen[host(gpu)]++);
  f->nodes = static_cast<int>(seen.size());
  // Every rank's peers from the first rank of each host (hosts are alike in the machines ccsim draws;
  // all pairs would cost p^2 routes on a rack-scale domain).
  std::map<int, bool> first_done;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (first_done[host(gpus[i])]) continue;
    first_done[host(gpus[i])] = true;
    const int a = gpus[i];
    for (int b : gpus) {
      if (b == a) continue;
      bool nv = true;
      double lane = 0, bottleneck = 1e300;
      for (auto c : router.route(topo_.gpu_node(a), topo_.gpu_node(b))) {
        const auto& l = topo_.link_of(c);
        if (host(a) != host(b) && topology::is_network(l.type)) {
          // The first network link: the GPU's NIC; NCCL counts one NIC at its line rate.
          f->peer_channels = std::min(f->peer_channels, net_peer_channels(1, tab_.lane_GBps(topo_, l) * l.lanes));
          f->net_peer = true;
          nv = false;
          break;
        }
        if (!nvlink_class(l.type)) nv = false;
        if (lane == 0) lane = tab_.lane_GBps(topo_, l);
        bottleneck = std::min(bottleneck, tab_.lane_GBps(topo_, l) * l.lanes);
      }
      if (host(a) != host(b)) continue;
      f->all_nvlink = f->all_nvlink && nv;
      f->local_peer_channels = std::min(f->local_peer_channels, nv ? nvlink_peer_channels(bottleneck, lane) : 2);
      f->peer_channels = std::min(f->peer_channels, f->local_peer_channels);
    }
  }
  facts_ = std::move(f);
  return *facts_;
}

// The machine as the P2P kernels see it: each lane at NCCL's effective figure x the fitted link and
// protocol efficiencies (LL: half, its lines carry 4 data bytes in 8), never above the link as drawn;
// network links carry the extra of NCCL's network hop latency over its intra-node one (ring rows). With
// PXN, a send to another host is routed over NVLink to the GPU with the receiver's device index and
// leaves through that GPU's NIC (route overrides).
P2pPlanner::View& P2pPlanner::view(bool ll, const Graph& g, const std::vector<int>& gpus,
                                   const std::vector<std::pair<int, int>>& shm) {
  const Facts& f = facts(g, gpus);
  for (auto& v : views_)
    if (v->ll == ll && v->per_op == 0 && v->shm == shm) return *v;
  const Proto proto = ll ? Proto::LL : Proto::Simple;
  auto v = std::make_unique<View>(View{ll, topo_, nullptr, 0, {}, shm});
  stage_shm_ports(v->topo, shm);
  const double factor = ll ? kLLDataPerLineByte : 1.0;
  const double intra = intra_hop_us(tab_, g, Algo::Ring, proto), inter = net_hop_us(tab_, Algo::Ring, proto);
  const bool staging = stages_through_host(v->topo); // the socket link: NCCL's figure, or as drawn for P2P across it
  for (auto& l : v->topo.links) {
    const double eff = tab_.socket_figure(topo_, l) ? 1.0 : params_.efficiency(l.type);
    const double seen = tab_.replay_lane_GBps(topo_, l, staging) * 1e9 * eff * factor *
                        proto_efficiency_on(params_, name(proto), on_network_path(topo_, l));
    l.bw = static_cast<Bandwidth>(std::max(1.0, std::round(std::min(seen, static_cast<double>(l.bw)))));
    l.latency = topology::is_network(l.type) ? from_us(std::max(0.0, inter - intra) / 2.0) : 0;
  }
  if (f.nodes > 1 && f.all_nvlink) {
    topology::Router plain(v->topo);
    if (!relay_gpus_.empty()) plain.set_relay_gpus(relay_gpus_);
    std::map<std::pair<int, int>, int> by_local; // (host, device index) -> GPU
    for (std::size_t i = 0; i < gpus.size(); ++i) by_local[{g.host_of_gpu[static_cast<std::size_t>(gpus[i])], f.local[i]}] = gpus[i];
    auto nodes_of = [&](int a, int b, std::vector<int>& path) {
      for (auto c : plain.route(a, b)) path.push_back(v->topo.channel_to(c));
    };
    for (std::size_t j = 0; j < gpus.size(); ++j)
      for (int a : gpus) {
        const int b = gpus[j], ha = g.host_of_gpu[static_cast<std::size_t>(a)];
        if (ha == g.host_of_gpu[static_cast<std::size_t>(b)]) continue;
        const auto it = by_local.find({ha, f.local[j]});
        if (it == by_local.end() || it->second == a) continue;
        const int na = v->topo.gpu_node(a), relay = v->topo.gpu_node(it->second), nb = v->topo.gpu_node(b);
        std::vector<int> path{na};
        nodes_of(na, relay, path);
        nodes_of(relay, nb, path);
        v->topo.route_overrides.push_back({na, nb, std::move(path)});
      }
  }
  v->router = std::make_unique<topology::Router>(v->topo);
  if (!relay_gpus_.empty()) v->router->set_relay_gpus(relay_gpus_);
  views_.push_back(std::move(v));
  return *views_.back();
}

P2pPlanner::View& P2pPlanner::capped(View& base, int per_op, const std::vector<std::vector<StepSend>>& steps,
                                     CapKey key) {
  const bool ll = base.ll;
  for (auto& v : views_)
    if (v->ll == ll && v->per_op == per_op && v->key == key && v->shm == base.shm) return *v;
  auto v = std::make_unique<View>(View{ll, base.topo, nullptr, per_op, key, base.shm});
  const std::size_t nchan = 2 * v->topo.links.size();
  // Per directed channel: the most thread blocks the sends crossing it in one step run on. A send's bytes pass
  // its sender's blocks and its receiver's blocks (src/device/sendrecv.h: one block a channel, its warps split
  // between the batch's sends and receives); one GPU's sends in one batch of 8 rounds share the batch's channels
  // (ncclP2pChannelBaseForRound: one base for 8 consecutive rounds, v2.22.3-1 on; ncclChannelComputeBase's
  // nodeDelta + step / 8 in v2.18-2.21), so what a direction carries is bounded by the smaller of the distinct
  // (sender, channel) and (receiver, channel) pairs of its sends.
  std::vector<int> most(nchan, 0);
  std::vector<std::map<int, std::uint64_t>> from(nchan), to(nchan);
  const auto blocks = [](const std::map<int, std::uint64_t>& m) {
    int n = 0;
    for (const auto& [gpu, mask] : m) n += std::popcount(mask);
    return n;
  };
  std::vector<char> both_ways(nchan / 2, 0); // per link: sends crossed it in both directions in one step
  for (const auto& step : steps) {
    for (auto& m : from) m.clear();
    for (auto& m : to) m.clear();
    for (const auto& s : step)
      for (auto c : base.route().route(base.topo.gpu_node(s.a), base.topo.gpu_node(s.b))) {
        from[c][s.a] |= s.mask;
        to[c][s.b] |= s.mask;
      }
    for (std::size_t c = 0; c < nchan; ++c)
      if (!from[c].empty()) most[c] = std::max(most[c], std::min(blocks(from[c]), blocks(to[c])));
    for (std::size_t c = 0; c < nchan; c += 2) both_ways[c / 2] |= !from[c].empty() && !from[c + 1].empty();
  }
  for (std::size_t i = 0; i < v->topo.links.size(); ++i) {
    auto& l = v->topo.links[i];
    // A port held to a duplex budget (Link::duplex, machine:...,pcie_duplex=): sends crossing it both ways in one
    // step (sendrecv's ring exchange, alltoall) share it, half each way; one way alone may take all of it.
    if (l.duplex > 0)
      l.bw = std::min(l.bw, static_cast<Bandwidth>(std::max(1.0, std::round(static_cast<double>(l.duplex) / (both_ways[i] ? 2.0 : 1.0) /
                                                                             std::max(1, l.lanes)))));
    const bool net = topology::is_network(l.type);
    if (!topology::is_nvlink(l.type) && !net) continue;
    // A network channel: NCCL's NCCL_P2P_PER_CHANNEL_NET_BW (network connections run Simple: no LL buffers).
    const double per_channel = net ? kP2pPerChannelNetGBps : p2p_channel_GBps(tab_.lane_GBps(topo_, topo_.links[i]), key.arch, ll);
    double cap = 0;
    for (std::size_t c = 2 * i; c < 2 * i + 2; ++c) cap = std::max(cap, most[c] * per_channel);
    if (cap > 0)
      l.bw = std::min(l.bw, static_cast<Bandwidth>(std::max(1.0, std::round(cap * 1e9 / std::max(1, l.lanes)))));
  }
  v->routes = &base.route();
  views_.push_back(std::move(v));
  return *views_.back();
}

const Graph& P2pPlanner::ring_graph(const std::vector<std::vector<int>>& placements, const Graph& placed,
                                    const std::string& arch_override) {
  if (placements.size() != 1) return placed; // already the packed rings (DGX-1 style meshes)
  std::vector<int> gpus = placements.front();
  std::sort(gpus.begin(), gpus.end());
  if (!ring_ || ring_for_ != gpus) {
    ring_ = std::make_unique<Graph>(make_graph(topo_, tab_, topology::pack_rings(topo_, gpus).rings, arch_override));
    ring_for_ = std::move(gpus);
  }
  return *ring_;
}

engine::RunPlan P2pPlanner::plan(const Graph& g, int comm_channels, const metrics::RunConfig& cfg,
                                     metrics::SizePlan size, Time fixed, std::optional<topology::PathClass> level) {
  const auto& gpus = cfg.placements.front();
  const int p = static_cast<int>(gpus.size());
  const Facts& f = facts(g, gpus);
  // Grace hosts (GB200, GB300) in a release that doubles their network chunk (2.29.2 on; 128 KiB before).
  const bool arm_blackwell = gbx_net_chunk_doubled_ && topo_.gpu_kind.rfind("gb", 0) == 0;
  const bool cube = cfg.op == Op::HyperCube;
  // A peer on another node: its channels by release (P2pNetChannelRule); v2.29.2-1's are f.peer_channels already.
  int peer_channels = f.peer_channels;
  if (f.net_peer && net_rule_ != P2pNetChannelRule::ByNicBandwidth)
    peer_channels = std::min(f.local_peer_channels,
                             net_peer_channels_in(net_rule_, f.peer_channels, p, p2p_channels_of(comm_channels)));
  const P2pComm comm = p2p_comm(p, f.nodes, comm_channels, peer_channels, p2p_chunk_bytes(f.nodes, f.all_nvlink, arm_blackwell),
                                cfg.op == Op::SendRecv && sendrecv_max_peers_ ? 2 : 0,
                                net_rule_ == P2pNetChannelRule::ByNicBandwidth, tab_.rccl ? P2pSplitRule::Current : split_rule_);
  // Hypercube: the protocol of its largest group (p/2 blocks to one peer), which carries half the bytes.
  const Bytes bytes = size.count * cfg.dtype.size * (cube ? static_cast<Bytes>(p / 2) : Bytes{1});
  // Network connections have no LL buffers (NCCL_ALLOC_P2P_NET_LL_BUFFERS=0): across nodes Simple. Before
  // NCCL 2.14.3 no send ran LL at all.
  const P2pOp op = p2p_op(comm, bytes, f.nodes == 1 && ll_in_release_, ll_per_peer_);
  const bool shift = cfg.op == Op::SendRecv; // one peer each way, whatever the rank count
  const bool one_peer = shift || cube;       // a step talks to one peer: nothing to batch
  const int batch = one_peer ? p : std::min(p, op.concurrent);
  const bool replayed = p <= kP2pReplayMaxRanks || one_peer;
  std::vector<int> node_of_rank;
  for (int gpu : gpus) node_of_rank.push_back(g.host_of_gpu[static_cast<std::size_t>(gpu)]);
  std::optional<P2pRounds> rounds;
  if (!one_peer && replayed) rounds = p2p_rounds(node_of_rank);
  // The thread blocks one GPU's concurrent sends run on: one send's channels (sendrecv, a hypercube step), or
  // the union over the first batch's rounds (the self-copy, round 0, moves nothing over a link).
  const int distinct = one_peer ? op.channels
                                : p2p_batch_channels(comm, op.channels, 1, batch - 1, rounds ? rounds->group : kP2pOpsPerBatch);
  // The pairs NCCL connects (p2p.cc, at a peer's first send or receive): every pair of an alltoall, the root's
  // of a gather or scatter, sendrecv's shift, hypercube's partners.
  std::vector<std::pair<int, int>> shm;
  if (level && *level != topology::PathClass::Sys && !topo_.link_formula()) {
    std::vector<std::pair<int, int>> pairs;
    for (int r = 0; r < p; ++r)
      for (int s = 0; s < p; ++s) {
        const bool used = shift ? s == (r + 1) % p : cube ? std::has_single_bit(static_cast<unsigned>(r ^ s))
                        : (cfg.op == Op::Gather || cfg.op == Op::Scatter) ? (r == cfg.root) != (s == cfg.root)
                                                                            : r != s;
        if (used) pairs.emplace_back(gpus[static_cast<std::size_t>(r)], gpus[static_cast<std::size_t>(s)]);
      }
    shm = shm_pairs(topo_, g, *level, pairs);
  }
  View* vp = &view(op.ll, g, gpus, shm);
  // A PCIe box whose ports are held to a duplex budget (has_duplex_) takes the same pass: which links its sends load both ways.
  if (!tab_.rccl && replayed && (has_nvlink_ || f.nodes > 1 || has_duplex_)) {
    // The GPU pairs sending at once: sendrecv's shift, each hypercube step's partner, the first batch of rounds.
    std::vector<std::vector<StepSend>> steps;
    const auto at = [&](int r) { return gpus[static_cast<std::size_t>(r)]; };
    const int parts = std::min(op.channels, std::max(1, comm.channels));
    // One peer a step: a send's own channels, whichever they are.
    const std::uint64_t own = parts >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << parts) - 1;
    if (shift) {
      steps.emplace_back();
      for (int r = 0; r < p; ++r) steps.back().push_back({at(r), at((r + 1) % p), own});
    } else if (cube) {
      for (int mask = 1; mask < p; mask *= 2) {
        steps.emplace_back();
        for (int r = 0; r < p; ++r)
          if ((r ^ mask) < p) steps.back().push_back({at(r), at(r ^ mask), own});
      }
    } else {
      // Round d's send runs on the channels from its round's base (p2p_batch_channels), at both ends: the
      // receiver takes it in the same round of its own order (NCCL connects both ends on the same channel).
      std::vector<std::uint64_t> round_mask(static_cast<std::size_t>(batch), 0);
      for (int d = 1; d < batch; ++d) {
        const int b0 = p2p_channel_base(comm, d, rounds->group);
        for (int part = 0; part < parts; ++part)
          round_mask[static_cast<std::size_t>(d)] |= std::uint64_t{1} << ((b0 + part) & (comm.channels - 1));
      }
      // Gather and scatter send only to the root or from it (p2p_tasks): their other rounds' pairs carry nothing, and
      // counted they would load a duplex-held port both ways where the op moves one way (2 GPUs: one send).
      steps.emplace_back();
      for (int r = 0; r < p; ++r)
        for (int d = 1; d < batch; ++d) {
          const int to = rounds->send[static_cast<std::size_t>(r) * static_cast<std::size_t>(p) + static_cast<std::size_t>(d)];
          const bool sends = cfg.op == Op::Gather ? to == cfg.root : cfg.op == Op::Scatter ? r == cfg.root : true;
          if (to != r && sends) steps.back().push_back({at(r), at(to), round_mask[static_cast<std::size_t>(d)]});
        }
    }
    // The pattern: 0 sendrecv's shift, 1 hypercube, 2 every pair; a gather's or scatter's own by its root (3 + 2 root + 1).
    const int pattern = shift ? 0 : cube ? 1 : cfg.op == Op::Gather ? 3 + 2 * cfg.root : cfg.op == Op::Scatter ? 4 + 2 * cfg.root : 2;
    vp = &capped(*vp, op.channels, steps, CapKey{pattern, batch, g.arch});
  }
  View& v = *vp;
  engine::RunPlan plan;
  plan.choice.algo = "p2p";
  plan.choice.proto = op.ll ? "LL" : "Simple";
  plan.choice.channels = op.channels;
  plan.params = cfg.model;
  plan.params.semantics = engine::Semantics::mpi; // a batch of peers ends before the next starts on its channels
  const auto* flow = engine::find_network("flow");
  plan.network = flow ? flow : &engine::fifo_network();
  plan.topo = &v.topo;
  plan.router = &v.route();
  const Proto proto = op.ll ? Proto::LL : Proto::Simple;
  if (batch < p) plan.choice.note = fmt::format("{} peers at a time", batch);
  schedule::CollArgs a;
  a.op = cfg.op;
  a.root = cfg.root;
  a.ranks = p;
  a.count = size.count;
  a.elt_size = cfg.dtype.size;
  const double lat = params_.proto_latency(name(proto)); // the protocol's fitted latency multiplier (params.hpp)
  const Time hop = from_us(intra_hop_us(tab_, g, Algo::Ring, proto) * lat + params_.step_us);
  const Time base = from_us(tab_.base_latency_us[static_cast<std::size_t>(Algo::Ring)][static_cast<std::size_t>(proto)] * lat) + fixed;
  if (p > kP2pReplayMaxRanks && !one_peer) {
    // p(p-1) sends is too many to replay: each GPU's sends through all its links at once, a hop per batch.
    const int node = v.topo.gpu_node(gpus.front());
    double egress = 0;
    double channel_rate = 0; // bytes/s of one channel over the GPU's NVLink (NVIDIA only), 0: none
    for (std::size_t i = 0; i < v.topo.links.size(); ++i) {
      const auto& l = v.topo.links[i];
      if (l.a != node && l.b != node) continue;
      egress += static_cast<double>(l.capacity());
      if (!tab_.rccl && topology::is_nvlink(l.type)) channel_rate = p2p_channel_GBps(tab_.lane_GBps(topo_, topo_.links[i]), g.arch, v.ll) * 1e9;
    }
    if (channel_rate > 0) egress = std::min(egress, distinct * channel_rate);
    double wire_s = static_cast<double>(bytes) * (p - 1) / std::max(1.0, egress);
    // Across nodes the sends to the (p - p/nodes) peers off the GPU's node leave through the NICs: a GPU's share
    // of its node's NIC ports bounds them (the GPU's own links reach only its NVSwitch; without this a 1152-GPU
    // alltoall ran at NVLink speed, 630 GB/s per GPU on 100 GB/s NICs, where the replay below 1024 ranks gave 52).
    if (f.nodes > 1) {
      const double per_gpu = v.nic_total() / std::max(1, v.topo.num_gpus());
      const double off_node = p - static_cast<double>(p) / f.nodes;
      if (per_gpu > 0) wire_s = std::max(wire_s, static_cast<double>(bytes) * off_node / per_gpu);
    }
    const Time wire = static_cast<Time>(std::ceil(wire_s * 1e12));
    plan.choice.simulated = false;
    plan.closed_form = base + hop * ceil_div(p, batch) + wire;
    return plan;
  }
  // Sendrecv (a shift to r+1) and hypercube (recursive doubling) are the ops' own schedules, sent on the
  // P2P path; the rest go round by round in NCCL's peer order.
  std::unique_ptr<schedule::Schedule> exchange;
  if (one_peer) {
    exchange = schedule::require_algorithm(cfg.op, schedule::default_algorithm(cfg.op)).make(a);
  } else {
    exchange = std::make_unique<P2pExchange>(a, std::move(*rounds), batch);
  }
  engine::add_job(plan, std::move(exchange), gpus, cfg.dtype.size);
  plan.job_names.push_back("p2p sends");
  plan.params.alpha_sw += hop;
  // hypercube.cu ends an NCCL group per step: each of the lg p groups is a launch with its base latency.
  plan.fixed = cube ? base * schedule::ceil_lg(p) : base;
  return plan;
}

} // namespace ccsim::model::nccl
