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
    const std::size_t n = t.num_channels();
    chans_.assign(n, Chan{});
    for (std::size_t c = 0; c < n; ++c) {
      chans_[c].capacity = t.links[c / 2].capacity();
      chans_[c].latency = t.links[c / 2].latency;
    }
  }

  Time post(std::uint64_t, std::span<const ChannelId> route, Bytes bytes, Time now, ArrivalSink&) override {
    if (route.empty()) return last_start_ = now, now + alpha_sw_;
    return store_forward_ ? hop_by_hop(route, bytes, now) : cut_through(route, bytes, now);
  }

  const ChannelStats& stats() const override {
    stats_.bytes.resize(chans_.size());
    stats_.busy.resize(chans_.size());
    for (std::size_t c = 0; c < chans_.size(); ++c) {
      stats_.bytes[c] = chans_[c].bytes;
      stats_.busy[c] = chans_[c].busy;
    }
    return stats_;
  }
  Time last_start() const override { return last_start_; }

  // Each channel is free again exactly when the message just posted leaves it, so its holding interval
  // is [free_at - duration, free_at); recomputed here to keep post() free of observer work.
  void last_occupancy(std::span<const ChannelId> route, Bytes bytes, std::vector<Occupancy>& out) const override {
    out.clear();
    Bandwidth bw = route.empty() ? 0 : chans_[route[0]].capacity;
    for (ChannelId c : route) bw = std::min(bw, chans_[c].capacity);
    for (ChannelId c : route) {
      const Time dur = transfer_time(bytes, store_forward_ ? chans_[c].capacity : bw);
      out.push_back(Occupancy{chans_[c].free_at - dur, chans_[c].free_at});
    }
  }

 private:
  // Everything the model keeps per directed channel, together (one cache line per hop).
  struct Chan {
    Time free_at = 0;
    Bandwidth capacity = 0;
    Time latency = 0;
    Time busy = 0;
    Bytes bytes = 0;
  };

  Time cut_through(std::span<const ChannelId> route, Bytes bytes, Time now) {
    Time start = now, lat = 0;
    Bandwidth bw = chans_[route[0]].capacity;
    for (ChannelId c : route) {
      const Chan& ch = chans_[c];
      start = std::max(start, ch.free_at);
      bw = std::min(bw, ch.capacity);
      lat += ch.latency;
    }
    const Time dur = duration(bytes, bw);
    for (ChannelId c : route) {
      Chan& ch = chans_[c];
      ch.free_at = start + dur;
      ch.busy += dur;
      ch.bytes += bytes;
    }
    last_start_ = start;
    return start + dur + lat + alpha_sw_;
  }

  Time hop_by_hop(std::span<const ChannelId> route, Bytes bytes, Time now) {
    Time t = now;
    bool first = true;
    for (ChannelId c : route) {
      Chan& ch = chans_[c];
      const Time start = std::max(t, ch.free_at);
      const Time dur = duration(bytes, ch.capacity);
      if (first) last_start_ = start, first = false;
      ch.free_at = start + dur;
      ch.busy += dur;
      ch.bytes += bytes;
      t = start + dur + ch.latency;
    }
    return t + alpha_sw_;
  }

  // transfer_time divides 128-bit numbers; collectives send the same size over and over, so remember the last.
  Time duration(Bytes bytes, Bandwidth bw) {
    if (bytes != memo_bytes_ || bw != memo_bw_) {
      memo_bytes_ = bytes;
      memo_bw_ = bw;
      memo_dur_ = transfer_time(bytes, bw);
    }
    return memo_dur_;
  }

  bool store_forward_;
  Bytes memo_bytes_ = 0;
  Bandwidth memo_bw_ = 0;
  Time memo_dur_ = 0;
  Time alpha_sw_;
  std::vector<Chan> chans_;
  mutable ChannelStats stats_; // filled from chans_ when asked
  Time last_start_ = 0;
};

} // namespace

std::vector<std::pair<std::string, std::string>> network_models() {
  return {{"fifo", "alpha-beta, cut-through; each directed link serves messages in FIFO order (default)"},
          {"store_forward", "alpha-beta, store-and-forward: every hop pays latency + bytes/bandwidth"},
          {"flow", "latency, then max-min fair sharing of every directed link among concurrent transfers (SimGrid-like)"}};
}

std::unique_ptr<NetworkModel> make_network(const std::string& name, Time alpha_sw) {
  if (name == "fifo" || name == "alpha_beta") return std::make_unique<FifoNetwork>(false, alpha_sw);
  if (name == "store_forward") return std::make_unique<FifoNetwork>(true, alpha_sw);
  if (name == "flow") return make_flow_network(alpha_sw);
  std::string have;
  for (auto& [n, d] : network_models()) have += (have.empty() ? "" : ", ") + n;
  fail("--model: unknown network model '{}' (available: {})", name, have);
}

} // namespace ccsim::engine
