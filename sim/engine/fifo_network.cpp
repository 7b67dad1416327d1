// The FIFO and store-and-forward models' cold parts (the hot ones are in fifo_network.hpp), and the
// table of network models.
#include "sim/engine/fifo_network.hpp"

#include "sim/core/error.hpp"


namespace ccsim::engine {

void FifoNetwork::reset(const topology::Topology& t) {
  const std::size_t n = t.num_channels();
  chans_.assign(n, Chan{});
  for (std::size_t c = 0; c < n; ++c) {
    chans_[c].capacity = t.channel_capacity(static_cast<ChannelId>(c));
    chans_[c].latency = t.channel_latency(static_cast<ChannelId>(c));
  }
}

const ChannelStats& FifoNetwork::stats() const {
  stats_.bytes.resize(chans_.size());
  stats_.busy.resize(chans_.size());
  for (std::size_t c = 0; c < chans_.size(); ++c) {
    stats_.bytes[c] = chans_[c].bytes;
    stats_.busy[c] = chans_[c].busy;
  }
  return stats_;
}

// Each channel is free again exactly when the message just posted leaves it, so its holding interval
// is [free_at - duration, free_at); recomputed here to keep post() free of observer work.
void FifoNetwork::last_occupancy(std::span<const ChannelId> route, Bytes bytes, std::vector<Occupancy>& out) const {
  out.clear();
  Bandwidth bw = route.empty() ? 0 : chans_[route[0]].capacity;
  for (ChannelId c : route) bw = std::min(bw, chans_[c].capacity);
  for (ChannelId c : route) {
    const Time dur = transfer_time(bytes, store_forward_ ? chans_[c].capacity : bw);
    out.push_back(Occupancy{chans_[c].free_at - dur, chans_[c].free_at});
  }
}

namespace {
std::unique_ptr<NetworkModel> make_fifo(const ModelParams& p) { return std::make_unique<FifoNetwork>(false, p.alpha_sw); }
std::unique_ptr<NetworkModel> make_store_forward(const ModelParams& p) { return std::make_unique<FifoNetwork>(true, p.alpha_sw); }
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
