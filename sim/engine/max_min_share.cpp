// Max-min fair shares for the flow model: component discovery (searched, or recalled as remembered) and
// progressive filling over one component. See max_min_share.hpp and flow_network.cpp.
#include "sim/engine/max_min_share.hpp"

#include <algorithm>

namespace ccsim::engine {

// The connected components of the marked flows' channels: channels and the active flows on them, transitively, one
// component after another in comp_chans_ / comp_flows_ (sharing one component at a time keeps the
// filling's search to the channels that can interact; the rates are the same as over their union).
void MaxMinShare::find_components(std::span<const std::uint32_t> seeds) {
  const std::uint32_t epoch = ++epoch_;
  comp_chans_.clear();
  comp_flows_.clear();
  comps_.clear();
  // Locals, not members: the stamps are uint32 arrays, so the compiler would reload every member a
  // stamp store might alias (epoch_, the arrays' addresses) on each step of the walk.
  std::uint32_t* const chan_stamp = chan_stamp_.data();
  std::uint32_t* const flow_stamp = flow_stamp_.data();
  const Flow* const flows = flows_.data();
  const Chan* const chans = chans_.data();
  for (std::uint32_t seed : seeds) {
    if (const std::uint32_t r = flow_rec_[seed]; r != kNoRec && recs_[r].valid) {
      if (recs_[r].seen != epoch) recall(r);
      continue;
    }
    if (flow_stamp[seed] == epoch) continue; // found with an earlier seed, channels and all
    for (ChannelId s : flows[seed].route) {
      if (chan_stamp[s] == epoch) continue;
      Comp cm{comp_chans_.size(), 0, comp_flows_.size(), 0, false};
      chan_stamp[s] = epoch;
      comp_chans_.push_back(s);
      leaf_chans_.clear();
      for (std::size_t i = cm.chan_begin; i < comp_chans_.size(); ++i)
        for (std::uint32_t id : chans[comp_chans_[i]].flows) {
          if (flow_stamp[id] == epoch) continue;
          flow_stamp[id] = epoch;
          comp_flows_.push_back(id);
          for (ChannelId c : flows[id].route) {
            if (chan_stamp[c] == epoch) continue;
            chan_stamp[c] = epoch;
            // A channel whose one flow is this one leads nowhere else (a GPU's own link, usually): it
            // joins the component without being walked. The order of a component's channels is free.
            const std::vector<std::uint32_t>& on = chans[c].flows;
            if (on.size() == 1 && on[0] == id) leaf_chans_.push_back(c);
            else comp_chans_.push_back(c);
          }
        }
      comp_chans_.insert(comp_chans_.end(), leaf_chans_.begin(), leaf_chans_.end());
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
  const std::span<const ChannelId> chans(comp_chans_.data() + cm.chan_begin, cm.chan_end - cm.chan_begin);
  const std::span<const std::uint32_t> flows(comp_flows_.data() + cm.flow_begin, cm.flow_end - cm.flow_begin);
  std::uint32_t* const chan_rec = chan_rec_.data();
  if (flows.empty()) {
    for (ChannelId c : chans) chan_rec[c] = kNoRec;
    return;
  }
  const auto r = static_cast<std::uint32_t>(recs_.size());
  const auto chan_begin = static_cast<std::uint32_t>(rec_chans_.size());
  const auto flow_begin = static_cast<std::uint32_t>(rec_flows_.size());
  rec_chans_.insert(rec_chans_.end(), chans.begin(), chans.end());
  rec_flows_.insert(rec_flows_.end(), flows.begin(), flows.end());
  recs_.push_back({chan_begin, static_cast<std::uint32_t>(rec_chans_.size()), flow_begin,
                   static_cast<std::uint32_t>(rec_flows_.size()), true, 0, kNoGroup, false});
  for (ChannelId c : chans) chan_rec[c] = r;
  std::uint32_t* const flow_rec = flow_rec_.data();
  for (std::uint32_t id : flows) flow_rec[id] = r;
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

// `later(a, b)`: a's share left/n is larger (cross-multiplied exactly), or equal with a larger id.
inline bool MaxMinShare::later(const Cand& a, const Cand& b) {
  const Work l = static_cast<Work>(a.left) * b.n, r = static_cast<Work>(b.left) * a.n;
  return l != r ? l > r : a.c > b.c;
}

// Whether `cand` takes over from `best` as the next bottleneck: later(best, cand). Most channels of a
// component have no less left for no more flows than the best so far (a GPU's own link against a shared
// uplink): their share is larger, which needs no cross-multiplication.
inline bool MaxMinShare::takes_over(const Cand& best, const Cand& cand) {
  // Strictly larger: more left for no more flows, or as much (not none) for fewer.
  if (cand.n <= best.n && cand.left >= best.left && (cand.left > best.left || (cand.n < best.n && cand.left > 0)))
    return false;
  return later(best, cand);
}

// Gives every flow of the component its max-min fair rate: alone, the narrowest channel of its route; otherwise
// the rates of the last component of the same routes (recall_shares), or progressive filling (fill).
void MaxMinShare::share(const Comp& cm) {
  const std::span<const std::uint32_t> flows(comp_flows_.data() + cm.flow_begin, cm.flow_end - cm.flow_begin);
  const std::span<const ChannelId> chans(comp_chans_.data() + cm.chan_begin, cm.chan_end - cm.chan_begin);
  if (flows.size() == 1) { // alone: the route's narrowest channel
    Flow& f = flows_[flows[0]];
    f.rate = chans_[f.route[0]].capacity;
    for (ChannelId c : f.route) f.rate = std::min(f.rate, chans_[c].capacity);
    return;
  }
  if (recall_shares(flows)) return;
  fill(flows, chans);
  remember_shares();
}

namespace {
std::uint64_t mix(std::uint64_t h, std::uint64_t v) { // splitmix64's finaliser over h ^ v
  std::uint64_t z = (h ^ v) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
} // namespace

// The number of f's route: equal routes (same channels, same order) get the same number.
std::uint32_t MaxMinShare::route_id(std::uint32_t flow) {
  if (flow_route_[flow] != kNoRoute) return flow_route_[flow];
  const Flow& f = flows_[flow];
  std::uint64_t h = f.route.size();
  for (ChannelId c : f.route) h = mix(h, c);
  const std::uint32_t found = route_index_.find(h, [&](std::uint32_t r) {
    return std::equal(f.route.begin(), f.route.end(), route_chans_.begin() + route_begin_[r],
                      route_chans_.begin() + route_begin_[r + 1]);
  });
  if (found != HashIndex::kNone) return flow_route_[flow] = found;
  const auto r = static_cast<std::uint32_t>(route_begin_.size() - 1);
  route_chans_.insert(route_chans_.end(), f.route.begin(), f.route.end());
  route_begin_.push_back(static_cast<std::uint32_t>(route_chans_.size()));
  route_index_.insert(h, r);
  return flow_route_[flow] = r;
}

// Max-min rates are a function of the component's routes alone (the channels' capacities are fixed between
// resets, and a component holds every flow on its channels): flows of equal routes get equal rates, and the
// bottleneck order goes by (share, channel id), never by flow. So the key is the flows' route numbers, sorted
// (flow ids ride along in the low half to hand the rates back). Returns whether the key was met before (the
// rates are set); otherwise key_ waits for remember_shares, after the filling.
bool MaxMinShare::recall_shares(std::span<const std::uint32_t> flows) {
  if (route_chans_.size() > kMemoFlows) { // routes numbered for long: start over
    route_index_.clear();
    route_begin_.assign(1, 0);
    route_chans_.clear();
    std::fill(flow_route_.begin(), flow_route_.end(), kNoRoute);
  }
  key_.clear();
  for (std::uint32_t id : flows) key_.push_back(static_cast<std::uint64_t>(route_id(id)) << 32 | id);
  std::sort(key_.begin(), key_.end());
  std::uint64_t h = key_.size();
  for (std::uint64_t k : key_) h = mix(h, k >> 32);
  key_hash_ = h;
  const std::uint32_t found = memo_index_.find(h, [&](std::uint32_t e) {
    if (memo_entries_[e].count != key_.size()) return false;
    const std::uint32_t* const routes = memo_routes_.data() + memo_entries_[e].begin;
    for (std::size_t i = 0; i < key_.size(); ++i)
      if (routes[i] != key_[i] >> 32) return false;
    return true;
  });
  if (found == HashIndex::kNone) return false;
  const SharesEntry& e = memo_entries_[found];
  const Bandwidth* const rates = memo_rates_.data() + e.begin;
  for (std::size_t i = 0; i < key_.size(); ++i) flows_[static_cast<std::uint32_t>(key_[i])].rate = rates[i];
  return true;
}

// Keeps the rates just filled under key_.
void MaxMinShare::remember_shares() {
  if (memo_routes_.size() + key_.size() > kMemoFlows) { // full: start over
    memo_index_.clear();
    memo_entries_.clear();
    memo_routes_.clear();
    memo_rates_.clear();
  }
  const auto begin = static_cast<std::uint32_t>(memo_routes_.size());
  for (std::uint64_t k : key_) {
    memo_routes_.push_back(static_cast<std::uint32_t>(k >> 32));
    memo_rates_.push_back(flows_[static_cast<std::uint32_t>(k)].rate);
  }
  memo_index_.insert(key_hash_, static_cast<std::uint32_t>(memo_entries_.size()));
  memo_entries_.push_back({begin, static_cast<std::uint32_t>(key_.size())});
}

void MaxMinShare::check_share_memo() {
  const bool same = memo_caps_.size() == chans_.size() &&
                    std::equal(chans_.begin(), chans_.end(), memo_caps_.begin(),
                               [](const Chan& c, Bandwidth cap) { return c.capacity == cap; });
  if (same) return;
  memo_index_.clear();
  memo_entries_.clear();
  memo_routes_.clear();
  memo_rates_.clear();
  memo_caps_.clear();
  for (const Chan& c : chans_) memo_caps_.push_back(c.capacity);
}

// Progressive filling over one component of two flows or more. Bottlenecks are taken in order of (share,
// channel id), so the rates do not depend on the order the flows were posted in. A bottleneck fixes all its
// flows; small components (the usual case: a few flows behind one uplink) find the next bottleneck by a
// scan of their channels, and a component that needs more than a few rounds switches to a heap.
void MaxMinShare::fill(std::span<const std::uint32_t> flows, std::span<const ChannelId> chans) {
  Chan* const ch = chans_.data();
  if (++filling_ == 0) { // 2^32 fillings: old marks could read as this one's
    for (Flow& f : flows_) f.fixed_in = 0;
    filling_ = 1;
  }
  // The first round's scan also resets the channels.
  Cand best{0, 0, kNoChannel};
  for (ChannelId c : chans) {
    Chan& o = ch[c];
    o.left = o.capacity;
    o.unfixed = static_cast<std::uint32_t>(o.flows.size());
    if (o.unfixed == 0) continue;
    const Cand cand{o.left, o.unfixed, c};
    if (best.c == kNoChannel || takes_over(best, cand)) best = cand;
  }
  for (std::size_t unfixed = flows.size(), round = 1;; ++round) {
    if (best.c == kNoChannel) return; // cannot happen: an unfixed flow has unfixed channels
    unfixed -= fix<false>(best.c);
    if (unfixed == 0) return;
    if (round == kScanRounds) return share_by_heap(chans, unfixed);
    best = Cand{0, 0, kNoChannel};
    for (ChannelId c : chans) {
      const Chan& o = ch[c];
      if (o.unfixed == 0) continue;
      const Cand cand{o.left, o.unfixed, c};
      if (best.c == kNoChannel || takes_over(best, cand)) best = cand;
    }
  }
}

// The rest of the filling with a heap of (share, channel) entries; outdated entries are skipped. It stops when
// the last flow is fixed: every entry left then is outdated.
inline void MaxMinShare::share_by_heap(std::span<const ChannelId> chans, std::size_t unfixed) {
  heap_.clear();
  for (ChannelId c : chans)
    if (chans_[c].unfixed > 0) heap_.push_back({chans_[c].left, chans_[c].unfixed, c});
  std::make_heap(heap_.begin(), heap_.end(), later);
  while (unfixed > 0 && !heap_.empty()) { // once every flow is fixed, the entries left are all outdated
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Cand top = heap_.back();
    heap_.pop_back();
    const Chan& ch = chans_[top.c];
    if (ch.unfixed != top.n || ch.left != top.left || ch.unfixed == 0) continue; // outdated entry
    unfixed -= fix<true>(top.c);
  }
}

// Fixes the unfixed flows of bottleneck channel `b` at its share and takes it off their other channels
// (pushing their new shares onto heap_ when `kHeap`). Returns how many it fixed.
template <bool kHeap>
inline std::size_t MaxMinShare::fix(ChannelId b) {
  Flow* const fl = flows_.data();
  Chan* const ch = chans_.data();
  const Bandwidth rate = std::max<Bandwidth>(ch[b].left / ch[b].unfixed, 1);
  std::size_t fixed = 0;
  for (std::uint32_t id : ch[b].flows) {
    Flow& f = fl[id];
    if (f.fixed_in == filling_) continue;
    f.fixed_in = filling_;
    f.rate = rate;
    ++fixed;
    for (ChannelId c : f.route) {
      Chan& o = ch[c];
      o.left = o.left > rate ? o.left - rate : 0;
      --o.unfixed;
      if (kHeap && c != b && o.unfixed > 0) {
        heap_.push_back({o.left, o.unfixed, c});
        std::push_heap(heap_.begin(), heap_.end(), later);
      }
    }
  }
  return fixed;
}

} // namespace ccsim::engine
