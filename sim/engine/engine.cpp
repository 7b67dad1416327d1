// The event loop. A rank begins a step by posting its sends and its receives; the step ends when its
// last send has arrived and its last receive is in, plus the time to reduce the received bytes; the
// next step begins at once. A transfer starts when both its send and its matching receive are posted
// (rendezvous, as SimGrid SMPI and MPI's large-message protocol do, and as NCCL's credits enforce), so
// a rank running ahead never takes a receiver's link before the message that receiver needs first.
// With ModelParams::eager a send starts at once and waits at the receiver instead.
#include "sim/engine/engine.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/engine/small_list.hpp"

namespace ccsim::engine {

enum EventKind : std::uint32_t { kArrival = 0, kStepDone = 1, kModel = 2 };

// A send posted before its receive (rendezvous): its sender, the sender's step, bytes on the wire,
// offset. Parked sends live in one pool, each rank holding a singly linked list of its own in post order.
struct Engine::Parked {
  std::uint32_t src;
  int step;
  Bytes bytes;
  std::uint64_t off;
  std::uint32_t next = kNone; // next send parked at the same rank, or the next free pool slot
};

// One cache line per rank (the 16k-rank ring touches every rank's state once per step).
struct alignas(64) Engine::RankState {
  int step = -1;
  int pending = 0;        // sends not yet arrived + receives not yet in
  std::uint32_t node = 0; // topology node the rank runs on
  std::uint32_t job = 0;
  int rank = 0;
  std::uint32_t parked = kNone; // first send parked at this rank (rendezvous), in the pool
  bool done = false;
  Bytes reduce_bytes = 0; // received with reduction during this step
  Time step_begin = 0;
  // This step's receives not yet in, as 2 * sender + 1 once the transfer started, 2 * sender while
  // the (rendezvous) receive still waits for its send to be posted. With eager sends, 2 * sender is
  // instead a message that came before its receive was posted (eager receives never wait for a send).
  SmallList<2> waiting;
};

// What a rank's step needs of its job, kept together (a Job reaches it through its schedule's args).
struct Engine::JobInfo {
  const schedule::Schedule* schedule;
  int p;              // ranks in the job
  std::uint32_t base; // index of the job's rank 0 in ranks_
  Bytes elt_size;
};

class Engine::Sink final : public ArrivalSink {
 public:
  explicit Sink(EventQueue& q) : q_(q) {}
  void schedule_model_event(Time at, std::uint32_t a, std::uint32_t b) override { q_.push(at, kModel, a, b); }

 private:
  EventQueue& q_;
};

Engine::Engine(const topology::Topology& topo, topology::Router& router, ModelParams params)
    : topo_(topo), router_(router), params_(std::move(params)), net_(make_network(params_.network, params_.alpha_sw)),
      sink_(std::make_unique<Sink>(queue_)) {
  fifo_ = dynamic_cast<FifoNetwork*>(net_.get());
}

Engine::~Engine() = default;

namespace {

// Simulated time is int64 picoseconds (about 106 days). Before running, bound the makespan from above
// as if every byte crossed the slowest link one after another (2 + log2 p buffers per rank: recursive
// doubling sends the whole buffer log2 p times), every GPU reduced all it received, and every one of
// 4p + 64 steps paid 16 hops of the largest latency plus the software alpha. Runs whose bound passes
// half the clock's range are refused, so no sum in the event loop can wrap (and the loop stays as is).
void check_clock_range(const topology::Topology& topo, const ModelParams& params, std::span<const Job> jobs) {
  Bandwidth min_bw = 0;
  Time max_lat = 0;
  for (const auto& l : topo.links) {
    min_bw = min_bw == 0 ? l.bw : std::min(min_bw, l.bw);
    max_lat = std::max(max_lat, l.latency);
  }
  double bytes = 0, per_rank = 0, steps = 64, start = 0;
  for (const auto& j : jobs) {
    start = std::max(start, static_cast<double>(j.start));
    const double p = j.schedule->args().ranks;
    const double buffer = static_cast<double>(j.schedule->buffer_elems()) * static_cast<double>(j.elt_size);
    bytes += p * buffer * (2 + std::log2(std::max(1.0, p)));
    per_rank = std::max(per_rank, buffer * (2 + std::log2(std::max(1.0, p))));
    steps += 4 * p;
  }
  const double ps = 1e12;
  const double wire = min_bw ? bytes * ps / static_cast<double>(min_bw) : 0;
  const double reduce = params.reduce_bw ? per_rank * ps / static_cast<double>(params.reduce_bw) : 0;
  const double latency = steps * (16 * static_cast<double>(max_lat) + static_cast<double>(params.alpha_sw));
  const double bound = wire + reduce + latency + start;
  constexpr double kLimit = static_cast<double>(kNever / 2);
  if (bound > kLimit)
    fail("the run could last up to {:.3g} s of simulated time (moving {:.3g} B over the slowest link, {}{}), more than the "
         "{:.3g} s that 64-bit picoseconds hold with margin; use a smaller size, faster links or a smaller latency",
         bound / ps, bytes, format_bandwidth(min_bw),
         params.reduce_bw ? fmt::format(", reducing at {}", format_bandwidth(params.reduce_bw)) : std::string{}, kLimit / ps);
}

} // namespace

RunResult Engine::run(std::span<const Job> jobs) {
  observed_ = !observers_.empty();
  net_->reset(topo_);
  queue_.clear();
  transfers_ = 0;
  job_info_.clear();
  check_clock_range(topo_, params_, jobs);
  std::uint32_t total = 0;
  for (const auto& j : jobs) {
    const int p = j.schedule->args().ranks;
    if (static_cast<int>(j.node_of_rank.size()) != p)
      fail("engine: job places {} ranks but its schedule has {}", j.node_of_rank.size(), p);
    job_info_.push_back(JobInfo{j.schedule, p, total, j.elt_size});
    total += static_cast<std::uint32_t>(j.node_of_rank.size());
    if (total >= (1u << 31)) fail("engine: more than 2^31 ranks");
  }
  static_assert(sizeof(RankState) == 64);
  ranks_.assign(total, RankState{});
  parked_.clear();
  free_parked_ = kNone;
  for (std::uint32_t ji = 0; ji < jobs.size(); ++ji)
    for (std::uint32_t r = 0; r < jobs[ji].node_of_rank.size(); ++r) {
      RankState& rs = ranks_[job_info_[ji].base + r];
      rs.node = static_cast<std::uint32_t>(jobs[ji].node_of_rank[r]);
      rs.job = ji;
      rs.rank = static_cast<int>(r);
    }
  // Every rank begins at its job's start time.
  for (std::uint32_t g = 0; g < total; ++g) queue_.push(jobs[ranks_[g].job].start, kStepDone, g, 0);

  std::uint64_t events = 0;
  while (!queue_.empty()) {
    const Event e = queue_.pop();
    ++events;
    switch (e.kind) {
      case kArrival: deliver(e.a, e.b, e.time); break;
      case kStepDone: start_steps(e.a, e.time); break;
      case kModel:
        arrived_.clear();
        net_->on_model_event(e.time, e.a, e.b, *sink_, arrived_);
        for (std::uint64_t tok : arrived_)
          deliver(static_cast<std::uint32_t>(tok >> 32), static_cast<std::uint32_t>(tok), e.time);
        break;
    }
  }

  RunResult res;
  res.job_finish.assign(jobs.size(), 0);
  for (const auto& rs : ranks_) {
    if (!rs.done)
      fail("schedule deadlock: job {} rank {} never finished step {} (waiting for {} message(s))", rs.job, rs.rank,
           rs.step, rs.pending);
    if (!rs.waiting.empty() || rs.parked != kNone) // an eager message or a parked send nobody received
      fail("schedule error: job {} rank {} is sent a message from rank {} that it never receives", rs.job, rs.rank,
           ranks_[rs.waiting.empty() ? parked_[rs.parked].src : rs.waiting.front() / 2].rank);
    res.job_finish[rs.job] = std::max(res.job_finish[rs.job], rs.step_begin);
  }
  for (Time t : res.job_finish) res.makespan = std::max(res.makespan, t);
  res.events = events;
  res.transfers = transfers_;
  res.channels = net_->stats();
  return res;
}

// Appends a send to the sends parked at rank `rd` (the list is usually empty or one long).
inline void Engine::park(RankState& rd, const Parked& t) {
  std::uint32_t slot = free_parked_;
  if (slot == kNone) {
    slot = static_cast<std::uint32_t>(parked_.size());
    parked_.emplace_back();
  } else {
    free_parked_ = parked_[slot].next;
  }
  parked_[slot] = t;
  std::uint32_t* link = &rd.parked;
  while (*link != kNone) link = &parked_[*link].next;
  *link = slot;
}

// Takes the first send parked at rank `rs` by `src` into `t`; false if there is none.
inline bool Engine::unpark(RankState& rs, std::uint32_t src, Parked& t) {
  std::uint32_t* link = &rs.parked;
  while (*link != kNone && parked_[*link].src != src) link = &parked_[*link].next;
  if (*link == kNone) return false;
  const std::uint32_t slot = *link;
  t = parked_[slot];
  *link = t.next;
  parked_[slot].next = free_parked_;
  free_parked_ = slot;
  return true;
}

// Begin the rank's next steps until one has something to wait for (or the rank is done).
void Engine::start_steps(std::uint32_t g, Time now) {
  while (begin_step(g, now)) {
  }
}

// Returns true when the step just begun completed on the spot (nothing to wait for).
bool Engine::begin_step(std::uint32_t g, Time now) {
  RankState& rs = ranks_[g];
  if (observed_ && rs.step >= 0)
    for (auto* o : observers_) o->on_step(static_cast<int>(rs.job), rs.rank, rs.step, rs.step_begin, now);
  const int step = ++rs.step;
  rs.step_begin = now;
  const JobInfo& job = job_info_[rs.job];
  if (!job.schedule->step(rs.rank, step, actions_)) {
    rs.done = true;
    return false;
  }
  int pending = 0; // the step's sends and receives (none can complete before the loop ends)
  Bytes reduce_bytes = 0;
  for (const auto& a : actions_) {
    if (a.kind == schedule::Action::Kind::Copy) continue;
    if (static_cast<unsigned>(a.peer) >= static_cast<unsigned>(job.p) || a.peer == rs.rank)
      fail("schedule error: rank {} step {} names peer {} (ranks 0..{})", rs.rank, step, a.peer, job.p - 1);
    const std::uint32_t peer = job.base + static_cast<std::uint32_t>(a.peer);
    ++pending;
    if (a.kind == schedule::Action::Kind::Send) {
      const Parked t{g, step, a.len * job.elt_size + params_.header_bytes, a.off};
      if (params_.eager || ranks_[peer].waiting.replace(2 * g, 2 * g + 1)) start_transfer(t, peer, now);
      else park(ranks_[peer], t); // its receive is not posted yet
      continue;
    }
    if (a.kind == schedule::Action::Kind::RecvReduce) reduce_bytes += a.len * job.elt_size;
    Parked t;
    if (params_.eager) {
      if (rs.waiting.erase(2 * peer)) --pending; // the message came already
      else rs.waiting.push_back(2 * peer + 1);
    } else if (unpark(rs, peer, t)) {
      rs.waiting.push_back(2 * peer + 1);
      start_transfer(t, g, now);
    } else {
      rs.waiting.push_back(2 * peer); // its send is not posted yet
    }
  }
  rs.pending = pending;
  rs.reduce_bytes = reduce_bytes;
  return pending == 0 && !charge_reduction(g, now);
}

// Both ends of `t` are posted (its receiver is `dst`): the network model takes the bytes from `now`.
// The FIFO model is called directly (inlined); the others through NetworkModel. Inlined into both
// callers: as a call, it made begin_step keep its state on the stack (~5% more instructions per transfer).
[[gnu::always_inline]] inline void Engine::start_transfer(const Parked& t, std::uint32_t dst, Time now) {
  const auto route = router_.route(static_cast<int>(ranks_[t.src].node), static_cast<int>(ranks_[dst].node));
  const Time arrive = fifo_ ? fifo_->post(route, t.bytes, now)
                            : net_->post((static_cast<std::uint64_t>(t.src) << 32) | dst, route, t.bytes, now, *sink_);
  ++transfers_;
  if (arrive != kNever) queue_.push(arrive, kArrival, t.src, dst);
  if (observed_) report_transfer(t.src, dst, t.step, t.bytes, t.off, now, arrive, route);
}

// `now` is when both ends were posted, so start - now is time queued behind other messages on a link.
void Engine::report_transfer(std::uint32_t src, std::uint32_t dst, int step, Bytes bytes, std::uint64_t off, Time now,
                             Time arrive, std::span<const ChannelId> route) {
  net_->last_occupancy(route, bytes, hops_);
  const TransferRecord rec{static_cast<int>(ranks_[src].job), ranks_[src].rank, ranks_[dst].rank, step, bytes, now,
                           net_->last_start(), arrive, route, off, hops_};
  for (auto* o : observers_) o->on_transfer(rec);
}

// The step's messages are all in at `now`: its reduction, if any, ends the step later (false if none).
inline bool Engine::charge_reduction(std::uint32_t g, Time now) {
  RankState& rs = ranks_[g];
  if (rs.reduce_bytes == 0 || params_.reduce_bw == 0) return false;
  const Time end = now + transfer_time(rs.reduce_bytes, params_.reduce_bw);
  if (observed_)
    for (auto* o : observers_) o->on_reduce(static_cast<int>(rs.job), rs.rank, rs.step, now, end, rs.reduce_bytes);
  queue_.push(end, kStepDone, g, 0);
  return true;
}

// The step's last message is in: charge the reduction (if any), then move on.
inline void Engine::complete_step(std::uint32_t g, Time now) {
  if (!charge_reduction(g, now)) start_steps(g, now);
}

inline void Engine::deliver(std::uint32_t src, std::uint32_t dst, Time now) {
  // The sender's send is complete.
  if (--ranks_[src].pending == 0) complete_step(src, now);
  // The receiver takes it if its current step waits for it, else keeps it for a later step.
  RankState& rd = ranks_[dst];
  if (rd.waiting.erase(2 * src + 1)) {
    if (--rd.pending == 0) complete_step(dst, now);
  } else {
    rd.waiting.push_back(2 * src); // eager: came before its receive was posted
  }
}

} // namespace ccsim::engine
