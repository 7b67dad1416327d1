#include "sim/model/nccl/threshold_choice.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ccsim::model::nccl {
using schedule::Op;

namespace {
std::int64_t div_up(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
} // namespace

const Tables::ThresholdRule* threshold_rule(const Tables& tab, const std::optional<NcclVersion>& v) {
  if (!v) return nullptr;
  for (const auto& r : tab.threshold_choice_by_version)
    if (r.from <= *v && *v < r.until) return &r;
  return nullptr;
}

// ncclThreadThreshold: minCompCap <= 6 takes the pre-Volta figure; sm 0 (no NVIDIA compute capability) the
// Volta one. "Multi-node" is any rank with a tree input from the network.
int thread_threshold(const Tables::ThresholdRule& r, int sm, int nodes) {
  const int base = sm > 0 && sm < 70 ? r.thread_threshold_pre_volta : r.thread_threshold;
  return nodes > 1 ? base * r.multi_node_factor : base;
}

// ncclTreeThreshold, in NCCL's own units (MB/s = B/us, us): the size where the tree's lower latency stops
// paying for its lower bandwidth.
std::int64_t tree_threshold(const Tables::ThresholdRule& r, bool nvlink, int nodes, int ranks, int channels) {
  const double ringbw = nvlink ? r.ring_bw_per_channel * channels : r.ring_bw_per_channel;
  double treebw = ringbw * (nvlink ? r.tree_bw_nvlink : r.tree_bw_pci);
  if (nvlink && nodes == 2) treebw *= r.two_node_factor;
  if (nodes < 2) return 0;
  const double ringlat = r.ring_lat_us * (ranks - 1);
  const double treelat = r.tree_lat_inter_us * std::log2(static_cast<double>(nodes)) + r.tree_lat_intra_us * (ranks / nodes - 1);
  if (ringlat <= treelat) return 0;
  if (treebw > ringbw) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(ringbw * treebw / (ringbw - treebw) * (ringlat - treelat));
}

LlPick ll_pick(const Tables::ThresholdRule& r, std::int64_t nbytes, int chunks, bool tree_pattern, int thread_thr, int channels) {
  const std::int64_t per_thread_ll = std::min(thread_thr, r.ll_channel_threshold);
  std::int64_t nt = r.ll_min_threads;
  while (div_up(nbytes, nt * chunks) > per_thread_ll && nt * 2 <= r.ll_max_threads) nt *= 2;
  const std::int64_t nc = std::clamp<std::int64_t>(div_up(nbytes, nt * chunks * per_thread_ll), 1, channels);
  const std::int64_t per_thread = static_cast<std::int64_t>(thread_thr) * (tree_pattern ? r.tree_ll_factor : 1);
  LlPick out;
  out.threshold = nc * nt * chunks * per_thread;
  out.ll = nbytes <= out.threshold;
  out.threads = out.ll ? static_cast<int>(nt) : r.ll_max_threads;
  out.channels = out.ll ? static_cast<int>(nc) : channels;
  return out;
}

std::optional<ThresholdChoice> threshold_choice(const Tables::ThresholdRule& r, Op op, int ranks, int nodes, bool nvlink, int sm,
                                                int channels, Bytes nbytes, std::optional<Algo> only) {
  if (op != Op::AllReduce && op != Op::AllGather && op != Op::ReduceScatter && op != Op::Broadcast && op != Op::Reduce)
    return std::nullopt;
  if (only && *only != Algo::Ring && *only != Algo::Tree) return std::nullopt;
  const int nch = std::clamp(channels, 1, r.max_channels);
  const auto bytes = static_cast<std::int64_t>(nbytes);
  ThresholdChoice c;
  if (op == Op::AllReduce && ranks > 2) {
    const bool tree = only ? *only == Algo::Tree : bytes <= tree_threshold(r, nvlink, nodes, ranks, nch);
    if (tree) c.algo = Algo::Tree;
  }
  // getLoopInfo: the ring patterns move nRanks chunks per loop, the tree and the pipelines one.
  const bool ring_pattern = c.algo == Algo::Ring && (op == Op::AllReduce || op == Op::AllGather || op == Op::ReduceScatter);
  const auto pick = ll_pick(r, bytes, ring_pattern ? ranks : 1, c.algo == Algo::Tree, thread_threshold(r, sm, nodes), nch);
  c.proto = pick.ll ? Proto::LL : Proto::Simple;
  c.channels = pick.channels;
  return c;
}

} // namespace ccsim::model::nccl
