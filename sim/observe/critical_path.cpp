#include "sim/observe/critical_path.hpp"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "sim/core/error.hpp"

namespace ccsim::observe {
namespace {

std::uint64_t key(int job, int rank) { return (static_cast<std::uint64_t>(job) << 32) | static_cast<std::uint32_t>(rank); }
std::uint64_t key3(int job, int rank, int step) {
  return (static_cast<std::uint64_t>(job) << 44) ^ (static_cast<std::uint64_t>(rank) << 24) ^ static_cast<std::uint32_t>(step);
}

class Walker {
 public:
  Walker(const Recording& rec, const topology::Topology& topo, bool cut_through)
      : rec_(rec), topo_(topo), cut_through_(cut_through) {
    for (std::size_t i = 0; i < rec.steps.size(); ++i) {
      auto& v = steps_[key(rec.steps[i].job, rec.steps[i].rank)];
      if (static_cast<int>(v.size()) != rec.steps[i].step)
        fail("critical path: steps of job {} rank {} were not reported in order", rec.steps[i].job, rec.steps[i].rank);
      v.push_back(i);
    }
    for (std::size_t i = 0; i < rec.reduces.size(); ++i)
      reduces_[key3(rec.reduces[i].job, rec.reduces[i].rank, rec.reduces[i].step)] = i;
    for (std::size_t i = 0; i < rec.transfers.size(); ++i) {
      const auto& t = rec.transfers[i];
      sends_[key3(t.job, t.src, t.step)].push_back(i);
      recvs_[key(t.job, t.dst)].push_back(i);
    }
    for (auto& [k, v] : recvs_)
      std::stable_sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) { return rec.transfers[a].arrive < rec.transfers[b].arrive; });
  }

  CriticalPath run() {
    if (rec_.steps.empty()) fail("critical path: the recording has no steps");
    // The last rank to finish; among equal finishes the one that ended last in event order.
    std::size_t last = 0;
    for (std::size_t i = 0; i < rec_.steps.size(); ++i)
      if (rec_.steps[i].end >= rec_.steps[last].end) last = i;
    CriticalPath cp;
    cp.job = rec_.steps[last].job;
    cp.rank = rec_.steps[last].rank;
    cp.finish = rec_.steps[last].end;

    // Each iteration moves to an event the engine processed earlier, so the walk ends; the bound
    // guards against a recording that breaks that (it would be an engine bug).
    std::size_t budget = 4 * (rec_.steps.size() + rec_.transfers.size() + rec_.hops.size()) + 16;
    int job = cp.job, rank = cp.rank, step = rec_.steps[last].step;
    Time t = cp.finish;
    for (;;) {
      if (budget-- == 0) fail("critical path: the walk did not terminate (inconsistent recording)");
      const StepRecord& st = rec_.steps[steps_.at(key(job, rank))[static_cast<std::size_t>(step)]];
      if (auto it = reduces_.find(key3(job, rank, step)); it != reduces_.end() && rec_.reduces[it->second].end == t) {
        const auto& r = rec_.reduces[it->second];
        push({PathSegment::Kind::Reduce, r.begin, r.end, -1, -1, 0, job, rank, step, 0});
        t = r.begin;
      }
      std::int64_t gate = t > st.begin ? gating(job, rank, step, st.begin, t) : -1;
      if (gate < 0) {
        if (t > st.begin) push({PathSegment::Kind::Wait, st.begin, t, -1, -1, 0, job, rank, step, 0});
        t = st.begin;
        if (step == 0) break;
        --step;
        continue;
      }
      // Walk back through the message (and whatever held its links) to the step that posted it.
      const Transfer* x = walk_transfer(static_cast<std::size_t>(gate & ~kLeft), t, (gate & kLeft) != 0);
      job = x->job, t = x->post;
      // Rendezvous: a transfer starts when both ends are posted. If the sender's step began earlier, the
      // receiver's readiness (the end of its previous step) gated it: the walk continues there.
      const auto& sender_steps = steps_.at(key(job, x->src));
      if (rec_.steps[sender_steps[static_cast<std::size_t>(x->step)]].begin < x->post) {
        const auto& rs = steps_.at(key(job, x->dst));
        std::size_t k = 0;
        while (k + 1 < rs.size() && rec_.steps[rs[k + 1]].begin <= x->post) ++k;
        rank = x->dst;
        if (k == 0) {
          step = 0;
          t = rec_.steps[rs[0]].begin;
          break;
        }
        step = static_cast<int>(k) - 1;
        continue;
      }
      rank = x->src;
      if (x->step == 0) {
        step = 0;
        t = rec_.steps[steps_.at(key(job, rank))[0]].begin;
        break;
      }
      step = x->step - 1;
    }
    if (t > 0) push({PathSegment::Kind::Wait, 0, t, -1, -1, 0, -1, -1, -1, 0});

    std::reverse(out_.begin(), out_.end());
    std::set<std::int64_t> seen;
    for (const auto& s : out_) {
      const Time len = s.end - s.begin;
      switch (s.kind) {
        case PathSegment::Kind::Transfer: cp.transfer += len, cp.wire += s.wire; break;
        case PathSegment::Kind::Queued: cp.queued += len; break;
        case PathSegment::Kind::Reduce: cp.reduce += len; break;
        case PathSegment::Kind::Wait: cp.wait += len; break;
      }
      if (s.transfer >= 0) seen.insert(s.transfer);
    }
    cp.transfers = seen.size();
    cp.segments = std::move(out_);
    return cp;
  }

 private:
  // The message whose arrival at time t completed step `step` of (job, rank): preferably one it
  // received (the walk then crosses to the sender), else one of its own sends. Ties are equally critical.
  std::int64_t gating(int job, int rank, int step, Time begin, Time t) const {
    if (auto it = recvs_.find(key(job, rank)); it != recvs_.end()) {
      const auto& v = it->second;
      auto lo = std::lower_bound(v.begin(), v.end(), t, [&](std::size_t i, Time x) { return rec_.transfers[i].arrive < x; });
      if (lo != v.end() && rec_.transfers[*lo].arrive == t && t >= begin) return static_cast<std::int64_t>(*lo);
    }
    if (auto it = sends_.find(key3(job, rank, step)); it != sends_.end()) {
      for (std::size_t i : it->second)
        if (rec_.transfers[i].arrive == t) return static_cast<std::int64_t>(i);
      // gpu semantics: a send gates its step when its last byte leaves, i.e. its first hop is released.
      for (std::size_t i : it->second) {
        const auto& x = rec_.transfers[i];
        if (x.hop_count > 0 && rec_.hops[x.hop_first].held.end == t) return static_cast<std::int64_t>(i) | kLeft;
      }
    }
    return -1;
  }
  static constexpr std::int64_t kLeft = std::int64_t{1} << 62; // gating() found a send that had left, not arrived

  Time wire_within(const Transfer& x, Time b, Time e) const {
    Time w = 0;
    for (std::uint32_t k = 0; k < x.hop_count; ++k) {
      const auto& h = rec_.hops[x.hop_first + k].held;
      w += std::max<Time>(0, std::min(e, h.end) - std::max(b, h.begin));
      if (cut_through_) break; // every hop holds the same interval
    }
    return w;
  }

  void push_transfer(std::int64_t id, Time b, Time e) {
    const auto& x = rec_.transfers[static_cast<std::size_t>(id)];
    if (!out_.empty() && out_.back().kind == PathSegment::Kind::Transfer && out_.back().transfer == id &&
        out_.back().begin == e) {
      out_.back().begin = b; // the same message, one hop earlier
      out_.back().wire += wire_within(x, b, e);
      return;
    }
    push({PathSegment::Kind::Transfer, b, e, id, -1, 0, x.job, x.src, x.step, wire_within(x, b, e)});
  }

  // From message `id`'s arrival at time `arrive` (or, `left`, the release of its first hop), back to its
  // post, through any messages that held its links. Returns the message whose sender's step the walk
  // continues from.
  const Transfer* walk_transfer(std::size_t id, Time arrive, bool left = false) {
    const Transfer* x = &rec_.transfers[id];
    if (x->hop_count == 0) { // local or a model without holding times: the queueing is unattributed
      push_transfer(static_cast<std::int64_t>(id), x->start, arrive);
      if (x->start > x->post) push({PathSegment::Kind::Wait, x->post, x->start, -1, static_cast<std::int64_t>(id), 0, x->job, x->src, x->step, 0});
      return x;
    }
    std::uint32_t k = left ? 0 : x->hop_count - 1;
    Time t = rec_.hops[x->hop_first + k].held.begin;
    push_transfer(static_cast<std::int64_t>(id), t, arrive);
    for (;;) {
      const Time ready = (cut_through_ || k == 0) ? x->post : hop_end(*x, k - 1) + topo_.link_of(channel(*x, k - 1)).latency;
      if (t > ready) {
        // Queued: find the hop whose previous holder released the link exactly when this one began.
        std::int64_t by = -1;
        std::uint32_t by_hop = 0;
        const std::uint32_t lo = cut_through_ ? 0 : k, hi = cut_through_ ? x->hop_count : k + 1;
        for (std::uint32_t j = lo; j < hi && by < 0; ++j) {
          const Hop& h = rec_.hops[x->hop_first + j];
          if (h.previous < 0) continue;
          const Transfer& p = rec_.transfers[static_cast<std::size_t>(h.previous)];
          for (std::uint32_t q = 0; q < p.hop_count; ++q)
            if (rec_.hops[p.hop_first + q].channel == h.channel && rec_.hops[p.hop_first + q].held.end == t) {
              by = h.previous, by_hop = q;
              break;
            }
        }
        if (by < 0) {
          push({PathSegment::Kind::Wait, ready, t, -1, static_cast<std::int64_t>(x - rec_.transfers.data()), 0, x->job,
                x->src, x->step, 0});
          t = ready;
          if (!cut_through_ && k > 0) {
            --k;
            continue;
          }
          return x;
        }
        const Transfer& p = rec_.transfers[static_cast<std::size_t>(by)];
        const Hop& ph = rec_.hops[p.hop_first + by_hop];
        push({PathSegment::Kind::Queued, ph.held.begin, t, by, static_cast<std::int64_t>(x - rec_.transfers.data()),
              ph.channel, p.job, p.src, p.step, 0});
        x = &p, k = by_hop, t = ph.held.begin;
        continue;
      }
      if (!cut_through_ && k > 0) { // the previous hop (and its latency) came first
        const Time b = rec_.hops[x->hop_first + k - 1].held.begin;
        push_transfer(static_cast<std::int64_t>(x - rec_.transfers.data()), b, t);
        --k, t = b;
        continue;
      }
      return x; // t == post: the sender's step began here
    }
  }

  Time hop_end(const Transfer& x, std::uint32_t k) const { return rec_.hops[x.hop_first + k].held.end; }
  ChannelId channel(const Transfer& x, std::uint32_t k) const { return rec_.hops[x.hop_first + k].channel; }
  void push(const PathSegment& s) {
    if (s.end > s.begin || s.kind != PathSegment::Kind::Wait) out_.push_back(s);
  }

  const Recording& rec_;
  const topology::Topology& topo_;
  bool cut_through_;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> steps_, sends_, recvs_;
  std::unordered_map<std::uint64_t, std::size_t> reduces_;
  std::vector<PathSegment> out_;
};

} // namespace

CriticalPath critical_path(const Recording& rec, const topology::Topology& topo, bool cut_through) {
  if (rec.truncated) fail("critical path: the recording was cut short (too many transfers); choose a smaller size or fewer ranks");
  return Walker(rec, topo, cut_through).run();
}

} // namespace ccsim::observe
