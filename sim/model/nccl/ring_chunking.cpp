#include "sim/model/nccl/ring_chunking.hpp"

#include <algorithm>
#include <cmath>

namespace ccsim::model::nccl {
using schedule::Op;

namespace {
bool ring_pattern(Op op) { return op == Op::AllReduce || op == Op::AllGather || op == Op::ReduceScatter; }
bool per_rank_count(Op op) { return op == Op::AllGather || op == Op::ReduceScatter; }
double ceil_to(double x, double unit) { return std::ceil(x / unit) * unit; }

// Threads per channel at this size (enqueue.cc getAlgoInfo): nt halves only once nc is down to 1.
int threads_at(const Tables& tab, Proto proto, int ranks, double bytes, int nc) {
  const auto& th = tab.threads[static_cast<std::size_t>(proto)];
  int nt = static_cast<int>(th.threads);
  const double thr = th.threshold * (th.ring_times_nranks ? ranks : 1);
  while (nc <= 1 && bytes < nt * thr && nt % 128 == 0) nt /= 2;
  return nt;
}

// v2.8.4-1 device kernels: the last loop's chunk is the rest rounded up to nc x per x the minimum chunk.
// Where a ring allreduce's chunks lie: Simple gives channel bid the nRanks chunks from bid x nRanks x
// realChunkSize on (contiguous), LL and LL128 deal chunk c of channel bid to slot c x nChannels + bid
// (interleaved), so the last loop's short tail is shared out and channel 0 holds slots 0, nc, 2 nc, ... (NVIDIA/nccl
// src/collectives/device/all_reduce.h ring offsets: v2.5.6-2 lines 176 (LL) and 309 (LL128)
// "(slice*args->nChannels+bid) * chunkSize" against line 35 (Simple) "bid*nranks*realChunkSize"; v2.8.4-1
// lines 294 / 492 against 38; v2.10.3-1 to v2.19.4-1 runRing calcOffset, lines 46-50; v2.20.3 on the host
// gives each channel its own workOffset/workCount). Allgather/reducescatter move one chunk a channel a loop,
// bid x realChunkSize for every protocol (all_gather.h / reduce_scatter.h chunkOffset): nothing to interleave.
double kernel_chunks(const Tables& tab, Op op, Proto proto, int ranks, double bytes, int nc, double max_chunk) {
  const int nt = threads_at(tab, proto, ranks, bytes, nc);
  const bool halved = ring_pattern(op); // allreduce/allgather/reducescatter LL128: "/2"
  const double min_chunk = proto == Proto::LL128 ? nt * 60.0 / (halved ? 2 : 1) : nt * 8.0;
  if (!(min_chunk > 0)) return 1.0;
  const double size = per_rank_count(op) ? bytes / ranks : bytes; // the kernel loops over its count
  const double per = op == Op::AllReduce ? ranks : 1;              // chunks a channel moves per loop
  const double loop = nc * per * max_chunk;
  const double full = std::floor(size / loop), rest = size - full * loop;
  if (rest <= 0) return 1.0;
  const double chunk = std::min(max_chunk, ceil_to(rest / (nc * per), min_chunk));
  double last = std::min(rest, per * chunk); // Simple: channel 0's nRanks chunks side by side
  if (op == Op::AllReduce && proto != Proto::Simple) {
    last = 0; // LL / LL128: channel 0's slots c x nc, each at most one chunk of what is left past its start
    for (int c = 0; c < per; ++c) last += std::clamp(rest - c * nc * chunk, 0.0, chunk);
  }
  const double busiest = full * per * max_chunk + last;
  return nc * busiest / size;
}

// v2.30.7-1 scheduleCollTasksToPlan: whole cells of 32 KiB traffic, divUp(traffic / nc, traffic per cell) each.
double cells(Op op, Proto proto, int ranks, double bytes, int nc) {
  constexpr double kMinTrafficPerChannel = 32768;
  const double count_bytes = per_rank_count(op) ? bytes / ranks : bytes;
  double per_byte = op == Op::AllReduce ? 2 : per_rank_count(op) ? ranks : 1;
  if (proto == Proto::LL) per_byte *= 4;
  const double cell = ceil_to(std::ceil(kMinTrafficPerChannel / per_byte), 16);
  const double n_cells = std::ceil(count_bytes / cell);
  const double traffic = std::max(kMinTrafficPerChannel, count_bytes * per_byte);
  const double per_channel = ceil_to(std::floor(traffic / nc), 16);
  const double cells_per_channel = std::min(n_cells, std::ceil(per_channel / (cell * per_byte)));
  return std::clamp(nc * std::min(count_bytes, cells_per_channel * cell) / count_bytes, 1.0, static_cast<double>(nc));
}
} // namespace

int chunks_per_loop(Op op, int ranks) { return ring_pattern(op) ? ranks : 1; }

int ring_loops(Op op, int ranks, double channel_bytes, double chunk) {
  return std::max(1, static_cast<int>(std::ceil(channel_bytes / (chunks_per_loop(op, ranks) * chunk))));
}

bool chain_pipelined_per_line(Op op, Proto proto) { return !ring_pattern(op) && proto != Proto::Simple; }

SplitRule split_rule(const std::optional<NcclVersion>& v) {
  if (!v || *v >= NcclVersion{2, 22, 3}) return SplitRule::Cells;
  if (*v >= NcclVersion{2, 5, 6} && *v < NcclVersion{2, 20, 0}) return SplitRule::KernelChunks;
  return SplitRule::None;
}

double channel_imbalance(SplitRule rule, const Tables& tab, Op op, Proto proto, int ranks, Bytes bytes, int nc, double max_chunk) {
  const double b = static_cast<double>(bytes);
  if (nc <= 1 || ranks < 2 || b <= 0 || max_chunk <= 0 || rule == SplitRule::None) return 1.0;
  return rule == SplitRule::Cells ? cells(op, proto, ranks, b, nc) : kernel_chunks(tab, op, proto, ranks, b, nc, max_chunk);
}

double ll128_wave_imbalance(SplitRule rule, const Tables& tab, Op op, int ranks, Bytes bytes, int nc, double max_chunk) {
  const double b = static_cast<double>(bytes);
  if (!ring_pattern(op) || nc <= 1 || ranks < 2 || !(b > 0) || !(max_chunk > 0) || rule == SplitRule::None)
    return channel_imbalance(rule, tab, op, Proto::LL128, ranks, bytes, nc, max_chunk);
  const int nt = threads_at(tab, Proto::LL128, ranks, b, nc);
  const double wave = (nt / 32) * 1920.0; // nWarps x DataEltPerSlice bytes
  if (!(wave > 0)) return 1.0;
  const auto waves = [&](double chunk) { return chunk > 0 ? std::ceil(chunk / wave) : 0.0; };
  const double size = per_rank_count(op) ? b / ranks : b; // the kernel's count, bytes
  const double per = op == Op::AllReduce ? ranks : 1;     // chunks a channel moves per loop
  double rounds = 0;                                      // the busiest channel's waves per pass over its chunks
  if (rule == SplitRule::KernelChunks) {
    const double loop = nc * per * max_chunk;
    const double full = std::floor(size / loop), rest = size - full * loop;
    rounds = full * per * waves(max_chunk);
    if (rest > 0) {
      const double min_chunk = nt * 60.0 / 2; // ring patterns' LL128 minimum chunk ("should not need the final /2")
      const double chunk = std::min(max_chunk, ceil_to(rest / (nc * per), min_chunk));
      for (int c = 0; c < per; ++c) rounds += waves(std::min(chunk, rest - c * nc * chunk)); // channel 0's chunks
    }
  } else { // Cells: the busiest channel's share, in loops of nRanks (allreduce) or one chunk of at most max_chunk
    const double channel = cells(op, Proto::LL128, ranks, b, nc) * size / nc;
    const double loop = per * max_chunk;
    const double full = std::floor(channel / loop), rest = channel - full * loop;
    rounds = full * per * waves(max_chunk) + (rest > 0 ? per * waves(std::ceil(rest / per)) : 0.0);
  }
  return std::max(1.0, nc * rounds * wave / size); // whole waves as bytes, over the even share
}

} // namespace ccsim::model::nccl
