// The alpha-beta link model with queues. Each directed channel serves messages one after another
// in the order they were posted. A message over route R starts when every channel of R is free and
// holds them all for bytes / min(bandwidth) (cut-through: NVLink, PCIe and IB switches forward
// packets as they arrive, and SimGrid's network model does the same); it arrives after that plus the
// summed link latencies plus the software alpha. Uncontended, this is exactly alpha + n*beta.
// "store_forward" instead crosses hop by hop, each hop paying its own latency and bytes / bandwidth.
//
// In a header so the engine, which posts every message, calls post() directly (inlined, no virtual
// call) when the model is this one; every other caller goes through NetworkModel as usual.
#pragma once
#include <algorithm>
#include <memory>

#include "sim/engine/network.hpp"

namespace ccsim::engine {

class FifoNetwork final : public NetworkModel {
 public:
  // keep_totals: per-channel bytes and busy time for stats() (ModelParams::channel_totals); without them a
  // channel is its free_at alone, 8 bytes instead of 24 of fresh memory.
  FifoNetwork(bool store_forward, Time alpha_sw, bool keep_totals = true)
      : store_forward_(store_forward), keep_totals_(keep_totals), alpha_sw_(alpha_sw) {}
  std::string name() const override { return store_forward_ ? "store_forward" : "fifo"; }
  void reset(const topology::Topology& t) override;

  Time post(std::uint64_t, std::span<const ChannelId> route, Bytes bytes, Time now, ArrivalSink&) override {
    return post(route, bytes, now);
  }
  Time post(std::span<const ChannelId> route, Bytes bytes, Time now) {
    if (route.empty()) return last_start_ = last_left_ = now, now + alpha_sw_;
    return store_forward_ ? hop_by_hop(route, bytes, now) : cut_through(route, bytes, now);
  }

  // post() on the route {up, down} (a generated crossbar's GPU to GPU: up the sender's link, down the
  // receiver's), with no route to build or walk: the engine's common case.
  Time post_pair(ChannelId up, ChannelId down, Bytes bytes, Time now) {
    if (store_forward_) {
      const ChannelId route[2] = {up, down};
      return hop_by_hop(route, bytes, now);
    }
    Time &u = free_at_[up], &d = free_at_[down];
    const Cost &ku = cost(up), &kd = cost(down);
    const Time start = std::max(std::max(now, u), d);
    const Time dur = duration(bytes, std::min(ku.capacity, kd.capacity));
    u = d = start + dur;
    if (totals_) count(up, dur, bytes), count(down, dur, bytes);
    last_start_ = start;
    last_left_ = start + dur;
    return start + dur + ku.latency + kd.latency + alpha_sw_;
  }

  // Channels [0, end) will carry messages (a run on a crossbar's first GPUs): map their fresh state now, in one
  // call. A post reads a channel before it writes it, so each fresh page would fault twice (zero page, copy).
  void populate(std::size_t end) const;

  // Asks the cache for channel c's state, which a post will soon read (see Engine::prefetch_ahead).
  void prefetch(ChannelId c) const {
    if (c < num_chans_) __builtin_prefetch(free_at_.get() + c);
  }

  const ChannelStats& stats() const override;
  ChannelStats take_stats() override;
  Time last_start() const override { return last_start_; }
  // Cut-through: the last byte enters the first link when the route is released; store-and-forward:
  // when the first hop has taken the whole message.
  Time last_left() const override { return last_left_; }
  void last_occupancy(std::span<const ChannelId> route, Bytes bytes, std::vector<Occupancy>& out) const override;

 private:
  // What the model keeps per directed channel: when it is free again (free_at_) and, when totals are kept, what
  // it carried (totals_). Zero until the channel first carries a message, so the arrays come zeroed from
  // big_alloc (big_block.hpp): huge pages that no channel's message touches cost no memory (a broadcast over a
  // few GPUs of a million-GPU crossbar maps 2 MiB of its 16 MB of free times).
  struct Totals {
    Time busy;
    Bytes bytes;
  };
  // A channel's capacity and latency: cost_[c & cost_mask_], one entry when every link is alike.
  struct Cost {
    Bandwidth capacity;
    Time latency;
  };
  struct FreeBlock {
    void operator()(void* p) const;
  };
  void count(ChannelId c, Time dur, Bytes bytes) {
    totals_[c].busy += dur;
    totals_[c].bytes += bytes;
  }
  const Cost& cost(ChannelId c) const { return cost_[c & cost_mask_]; }

  Time cut_through(std::span<const ChannelId> route, Bytes bytes, Time now) {
    Time start = now, lat = 0;
    Bandwidth bw = cost(route[0]).capacity;
    for (ChannelId c : route) {
      const Cost& k = cost(c);
      start = std::max(start, free_at_[c]);
      bw = std::min(bw, k.capacity);
      lat += k.latency;
    }
    const Time dur = duration(bytes, bw);
    for (ChannelId c : route) {
      free_at_[c] = start + dur;
      if (totals_) count(c, dur, bytes);
    }
    last_start_ = start;
    last_left_ = start + dur;
    return start + dur + lat + alpha_sw_;
  }

  Time hop_by_hop(std::span<const ChannelId> route, Bytes bytes, Time now) {
    Time t = now;
    bool first = true;
    for (ChannelId c : route) {
      const Cost& k = cost(c);
      const Time start = std::max(t, free_at_[c]);
      const Time dur = duration(bytes, k.capacity);
      if (first) last_start_ = start, last_left_ = start + dur, first = false;
      free_at_[c] = start + dur;
      if (totals_) count(c, dur, bytes);
      t = start + dur + k.latency;
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
  bool keep_totals_;
  Bytes memo_bytes_ = 0;
  Bandwidth memo_bw_ = 0;
  Time memo_dur_ = 0;
  Time alpha_sw_;
  std::unique_ptr<Time[], FreeBlock> free_at_;
  std::unique_ptr<Totals[], FreeBlock> totals_; // null when totals are not kept
  std::size_t num_chans_ = 0;
  std::vector<Cost> cost_;
  ChannelId cost_mask_ = 0;
  mutable ChannelStats stats_; // filled from totals_ when asked
  Time last_start_ = 0, last_left_ = 0;
};

} // namespace ccsim::engine
