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
// A batch of flows that starts on an empty network and recurs (a ring's steps) is replayed from the
// outcome recorded the last time, without touching its channels, until another flow starts
// (flow_replay.hpp).
// This file handles the events (starts, finishes, arrivals, re-plans); the shares themselves, component
// search and progressive filling, are max_min_share.cpp's; replays flow_replay.cpp's.
#include <algorithm>

#include "sim/engine/flow_replay.hpp"
#include "sim/engine/network.hpp"

namespace ccsim::engine {
namespace {

class FlowNetwork final : public NetworkModel, private FlowReplay {
 public:
  FlowNetwork(Time alpha_sw, bool latency_last) : alpha_sw_(alpha_sw), latency_last_(latency_last) {}
  std::string name() const override { return "flow"; }

  void reset(const topology::Topology& t) override {
    const std::size_t n = t.num_channels();
    chans_.assign(n, Chan{});
    forget_at_ = 8 * n + 4096;
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
    flow_route_.clear();
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
    reset_replay();
    check_share_memo();
    epoch_ = 0;
    last_start_ = 0;
  }

  Time post(std::uint64_t token, std::span<const ChannelId> route, Bytes bytes, Time now, ArrivalSink& sink) override {
    last_start_ = last_left_ = now;
    if (route.empty()) return now + alpha_sw_;
    Time lat = alpha_sw_;
    if (bytes == 0) {
      for (ChannelId c : route) lat += chans_[c].latency;
      return now + lat;
    }
    last_left_ = kNever; // reported through on_model_event
    std::uint32_t id;
    if (free_.empty()) {
      id = static_cast<std::uint32_t>(flows_.size());
      flows_.emplace_back();
      flow_stamp_.push_back(0);
      flow_rec_.push_back(kNoRec);
      flow_route_.push_back(kNoRoute);
    } else {
      id = free_.back();
      free_.pop_back();
    }
    Flow& f = flows_[id];
    f.token = token;
    // One pass: the route's latency, its channels' byte counts and the flow's copy of it (a recycled
    // flow keeps its vector's capacity; a plain copy loop would become a memmove call for a few ids).
    f.route.resize(route.size());
    flow_route_[id] = kNoRoute;
    ChannelId* const copy = f.route.data();
    const Chan* const chans = chans_.data();
    Bytes* const carried = stats_.bytes.data();
    for (std::size_t i = 0; i < route.size(); ++i) {
      const ChannelId c = route[i];
      copy[i] = c;
      lat += chans[c].latency;
      carried[c] += bytes;
    }
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
      if (item.first == kReplayItem) replay_event(now, item.second, sink);
      else if (item.first & kGroupItem) group_event(now, item.first & ~kGroupItem, sink);
      else flow_event(now, item.first, item.second, sink, arrived);
    }
    batches_[b].items.clear();
    free_batches_.push_back(b);
  }

  const ChannelStats& stats() const override {
    flush_busy(stats_.busy);
    return stats_;
  }
  Time last_start() const override { return last_start_; }
  Time last_left() const override { return last_left_; }

 private:
  static constexpr std::uint32_t kGenMask = 0x7fffffff;
  static constexpr std::uint32_t kReplan = UINT32_MAX; // model event id of the deferred re-plan
  static constexpr std::uint32_t kBatch = 0;           // model event id of a batch (b = its index)
  static constexpr std::uint32_t kNoBatch = UINT32_MAX;
  static constexpr std::uint32_t kGroupItem = 0x80000000; // batch item of a group (the rest: its index in groups_)
  static constexpr std::uint32_t kReplayItem = 0xffffffff; // batch item of a replayed batch's finish (tag: replay_gen_)

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
      if (joined_ == 0 && !replay_live_) { // the network is empty: the re-plan may replay this batch
        starting_.push_back(id);
        request_replan(now, sink);
        return;
      }
      if (replay_live_) materialize(now, sink);
      join(f.route, id, now);
    }
    mark(id, now, sink);
  }

  void mark(std::uint32_t id, Time now, ArrivalSink& sink) {
    dirty_.push_back(id);
    request_replan(now, sink);
  }
  void request_replan(Time now, ArrivalSink& sink) {
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

  static std::uint32_t tag(const Flow& f, bool activate) { return ((f.gen & kGenMask) << 1) | (activate ? 1u : 0u); }

  void join(std::span<const ChannelId> route, std::uint32_t id, Time now) {
    ++joined_;
    Chan* const chans = chans_.data();
    const std::uint32_t* const chan_rec = chan_rec_.data();
    for (ChannelId c : route) {
      Chan& ch = chans[c];
      if (ch.flows.empty()) ch.busy_since = now;
      ch.flows.push_back(id);
      if (chan_rec[c] != kNoRec) recs_[chan_rec[c]].valid = false; // its component grows
    }
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
    // Remembered components only grow their ranges; forgetting compacts them. Those with a group event pending
    // are kept, so the next compaction waits until the ranges have doubled past what was kept (otherwise a
    // run whose kept records exceed the fixed bound compacts on every re-plan: quadratic).
    if (rec_chans_.size() > forget_at_) {
      forget_components(groups_);
      forget_at_ = std::max<std::size_t>(8 * chans_.size() + 4096, 2 * rec_chans_.size());
    }
    bool record = false;
    if (!starting_.empty()) record = start_batch(now, sink);
    find_components(dirty_);
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
        if (f.rate != 0) { // 0: it has just joined its channels
          const Work moved = static_cast<Work>(f.rate) * static_cast<Work>(now - f.since);
          f.work = moved >= f.work ? 0 : f.work - moved;
        }
        f.since = now;
        if (f.work == 0) {
          f.active = false;
          --joined_;
          done_.emplace_back(f.token, id);
        } else {
          comp_flows_[keep++] = id;
        }
      }
      cm.flow_begin = first;
      cm.flow_end = keep;
      if (done_.size() > done_before) leave(cm, now);
    }
    if (replay_finishing_) finish_replay(now, done_);
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
      if (cm.whole) continue; // retired whole, its channels forgotten
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
    if (record) record_batch(now, stats_.busy);
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
      --joined_;
      done_.emplace_back(f.token, id);
    }
    for (std::size_t i = cm.chan_begin; i < cm.chan_end; ++i) {
      const ChannelId c = comp_chans_[i];
      chan_rec_[c] = kNoRec; // what remember() does for a component left empty (replan skips it)
      auto& list = chans_[c].flows;
      if (list.empty()) continue;
      list.clear();
      stats_.busy[c] += now - chans_[c].busy_since;
    }
  }

  bool start_batch(Time now, ArrivalSink& sink);
  void replay_event(Time now, std::uint32_t gen, ArrivalSink& sink);
  void materialize(Time now, ArrivalSink& sink);

  Time alpha_sw_;
  bool latency_last_;
  std::vector<std::uint32_t> free_;
  std::vector<TokenFlow> done_, sort_scratch_;
  std::vector<std::uint32_t> dirty_; // flows that started or finished since the last re-plan
  struct Batch {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> items; // (flow, tag)
  };
  std::vector<Batch> batches_;
  std::vector<std::uint32_t> free_batches_;
  std::size_t forget_at_ = 4096; // rec_chans_'s size that triggers the next forget_components (replan)
  std::vector<std::uint32_t> groups_, free_groups_; // groups_: the component (index in recs_) of each group
  std::uint32_t open_batch_ = kNoBatch; // the batch later events due at open_at_ may join
  Time open_at_ = 0;
  bool replan_pending_ = false;
  mutable ChannelStats stats_; // mutable: replayed batches' busy time is added when read (flush_busy)
  Time last_start_ = 0, last_left_ = 0;
};


// The re-plan found flows that started on an empty network (starting_): a batch seen before is replayed;
// otherwise they join their channels and are shared as usual. Returns whether to record the outcome.
// The re-plan found flows that started on an empty network (starting_): a batch met before is replayed;
// otherwise they join their channels and are shared as usual. Returns whether to record the outcome.
bool FlowNetwork::start_batch(Time now, ArrivalSink& sink) {
  if (const std::uint32_t e = match_batch(); e != BatchMemo::kNoEntry) {
    const Time end = begin_replay(e, now);
    schedule(end, now, kReplayItem, ++replay_gen_, sink);
    return false;
  }
  for (std::uint32_t id : starting_) join(flows_[id].route, id, now);
  dirty_.insert(dirty_.begin(), starting_.begin(), starting_.end());
  starting_.clear();
  return record_;
}

void FlowNetwork::replay_event(Time now, std::uint32_t gen, ArrivalSink& sink) {
  if (!replay_live_ || gen != replay_gen_) return; // another flow started: the batch rejoined its channels
  replay_finishing_ = true;
  request_replan(now, sink);
}

// A flow starts while a batch is replayed: the batch's flows join their channels as they would have at
// its start (busy since then, moving at its rates since then) and are re-planned with the newcomer.
void FlowNetwork::materialize(Time now, ArrivalSink& sink) {
  prepare_rejoin();
  for (std::uint32_t id : replay_flows_) {
    join(flows_[id].route, id, replay_start_);
    mark(id, now, sink);
  }
  end_replay();
}

} // namespace

std::unique_ptr<NetworkModel> make_flow_network(Time alpha_sw, bool latency_last) {
  return std::make_unique<FlowNetwork>(alpha_sw, latency_last);
}

} // namespace ccsim::engine
