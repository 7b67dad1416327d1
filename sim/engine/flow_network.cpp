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
// starts or ends, and only for the flows connected to it through shared channels (its component),
// so independent flows (a ring on a crossbar) cost O(route) each; starts and finishes at one instant are
// re-planned together. A flow's predicted finish is a model event tagged with a generation number;
// re-planning bumps it, and stale events are ignored. Observers see a transfer when it is posted, before
// its arrival is known: under this model TransferRecord::arrive is kNever and start is the post time.
//
// Latency first (SimGrid's order) or last: with `latency_last` (gpu step semantics) a flow joins its
// channels when posted and, once its bytes are through, has left its sender; it arrives a route latency
// (plus the software alpha) later. Alone on its route it costs the same either way.
#include <algorithm>

#include "sim/engine/network.hpp"

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
    free_.clear();
    dirty_.clear();
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
    sink.schedule_model_event(latency_last_ ? now : now + lat, id, tag(f, true));
    return kNever;
  }

  // Starts and finishes only mark their channels; one re-plan event, queued behind everything already due
  // at this instant, then shares the union once (p flows starting together cost one re-plan, not p).
  void on_model_event(Time now, std::uint32_t id, std::uint32_t b, ArrivalSink& sink,
                      std::vector<std::uint64_t>& arrived, std::vector<std::uint64_t>& left) override {
    if (id == kReplan) {
      replan_pending_ = false;
      replan(dirty_, now, sink, latency_last_ ? left : arrived);
      dirty_.clear();
      return;
    }
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
    dirty_.insert(dirty_.end(), f.route.begin(), f.route.end());
    if (!replan_pending_) {
      replan_pending_ = true;
      sink.schedule_model_event(now, kReplan, 0);
    }
  }

  const ChannelStats& stats() const override { return stats_; }
  Time last_start() const override { return last_start_; }
  Time last_left() const override { return last_left_; }

 private:
  static constexpr std::uint32_t kGenMask = 0x7fffffff;
  static constexpr std::uint32_t kReplan = UINT32_MAX; // model event id of the deferred re-plan
  struct Flow {
    std::uint64_t token = 0;
    std::vector<ChannelId> route;
    Work work = 0;          // bytes still to send, times kPsPerSec
    Bandwidth rate = 0;     // bytes/s since `since`
    Time since = 0;
    Time finish = kNever;   // when the current rate empties `work`
    Time lat = 0;           // route latency + software alpha
    std::uint32_t gen = 0;  // bumped whenever a scheduled event of this flow becomes stale
    std::uint32_t stamp_epoch = 0; // component search
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
    std::uint32_t stamp = 0; // component search
  };

  struct Cand { // a channel's share when it was last changed: left / n
    Bandwidth left;
    std::uint32_t n;
    ChannelId c;
  };

  static std::uint32_t tag(const Flow& f, bool activate) { return ((f.gen & kGenMask) << 1) | (activate ? 1u : 0u); }

  void join(ChannelId c, std::uint32_t id, Time now) {
    Chan& ch = chans_[c];
    if (ch.flows.empty()) ch.busy_since = now;
    ch.flows.push_back(id);
  }
  void leave(ChannelId c, std::uint32_t id, Time now) {
    Chan& ch = chans_[c];
    auto it = std::find(ch.flows.begin(), ch.flows.end(), id);
    *it = ch.flows.back();
    ch.flows.pop_back();
    if (ch.flows.empty()) stats_.busy[c] += now - ch.busy_since;
  }

  void retire(std::uint32_t id) {
    Flow& f = flows_[id];
    f.live = f.active = f.arriving = false;
    ++f.gen;
    free_.push_back(id);
  }

  // Re-plans every flow connected to `seeds` through shared channels: brings their progress up to `now`,
  // retires those that are done (reported in `done`, ordered by token: arrived, or with the latency
  // last, left their sender), shares the channels anew and schedules the new finish times.
  void replan(std::span<const ChannelId> seeds, Time now, ArrivalSink& sink, std::vector<std::uint64_t>& done) {
    // The component: channels and the active flows on them, transitively.
    ++epoch_;
    comp_chans_.clear();
    comp_flows_.clear();
    for (ChannelId c : seeds) visit(c);
    for (std::size_t i = 0; i < comp_chans_.size(); ++i)
      for (std::uint32_t id : chans_[comp_chans_[i]].flows)
        if (flows_[id].stamp_epoch != epoch_) {
          flows_[id].stamp_epoch = epoch_;
          comp_flows_.push_back(id);
          for (ChannelId c : flows_[id].route) visit(c);
        }
    // Progress up to now; finished flows leave.
    done_.clear();
    std::size_t keep = 0;
    for (std::uint32_t id : comp_flows_) {
      Flow& f = flows_[id];
      const Work moved = static_cast<Work>(f.rate) * static_cast<Work>(now - f.since);
      f.work = moved >= f.work ? 0 : f.work - moved;
      f.since = now;
      if (f.work == 0) done_.push_back(id);
      else comp_flows_[keep++] = id;
    }
    comp_flows_.resize(keep);
    std::sort(done_.begin(), done_.end(), [&](std::uint32_t x, std::uint32_t y) { return flows_[x].token < flows_[y].token; });
    for (std::uint32_t id : done_) {
      Flow& f = flows_[id];
      for (ChannelId c : f.route) leave(c, id, now);
      done.push_back(f.token);
      if (!latency_last_) {
        retire(id);
        continue;
      }
      f.active = false;
      f.arriving = true;
      ++f.gen;
      sink.schedule_model_event(now + f.lat, id, tag(f, true));
    }
    share();
    for (std::uint32_t id : comp_flows_) {
      Flow& f = flows_[id];
      const Time finish = now + static_cast<Time>((f.work + f.rate - 1) / f.rate);
      if (finish == f.finish) continue; // its pending event is still right
      f.finish = finish;
      ++f.gen;
      sink.schedule_model_event(finish, id, tag(f, false));
    }
  }

  void visit(ChannelId c) {
    if (chans_[c].stamp == epoch_) return;
    chans_[c].stamp = epoch_;
    comp_chans_.push_back(c);
  }

  // Progressive filling over the component. Bottlenecks are taken in order of (share, channel id), so
  // the rates do not depend on the order the flows were posted in.
  void share() {
    for (std::uint32_t id : comp_flows_) flows_[id].fixed = false;
    if (comp_flows_.size() == 1) { // alone: the route's narrowest channel
      Flow& f = flows_[comp_flows_[0]];
      f.rate = chans_[f.route[0]].capacity;
      for (ChannelId c : f.route) f.rate = std::min(f.rate, chans_[c].capacity);
      return;
    }
    // `later(a, b)`: a's share left/n is larger (cross-multiplied exactly), or equal with a larger id.
    auto later = [](const Cand& a, const Cand& b) {
      const Work l = static_cast<Work>(a.left) * b.n, r = static_cast<Work>(b.left) * a.n;
      return l != r ? l > r : a.c > b.c;
    };
    heap_.clear();
    for (ChannelId c : comp_chans_) {
      Chan& ch = chans_[c];
      ch.left = ch.capacity;
      ch.unfixed = static_cast<std::uint32_t>(ch.flows.size());
      if (ch.unfixed > 0) heap_.push_back({ch.left, ch.unfixed, c});
    }
    std::make_heap(heap_.begin(), heap_.end(), later);
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), later);
      const Cand top = heap_.back();
      heap_.pop_back();
      Chan& ch = chans_[top.c];
      if (ch.unfixed != top.n || ch.left != top.left || ch.unfixed == 0) continue; // outdated entry
      const Bandwidth rate = std::max<Bandwidth>(ch.left / ch.unfixed, 1);
      for (std::uint32_t id : ch.flows) {
        Flow& f = flows_[id];
        if (f.fixed) continue;
        f.fixed = true;
        f.rate = rate;
        for (ChannelId c : f.route) {
          Chan& o = chans_[c];
          o.left = o.left > rate ? o.left - rate : 0;
          --o.unfixed;
          if (c != top.c && o.unfixed > 0) {
            heap_.push_back({o.left, o.unfixed, c});
            std::push_heap(heap_.begin(), heap_.end(), later);
          }
        }
      }
    }
  }

  Time alpha_sw_;
  bool latency_last_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_;
  std::vector<Chan> chans_;
  std::vector<ChannelId> comp_chans_;
  std::vector<std::uint32_t> comp_flows_, done_;
  std::vector<Cand> heap_;
  std::vector<ChannelId> dirty_; // channels whose flows changed since the last re-plan
  bool replan_pending_ = false;
  std::uint32_t epoch_ = 0;
  ChannelStats stats_;
  Time last_start_ = 0, last_left_ = 0;
};

} // namespace

std::unique_ptr<NetworkModel> make_flow_network(Time alpha_sw, bool latency_last) {
  return std::make_unique<FlowNetwork>(alpha_sw, latency_last);
}

} // namespace ccsim::engine
