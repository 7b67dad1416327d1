// The flow-level model (--model flow): transfers share each directed channel max-min fairly, as in
// SimGrid's fluid network model. A transfer first waits out its route's latency (plus the software
// alpha) without using bandwidth; then it is a flow over its whole route (cut-through), whose rate is
// its max-min fair share, found by progressive filling: the channel with the smallest
// (free capacity / unfixed flows) fixes all its flows at that share, which is taken off every other
// channel they cross, and so on. Alone on its route a flow runs at the bottleneck capacity B, so an
// uncontended message costs exactly latency + transfer_time(bytes, B), as the fifo model.
//
// Exact and deterministic: remaining work is an integer (bytes x ps-per-second, 128-bit), rates are whole
// bytes/s (shares rounded down), finish times round up to the next ps. Rates only change when a flow
// starts or ends, and only for the flows connected to it through shared channels (its component, shared
// on its own; a ring on a fat tree is many small ones), so independent flows cost O(route) each; starts
// and finishes at one instant are re-planned together. A flow's predicted finish is tagged with a
// generation number; re-planning bumps it, and stale events are ignored. Observers see a transfer when
// it is posted, before its arrival is known: TransferRecord::arrive is kNever, start the post time.
// Latency first (SimGrid's order) or last: with `latency_last` (gpu step semantics) a flow joins its
// channels when posted and, once its bytes are through, has left its sender; it arrives a route latency
// (plus the software alpha) later. Alone on its route it costs the same either way.
#include <algorithm>

#include "sim/engine/network.hpp"
#include "sim/engine/token_sort.hpp"

namespace ccsim::engine {
namespace {

using Work = unsigned __int128;

class FlowNetwork final : public NetworkModel {
 public:
  FlowNetwork(Time alpha_sw, bool latency_last) : alpha_sw_(alpha_sw), latency_last_(latency_last) {}
  std::string name() const override { return "flow"; }

  void reset(const topology::Topology& t) override {
    const std::size_t n = t.num_channels();
    chans_.assign(n, Chan{});
    for (std::size_t c = 0; c < n; ++c) {
      chans_[c].capacity = t.channel_capacity(static_cast<ChannelId>(c)); // no link list on a generated crossbar
      chans_[c].latency = t.channel_latency(static_cast<ChannelId>(c));
    }
    stats_.bytes.assign(n, 0);
    stats_.busy.assign(n, 0);
    flows_.clear();
    flow_stamp_.clear();
    chan_stamp_.assign(n, 0);
    flow_rec_.clear();
    chan_rec_.assign(n, kNoRec);
    recs_.clear();
    rec_chans_.clear();
    rec_flows_.clear();
    free_.clear();
    dirty_.clear();
    batches_.clear();
    free_batches_.clear();
    groups_.clear();
    free_groups_.clear();
    open_batch_ = kNoBatch;
    replan_pending_ = false;
    epoch_ = 0;
    last_start_ = 0;
  }

  Time post(std::uint64_t token, std::span<const ChannelId> route, Bytes bytes, Time now, ArrivalSink& sink) override {
    last_start_ = last_left_ = now;
    if (route.empty()) return now + alpha_sw_;
    Time lat = alpha_sw_;
    for (ChannelId c : route) {
      lat += chans_[c].latency;
      stats_.bytes[c] += bytes;
    }
    if (bytes == 0) return now + lat;
    last_left_ = kNever; // reported through on_model_event
    std::uint32_t id;
    if (free_.empty()) {
      id = static_cast<std::uint32_t>(flows_.size());
      flows_.emplace_back();
      flow_stamp_.push_back(0);
      flow_rec_.push_back(kNoRec);
    } else {
      id = free_.back();
      free_.pop_back();
    }
    Flow& f = flows_[id];
    f.token = token;
    f.route.assign(route.begin(), route.end());
    f.work = static_cast<Work>(bytes) * static_cast<Work>(kPsPerSec);
    f.rate = 0;
    f.since = now + lat;
    f.finish = kNever;
    f.live = true;
    f.active = false;
    f.arriving = false;
    f.lat = lat;
    // The latency phase is a pure delay; the flow joins its channels when it is over (or at once, when
    // the latency comes last).
    schedule(latency_last_ ? now : now + lat, now, id, tag(f, true), sink);
    return kNever;
  }

  // Starts and finishes only mark their flows; one re-plan event, queued behind everything already due
  // at this instant, then shares their components once (p flows starting together cost one re-plan, not
  // p). A batch event carries the flow events that fall due at one instant (see schedule()).
  void on_model_event(Time now, std::uint32_t id, std::uint32_t b, ArrivalSink& sink,
                      std::vector<std::uint64_t>& arrived, std::vector<std::uint64_t>& left) override {
    if (id == kReplan) {
      replan_pending_ = false;
      replan(now, sink, latency_last_ ? left : arrived);
      dirty_.clear();
      return;
    }
    if (open_batch_ == b) open_batch_ = kNoBatch;
    for (std::size_t i = 0; i < batches_[b].items.size(); ++i) {
      const auto item = batches_[b].items[i];
      if (item.first & kGroupItem) group_event(now, item.first & ~kGroupItem, sink);
      else flow_event(now, item.first, item.second, sink, arrived);
    }
    batches_[b].items.clear();
    free_batches_.push_back(b);
  }

  const ChannelStats& stats() const override { return stats_; }
  Time last_start() const override { return last_start_; }
  Time last_left() const override { return last_left_; }

 private:
  static constexpr std::uint32_t kGenMask = 0x7fffffff;
  static constexpr std::uint32_t kReplan = UINT32_MAX; // model event id of the deferred re-plan
  static constexpr std::uint32_t kBatch = 0;           // model event id of a batch (b = its index)
  static constexpr std::uint32_t kNoBatch = UINT32_MAX;
  static constexpr std::uint32_t kGroupItem = 0x80000000; // batch item of a group (the rest: its index in groups_)
  static constexpr std::uint32_t kNoGroup = UINT32_MAX;

  // Flow events fall due in crowds (a ring's p flows start, and finish, at one instant): an event due
  // later than `now` joins the open batch due at the same instant, one engine event. The batch fires where
  // its first event would have; its other events only mark flows (or, latency last, deliver arrivals that
  // post later flows) without reading what the events in between changed, so re-plans see the same flows.
  void schedule(Time at, Time now, std::uint32_t flow, std::uint32_t flow_tag, ArrivalSink& sink) {
    if (at > now && open_batch_ != kNoBatch && open_at_ == at) [[likely]] {
      batches_[open_batch_].items.emplace_back(flow, flow_tag);
      return;
    }
    open_new_batch(at, flow, flow_tag, sink);
  }
  [[gnu::noinline]] void open_new_batch(Time at, std::uint32_t flow, std::uint32_t flow_tag, ArrivalSink& sink) {
    std::uint32_t b;
    if (free_batches_.empty()) {
      b = static_cast<std::uint32_t>(batches_.size());
      batches_.emplace_back();
    } else {
      b = free_batches_.back();
      free_batches_.pop_back();
    }
    batches_[b].items.emplace_back(flow, flow_tag);
    open_batch_ = b;
    open_at_ = at;
    sink.schedule_model_event(at, kBatch, b);
  }

  void flow_event(Time now, std::uint32_t id, std::uint32_t b, ArrivalSink& sink, std::vector<std::uint64_t>& arrived) {
    Flow& f = flows_[id];
    if (!f.live || (b >> 1) != (f.gen & kGenMask)) return; // re-planned or finished since
    if (f.arriving) { // latency last: the bytes left earlier and arrive now
      arrived.push_back(f.token);
      retire(id);
      return;
    }
    if (b & 1) { // latency over (or, latency last, posted): start moving bytes
      f.active = true;
      for (ChannelId c : f.route) join(c, id, now);
    }
    mark(id, now, sink);
  }

  void mark(std::uint32_t id, Time now, ArrivalSink& sink) {
    dirty_.push_back(id);
    if (!replan_pending_) {
      replan_pending_ = true;
      sink.schedule_model_event(now, kReplan, 0);
    }
  }

  // A group's finish fell due: if its component is as it was when armed, every flow of it is done now.
  // One of its flows seeds the re-plan, which recalls the component and retires it whole (see arm()).
  void group_event(Time now, std::uint32_t g, ArrivalSink& sink) {
    const std::uint32_t r = groups_[g];
    free_groups_.push_back(g);
    Rec& rec = recs_[r];
    if (rec.group == g && rec.valid) {
      rec.group = kNoGroup;
      rec.finishing = true;
      mark(rec_flows_[rec.flow_begin], now, sink);
      return;
    }
    // A flow joined one of its channels (perhaps one its flows had left, so not theirs), or a re-plan took
    // some of them: those still waiting on this group are marked one by one, as their own events would.
    for (std::uint32_t i = rec.flow_begin; i < rec.flow_end; ++i)
      if (Flow& f = flows_[rec_flows_[i]]; f.group == g) {
        f.group = kNoGroup;
        mark(rec_flows_[i], now, sink);
      }
  }

  struct Flow {
    std::uint64_t token = 0;
    std::vector<ChannelId> route;
    Work work = 0;          // bytes still to send, times kPsPerSec
    Bandwidth rate = 0;     // bytes/s since `since`
    Time since = 0;
    Time finish = kNever;   // when the current rate empties `work`
    Time lat = 0;           // route latency + software alpha
    std::uint32_t gen = 0;  // bumped whenever a scheduled event of this flow becomes stale
    std::uint32_t group = kNoGroup; // the group whose one event stands for its finish (see arm())
    bool live = false, active = false, fixed = false;
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
  static constexpr int kScanRounds = 8; // bottleneck rounds found by scanning before the heap takes over
  static constexpr ChannelId kNoChannel = UINT32_MAX;

  static std::uint32_t tag(const Flow& f, bool activate) { return ((f.gen & kGenMask) << 1) | (activate ? 1u : 0u); }

  void join(ChannelId c, std::uint32_t id, Time now) {
    Chan& ch = chans_[c];
    if (ch.flows.empty()) ch.busy_since = now;
    ch.flows.push_back(id);
    if (chan_rec_[c] != kNoRec) recs_[chan_rec_[c]].valid = false; // its component grows
  }
  // The component's finished flows (no longer active) leave its channels: one pass over each list,
  // instead of a search per flow and channel.
  void leave(const Comp& cm, Time now) {
    for (std::size_t i = cm.chan_begin; i < cm.chan_end; ++i) {
      const ChannelId c = comp_chans_[i];
      auto& list = chans_[c].flows;
      if (list.empty()) continue;
      std::erase_if(list, [&](std::uint32_t id) { return !flows_[id].active; });
      if (list.empty()) stats_.busy[c] += now - chans_[c].busy_since;
    }
  }

  void retire(std::uint32_t id) {
    Flow& f = flows_[id];
    f.live = f.active = f.arriving = false;
    f.group = kNoGroup;
    ++f.gen;
    flow_rec_[id] = kNoRec;
    free_.push_back(id);
  }

  // Re-plans every flow connected to the marked flows (dirty_) through shared channels: brings their progress up to `now`,
  // retires those that are done (reported in `done`, ordered by token: arrived, or with the latency
  // last, left their sender), shares each connected component's channels anew and schedules the new
  // finish times of the flows whose finish moved.
  void replan(Time now, ArrivalSink& sink, std::vector<std::uint64_t>& done) {
    if (rec_chans_.size() > 8 * chans_.size() + 4096) forget_components();
    find_components();
    // Progress up to now; finished flows leave (each component keeps its remaining flows contiguous).
    done_.clear();
    std::size_t keep = 0;
    for (Comp& cm : comps_) {
      const std::size_t first = keep, done_before = done_.size();
      if (cm.whole) {
        retire_whole(cm, now);
        cm.flow_begin = cm.flow_end = keep;
        continue;
      }
      for (std::size_t i = cm.flow_begin; i < cm.flow_end; ++i) {
        const std::uint32_t id = comp_flows_[i];
        Flow& f = flows_[id];
        const Work moved = static_cast<Work>(f.rate) * static_cast<Work>(now - f.since);
        f.work = moved >= f.work ? 0 : f.work - moved;
        f.since = now;
        if (f.work == 0) {
          f.active = false;
          done_.emplace_back(f.token, id);
        } else {
          comp_flows_[keep++] = id;
        }
      }
      cm.flow_begin = first;
      cm.flow_end = keep;
      if (done_.size() > done_before) leave(cm, now);
    }
    sort_by_token(done_, sort_scratch_);
    for (const auto& [token, id] : done_) {
      Flow& f = flows_[id];
      done.push_back(f.token);
      if (!latency_last_) {
        retire(id);
        continue;
      }
      f.active = false;
      f.arriving = true;
      f.group = kNoGroup;
      flow_rec_[id] = kNoRec;
      ++f.gen;
      schedule(now + f.lat, now, id, tag(f, true), sink);
    }
    for (const Comp& cm : comps_) {
      remember(cm);
      if (cm.flow_begin == cm.flow_end) continue; // every flow of it finished
      share(cm);
      if (arm(cm, now, sink)) continue;
      for (std::size_t i = cm.flow_begin; i < cm.flow_end; ++i) {
        const std::uint32_t id = comp_flows_[i];
        Flow& f = flows_[id];
        const Time finish = finish_of(f, now);
        if (finish == f.finish) continue; // its pending event is still right
        f.finish = finish;
        f.group = kNoGroup;
        ++f.gen;
        schedule(finish, now, id, tag(f, false), sink);
      }
    }
  }

  static Time finish_of(const Flow& f, Time now) {
    const Work w = f.work + f.rate - 1; // most fit 64 bits (1 MiB x 1e12): a plain division
    return now + static_cast<Time>(w >> 64 ? w / f.rate : static_cast<std::uint64_t>(w) / f.rate);
  }

  // Flows that share a bottleneck and started together with equal sizes (a ring step's k flows behind
  // one uplink) finish at one instant. When every flow of the component just shared (remembered last,
  // in recs_.back()) finishes at the same time and none has an event pending for it, one group event
  // stands for all: fired while the component is unchanged (no flow joined, no re-plan took it), every
  // flow of it is done then, which its re-plan takes as a whole (retire_whole) instead of flow by flow.
  // Its flows' `finish` stays kNever, so a re-plan that does take the component schedules each anew.
  bool arm(const Comp& cm, Time now, ArrivalSink& sink) {
    Time at = kNever;
    for (std::size_t i = cm.flow_begin; i < cm.flow_end; ++i) {
      const Flow& f = flows_[comp_flows_[i]];
      const Time finish = finish_of(f, now);
      if (f.finish != kNever || (at != kNever && finish != at)) return false;
      at = finish;
    }
    if (at == kNever) return false;
    std::uint32_t g;
    if (free_groups_.empty()) {
      g = static_cast<std::uint32_t>(groups_.size());
      groups_.push_back(0);
    } else {
      g = free_groups_.back();
      free_groups_.pop_back();
    }
    const auto r = static_cast<std::uint32_t>(recs_.size() - 1);
    groups_[g] = r;
    recs_[r].group = g;
    for (std::size_t i = cm.flow_begin; i < cm.flow_end; ++i) {
      Flow& f = flows_[comp_flows_[i]];
      ++f.gen; // any older event is stale
      f.group = g;
    }
    schedule(at, now, kGroupItem | g, 0, sink);
    return true;
  }

  // Every flow of a recalled component whose group fired is done: all of them leave all its channels.
  void retire_whole(const Comp& cm, Time now) {
    for (std::size_t i = cm.flow_begin; i < cm.flow_end; ++i) {
      const std::uint32_t id = comp_flows_[i];
      Flow& f = flows_[id];
      f.work = 0;
      f.since = now;
      f.active = false;
      done_.emplace_back(f.token, id);
    }
    for (std::size_t i = cm.chan_begin; i < cm.chan_end; ++i) {
      const ChannelId c = comp_chans_[i];
      auto& list = chans_[c].flows;
      if (list.empty()) continue;
      list.clear();
      stats_.busy[c] += now - chans_[c].busy_since;
    }
  }

  // The connected components of the marked flows' channels: channels and the active flows on them, transitively, one
  // component after another in comp_chans_ / comp_flows_ (sharing one component at a time keeps the
  // filling's search to the channels that can interact; the rates are the same as over their union).
  void find_components() {
    ++epoch_;
    comp_chans_.clear();
    comp_flows_.clear();
    comps_.clear();
    for (std::uint32_t seed : dirty_) {
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
  void recall(std::uint32_t r) {
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
  void remember(const Comp& cm) {
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
  void forget_components() {
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
      groups_[rec.group] = kept++;
    }
    recs_.resize(kept);
    rec_chans_.resize(chans);
    rec_flows_.resize(flows);
  }

  void visit(ChannelId c) {
    if (chan_stamp_[c] == epoch_) return;
    chan_stamp_[c] = epoch_;
    comp_chans_.push_back(c);
  }

  // `later(a, b)`: a's share left/n is larger (cross-multiplied exactly), or equal with a larger id.
  static bool later(const Cand& a, const Cand& b) {
    const Work l = static_cast<Work>(a.left) * b.n, r = static_cast<Work>(b.left) * a.n;
    return l != r ? l > r : a.c > b.c;
  }

  // Progressive filling over one component. Bottlenecks are taken in order of (share, channel id), so
  // the rates do not depend on the order the flows were posted in. A bottleneck fixes all its flows;
  // small components (the usual case: a few flows behind one uplink) find the next bottleneck by a
  // scan of their channels, and a component that needs more than a few rounds switches to a heap.
  void share(const Comp& cm) {
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
  void share_by_heap(std::span<const ChannelId> chans) {
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
  std::size_t fix(ChannelId b, ChannelId heap_skip) {
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

  Time alpha_sw_;
  bool latency_last_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_;
  std::vector<Chan> chans_;
  std::vector<ChannelId> comp_chans_;
  std::vector<std::uint32_t> comp_flows_;
  std::vector<TokenFlow> done_, sort_scratch_;
  std::vector<Cand> heap_;
  std::vector<Comp> comps_;
  std::vector<std::uint32_t> dirty_; // flows that started or finished since the last re-plan
  struct Batch {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> items; // (flow, tag)
  };
  std::vector<Batch> batches_;
  std::vector<std::uint32_t> free_batches_;
  std::vector<std::uint32_t> groups_, free_groups_; // groups_: the component (index in recs_) of each group
  std::uint32_t open_batch_ = kNoBatch; // the batch later events due at open_at_ may join
  Time open_at_ = 0;
  bool replan_pending_ = false;
  std::uint32_t epoch_ = 0;
  // Component search marks (== epoch_: seen), apart from the flows and channels so the walk's checks
  // stay in a few cache lines.
  std::vector<std::uint32_t> chan_stamp_, flow_stamp_;
  std::vector<Rec> recs_;
  std::vector<ChannelId> rec_chans_;
  std::vector<std::uint32_t> rec_flows_, chan_rec_, flow_rec_; // chan_rec_ / flow_rec_: index in recs_ or kNoRec
  ChannelStats stats_;
  Time last_start_ = 0, last_left_ = 0;
};

} // namespace

std::unique_ptr<NetworkModel> make_flow_network(Time alpha_sw, bool latency_last) {
  return std::make_unique<FlowNetwork>(alpha_sw, latency_last);
}

} // namespace ccsim::engine
