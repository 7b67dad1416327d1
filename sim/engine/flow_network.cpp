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
// This file handles the events (starts, finishes, arrivals, re-plans); the shares themselves, component
// search and progressive filling, are max_min_share.cpp's.
#include <algorithm>

#include "sim/engine/batch_memo.hpp"
#include "sim/engine/max_min_share.hpp"
#include "sim/engine/network.hpp"
#include "sim/engine/token_sort.hpp"

namespace ccsim::engine {
namespace {

class FlowNetwork final : public NetworkModel, private MaxMinShare {
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
    joined_ = 0;
    starting_.clear();
    memo_.clear();
    last_entry_ = BatchMemo::kNoEntry;
    replay_flows_.clear();
    replay_live_ = replay_finishing_ = false;
    ++replay_gen_;
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
    } else {
      id = free_.back();
      free_.pop_back();
    }
    Flow& f = flows_[id];
    f.token = token;
    // One pass: the route's latency, its channels' byte counts and the flow's copy of it (a recycled
    // flow keeps its vector's capacity; a plain copy loop would become a memmove call for a few ids).
    f.route.resize(route.size());
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
    flush_busy();
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
    if (rec_chans_.size() > 8 * chans_.size() + 4096) forget_components(groups_);
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
    if (replay_finishing_) finish_replay(now);
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
    if (record) record_batch(now);
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
  bool same_batch(const BatchMemo::Entry& e) const;
  std::uint64_t hash_batch() const;
  void build_key();
  void replay(std::uint32_t e, Time now, ArrivalSink& sink);
  void record_batch(Time now);
  void replay_event(Time now, std::uint32_t gen, ArrivalSink& sink);
  void finish_replay(Time now);
  void materialize(Time now, ArrivalSink& sink);

  // Replaying batches (batch_memo.hpp): flows that start moving on an empty network wait in `starting_`
  // for the re-plan, which either replays them (a batch seen before: its rates without joining a channel,
  // one event at its finish) or joins them and shares as usual, remembering the outcome.
  static constexpr std::size_t kMaxRecorded = 1 << 16; // flows in a batch the memo keeps (its memory)
  std::uint32_t joined_ = 0;             // flows on channel lists (started, not finished)
  std::vector<std::uint32_t> starting_;   // flows that started on an empty network since the last re-plan
  std::vector<std::uint32_t> key_, batch_; // the batch's key (BatchMemo::Entry::key) and flows, being recorded
  std::vector<Work> key_works_;
  std::uint64_t key_hash_ = 0;
  mutable BatchMemo memo_;
  void flush_busy() const {
    for (std::uint32_t i = 0; i < memo_.size(); ++i) flush_busy(memo_[i]);
  }
  void flush_busy(BatchMemo::Entry& e) const {
    if (e.busy == 0) return;
    for (ChannelId c : e.chans) stats_.busy[c] += e.busy;
    e.busy = 0;
  }
  std::vector<std::uint32_t> replay_flows_; // the batch being replayed (in key order)
  std::uint32_t replay_ = 0, last_entry_ = BatchMemo::kNoEntry; // memo entries: replayed, last used
  Time replay_start_ = 0;
  bool replay_live_ = false, replay_finishing_ = false;
  std::uint32_t replay_gen_ = 0;          // tags the replay's finish item; bumped when it becomes stale

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
  std::vector<std::uint32_t> groups_, free_groups_; // groups_: the component (index in recs_) of each group
  std::uint32_t open_batch_ = kNoBatch; // the batch later events due at open_at_ may join
  Time open_at_ = 0;
  bool replan_pending_ = false;
  mutable ChannelStats stats_; // mutable: replayed batches' busy time is added when read (flush_busy)
  Time last_start_ = 0, last_left_ = 0;
};


// The re-plan found flows that started on an empty network (starting_): a batch seen before is replayed;
// otherwise they join their channels and are shared as usual. Returns whether to record the outcome.
bool FlowNetwork::start_batch(Time now, ArrivalSink& sink) {
  bool record = false;
  if (starting_.size() >= 2 && starting_.size() <= kMaxRecorded) {
    // Most batches repeat the one before (a ring's steps): compare with it first, without hashing.
    std::uint32_t e = last_entry_ < memo_.size() && same_batch(memo_[last_entry_]) ? last_entry_ : BatchMemo::kNoEntry;
    if (e == BatchMemo::kNoEntry) {
      key_hash_ = hash_batch();
      e = memo_.find(key_hash_, [&](const BatchMemo::Entry& entry) { return same_batch(entry); });
      if (e == BatchMemo::kNoEntry && memo_.seen(key_hash_)) { // met before: shared as usual, then recorded
        record = true;
        build_key();
        batch_ = starting_;
      }
    }
    if (e != BatchMemo::kNoEntry) {
      replay(e, now, sink);
      return false;
    }
  }
  for (std::uint32_t id : starting_) join(flows_[id].route, id, now);
  dirty_.insert(dirty_.begin(), starting_.begin(), starting_.end());
  starting_.clear();
  return record;
}

std::uint64_t FlowNetwork::hash_batch() const {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint32_t id : starting_) {
    const Flow& f = flows_[id];
    h = BatchMemo::mix(BatchMemo::mix(h, static_cast<std::uint32_t>(f.work)), static_cast<std::uint32_t>(f.work >> 64));
    h = BatchMemo::mix(h, static_cast<std::uint32_t>(f.route.size()));
    for (ChannelId c : f.route) h = BatchMemo::mix(h, c);
  }
  return h;
}

// The key of starting_ (BatchMemo::Entry's key and works) in key_ and key_works_.
void FlowNetwork::build_key() {
  key_.clear();
  key_works_.clear();
  for (std::uint32_t id : starting_) {
    const Flow& f = flows_[id];
    key_works_.push_back(f.work);
    key_.push_back(static_cast<std::uint32_t>(f.route.size()));
    key_.insert(key_.end(), f.route.begin(), f.route.end());
  }
  key_.push_back(BatchMemo::kKeyEnd);
}

// starting_ is memo entry `e`'s batch: its flows move at the rates recorded, without joining their channels,
// and one event stands for their finish.
void FlowNetwork::replay(std::uint32_t e, Time now, ArrivalSink& sink) {
  last_entry_ = replay_ = e;
  replay_flows_.swap(starting_); // their rates are read only if another flow starts (materialize)
  starting_.clear();
  replay_live_ = true;
  replay_finishing_ = false;
  replay_start_ = now;
  schedule(now + memo_[e].span, now, kReplayItem, ++replay_gen_, sink);
}

// Whether starting_ is the batch of `key` (BatchMemo::Entry::key).
bool FlowNetwork::same_batch(const BatchMemo::Entry& e) const {
  if (e.works.size() != starting_.size()) return false;
  const std::uint32_t* k = e.key.data(); // ends with kKeyEnd, which no route length equals
  const Work* work = e.works.data();
  for (std::uint32_t id : starting_) {
    const Flow& f = flows_[id];
    if (*work++ != f.work || *k++ != f.route.size()) return false;
    for (ChannelId c : f.route) // not std::equal: a memcmp call for a few ids
      if (*k++ != c) return false;
  }
  return *k == BatchMemo::kKeyEnd;
}

// After sharing a batch that started alone: if all its flows finish at one instant, remember it.
void FlowNetwork::record_batch(Time now) {
  Time at = kNever;
  for (std::uint32_t id : batch_) {
    const Flow& f = flows_[id];
    if (!f.active || f.rate == 0) return; // finished at once, or (cannot happen) not shared
    const Time finish = finish_of(f, now);
    if (at != kNever && finish != at) return;
    at = finish;
  }
  last_entry_ = memo_.add();
  BatchMemo::Entry& e = memo_[last_entry_];
  flush_busy(e); // a slot reused for another batch
  e.hash = key_hash_;
  e.key = key_;
  e.works = key_works_;
  e.span = at - now;
  e.rates.clear();
  e.order.clear();
  e.chans.clear();
  const std::uint32_t epoch = ++epoch_; // find_components' marks, free again until the next re-plan
  for (std::uint32_t id : batch_) {
    const Flow& f = flows_[id];
    e.rates.push_back(f.rate);
    for (ChannelId c : f.route)
      if (chan_stamp_[c] != epoch) {
        chan_stamp_[c] = epoch;
        e.chans.push_back(c);
      }
  }
}

void FlowNetwork::replay_event(Time now, std::uint32_t gen, ArrivalSink& sink) {
  if (!replay_live_ || gen != replay_gen_) return; // another flow joined: the batch was materialized
  replay_finishing_ = true;
  request_replan(now, sink);
}

// Every flow of the replayed batch is done now: as when its flows leave their channels in a re-plan.
// They are reported in the token order the batch had the last time (the engine wants token order; a
// recurring batch usually has the same tokens, so the sort after finds them sorted).
void FlowNetwork::finish_replay(Time now) {
  BatchMemo::Entry& e = memo_[replay_];
  if (e.order.size() != replay_flows_.size()) {
    e.order.resize(replay_flows_.size());
    for (std::uint32_t i = 0; i < e.order.size(); ++i) e.order[i] = i;
    std::sort(e.order.begin(), e.order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return flows_[replay_flows_[a]].token < flows_[replay_flows_[b]].token;
    });
  }
  for (std::uint32_t i : e.order) {
    const std::uint32_t id = replay_flows_[i];
    Flow& f = flows_[id];
    f.active = false;
    done_.emplace_back(f.token, id);
  }
  e.busy += now - replay_start_; // its channels' busy time, added up when stats are read (flush_busy)
  replay_flows_.clear();
  replay_live_ = replay_finishing_ = false;
  ++replay_gen_;
}

// A flow starts while a batch is replayed: the batch's flows join their channels as they would have at
// its start (busy since then, moving at its rates since then) and are re-planned with the newcomer.
void FlowNetwork::materialize(Time now, ArrivalSink& sink) {
  const std::vector<Bandwidth>& rates = memo_[replay_].rates;
  for (std::size_t i = 0; i < replay_flows_.size(); ++i) {
    const std::uint32_t id = replay_flows_[i];
    Flow& f = flows_[id];
    f.rate = rates[i];
    f.since = replay_start_;
    f.finish = kNever;
    f.group = kNoGroup;
    ++f.gen;
    join(f.route, id, replay_start_);
    mark(id, now, sink);
  }
  replay_flows_.clear();
  replay_live_ = replay_finishing_ = false;
  ++replay_gen_;
}

} // namespace

std::unique_ptr<NetworkModel> make_flow_network(Time alpha_sw, bool latency_last) {
  return std::make_unique<FlowNetwork>(alpha_sw, latency_last);
}

} // namespace ccsim::engine
