#include "sim/model/nccl/rccl.hpp"

#include <algorithm>
#include <cmath>

#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::model::nccl {

double mesh_link_GBps(const topology::Topology& t, const Tables& tab, const std::vector<int>& gpus) {
  double slowest = 1e300;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      const int a = t.gpu_node(gpus[i]), b = t.gpu_node(gpus[j]);
      double best = 0; // the fastest direct link of the pair
      for (const auto& l : t.links)
        if ((l.a == a && l.b == b) || (l.a == b && l.b == a)) best = std::max(best, tab.lane_GBps(t, l) * l.lanes);
      if (best <= 0) return 0;
      slowest = std::min(slowest, best);
    }
  return gpus.size() < 2 ? 0 : slowest;
}

double protocol_data_share(Proto proto) {
  switch (proto) {
    case Proto::LL: return 0.5;
    case Proto::LL128: return 7.0 / 8.0;
    case Proto::Simple: return 1.0;
  }
  return 1.0;
}

namespace {
int idx(auto e) { return static_cast<int>(e); }

// The data rate of a link under `proto`: LL's 8-byte lines carry 4 bytes of data and a 4-byte flag.
double data_GBps(double link_GBps, Proto proto) { return link_GBps * (proto == Proto::LL ? protocol_data_share(Proto::LL) : 1.0); }

// local_us: GPU work that overlaps no transfer (MSCCL's local copies and reduce), added to the transfer time.
Candidate closed_form(Algo algo, Proto proto, double lat_us, double bytes_per_link, double link_GBps, double busbw_per_algbw,
                      Bytes nbytes, double local_us = 0) {
  Candidate c;
  c.algo = algo;
  c.proto = proto;
  c.lat_us = lat_us;
  c.time_us = lat_us + bytes_per_link / (1000.0 * link_GBps) + local_us;
  c.algbw = static_cast<double>(nbytes) / (1000.0 * std::max(1e-9, c.time_us - lat_us));
  c.busbw = c.algbw * busbw_per_algbw;
  return c;
}
} // namespace

double gpu_memory_GBps(const topology::Topology& t, const Tables& tab) {
  const auto it = tab.hbm_GBps_by_gpu.find(tab.rccl || !t.gpu_kind.empty() ? t.gpu_kind : topology::sxm_kind_of_nvlink(t));
  return it == tab.hbm_GBps_by_gpu.end() ? 0 : it->second;
}

double direct_local_bytes(int p, double n, Proto proto) {
  const double buffer_reads = proto == Proto::LL ? 2.0 : 1.0;
  const double receives = 2.0 * (p - 1.0) / p * n * (buffer_reads + 1.0); // two phases, read + write
  const double reduce = (p + 1.0) / p * n;                                  // p reads of n/p, one write
  return receives + reduce;
}

std::optional<Candidate> direct_allreduce(const Tables& tab, const Graph& g, double link_GBps, int p, Bytes nbytes,
                                          std::uint64_t count, double efficiency, double memory_GBps, int* channels) {
  if (!tab.rccl || g.nodes != 1 || p != tab.rccl->direct_ranks || p < 2 || link_GBps <= 0) return std::nullopt;
  const auto n = static_cast<double>(nbytes);
  for (const auto& r : tab.rccl->direct) {
    if (n < r.min_bytes || n > r.max_bytes || count == 0 || count % static_cast<std::uint64_t>(r.chunks_per_loop) != 0) continue;
    const double bw = data_GBps(link_GBps * efficiency, r.proto);
    const double lat = tab.base_latency_us[idx(Algo::Ring)][idx(r.proto)] +
                       2.0 * tab.hw_latency_us[idx(Path::NvLink)][idx(Algo::Ring)][idx(r.proto)];
    if (channels) *channels = r.channels;
    const double local_us = memory_GBps > 0 ? direct_local_bytes(p, n, r.proto) / (1000.0 * memory_GBps) : 0.0;
    return closed_form(Algo::Direct, r.proto, lat, 2.0 * n / p, bw, 2.0 * (p - 1) / p, nbytes, local_us);
  }
  return std::nullopt;
}

std::optional<Candidate> direct_alltoall(const Tables& tab, const Graph& g, double link_GBps, int p, Bytes nbytes,
                                         double efficiency) {
  if (!tab.rccl || g.nodes != 1 || p < 2 || link_GBps <= 0) return std::nullopt;
  const double per_peer = static_cast<double>(nbytes) / p;
  const Proto proto = per_peer <= tab.rccl->p2p_ll_threshold ? Proto::LL : Proto::Simple;
  const double lat = tab.base_latency_us[idx(Algo::Ring)][idx(proto)] + tab.hw_latency_us[idx(Path::NvLink)][idx(Algo::Ring)][idx(proto)];
  return closed_form(Algo::Direct, proto, lat, per_peer, data_GBps(link_GBps * efficiency, proto), (p - 1.0) / p, nbytes);
}

std::optional<Proto> rccl_forced_protocol(const Tables& tab, const std::optional<NcclVersion>& release, const std::string& sm, int nodes,
                                          int nics_per_node, schedule::Op op, int ranks, Bytes nbytes) {
  if (!tab.rccl || !release || nodes < 2 || ranks < 1) return std::nullopt;
  const char* name = op == schedule::Op::AllReduce       ? "allreduce"
                     : op == schedule::Op::AllGather     ? "allgather"
                     : op == schedule::Op::ReduceScatter ? "reducescatter"
                                                         : nullptr;
  if (!name) return std::nullopt;
  for (const auto& rule : tab.rccl->proto_ranges) {
    if (*release < rule.from || !(*release < rule.until) || nics_per_node != rule.nics_per_node || ranks != rule.gpus_per_node * nodes) continue;
    const auto arch = rule.by_sm.find(sm);
    if (arch == rule.by_sm.end()) return std::nullopt;
    const auto range = arch->second.by_op.find(name);
    if (range == arch->second.by_op.end()) return std::nullopt;
    const double per_rank = op == schedule::Op::AllReduce ? static_cast<double>(nbytes) : static_cast<double>(nbytes) / ranks;
    const auto& r = range->second;
    const double ll128_max = r.ll128_max * (op == schedule::Op::AllReduce && nodes > 2 ? rule.allreduce_ll128_scale : 1.0);
    if (arch->second.ll128 && per_rank > r.ll128_min && per_rank <= ll128_max) return Proto::LL128;
    return per_rank > 0 && per_rank <= r.ll_max ? Proto::LL : Proto::Simple;
  }
  return std::nullopt;
}

double rccl_tree_chunk_bytes(Proto proto, double step_chunk, Bytes nbytes, int channels, int nodes, int ranks) {
  if (channels < 1 || nodes < 1 || ranks < nodes) return step_chunk;
  const double total = static_cast<double>(nbytes);
  const double ppn = static_cast<double>(ranks) / nodes;
  const double log_nodes = std::floor(std::log2(static_cast<double>(nodes)));
  double chunk = step_chunk;
  auto halve_while = [&](double below, double floor_bytes) {
    while (std::floor(total / (channels * chunk)) < below && chunk > floor_bytes) chunk /= 2; // RCCL's integer quotient
  };
  if (proto == Proto::Simple) {
    const double depth = ranks / nodes - 1 + log_nodes;
    halve_while(depth * 8, 131072);
    halve_while(depth * 4, 65536);
    halve_while(depth, 32768);
  } else if (proto == Proto::LL128) {
    const double steps = 1 + log_nodes + 0.1 * ppn;
    halve_while(steps * 64 / ppn, 131072);
    halve_while(steps * 16 / ppn, 32768);
  }
  return chunk;
}

double rccl_launch_us(const ParamSet& p, int gpus_per_thread) {
  return gpus_per_thread <= 1 ? 0.0 : p.launch_per_gpu_us * gpus_per_thread;
}

} // namespace ccsim::model::nccl
