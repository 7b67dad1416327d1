#include "sim/model/nccl/tuning.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>

namespace ccsim::model::nccl {
using schedule::Op;

namespace {

int enum_index(auto e) { return static_cast<int>(e); }
std::size_t cap_col(const Graph& g) { return g.nodes <= 1 ? 0 : g.nodes == 2 ? 1 : 2; }
double cap(const Caps& c, Arch row, const Graph& g) { return c[static_cast<std::size_t>(row)][cap_col(g)]; }

int ring_steps(Op op, int p) { return op == Op::AllReduce ? 2 * (p - 1) : p - 1; }
double ring_alg_factor(Op op, int p) {
  switch (op) {
    case Op::AllReduce: return static_cast<double>(p) / (2.0 * (p - 1));
    case Op::AllGather:
    case Op::ReduceScatter: return static_cast<double>(p) / (p - 1);
    default: return 1.0;
  }
}

// Bus bandwidth of (algo, proto) from the graph's total (reference §3.4). ring_ll128: the per-channel ring LL128
// caps to apply in place of the tables' (a release's own, for the time its tuner weighs); nullptr: the tables'.
double bus_bandwidth(const Tables& tab, const Graph& g, Algo algo, Proto proto, const Caps* ring_ll128 = nullptr) {
  const double bus = graph_bus(g, algo), nch = algo == Algo::Tree ? g.tree_channels_of() : g.channels;
  // RCCL: one measured ratio per (algo, proto) in place of NCCL's efficiencies and per-channel caps.
  if (tab.rccl) return bus * tab.rccl->bw_ratio[g.nodes > 2 ? 1 : 0][static_cast<std::size_t>(algo)][static_cast<std::size_t>(proto)];
  // The LL cap on several nodes is indexed by the CPU vendor in NCCL (AMD: the Ampere row).
  const Arch ll_row = g.nodes > 1 ? (g.amd_cpu ? Arch::Ampere : Arch::Volta) : g.arch;
  if (algo == Algo::Ring) {
    if (proto == Proto::LL) return std::min(cap(tab.ll_max, ll_row, g), tab.eff_ring_ll * bus);
    if (proto == Proto::LL128) return std::min(tab.eff_ring_ll128 * bus, nch * cap(ring_ll128 ? *ring_ll128 : tab.per_ch_ring_ll128, g.arch, g));
    return bus;
  }
  double b = std::min(tab.eff_tree * bus, nch * cap(tab.per_ch_tree, g.arch, g));
  if (proto == Proto::LL) b = std::min(b / tab.tree_ll_divisor, cap(tab.ll_max, ll_row, g));
  if (proto == Proto::LL128)
    b = std::min(b * (g.nodes > 1 ? tab.tree_ll128_multi_node : tab.tree_ll128_one_node), nch * cap(tab.per_ch_tree_ll128, g.arch, g));
  return b;
}

// ncclTopoGetAlgoTime's size bucket, log2i(nBytes >> 6); -1 under 64 B, where no factor applies.
int correction_bucket(Bytes nbytes) {
  const auto q = static_cast<std::uint64_t>(nbytes) >> 6;
  return q == 0 ? -1 : static_cast<int>(std::bit_width(q)) - 1;
}

// Tree allreduce: NCCL scales the bandwidth by treeCorrectionFactor only while 0 <= bucket < 23
// (64 B .. 512 MiB); from 512 MiB on, and under 64 B, the factor is 1 (not the table's last entry).
double tree_correction(const Tables& tab, Proto proto, Bytes nbytes) {
  constexpr int kTreeBuckets = 23;
  const auto& corr = tab.tree_correction[static_cast<std::size_t>(proto)];
  const int b = correction_bucket(nbytes);
  return b >= 0 && b < kTreeBuckets && b < static_cast<int>(corr.size()) ? corr[static_cast<std::size_t>(b)] : 1.0;
}

// RCCL's ring across nodes (ncclTopoGetAlgoTime, HIP branch): the bandwidth times the tuning model's
// ringCorrectionFactor[proto][log2i(nBytes >> 6)], the last of its 27 entries beyond; one node, NCCL: 1.
// log2i(0) is 0 there, so sizes under 64 B take the first entry.
double ring_correction(const Tables& tab, const Graph& g, Proto proto, Bytes nbytes) {
  if (!tab.rccl || g.nodes <= 1) return 1.0;
  const auto& corr = tab.rccl->ring_correction_across_nodes[static_cast<std::size_t>(proto)];
  if (corr.empty()) return 1.0;
  const auto b = static_cast<std::size_t>(std::max(0, correction_bucket(nbytes)));
  return corr[std::min(b, corr.size() - 1)];
}

double latency_us(const Tables& tab, const Graph& g, Op op, int p, Algo algo, Proto proto, Bytes nbytes) {
  const double intra = intra_hop_us(tab, g, algo, proto), inter = net_hop_us(tab, algo, proto);
  double lat = tab.base_latency_us.at(enum_index(algo))[enum_index(proto)];
  const double ninter = network_hops(op, algo, g.nodes);
  if (algo == Algo::Ring) {
    lat += (ring_steps(op, p) - ninter) * intra + ninter * inter;
    return lat * ring_plateau(tab, g, op, proto, p, nbytes);
  }
  return lat + 2.0 * (static_cast<double>(p) / g.nodes - 1) * intra + ninter * inter;
}

// calcCollChunking's halving, shared by NVLS and NVLS-tree (each with its own rows): the chunk drops to a
// row's size while `bytes` is under the row's multiple of the concurrent ops x the chunk so far.
double shrink_chunk(double chunk, double bytes, double ops, std::span<const Tables::Nvls::Shrink> rows) {
  for (const auto& r : rows)
    if (bytes < r.loops * ops * chunk && chunk > r.bytes) chunk = r.bytes;
  return chunk;
}

} // namespace

double graph_bus(const Graph& g, Algo algo) {
  return algo == Algo::Tree && g.tree_bw > 0 ? g.tree_channels_of() * g.tree_bw : g.channels * g.bw;
}

double intra_hop_us(const Tables& tab, const Graph& g, Algo algo, Proto proto) {
  double intra = tab.hw_latency_us[enum_index(g.path)].at(enum_index(algo))[enum_index(proto)];
  if (g.nodes > 1)
    intra = std::max(intra, (g.amd_cpu ? tab.net_overhead_amd_us : tab.net_overhead_intel_us) *
                                (proto == Proto::Simple ? tab.net_overhead_simple_factor : 1.0));
  return intra;
}

double network_hops(Op op, Algo algo, int nodes) {
  if (nodes <= 1) return 0;
  switch (algo) {
    case Algo::Ring: return op == Op::AllReduce ? 2.0 * (nodes - 1) : nodes - 1.0;
    case Algo::Tree: return 2.0 * std::log2(static_cast<double>(nodes));
    case Algo::NvlsTree: return 2.0 * std::floor(std::log2(static_cast<double>(nodes)));
    default: return 0;
  }
}

// hwLat has Ring and Tree rows only: .at() turns a call for another algorithm into an exception, not a stray read.
double net_hop_us(const Tables& tab, Algo algo, Proto proto) { return tab.hw_latency_us[enum_index(Path::Net)].at(enum_index(algo))[enum_index(proto)]; }

double ring_plateau(const Tables& tab, const Graph& g, Op op, Proto proto, int ranks, Bytes nbytes) {
  if (tab.rccl || g.nodes <= 1 || op != Op::AllReduce || proto != Proto::Simple) return 1.0; // RCCL has no plateau term
  if (static_cast<double>(nbytes) / (g.channels * ranks) < tab.plateau_min_bytes_per_channel_rank) return 1.0;
  return g.arch >= Arch::Ampere ? tab.plateau_ampere_plus : tab.plateau_pre_ampere;
}

double nvls_bus_bandwidth(const Tables& tab, const Graph& g, Op op, int p) { return nvls_bus(tab, g, op, p, true); }

// On one NVLink domain NCCL's bwInter is no link: search.cc pass 2 raises it from bwIntra towards 2x bwIntra
// through the speed array, so it only binds where the array ends first (Blackwell's sm100SpeedArrayIntra
// tops at 90 < 2 x 80 on 8 GPUs). The data path of NVLS there is the GPUs' switch links alone: the replay
// carries the uncapped figure, 8 x 80 x 0.74 x 7/8 x 2 = 828.8 GB/s on 8 B200/GB300 (NCCL 2.28.7 measured
// 838-842 on 8 GB300, B200 840-845 at 8-16 GiB), while NCCL's choice keeps its own capped 720.
double nvls_replay_bus_bandwidth(const Tables& tab, const Graph& g, Op op, int p) {
  return nvls_bus(tab, g, op, p, g.nvls.tree || g.nodes > 1);
}

// The node's NVLink domain alone as NCCL's NVLS formula rates it (the domain's own search speed and channels,
// 2 x bw x efficiency x (channels - 1)): the switch stages of NVLS-tree, its replay and its pipeline fill.
namespace {
double nvls_domain_bus(const Tables& tab, const Graph& g) {
  const auto& n = g.nvls;
  return 2.0 * n.domain_bw * tab.nvls->efficiency[static_cast<std::size_t>(g.arch)] * (n.domain_channels - 1.0);
}
} // namespace

// NCCL's NVLS-tree figure takes bwIntra from the search across nodes, whose speeds come from the NIC speed
// array and stop at what a head's NIC path carries (2 B200 nodes: 48, the PCIe Gen5 path), while the reduce
// and multicast stages run on the switch links at the speed the NVLS search finds on the node's domain alone
// (8 B200: 80). The hardware's figure is the smallest of its stages: the domain's NVLS (NCCL's formula at
// the domain's speed and channels), the heads' NICs (NCCL's inter term: channels x a head's GB/s, twice on
// 2 nodes), NCCL's per-channel cap. 2 B200 nodes: min(8 x 2 x 80 x 0.74 x 7/8 = 828.8, 2 x 8 x 48 = 768,
// 8 x 96) = 720 (below) where NCCL says 497; NVL72 racks and Hopper keep NCCL's figure (the domain's speed is the tree's).
// Two corrections to NCCL's terms, both from what the kernel moves (all_reduce.h NVLS_TREE, connect.cc
// ncclNvlsTreeConnect), not fitted:
// * On 2 nodes each node's heads send, and receive, the whole buffer once (channel c runs tree c%2: the leaf's
//   half up and the root's half down on one tree, the reverse on the other), so algbw <= heads x a head's
//   NIC: bus heads x NIC x 2 (p-1)/p. NCCL's "bwInter x 2" is that bound without the (p-1)/p of its own
//   nRanks/nsteps conversion (algbw = heads x NIC x p/(p-1), more than the NICs carry).
// * NCCL's per-channel cap (perChMaxNVLSTreeBws) is per NVLS head in its tuner, whose heads are one per NIC
//   (search.cc: the NVLS search stops at the NIC count, one head per NIC's local GPU). Where every GPU has a
//   NIC (the boxes the figure comes from) 8 x 57.7 = 461.6 sits at the node's own NVLS figure (476 on 8
//   H100/H200): a node's limit. Read per head it would bind a head's reduce/bcast warps (all_reduce.h: they
//   run on heads only) at 57.7 x 16/30 = 30.8 GB/s algbw, yet on 2 x 8 H200 with 4 NICs (nccl-tests #380)
//   each of the 4 heads carries 40-43 (301-320 bus, against 4 x 57.7 = 230.8). So it is taken as the node's:
//   per head x max(heads, GPUs per node); unchanged where every GPU has a NIC.
double nvls_tree_replay_bus_bandwidth(const Tables& tab, const Graph& g, Op op, int p) {
  const auto& n = g.nvls;
  const double nccl = nvls_bus(tab, g, op, p, true);
  if (!n.tree || nccl <= 0 || n.domain_channels < 2 || n.nic_GBps <= 0) return nccl;
  const double domain = nvls_domain_bus(tab, g);
  const double net = n.channels * n.nic_GBps * (g.nodes <= 2 ? 2.0 * (p - 1.0) / p : 1.0);
  const int heads_cap = std::max(n.channels, n.ppn);
  return std::min({domain, net, heads_cap * cap(tab.nvls->per_ch_tree, g.arch, g)});
}

double nvls_bus(const Tables& tab, const Graph& g, Op op, int p, bool inter_cap) {
  const auto& n = g.nvls;
  const bool runs = op == Op::AllReduce || op == Op::AllGather || op == Op::ReduceScatter;
  if (!tab.nvls || !runs || n.channels < 2 || p < 2) return 0;
  double intra = n.bw_intra * tab.nvls->efficiency[static_cast<std::size_t>(g.arch)] * (n.channels - 1) / n.channels;
  if (n.tree) {
    // NVLS-tree: allreduce only (NVLS allgather/reducescatter across nodes need CollNet). On 2 nodes the
    // tree is one hop each way, so a NIC's bwInter counts twice.
    if (op != Op::AllReduce) return 0;
    const double inter = n.bw_inter * (g.nodes <= 2 ? 2.0 : 1.0);
    return n.channels * std::min({2.0 * intra, inter, cap(tab.nvls->per_ch_tree, g.arch, g)});
  }
  intra *= op == Op::AllReduce ? 2.0 : (p - 1.0) / p;
  return n.channels * (inter_cap ? std::min(intra, n.bw_inter) : intra);
}

// ncclNvlsTuning: the tree's max chunk is the NVLS chunk (128 KiB) on 2-3 nodes and 64 KiB from 4 nodes,
// except on Blackwell across nodes (ncclNvlsTreeSm100Tuning), where it follows the NIC speed and GPUs per
// node; there the GPU-NIC path is taken as PXB (the NIC behind the GPU's PCIe switch, as on HGX B200).
// calcCollChunking then halves it down to 256/128/64/32 KiB while nBytes is under 32/16/4/1 x the
// concurrent ops (channels x heads) x chunk.
// A stated NCCL_NVLS_CHUNKSIZE / NCCL_NVLSTREE_MAX_CHUNKSIZE (Graph::Nvls, from a log's "set by environment")
// wins over both: NCCL_PARAM(NvlsChunkSize) is comm->nvlsChunkSize and the tree's max is the parameter when
// it is not -2 (v2.22.3-1 enqueue.cc calcCollChunking; v2.30.7-1 nvls.cc ncclNvlsTuning "User overrides take
// priority over tuning"), and the fallback max on 2-3 nodes is the chunk so set. aws-ofi-nccl sets both to
// 512 KiB on p5/p5e/p5en/p6: on 2 x 8 H100 that runs 256 KiB chunks at 512 MiB-1 GiB and 512 KiB from 2 GiB.
double nvls_tree_chunk_bytes(const Tables& tab, const Graph& g, int nch, Bytes nbytes) {
  if (!tab.nvls) return 0;
  double chunk = tab.nvls->chunk_bytes;
  double tuned_max = 0; // ncclNvlsTreeSm100Tuning's treeMaxChunkSize (0: it sets none)
  if (g.arch >= Arch::Blackwell && g.nodes > 1 && g.nvls.sm100_tree_tuning) {
    const double nic = g.nvls.nic_GBps;
    const int ppn = g.nvls.ppn;
    if (g.nodes == 2 && nic >= 48) {
      tuned_max = ppn <= 4 ? 262144.0 : (ppn >= 16 || (ppn <= 8 && nic < 96)) ? 65536.0 : 131072.0;
      if (ppn <= 4) chunk = 262144.0;
    } else if (nic >= 96) {
      tuned_max = ppn <= 8 ? 262144.0 : ppn < 32 ? 131072.0 : 65536.0;
      if (ppn <= 8) chunk = 262144.0;
    } else if (nic >= 48) {
      tuned_max = 65536.0;
    }
  }
  if (g.nvls.chunk_bytes > 0) chunk = g.nvls.chunk_bytes;
  const double tree_max = g.nvls.tree_max_chunk_bytes > 0 ? g.nvls.tree_max_chunk_bytes
                          : tuned_max > 0                 ? tuned_max
                          : g.nodes >= 4                  ? 65536.0
                                                          : chunk;
  static constexpr Tables::Nvls::Shrink kTreeShrink[] = {{32, 262144}, {16, 131072}, {4, 65536}, {1, 32768}};
  const double ops = static_cast<double>(nch) * std::max(1, g.nvls.channels);
  return shrink_chunk(std::min(chunk, tree_max), static_cast<double>(nbytes), ops, kTreeShrink);
}

constexpr int kNvlsChannelsSm100 = 32; // transport/nvls.cc NVLS_NCHANNELS_SM100 (v2.26.2-1 on), several nodes

// nvls.cc ncclNvlsTuning: Blackwell across nodes runs NVLS_NCHANNELS_SM100 = 32 CUDA channels (24 on one
// NVLink domain), which ncclNvlsTreeSm100Tuning keeps on 2 nodes with NICs of >= 48 GB/s and sets to 24 on
// more nodes with 48-96 GB/s NICs, or >= 96 GB/s NICs and at most 8 GPUs per node. Other GPUs: the table's.
int nvls_tree_cuda_channels(const Tables& tab, const Graph& g) {
  if (!tab.nvls) return 0;
  if (g.arch < Arch::Blackwell || g.nodes < 2) return tab.nvls->cuda_channels[static_cast<std::size_t>(g.arch)];
  if (!g.nvls.sm100_tree_tuning) return kNvlsChannelsSm100;
  const double nic = g.nvls.nic_GBps;
  if (g.nodes == 2 && nic >= 48) return 32;
  if (nic >= 96) return g.nvls.ppn <= 8 ? 24 : 32;
  return nic >= 48 ? 24 : 32;
}

// NVLS-tree's pipeline, read in NVIDIA/nccl v2.26.2-1 (the same kernel to v2.30.7-1):
// src/device/all_reduce.h RunWorkColl<NVLS_TREE, Simple> runs each channel's share in loops of nHeads x
// chunk, one step per chunk, through separate warp groups: a head's reduce warps pull its chunk through the
// switch (multimem ld_reduce) and send it up the tree of nodes; the root's reduce warps add the children's
// data, multicast the sum and send it down in one pass; the other heads' bcast warps receive it and multicast
// it. src/graph/connect.cc ncclNvlsTreeConnect gives even channels tree 0 and odd channels tree 1 (`c%2`),
// NCCL's double binary tree, whose roots differ: on 2 nodes each node is the leaf of one tree and the root of
// the other, so a network hop of either tree carries half the channels' chunks through a head's NIC while
// the other tree's hop runs the other way. With W the bytes of one loop on a node (every channel's chunk for
// every head), in NCCL's GB/s:
//  * network: 2 log2i(nodes) hops of W / 2 through the heads' NICs: log2i(nodes) x W / (heads x NIC GB/s);
//  * switch: bytes/bw already counts one reduce + multicast pass of W per loop at the node's NVLS algorithm
//    bandwidth A (the domain's NVLS figure, nvls_tree_replay_bus_bandwidth's `domain`, at NCCL's
//    nRanks/nsteps). Once loops overlap (several loops per channel), a root's pass shares the switch links
//    with the leaves' passes of later loops, so the first loop's chain (reduce at each level up, the
//    root, multicast at each level down) is log2i(nodes) passes longer than the steady one. A call of one
//    loop (calcCollChunking's halving keeps 1-8 MiB there on 2 x 8 H100) has nothing to share with: the
//    leaves' reduce-only and multicast-only phases and the roots' pass each move W / 2 over the whole
//    switch, half a pass each, so the chain is log2i(nodes) - 1/2 passes longer than bytes/bw.
// All CUDA channels start at once; a last partial loop shares what is left among the heads (lastChunkCount).
double nvls_tree_fill_us(const Tables& tab, const Graph& g, int nch, Bytes nbytes, int ranks) {
  const auto& n = g.nvls;
  if (!tab.nvls || !n.tree || n.channels < 1 || nch < 1 || n.nic_GBps <= 0 || g.nodes < 2 || ranks < 2) return 0;
  const double heads = n.channels, bytes = static_cast<double>(nbytes);
  const double chunk = nvls_tree_chunk_bytes(tab, g, nch, nbytes);
  const bool one_loop = bytes / nch <= heads * chunk;
  const double wave = one_loop ? bytes : nch * heads * chunk; // one loop's bytes on a node
  const double levels = std::floor(std::log2(static_cast<double>(g.nodes)));
  const double domain_bus = n.domain_channels >= 2 ? nvls_domain_bus(tab, g) : nvls_bus(tab, g, Op::AllReduce, ranks, true);
  const double pass_GBps = domain_bus * ranks / (2.0 * (ranks - 1.0));
  if (!(pass_GBps > 0)) return 0;
  const double passes = one_loop ? levels - 0.5 : levels;
  return wave * (passes / pass_GBps + levels / (heads * n.nic_GBps)) / 1e3;
}

// NCCL 2.29+ ncclTopoGetAlgoTime (2.29.2 notes: "Improves performance tuning of 256M-512M message sizes on
// Blackwell for AllReduce"): NVLS-tree allreduce on Blackwell GPUs with x86 hosts runs below the model at
// medium sizes, so NCCL scales its bandwidth by the tree's treeCorrectionFactor (Simple row) while
// log2i(nBytes >> 6) < 24, i.e. up to 512 MiB. The kernel (all_reduce.h NVLS_TREE) is the same since 2.28,
// so the factor is the hardware's behaviour, not one version's. Grace hosts (GB200/GB300) and Hopper: 1.
double nvls_tree_size_factor(const Tables& tab, const Graph& g, Bytes nbytes) {
  constexpr int kNvlsTreeBuckets = 24;
  const int b = correction_bucket(nbytes);
  if (!g.nvls.tree || g.arch < Arch::Blackwell || g.arm_cpu || b < 0) return 1.0;
  const auto& corr = tab.tree_correction[static_cast<std::size_t>(Proto::Simple)];
  return b < kNvlsTreeBuckets && b < static_cast<int>(corr.size()) ? corr[static_cast<std::size_t>(b)] : 1.0;
}

double nvls_chunk_bytes(const Tables::Nvls& n, double channel_bytes, int heads) {
  return shrink_chunk(n.chunk_bytes, channel_bytes, heads, n.chunk_shrink);
}

double nvls_pipeline_fill_us(const Tables::Nvls& n, double nbytes, int channels, int heads, double algbw_GBps) {
  if (n.pipeline_stages < 2 || channels < 1 || heads < 1 || !(algbw_GBps > 0)) return 0;
  const double loop = heads * nvls_chunk_bytes(n, nbytes / channels, heads); // one channel's loop
  return (n.pipeline_stages - 1) * channels * loop / (1000.0 * algbw_GBps);
}

double nvls_replay_fill_us(const Tables::Nvls& n, double nbytes, int channels, int heads, double algbw_GBps,
                           int replay_segments) {
  const double fill = nvls_pipeline_fill_us(n, nbytes, channels, heads, algbw_GBps);
  if (!(fill > 0) || replay_segments < 1) return fill;
  return std::max(0.0, fill - nbytes / replay_segments / (1000.0 * algbw_GBps));
}

double nvls_step_handoff_us(const Tables& tab, const Graph& g, double nbytes, int channels) {
  if (!tab.nvls || channels < 1 || !(nbytes > 0)) return 0;
  const auto& n = *tab.nvls;
  const int heads = g.nvls.channels;
  if (!n.step_handoff[enum_index(g.arch)] || n.pipeline_stages < 2 || heads < 1 || !(n.chunk_bytes > 0)) return 0;
  const double share = nbytes / channels;
  const double chunk = nvls_chunk_bytes(n, share, heads);
  const double loops = std::ceil(share / (heads * chunk));
  const double step_us = tab.hw_latency_us[enum_index(Path::NvLink)].at(enum_index(Algo::Ring))[enum_index(Proto::Simple)];
  return (loops + n.pipeline_stages - 1) * step_us * std::max(0.0, 1.0 - chunk / n.chunk_bytes);
}

// NVLS-tree's per-step handoff (all_reduce.h NVLS_TREE: every warp group one ProtoSimple<1, 1> primitive per loop;
// prims_simple.h: per step a wait on the peers' flags, a barrier, a fence and the post). NCCL's NVLS figure is its
// rate at NCCL_NVLS_CHUNKSIZE (128 KiB), so, as nvls_step_handoff_us on one node, a loop of chunk c pays NCCL's
// NVLink Simple step (hwLatencies, 3.4 us) x (1 - c / 128 KiB) more, over the call's loops + stages - 1 steps: 1.7
// us a step at 64 KiB, 2.55 at 32 KiB, and a chunk above the default (a stated NCCL_NVLS_CHUNKSIZE) pays less than
// the figure holds: -3.4 us a step at 256 KiB, -10.2 at 512 KiB. models/nccl.json nvls.tree.step_handoff (every GPU).
double nvls_tree_step_handoff_us(const Tables& tab, const Graph& g, int nch, Bytes nbytes) {
  if (!tab.nvls || !tab.nvls->tree_step_handoff || !g.nvls.tree || nch < 1 || g.nvls.channels < 1 || nbytes <= 0) return 0;
  const auto& n = *tab.nvls;
  const double chunk = nvls_tree_chunk_bytes(tab, g, nch, nbytes);
  if (!(chunk > 0) || n.pipeline_stages < 2) return 0;
  const double loops = std::ceil(static_cast<double>(nbytes) / nch / (g.nvls.channels * chunk));
  const double step_us = tab.hw_latency_us[enum_index(Path::NvLink)].at(enum_index(Algo::Ring))[enum_index(Proto::Simple)];
  return (loops + n.pipeline_stages - 1) * step_us * (1.0 - chunk / n.chunk_bytes);
}

double nvls_tree_release_us(const Tables& tab, const Graph& g, Op op, int p, Bytes nbytes, const Tables::Nvls::TreeTunerRule& rule) {
  const double newest = nvls_bus_bandwidth(tab, g, op, p);
  if (!g.nvls.tree || newest <= 0) return 0;
  const auto& n = g.nvls;
  // 2.19-2.27 (tuning.cc): bw = min(bwIntra, nNodes <= 2 ? bwInter : bwInter/2) per channel, algbw = busBw x 5/6.
  const double algbw = rule.min_bandwidth ? n.channels * std::min(n.bw_intra, g.nodes <= 2 ? n.bw_inter : n.bw_inter / 2) * 5.0 / 6.0
                                          : newest * ring_alg_factor(op, p);
  const double factor = rule.size_factor ? nvls_tree_size_factor(tab, g, nbytes) : 1.0;
  const double lat = rule.nvlink_latency_us + network_hops(op, Algo::NvlsTree, g.nodes) * rule.net_latency_us;
  return algbw > 0 ? lat + static_cast<double>(nbytes) / (1000.0 * algbw * factor) : 0;
}

std::vector<Candidate> candidates(const Tables& tab, const Graph& g, Op op, int p, Bytes nbytes, bool nvls,
                                  const Tables::Nvls::TreeTunerRule* nvls_tree_release, const Caps* ring_ll128_release) {
  std::vector<Candidate> out;
  std::vector<Algo> algos{Algo::Ring};
  if (op == Op::AllReduce && p > 2) algos.push_back(Algo::Tree);
  for (Algo algo : algos)
    for (Proto proto : kProtos) {
      if (proto == Proto::LL128 && !g.ll128) continue;
      // RCCL on gfx94x leaves tree/Simple out when every rank is on one node.
      if (tab.rccl && !tab.rccl->tree_simple_one_node && algo == Algo::Tree && proto == Proto::Simple && g.nodes == 1) continue;
      Candidate c;
      c.algo = algo;
      c.proto = proto;
      c.busbw = bus_bandwidth(tab, g, algo, proto);
      c.algbw = algo == Algo::Ring ? c.busbw * ring_alg_factor(op, p) * ring_correction(tab, g, proto, nbytes)
                                   : c.busbw * 0.5 * tree_correction(tab, proto, nbytes);
      c.lat_us = latency_us(tab, g, op, p, algo, proto, nbytes);
      // The release's own per-channel LL128 cap steers its choice (2.29.2-2.29.3 hold Blackwell's one-node ring
      // at 34.5 GB/s a channel, 2.25-2.28 at 73.4; the tables 40): the time NCCL weighs, not the replay's rate.
      const bool release_caps = ring_ll128_release && !tab.rccl && algo == Algo::Ring && proto == Proto::LL128;
      const double weighed = release_caps ? bus_bandwidth(tab, g, algo, proto, ring_ll128_release) * ring_alg_factor(op, p) : c.algbw;
      c.time_us = c.lat_us + static_cast<double>(nbytes) / (1000.0 * weighed);
      out.push_back(c);
    }
  if (const double bus = nvls ? nvls_bus_bandwidth(tab, g, op, p) : 0; bus > 0) {
    Candidate c;
    c.algo = g.nvls.tree ? Algo::NvlsTree : Algo::Nvls;
    c.busbw = bus;
    // NCCL converts to algorithm bandwidth for allreduce only (nRanks/nsteps); for allgather and
    // reducescatter its NVLS figure is already per byte of the whole buffer.
    c.algbw = op == Op::AllReduce ? bus * ring_alg_factor(op, p) : bus;
    // NVLS-tree: the NVLink part once plus a network hop each way per level of the tree (log2i(nodes)).
    c.lat_us = g.nvls.tree ? tab.nvls->tree_nvlink_latency_us + network_hops(op, Algo::NvlsTree, g.nodes) * tab.nvls->tree_net_latency_us
                           : tab.nvls->nvlink_latency_us;
    if (g.nvls.tree) c.algbw *= nvls_tree_size_factor(tab, g, nbytes);
    c.time_us = c.lat_us + static_cast<double>(nbytes) / (1000.0 * c.algbw);
    if (g.nvls.tree && nvls_tree_release)
      if (const double t = nvls_tree_release_us(tab, g, op, p, nbytes, *nvls_tree_release); t > 0) c.time_us = t;
    out.push_back(c);
  }
  return out;
}

// NVLS's CUDA channels (NVIDIA/nccl src/transport/nvls.cc ncclNvlsInit, v2.17.1-1 to v2.29.7-1; ncclNvlsTuning from
// v2.30.3-1): nvlsChannels = max(minCTAs, min(maxCTAs, the release's count)), NCCL_MIN/MAX_CTAS the only user bounds
// (NCCL_MIN/MAX_NCHANNELS bound comm->nChannels in connect.cc, not nvlsChannels), and src/enqueue.cc runs NVLS and
// NVLS-tree on all nvlsChannels (before v2.28.3-1 always; from it NVLS across nodes takes min(nvlsChannels, nChannels),
// which ccsim does not run: its NVLS across nodes is NVLS-tree). A log's "N nvls channels" is that count itself.
int nvls_cuda_channels(const Tables& tab, const Graph& g, Algo algo) {
  if (!tab.nvls) return 0;
  if (g.nvls.logged_cuda_channels > 0) return g.nvls.logged_cuda_channels;
  // NCCL_NVLS_NCHANNELS, where the release takes it, replaces the count (2.30.3's ncclNvlsTuning: "User overrides
  // take priority over tuning").
  int nc = g.nvls.user_cuda_channels > 0         ? g.nvls.user_cuda_channels
           : algo == Algo::NvlsTree              ? nvls_tree_cuda_channels(tab, g)
           : g.nvls.domain_cuda_channels > 0 ? g.nvls.domain_cuda_channels
                                               : tab.nvls->cuda_channels[static_cast<std::size_t>(g.arch)];
  if (g.nvls.max_ctas > 0) nc = std::min(nc, g.nvls.max_ctas);
  return std::max(nc, g.nvls.min_ctas);
}

int channels_used(const Tables& tab, const Graph& g, Algo algo, Proto proto, int p, Bytes nbytes, int logged) {
  if (algo == Algo::NvlsTree || algo == Algo::Nvls) return nvls_cuda_channels(tab, g, algo);
  // MAXCHANNELS: 64 in NCCL (src/include/device.h), 128 in RCCL (ROCm/rccl src/include/device.h), whose logs
  // print up to "112 coll channels" on MI355X.
  const int max_channels = tab.rccl ? 128 : 64;
  int nc = logged > 0 ? std::min(max_channels, logged)
                      : std::min(max_channels, g.channels * tab.cuda_channels_per_search_channel);
  const auto& th = tab.threads[static_cast<std::size_t>(proto)];
  double thr = th.threshold;
  if (algo == Algo::Ring && th.ring_times_nranks) thr *= p;
  while (nc > 1 && static_cast<double>(nbytes) < nc * th.threads * thr) --nc;
  return nc;
}

} // namespace ccsim::model::nccl
