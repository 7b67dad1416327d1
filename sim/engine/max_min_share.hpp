// Max-min fair shares for the flow model (--model flow, flow_network.cpp): the flows and channels it
// tracks, the connected components of the flows that changed (searched, or recalled as remembered
// between re-plans) and progressive filling over one component. FlowNetwork derives from it and handles
// the events: when flows start, finish and arrive.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "sim/engine/network.hpp"

namespace ccsim::engine {

class MaxMinShare {
 protected:
  using Work = unsigned __int128;
  static constexpr std::uint32_t kNoGroup = UINT32_MAX;

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
    // A ghost: its flows all finished together (retired whole) and its channels still point to it, so
    // flows that join only its channels (the next step of the same pattern) are its members and the
    // next re-plan takes it, with them, without a search (see join_ghost and recall).
    bool ghost = false;
    std::uint32_t first_member = UINT32_MAX, last_member = UINT32_MAX; // a list through next_member_
    // Replay: each member has the route of a distinct flow the ghost had (keyed by its first channel,
    // ghost_slots_), so when every old flow is matched the multiset of routes is the same and so are the
    // max-min rates: the members take their old flows' rates without a filling.
    bool replay = false;
    std::uint32_t old_flows = 0, matched = 0;
    std::uint64_t serial = 0; // ghost_slots_ entries with this serial are this ghost's
    bool repeated = false;    // written back in place from a ghost: its pattern recurs, worth slots
  };
  static constexpr std::uint32_t kNoRec = UINT32_MAX;
  struct Comp { // one connected component: ranges of comp_chans_ and comp_flows_
    std::size_t chan_begin, chan_end, flow_begin, flow_end;
    bool whole = false; // a recalled component whose group finished: all its flows are done
    std::uint32_t rec = kNoRec; // the remembered component it was recalled from, if it was
    bool ghost = false;         // recalled from a ghost (its flows are the members that joined it)
    bool replay = false;        // ... whose members match its old flows: their rates are known
  };

  // Collects, in comps_, the components of the channels of `seeds` (flows that started or finished).
  void find_components(std::span<const std::uint32_t> seeds);
  // Records a component after its finished flows left (called before sharing it); returns its index in
  // recs_, or kNoRec when no flow is left.
  std::uint32_t remember(const Comp& cm);
  // Drops the remembered components but those with a group event pending; `groups` (the component of
  // each group, an index in recs_) follows them.
  void forget_components(std::vector<std::uint32_t>& groups);
  // Flow `id` has joined only channels of the valid ghost recs_[g] (FlowNetwork::join checks): one more
  // member of it.
  void add_member(std::uint32_t g, std::uint32_t id);
  // Turns a component retired whole (recalled from recs_[r]; `old` its flows, whose rates are still
  // set; their channel lists are now empty) into a ghost: its channels keep pointing to it.
  void make_ghost(std::uint32_t r, std::span<const std::uint32_t> old);
  // A replayed ghost's members take the rates of the old flows they matched.
  void replay_rates(const Comp& cm);
  // Gives every flow of the component its max-min fair rate.
  void share(const Comp& cm);

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
  std::vector<std::uint32_t> next_member_; // per flow (from the first ghost on): the next member of its ghost
  static constexpr std::size_t kSlotRoute = 6; // longer routes are not replayed
  struct GhostSlot { // an old flow of a ghost, at its route's first channel
    std::uint64_t serial = 0; // its ghost's Rec::serial
    Bandwidth rate = 0;
    std::uint32_t len = 0;
    bool claimed = false; // a member matched it
    ChannelId route[kSlotRoute] = {};
  };
  std::vector<GhostSlot> ghost_slots_; // per channel, sized at the first ghost
  std::vector<Bandwidth> member_rate_; // per flow: the rate its matched slot had
  std::uint64_t ghost_serial_ = 0;

 private:
  static constexpr int kScanRounds = 8; // bottleneck rounds found by scanning before the heap takes over
  static constexpr ChannelId kNoChannel = UINT32_MAX;

  void recall(std::uint32_t r);
  static bool later(const Cand& a, const Cand& b);
  static bool takes_over(const Cand& best, const Cand& cand);
  void share_by_heap(std::span<const ChannelId> chans);
  template <bool kHeap>
  std::size_t fix(ChannelId b);

  std::vector<Cand> heap_;
  std::uint32_t filling_ = 0; // counts share()'s progressive fillings (Flow::fixed_in)
  std::vector<ChannelId> leaf_chans_; // find_components: channels of one flow, set aside
};

// Inline: called per flow from FlowNetwork's join and whole retirement.
inline void MaxMinShare::add_member(std::uint32_t g, std::uint32_t id) {
  Rec& rec = recs_[g];
  next_member_[id] = kNoRec;
  if (rec.first_member == kNoRec) rec.first_member = id;
  else next_member_[rec.last_member] = id;
  rec.last_member = id;
  flow_rec_[id] = g;
  if (!rec.replay) return;
  const ChannelId* const route = flows_[id].route.data();
  const std::size_t len = flows_[id].route.size();
  GhostSlot& slot = ghost_slots_[route[0]];
  bool same = slot.serial == rec.serial && !slot.claimed && slot.len == len;
  for (std::size_t i = 1; same && i < len; ++i) same = route[i] == slot.route[i]; // a few ids: no memcmp call
  if (!same) {
    rec.replay = false;
    return;
  }
  slot.claimed = true;
  member_rate_[id] = slot.rate;
  ++rec.matched;
}

inline void MaxMinShare::make_ghost(std::uint32_t r, std::span<const std::uint32_t> old) {
  Rec& rec = recs_[r];
  rec.ghost = true;
  rec.valid = true;
  rec.first_member = rec.last_member = kNoRec;
  rec.serial = ++ghost_serial_;
  rec.old_flows = static_cast<std::uint32_t>(old.size());
  rec.matched = 0;
  if (member_rate_.size() < flows_.size()) { // per-flow ghost state, kept from the first ghost on
    member_rate_.resize(flows_.size());
    next_member_.resize(flows_.size());
  }
  rec.replay = rec.repeated; // a pattern seen once (halving-doubling's partners change) is not keyed
  if (!rec.replay) return;
  if (ghost_slots_.size() < chans_.size()) ghost_slots_.resize(chans_.size());
  // Locals: the slot stores would otherwise make the compiler reload the members after each.
  GhostSlot* const slots = ghost_slots_.data();
  const Flow* const flows = flows_.data();
  const std::uint64_t serial = rec.serial;
  for (std::uint32_t id : old) {
    const ChannelId* const route = flows[id].route.data();
    const std::size_t len = flows[id].route.size();
    GhostSlot& slot = slots[route[0]];
    if (slot.serial == serial || len > kSlotRoute) { // two old flows from one channel
      rec.replay = false;
      return;
    }
    slot.serial = serial;
    slot.rate = flows[id].rate;
    slot.len = static_cast<std::uint32_t>(len);
    slot.claimed = false;
    for (std::size_t i = 0; i < len; ++i) slot.route[i] = route[i]; // a few ids: no memcpy call
  }
}

} // namespace ccsim::engine
