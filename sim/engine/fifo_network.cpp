// The alpha-beta link model with queues. Each directed channel serves messages one after another
// in the order they were posted. A message over route R starts when every channel of R is free and
// holds them all for bytes / min(bandwidth) (cut-through: NVLink, PCIe and IB switches forward
// packets as they arrive, and SimGrid's network model does the same); it arrives after that plus the
// summed link latencies plus the software alpha. Uncontended, this is exactly alpha + n*beta.
// "store_forward" instead crosses hop by hop, each hop paying its own latency and bytes / bandwidth.
#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/engine/network.hpp"

namespace ccsim::engine {
namespace {

class FifoNetwork final : public NetworkModel {
 public:
  FifoNetwork(bool store_forward, Time alpha_sw) : store_forward_(store_forward), alpha_sw_(alpha_sw) {}
  std::string name() const override { return store_forward_ ? "store_forward" : "fifo"; }

  void reset(const topology::Topology& t) override {
    topo_ = &t;
    const std::size_t n = t.num_channels();
    free_at_.assign(n, 0);
    stats_.bytes.assign(n, 0);
    stats_.busy.assign(n, 0);
    capacity_.resize(n);
    latency_.resize(n);
    for (std::size_t c = 0; c < n; ++c) {
      capacity_[c] = t.links[c / 2].capacity();
      latency_[c] = t.links[c / 2].latency;
    }
  }

  Time post(std::uint64_t, std::span<const ChannelId> route, Bytes bytes, Time now, ArrivalSink&) override {
    if (route.empty()) return last_start_ = now, now + alpha_sw_;
    return store_forward_ ? hop_by_hop(route, bytes, now) : cut_through(route, bytes, now);
  }

  const ChannelStats& stats() const override { return stats_; }
  Time last_start() const override { return last_start_; }

  // Each channel is free again exactly when the message just posted leaves it, so its holding interval
  // is [free_at - duration, free_at); recomputed here to keep post() free of observer work.
  void last_occupancy(std::span<const ChannelId> route, Bytes bytes, std::vector<Occupancy>& out) const override {
    out.clear();
    Bandwidth bw = route.empty() ? 0 : capacity_[route[0]];
    for (ChannelId c : route) bw = std::min(bw, capacity_[c]);
    for (ChannelId c : route) {
      const Time dur = transfer_time(bytes, store_forward_ ? capacity_[c] : bw);
      out.push_back({free_at_[c] - dur, free_at_[c]});
    }
  }

 private:
  Time cut_through(std::span<const ChannelId> route, Bytes bytes, Time now) {
    Time start = now, lat = 0;
    Bandwidth bw = capacity_[route[0]];
    for (ChannelId c : route) {
      start = std::max(start, free_at_[c]);
      bw = std::min(bw, capacity_[c]);
      lat += latency_[c];
    }
    const Time dur = transfer_time(bytes, bw);
    for (ChannelId c : route) {
      free_at_[c] = start + dur;
      stats_.busy[c] += dur;
      stats_.bytes[c] += bytes;
    }
    last_start_ = start;
    return start + dur + lat + alpha_sw_;
  }

  Time hop_by_hop(std::span<const ChannelId> route, Bytes bytes, Time now) {
    Time t = now;
    bool first = true;
    for (ChannelId c : route) {
      const Time start = std::max(t, free_at_[c]);
      const Time dur = transfer_time(bytes, capacity_[c]);
      if (first) last_start_ = start, first = false;
      free_at_[c] = start + dur;
      stats_.busy[c] += dur;
      stats_.bytes[c] += bytes;
      t = start + dur + latency_[c];
    }
    return t + alpha_sw_;
  }

  bool store_forward_;
  Time alpha_sw_;
  const topology::Topology* topo_ = nullptr;
  std::vector<Time> free_at_;
  std::vector<Bandwidth> capacity_;
  std::vector<Time> latency_;
  ChannelStats stats_;
  Time last_start_ = 0;
};

} // namespace

std::vector<std::pair<std::string, std::string>> network_models() {
  return {{"fifo", "alpha-beta, cut-through; each directed link serves messages in FIFO order (default)"},
          {"store_forward", "alpha-beta, store-and-forward: every hop pays latency + bytes/bandwidth"}};
}

std::unique_ptr<NetworkModel> make_network(const std::string& name, Time alpha_sw) {
  if (name == "fifo" || name == "alpha_beta") return std::make_unique<FifoNetwork>(false, alpha_sw);
  if (name == "store_forward") return std::make_unique<FifoNetwork>(true, alpha_sw);
  std::string have;
  for (auto& [n, d] : network_models()) have += (have.empty() ? "" : ", ") + n;
  fail("--model: unknown network model '{}' (available: {})", name, have);
}

} // namespace ccsim::engine
