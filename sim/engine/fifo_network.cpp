// The FIFO and store-and-forward models' cold parts (the hot ones are in fifo_network.hpp), and the
// table of network models.
#include "sim/engine/fifo_network.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "sim/core/error.hpp"
#include "sim/engine/big_block.hpp"


namespace ccsim::engine {

void FifoNetwork::FreeBlock::operator()(void* p) const { big_free(p); }

namespace {
template <class T> T* zeroed(std::size_t n) { return static_cast<T*>(big_alloc(std::max<std::size_t>(n, 1) * sizeof(T))); }
} // namespace

void FifoNetwork::reset(const topology::Topology& t) {
  const std::size_t n = t.num_channels();
  // Zeroed blocks (big_block.hpp): all-zero state is a valid idle channel (trivial types, implicitly created).
  free_at_.reset(zeroed<Time>(n));
  totals_.reset(keep_totals_ ? zeroed<Totals>(n) : nullptr);
  num_chans_ = n;
  // One cost entry when every channel has the same capacity and latency (generated crossbars and tori).
  const Cost first{n ? t.channel_capacity(0) : 0, n ? t.channel_latency(0) : 0};
  bool uniform = true;
  if (!t.link_formula())
    for (std::size_t c = 1; c < n && uniform; ++c)
      uniform = t.channel_capacity(static_cast<ChannelId>(c)) == first.capacity &&
                t.channel_latency(static_cast<ChannelId>(c)) == first.latency;
  cost_.assign(1, first);
  cost_mask_ = 0;
  if (!uniform) {
    cost_.resize(n);
    for (std::size_t c = 0; c < n; ++c)
      cost_[c] = Cost{t.channel_capacity(static_cast<ChannelId>(c)), t.channel_latency(static_cast<ChannelId>(c))};
    cost_mask_ = ~ChannelId{0};
  }
}

void FifoNetwork::populate(std::size_t end) const {
#ifdef MADV_POPULATE_WRITE // Linux 5.14; an older kernel refuses it and the pages fault in as before
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto populate = [&](const auto* block) { // page-aligned down: still within the block's mapping
    const auto first = reinterpret_cast<std::uintptr_t>(block) / page * page;
    const auto last = reinterpret_cast<std::uintptr_t>(block + std::min(end, num_chans_));
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
  };
  populate(free_at_.get());
  if (totals_) populate(totals_.get());
#else
  (void)end;
#endif
}

const ChannelStats& FifoNetwork::stats() const {
  stats_.bytes.resize(num_chans_);
  stats_.busy.resize(num_chans_);
  for (std::size_t c = 0; c < num_chans_; ++c) {
    stats_.bytes[c] = totals_ ? totals_[c].bytes : 0;
    stats_.busy[c] = totals_ ? totals_[c].busy : 0;
  }
  return stats_;
}

// The run is over: hand the per-channel totals over, and give each block of them back to the kernel once it
// is copied (a million-GPU crossbar's 32 MB of them and the 32 MB of the copy need not both be resident).
ChannelStats FifoNetwork::take_stats() {
  ChannelStats out;
  out.bytes.resize(num_chans_);
  out.busy.resize(num_chans_);
  free_at_.reset();
  if (!totals_) return num_chans_ = 0, out;
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t block = std::max<std::size_t>(page, std::size_t{1} << 20);
  auto* base = reinterpret_cast<char*>(totals_.get());
  std::size_t released = 0; // bytes of totals_ from its (page-aligned) start given back
  const std::size_t lead = (page - reinterpret_cast<std::uintptr_t>(base) % page) % page; // to the first whole page
  for (std::size_t c = 0; c < num_chans_;) {
    // Copy up to the channel that completes the next whole block, then give that block back.
    const std::size_t edge = lead + released + block; // bytes of totals_ read before the next release
    const std::size_t stop = std::min(num_chans_, (edge + sizeof(Totals) - 1) / sizeof(Totals));
    for (; c < stop; ++c) {
      out.bytes[c] = totals_[c].bytes;
      out.busy[c] = totals_[c].busy;
    }
    if (stop * sizeof(Totals) >= edge) {
      madvise(base + lead + released, block, MADV_DONTNEED); // reads as zeros again, owns no memory
      released += block;
    }
  }
  totals_.reset();
  num_chans_ = 0;
  return out;
}

// Each channel is free again exactly when the message just posted leaves it, so its holding interval
// is [free_at - duration, free_at); recomputed here to keep post() free of observer work.
void FifoNetwork::last_occupancy(std::span<const ChannelId> route, Bytes bytes, std::vector<Occupancy>& out) const {
  out.clear();
  Bandwidth bw = route.empty() ? 0 : cost(route[0]).capacity;
  for (ChannelId c : route) bw = std::min(bw, cost(c).capacity);
  for (ChannelId c : route) {
    const Time dur = transfer_time(bytes, store_forward_ ? cost(c).capacity : bw);
    out.push_back(Occupancy{free_at_[c] - dur, free_at_[c]});
  }
}

namespace {
std::unique_ptr<NetworkModel> make_fifo(const ModelParams& p) {
  return std::make_unique<FifoNetwork>(false, p.alpha_sw, p.channel_totals);
}
std::unique_ptr<NetworkModel> make_store_forward(const ModelParams& p) {
  return std::make_unique<FifoNetwork>(true, p.alpha_sw, p.channel_totals);
}
std::unique_ptr<NetworkModel> make_flow(const ModelParams& p) { return make_flow_network(p.alpha_sw, p.semantics == Semantics::gpu); }

constexpr NetworkEntry kNetworks[] = {
    {"fifo", "alpha-beta, cut-through; each directed link serves messages in FIFO order (default)", make_fifo},
    {"store_forward", "alpha-beta, store-and-forward: every hop pays latency + bytes/bandwidth", make_store_forward},
    {"flow", "max-min fair sharing of every directed link among concurrent transfers, plus latency (SimGrid-like)",
     make_flow},
};
} // namespace

std::span<const NetworkEntry> network_entries() { return kNetworks; }
const NetworkEntry& fifo_network() { return kNetworks[0]; }
const NetworkEntry* find_network(std::string_view name) {
  for (const auto& e : kNetworks)
    if (e.name == name) return &e;
  return nullptr;
}

Semantics semantics_from(const std::string& name, const char* flag) {
  if (name == "gpu") return Semantics::gpu;
  if (name == "mpi") return Semantics::mpi;
  fail("{}: unknown step semantics '{}' (gpu: a send completes when its data has left, as NCCL; mpi: blocking "
       "sendrecv, as SimGrid SMPI)", flag, name);
}

const char* to_string(Semantics s) { return s == Semantics::gpu ? "gpu" : "mpi"; }

} // namespace ccsim::engine
