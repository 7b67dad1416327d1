// Max-min fair shares for the flow model: component discovery (searched, or recalled as remembered) and
// progressive filling over one component. See max_min_share.hpp and flow_network.cpp.
#include "sim/engine/max_min_share.hpp"

#include <algorithm>

namespace ccsim::engine {

// The connected components of the marked flows' channels: channels and the active flows on them, transitively, one
// component after another in comp_chans_ / comp_flows_ (sharing one component at a time keeps the
// filling's search to the channels that can interact; the rates are the same as over their union).
void MaxMinShare::find_components(std::span<const std::uint32_t> seeds) {
  ++epoch_;
  comp_chans_.clear();
  comp_flows_.clear();
  comps_.clear();
  for (std::uint32_t seed : seeds) {
    if (const std::uint32_t r = flow_rec_[seed]; r != kNoRec && recs_[r].valid) {
      if (recs_[r].seen != epoch_) recall(r);
      continue;
    }
    if (flow_stamp_[seed] == epoch_) continue; // found with an earlier seed, channels and all
    for (ChannelId s : flows_[seed].route) {
      if (chan_stamp_[s] == epoch_) continue;
      Comp cm{comp_chans_.size(), 0, comp_flows_.size(), 0, false};
      visit(s);
      for (std::size_t i = cm.chan_begin; i < comp_chans_.size(); ++i)
        for (std::uint32_t id : chans_[comp_chans_[i]].flows)
          if (flow_stamp_[id] != epoch_) {
            flow_stamp_[id] = epoch_;
            comp_flows_.push_back(id);
            for (ChannelId c : flows_[id].route) visit(c);
          }
      cm.chan_end = comp_chans_.size();
      cm.flow_end = comp_flows_.size();
      if (cm.flow_end > cm.flow_begin) comps_.push_back(cm);
    }
  }
}

// Components are remembered between re-plans (recs_: ranges of rec_chans_ / rec_flows_, and which one
// each channel and active flow belongs to), so a re-plan whose marked flow sits in a component that
// no flow has joined since (typically: its flows finishing) takes it as it was instead of searching
// again. Such a component is closed: a flow on one of its channels is one of its flows (a flow that
// joins invalidates it). After finished flows left it may really be several components; sharing
// their union gives the same rates, since progressive filling never mixes unconnected channels.
inline void MaxMinShare::recall(std::uint32_t r) {
  Rec& rec = recs_[r];
  rec.seen = epoch_;
  Comp cm{comp_chans_.size(), 0, comp_flows_.size(), 0, rec.finishing};
  rec.group = kNoGroup; // re-planned now: a pending group event of it is stale
  rec.finishing = false;
  comp_chans_.insert(comp_chans_.end(), rec_chans_.begin() + rec.chan_begin, rec_chans_.begin() + rec.chan_end);
  comp_flows_.insert(comp_flows_.end(), rec_flows_.begin() + rec.flow_begin, rec_flows_.begin() + rec.flow_end);
  cm.chan_end = comp_chans_.size();
  cm.flow_end = comp_flows_.size();
  comps_.push_back(cm);
}

// Records a component after its finished flows left (called before sharing it; the flows stay).
void MaxMinShare::remember(const Comp& cm) {
  if (cm.flow_begin == cm.flow_end) {
    for (std::size_t i = cm.chan_begin; i < cm.chan_end; ++i) chan_rec_[comp_chans_[i]] = kNoRec;
    return;
  }
  const auto r = static_cast<std::uint32_t>(recs_.size());
  recs_.push_back({static_cast<std::uint32_t>(rec_chans_.size()), 0, static_cast<std::uint32_t>(rec_flows_.size()), 0,
                   true, 0, kNoGroup, false});
  for (std::size_t i = cm.chan_begin; i < cm.chan_end; ++i) {
    rec_chans_.push_back(comp_chans_[i]);
    chan_rec_[comp_chans_[i]] = r;
  }
  for (std::size_t i = cm.flow_begin; i < cm.flow_end; ++i) {
    rec_flows_.push_back(comp_flows_[i]);
    flow_rec_[comp_flows_[i]] = r;
  }
  recs_[r].chan_end = static_cast<std::uint32_t>(rec_chans_.size());
  recs_[r].flow_end = static_cast<std::uint32_t>(rec_flows_.size());
}

// Drops the remembered components (their ranges only grow); the next re-plans search again. Those
// with a group event pending are kept (moved to the front), so the event still finds its flows.
void MaxMinShare::forget_components(std::vector<std::uint32_t>& groups) {
  std::fill(chan_rec_.begin(), chan_rec_.end(), kNoRec);
  std::fill(flow_rec_.begin(), flow_rec_.end(), kNoRec);
  std::uint32_t kept = 0, chans = 0, flows = 0;
  for (std::size_t j = 0; j < recs_.size(); ++j) {
    const Rec old = recs_[j]; // a copy: recs_[kept] may be this one
    if (old.group == kNoGroup) continue;
    Rec& rec = recs_[kept];
    rec = old;
    rec.chan_begin = chans, rec.flow_begin = flows;
    for (std::uint32_t i = old.chan_begin; i < old.chan_end; ++i, ++chans) {
      rec_chans_[chans] = rec_chans_[i];
      if (old.valid) chan_rec_[rec_chans_[chans]] = kept;
    }
    for (std::uint32_t i = old.flow_begin; i < old.flow_end; ++i, ++flows) {
      rec_flows_[flows] = rec_flows_[i];
      if (old.valid) flow_rec_[rec_flows_[flows]] = kept;
    }
    rec.chan_end = chans, rec.flow_end = flows;
    groups[rec.group] = kept++;
  }
  recs_.resize(kept);
  rec_chans_.resize(chans);
  rec_flows_.resize(flows);
}

inline void MaxMinShare::visit(ChannelId c) {
  if (chan_stamp_[c] == epoch_) return;
  chan_stamp_[c] = epoch_;
  comp_chans_.push_back(c);
}

// `later(a, b)`: a's share left/n is larger (cross-multiplied exactly), or equal with a larger id.
inline bool MaxMinShare::later(const Cand& a, const Cand& b) {
  const Work l = static_cast<Work>(a.left) * b.n, r = static_cast<Work>(b.left) * a.n;
  return l != r ? l > r : a.c > b.c;
}

// Progressive filling over one component. Bottlenecks are taken in order of (share, channel id), so
// the rates do not depend on the order the flows were posted in. A bottleneck fixes all its flows;
// small components (the usual case: a few flows behind one uplink) find the next bottleneck by a
// scan of their channels, and a component that needs more than a few rounds switches to a heap.
void MaxMinShare::share(const Comp& cm) {
  const std::span<const std::uint32_t> flows(comp_flows_.data() + cm.flow_begin, cm.flow_end - cm.flow_begin);
  const std::span<const ChannelId> chans(comp_chans_.data() + cm.chan_begin, cm.chan_end - cm.chan_begin);
  if (flows.size() == 1) { // alone: the route's narrowest channel
    Flow& f = flows_[flows[0]];
    f.rate = chans_[f.route[0]].capacity;
    for (ChannelId c : f.route) f.rate = std::min(f.rate, chans_[c].capacity);
    return;
  }
  for (std::uint32_t id : flows) flows_[id].fixed = false;
  for (ChannelId c : chans) {
    Chan& ch = chans_[c];
    ch.left = ch.capacity;
    ch.unfixed = static_cast<std::uint32_t>(ch.flows.size());
  }
  std::size_t unfixed = flows.size();
  for (int round = 0; unfixed > 0; ++round) {
    if (round == kScanRounds) return share_by_heap(chans);
    bool found = false;
    Cand best{0, 0, 0};
    for (ChannelId c : chans) {
      const Chan& ch = chans_[c];
      if (ch.unfixed == 0) continue;
      const Cand cand{ch.left, ch.unfixed, c};
      if (!found || later(best, cand)) best = cand;
      found = true;
    }
    if (!found) return; // cannot happen: an unfixed flow has unfixed channels
    unfixed -= fix(best.c, kNoChannel);
  }
}

// The rest of the filling with a heap of (share, channel) entries; outdated entries are skipped.
inline void MaxMinShare::share_by_heap(std::span<const ChannelId> chans) {
  heap_.clear();
  for (ChannelId c : chans)
    if (chans_[c].unfixed > 0) heap_.push_back({chans_[c].left, chans_[c].unfixed, c});
  std::make_heap(heap_.begin(), heap_.end(), later);
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Cand top = heap_.back();
    heap_.pop_back();
    const Chan& ch = chans_[top.c];
    if (ch.unfixed != top.n || ch.left != top.left || ch.unfixed == 0) continue; // outdated entry
    fix(top.c, top.c);
  }
}

// Fixes the unfixed flows of bottleneck channel `b` at its share and takes it off their other channels
// (pushing their new shares onto heap_ unless `heap_skip` is kNoChannel). Returns how many it fixed.
inline std::size_t MaxMinShare::fix(ChannelId b, ChannelId heap_skip) {
  Chan& ch = chans_[b];
  const Bandwidth rate = std::max<Bandwidth>(ch.left / ch.unfixed, 1);
  std::size_t fixed = 0;
  for (std::uint32_t id : ch.flows) {
    Flow& f = flows_[id];
    if (f.fixed) continue;
    f.fixed = true;
    f.rate = rate;
    ++fixed;
    for (ChannelId c : f.route) {
      Chan& o = chans_[c];
      o.left = o.left > rate ? o.left - rate : 0;
      --o.unfixed;
      if (heap_skip != kNoChannel && c != heap_skip && o.unfixed > 0) {
        heap_.push_back({o.left, o.unfixed, c});
        std::push_heap(heap_.begin(), heap_.end(), later);
      }
    }
  }
  return fixed;
}

} // namespace ccsim::engine
