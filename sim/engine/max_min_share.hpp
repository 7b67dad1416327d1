// Max-min fair shares for the flow model (--model flow, flow_network.cpp): the flows and channels it
// tracks, the connected components of the flows that changed (searched, or recalled as remembered
// between re-plans), progressive filling over one component, and a memo of the rates of components met
// before (recall_shares). FlowNetwork derives from it and handles the events: when flows start, finish and
// arrive.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "sim/engine/hash_index.hpp"
#include "sim/engine/network.hpp"

namespace ccsim::engine {

class MaxMinShare {
 protected:
  using Work = unsigned __int128;
  static constexpr std::uint32_t kNoGroup = UINT32_MAX;
  static constexpr std::uint32_t kNoRoute = UINT32_MAX;

  struct Flow {
    std::uint64_t token = 0;
    std::vector<ChannelId> route;
    Work work = 0;          // bytes still to send, times kPsPerSec
    Bandwidth rate = 0;     // bytes/s since `since`
    Time since = 0;
    Time finish = kNever;   // when the current rate empties `work`
    Time lat = 0;           // route latency + software alpha
    std::uint32_t gen = 0;  // bumped whenever a scheduled event of this flow becomes stale
    std::uint32_t group = kNoGroup; // the group whose one event stands for its finish (FlowNetwork::arm)
    std::uint32_t fixed_in = 0; // == filling_: its rate is fixed in the filling under way
    bool live = false, active = false;
    bool arriving = false;  // latency last: bytes through, waiting out the latency
  };
  struct Chan {
    Bandwidth capacity = 0;
    Time latency = 0;
    std::vector<std::uint32_t> flows; // active flows crossing it
    Time busy_since = 0;
    Bandwidth left = 0;     // progressive filling: capacity not yet given out
    std::uint32_t unfixed = 0;
  };

  struct Cand { // a channel's share when it was last changed: left / n
    Bandwidth left;
    std::uint32_t n;
    ChannelId c;
  };

  struct Rec { // a remembered component: ranges of rec_chans_ and rec_flows_
    std::uint32_t chan_begin, chan_end, flow_begin, flow_end;
    bool valid;         // no flow joined one of its channels since
    std::uint32_t seen; // == epoch_: already taken in this re-plan
    std::uint32_t group = kNoGroup; // its flows finish together through this group's one event
    bool finishing = false;         // that event fired: every flow of it is done
  };
  static constexpr std::uint32_t kNoRec = UINT32_MAX;
  struct Comp { // one connected component: ranges of comp_chans_ and comp_flows_
    std::size_t chan_begin, chan_end, flow_begin, flow_end;
    bool whole = false; // a recalled component whose group finished: all its flows are done
  };

  // When `f` empties its work at its current rate (rounded up to the next ps).
  static Time finish_of(const Flow& f, Time now) {
    const Work w = f.work + f.rate - 1; // most fit 64 bits (1 MiB x 1e12): a plain division
    return now + static_cast<Time>(w >> 64 ? w / f.rate : static_cast<std::uint64_t>(w) / f.rate);
  }

  // Collects, in comps_, the components of the channels of `seeds` (flows that started or finished).
  void find_components(std::span<const std::uint32_t> seeds);
  // Records a component after its finished flows left (called before sharing it).
  void remember(const Comp& cm);
  // Drops the remembered components but those with a group event pending; `groups` (the component of
  // each group, an index in recs_) follows them.
  void forget_components(std::vector<std::uint32_t>& groups);
  // Gives every flow of the component its max-min fair rate.
  void share(const Comp& cm);
  // After the channels were set (reset): forgets the share memo unless their capacities are those it was
  // filled with (a sweep's sizes run on one topology and keep it).
  void check_share_memo();

  std::vector<Flow> flows_;
  std::vector<Chan> chans_;
  std::vector<ChannelId> comp_chans_;
  std::vector<std::uint32_t> comp_flows_;
  std::vector<Comp> comps_;
  std::uint32_t epoch_ = 0;
  // Component search marks (== epoch_: seen), apart from the flows and channels so the walk's checks
  // stay in a few cache lines.
  std::vector<std::uint32_t> chan_stamp_, flow_stamp_;
  std::vector<Rec> recs_;
  std::vector<ChannelId> rec_chans_;
  std::vector<std::uint32_t> rec_flows_, chan_rec_, flow_rec_; // chan_rec_ / flow_rec_: index in recs_ or kNoRec
  // Each flow's route number in the share memo (route_id()) once asked, else kNoRoute; apart from Flow,
  // which it would grow past 96 bytes.
  std::vector<std::uint32_t> flow_route_;

 private:
  static constexpr int kScanRounds = 8; // bottleneck rounds found by scanning before the heap takes over
  static constexpr ChannelId kNoChannel = UINT32_MAX;

  void recall(std::uint32_t r);
  void fill(std::span<const std::uint32_t> flows, std::span<const ChannelId> chans);
  std::uint32_t route_id(std::uint32_t flow);
  bool recall_shares(std::span<const std::uint32_t> flows);
  void remember_shares();
  static bool later(const Cand& a, const Cand& b);
  static bool takes_over(const Cand& best, const Cand& cand);
  void share_by_heap(std::span<const ChannelId> chans, std::size_t unfixed);
  template <bool kHeap>
  std::size_t fix(ChannelId b);

  std::vector<Cand> heap_;
  std::uint32_t filling_ = 0; // counts share()'s progressive fillings (Flow::fixed_in)
  std::vector<ChannelId> leaf_chans_; // find_components: channels of one flow, set aside

  // The share memo (recall_shares): a component's rates depend only on the routes of its flows, counted
  // with repeats, so a pipeline whose components recur takes their rates from the first filling.
  // Routes are numbered by content (route_id); a component's key is its flows' route numbers, sorted.
  struct SharesEntry {
    std::uint32_t begin, count; // in memo_routes_ / memo_rates_
  };
  static constexpr std::size_t kMemoFlows = std::size_t{1} << 21; // route numbers and rates kept, at most
  std::vector<std::uint64_t> key_;                             // route number << 32 | flow, sorted
  std::uint64_t key_hash_ = 0;
  HashIndex memo_index_;                                        // key hash -> index in memo_entries_
  std::vector<SharesEntry> memo_entries_;
  std::vector<std::uint32_t> memo_routes_;
  std::vector<Bandwidth> memo_rates_;
  HashIndex route_index_;                                             // route hash -> route number
  std::vector<std::uint32_t> route_begin_{0};                        // route r: route_chans_[begin[r], begin[r + 1])
  std::vector<ChannelId> route_chans_;
  std::vector<Bandwidth> memo_caps_; // the channels' capacities the memo's rates hold for
};

} // namespace ccsim::engine
