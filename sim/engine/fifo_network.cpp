// The FIFO and store-and-forward models' cold parts (the hot ones are in fifo_network.hpp), and the
// registry of network models.
#include "sim/engine/fifo_network.hpp"

#include "sim/core/error.hpp"

namespace ccsim::engine {

void FifoNetwork::reset(const topology::Topology& t) {
  const std::size_t n = t.num_channels();
  chans_.assign(n, Chan{});
  for (std::size_t c = 0; c < n; ++c) {
    chans_[c].capacity = t.links[c / 2].capacity();
    chans_[c].latency = t.links[c / 2].latency;
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

std::vector<std::pair<std::string, std::string>> network_models() {
  return {{"fifo", "alpha-beta, cut-through; each directed link serves messages in FIFO order (default)"},
          {"store_forward", "alpha-beta, store-and-forward: every hop pays latency + bytes/bandwidth"},
          {"flow", "latency, then max-min fair sharing of every directed link among concurrent transfers (SimGrid-like)"}};
}

Semantics semantics_from(const std::string& name, const char* flag) {
  if (name == "gpu") return Semantics::gpu;
  if (name == "mpi") return Semantics::mpi;
  fail("{}: unknown step semantics '{}' (gpu: a send completes when its data has left, as NCCL; mpi: blocking "
       "sendrecv, as SimGrid SMPI)", flag, name);
}

const char* to_string(Semantics s) { return s == Semantics::gpu ? "gpu" : "mpi"; }

std::unique_ptr<NetworkModel> make_network(const std::string& name, Time alpha_sw, Semantics semantics) {
  if (name == "fifo" || name == "alpha_beta") return std::make_unique<FifoNetwork>(false, alpha_sw);
  if (name == "store_forward") return std::make_unique<FifoNetwork>(true, alpha_sw);
  if (name == "flow") return make_flow_network(alpha_sw, semantics == Semantics::gpu);
  std::string have;
  for (auto& [n, d] : network_models()) have += (have.empty() ? "" : ", ") + n;
  fail("--model: unknown network model '{}' (available: {})", name, have);
}

} // namespace ccsim::engine
