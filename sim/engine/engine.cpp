// The event loop. A rank begins a step by posting its sends and receives in the schedule's order, each
// keeping it busy for the software overhead o (ModelParams::overhead, LogP's o): a send enters the
// network once its o is paid, a receive's o overlaps its message's flight, and the step lasts at least
// the sum. When the step ends, and when a transfer may start, depends on the step semantics:
//  mpi: once its last send has arrived and its last receive is in. A transfer starts when both its send
//       and its matching receive are posted (rendezvous, as SimGrid SMPI and MPI's large-message protocol
//       do), so a rank running ahead never takes a receiver's link before the message it needs first.
//  gpu: once its receives are in and its sends have left the GPU (what NCCL's kernels wait for). A send
//       starts when posted if its sender is fewer than `credits` messages ahead of the receives posted on
//       that connection (NCCL's buffer slots), else when the receiver posts the receive that frees one.
// Then the received bytes are reduced (if reductions cost time) and the next step begins at once.
// With ModelParams::eager every send starts when posted, under either semantics.
#include "sim/engine/engine.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/engine/clock_range.hpp"
#include "sim/engine/small_list.hpp"
#include "sim/schedule/fixed_step.hpp"

namespace ccsim::engine {

// RankState::step plus this: the step is the rank's last (schedule::kLastFixedStep), so the rank ends with it.
constexpr int kLastStep = 1 << 30;

enum EventKind : std::uint32_t { kArrival = 0, kStepDone = 1, kModel = 2, kSendsDone = 3 };

// A receiver's view of one message from `src`, kept in RankState::waiting as 4 * src + state.
enum MessageState : std::uint32_t {
  kRecvPosted = 0, // the receive is posted, the send has not started
  kInFlight = 1,   // both posted and started: the receive waits for the arrival
  kEarly = 2,      // started before its receive was posted (credits or eager), not yet arrived
  kArrived = 3,    // arrived before its receive was posted
};
constexpr std::uint32_t entry(std::uint32_t src, MessageState s) { return 4 * src + s; }

// A send waiting for a credit (gpu) or its receive (mpi, rendezvous): its sender, the sender's step,
// bytes on the wire, offset, when it was posted. Parked sends live in one pool, each rank holding a
// singly linked list of those addressed to it, in post order.
struct Engine::Parked {
  std::uint32_t src;
  int step;
  Bytes bytes;
  std::uint64_t off;
  Time at;
  std::uint32_t next = kNone; // next send parked at the same rank, or the next free pool slot
};

// Half a cache line per rank (the 16k-rank ring touches every rank's state once per step; a million-rank
// broadcast holds every rank's). Where a rank runs, its job and rank within the job are in side arrays
// that stay empty in the common case (identity placement, one job); when a step began and what it
// reduces only where something reads them (observers, reduction time).
struct alignas(32) Engine::RankState {
  Time ready = 0;         // the step cannot end before: its posts' overheads paid, (gpu) its started sends left
  // Messages to this rank not yet received, as entry(sender, state): this step's receives and, with
  // credits or eager sends, messages that came before their receive was posted.
  SmallList<2> waiting;
  int step = -1;
  int pending = 0;        // receives not yet in + own sends not yet done (see engine.cpp's top); -1: finished
  std::uint32_t parked = kNone; // first send parked at this rank, in the pool
};

// What a rank's step needs of its job, kept together (a Job reaches it through its schedule's args).
struct Engine::JobInfo {
  const schedule::Schedule* schedule;
  int p;              // ranks in the job
  std::uint32_t base; // index of the job's rank 0 in ranks_
  Bytes elt_size;
  bool fixed;         // the schedule writes its steps into a fixed buffer (Schedule::fixed_steps)
};

class Engine::Sink final : public ArrivalSink {
 public:
  explicit Sink(EventQueue& q) : q_(q) {}
  void schedule_model_event(Time at, std::uint32_t a, std::uint32_t b) override { q_.push(at, kModel, a, b); }
  EventQueue& q_;
};

Engine::Engine(const topology::Topology& topo, topology::Router& router, ModelParams params, std::unique_ptr<NetworkModel> net)
    : topo_(topo), router_(router), params_(std::move(params)), gpu_(params_.semantics == Semantics::gpu),
      window_(params_.eager ? kNone : gpu_ ? params_.credits : 0), net_(std::move(net)), sink_(std::make_unique<Sink>(queue_)) {
  if (!net_) fail("engine: no network model given");
  if (window_ != kNone && window_ >= (1u << 30)) window_ = kNone;
  fifo_ = dynamic_cast<FifoNetwork*>(net_.get());
}

Engine::~Engine() = default;

RunResult Engine::run(std::span<const Job> jobs) {
  observed_ = !observers_.empty();
  net_->reset(topo_);
  queue_.clear();
  transfers_ = 0;
  skipped_events_ = 0;
  job_info_.clear();
  check_clock_range(topo_, params_, jobs);
  std::uint32_t total = 0;
  for (const auto& j : jobs) {
    const int p = j.schedule->args().ranks;
    if (static_cast<int>(j.node_of_rank.size()) != p)
      fail("engine: job places {} ranks but its schedule has {}", j.node_of_rank.size(), p);
    job_info_.push_back(JobInfo{j.schedule, p, total, j.elt_size, j.schedule->fixed_steps()});
    total += static_cast<std::uint32_t>(j.node_of_rank.size());
    if (total >= (1u << 30)) fail("engine: more than 2^30 ranks");
  }
  static_assert(sizeof(RankState) == 32);
  ranks_.assign(total, RankState{});
  // ~One queued event per rank at the peak (broadcast ~0.6, ring and halving-doubling ~1), at most 1 MiB of chunks:
  // beyond that the pool grows as it needs (a million-rank run would otherwise map 16 MiB it may not use).
  queue_.reserve(std::min<std::size_t>(total, std::size_t{1} << 16));
  parked_.clear();
  free_parked_ = kNone;
  place(jobs, total);
  // Every rank begins at its job's start time, or once the jobs it waits for are done.
  deps_ = std::any_of(jobs.begin(), jobs.end(), [](const Job& j) { return !j.after.empty(); });
  waiting_.clear(), dependents_.clear();
  if (deps_) {
    waiting_.resize(jobs.size());
    dependents_.assign(jobs.size(), {});
    for (std::uint32_t ji = 0; ji < jobs.size(); ++ji) {
      waiting_[ji] = {static_cast<std::uint32_t>(jobs[ji].after.size()), static_cast<std::uint32_t>(job_info_[ji].p), jobs[ji].start};
      for (const auto& [d, delay] : jobs[ji].after) {
        if (d >= ji) fail("engine: job {} waits for job {}, which does not come before it", ji, d);
        if (delay < 0) fail("engine: job {} waits a negative time", ji);
        dependents_[d].emplace_back(ji, delay);
      }
    }
  }
  // When every job begins at the same time, its ranks' first steps begin in loop(), in rank order: their start
  // events would pop first anyway (earliest time, pushed first), and a million ranks need no million queued events.
  const bool begin_now = !deps_ && !jobs.empty() && jobs[0].start >= 0 && std::all_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.start == jobs[0].start; });
  if (!begin_now)
    for (std::uint32_t g = 0; g < total; ++g)
      if (!deps_ || waiting_[job_of(g)].deps_left == 0) queue_.push(jobs[job_of(g)].start, kStepDone, g, 0);
  const Time begin_at = begin_now ? jobs[0].start : -1; // < 0: nothing begins before the queue runs

  // The FIFO model without observers, software overhead or reduction time is the common case (and every
  // benchmark's): its own instantiations of the hot path.
  const bool plain_fifo = fifo_ && !observed_ && params_.overhead == 0 && params_.reduce_bw == 0;
  const bool plain_model = !fifo_ && !observed_ && params_.overhead == 0 && params_.reduce_bw == 0;
  const std::uint64_t events = plain_model && !gpu_ && window_ == 0        ? loop<kModelMpi>(begin_at)
                               : !plain_fifo                               ? loop<kGeneric>(begin_at)
                               : !gpu_ && window_ == 0                    ? loop<kFifoMpi>(begin_at)
                               : gpu_ && window_ != 0 && window_ != kNone ? loop<kFifoGpu>(begin_at)
                                                                          : loop<kGeneric>(begin_at);

  RunResult res;
  for (std::uint32_t g = 0; g < total; ++g) {
    const RankState& rs = ranks_[g];
    if (rs.pending >= 0)
      fail("schedule deadlock: job {} rank {} never finished step {} (waiting for {} message(s))", job_of(g), rank_of(g),
           rs.step % kLastStep, rs.pending);
    if (!rs.waiting.empty() || rs.parked != kNone) // an eager message or a parked send nobody received
      fail("schedule error: job {} rank {} is sent a message from rank {} that it never receives", job_of(g), rank_of(g),
           rank_of(rs.waiting.empty() ? parked_[rs.parked].src : rs.waiting.front() / 4));
  }
  res.job_finish = job_finish_;
  for (Time t : res.job_finish) res.makespan = std::max(res.makespan, t);
  res.events = events + skipped_events_;
  res.transfers = transfers_;
  if (params_.channel_totals) res.channels = net_->take_stats();
  return res;
}

int Engine::rank_of(std::uint32_t g) const { return static_cast<int>(g - job_info_[job_of(g)].base); }

// Where each rank runs and which job it belongs to; the side arrays stay empty when rank g runs on node g
// and there is one job (a generated crossbar's bench), so the hot path reads nothing for them.
void Engine::place(std::span<const Job> jobs, std::uint32_t total) {
  std::vector<std::uint32_t>().swap(node_); // no storage: node_of and job_of test data() against null
  std::vector<std::uint32_t>().swap(job_);
  router_of_.clear();
  step_begin_.clear();
  reduce_bytes_.clear();
  job_finish_.assign(jobs.size(), 0);
  std::uint32_t differ = 0; // one pass without early exit (vectorised)
  for (std::uint32_t ji = 0; ji < jobs.size(); ++ji) {
    const int* nodes = jobs[ji].node_of_rank.data();
    const std::uint32_t n = static_cast<std::uint32_t>(jobs[ji].node_of_rank.size()), base = job_info_[ji].base;
    for (std::uint32_t r = 0; r < n; ++r) differ |= static_cast<std::uint32_t>(nodes[r]) ^ (base + r);
  }
  const bool identity = differ == 0;
  if (!identity) {
    node_.resize(total);
    for (std::uint32_t ji = 0; ji < jobs.size(); ++ji)
      for (std::uint32_t r = 0; r < jobs[ji].node_of_rank.size(); ++r)
        node_[job_info_[ji].base + r] = static_cast<std::uint32_t>(jobs[ji].node_of_rank[r]);
  }
  if (jobs.size() > 1) {
    job_.resize(total);
    for (std::uint32_t ji = 0; ji < jobs.size(); ++ji)
      std::fill_n(job_.begin() + job_info_[ji].base, jobs[ji].node_of_rank.size(), ji);
  }
  if (observed_) step_begin_.assign(total, 0);
  if (params_.reduce_bw != 0) reduce_bytes_.assign(total, 0);
  bool own_routes = false;
  for (const auto& j : jobs) own_routes |= j.router != nullptr;
  if (own_routes) {
    router_of_.resize(total);
    for (std::uint32_t ji = 0; ji < jobs.size(); ++ji)
      std::fill_n(router_of_.begin() + job_info_[ji].base, jobs[ji].node_of_rank.size(), jobs[ji].router ? jobs[ji].router : &router_);
  }
  const auto* xbar = topo_.crossbar_formula();
  crossbar_gpus_ = fifo_ && xbar && topo_.route_overrides.empty() && !own_routes ? static_cast<std::uint32_t>(xbar->gpus) : 0;
  if (crossbar_gpus_ && identity) fifo_->populate(2 * std::size_t{std::min(total, crossbar_gpus_)}); // GPU n: channels 2n, 2n+1
}

// What a Mode fixes. kFifoMpi: the FIFO model, mpi semantics with rendezvous (no eager), no observers, no
// software overhead, free reductions; kFifoGpu: the same under gpu semantics with credits; kModelMpi: as
// kFifoMpi with another model (flow), called through NetworkModel. kGeneric reads every switch at run time.
// Each function below is one source for all modes.
template <int M> inline bool Engine::gpu() const { return M == kGeneric ? gpu_ : M == kFifoGpu; }
template <int M> inline bool Engine::rendezvous() const { return M == kGeneric ? window_ == 0 : plain_mpi<M>(); }
template <int M> inline bool Engine::observed() const { return M == kGeneric && observed_; }

// A million ranks' state and channels do not fit in the cache, and the events of one time touch them in no
// useful order: while one event is handled, ask for the state that the event a few pops later will read
// (its rank's line and, on a generated crossbar, the channel its next send leaves on).
template <int M> inline void Engine::prefetch_ahead() const {
  constexpr std::size_t kAhead = 4;
  std::uint32_t kind, a, b;
  if (!queue_.peek(kAhead, kind, a, b)) return;
  const std::uint32_t g = kind == kArrival ? b : a;
  if (kind == kModel || g >= ranks_.size()) return;
  __builtin_prefetch(&ranks_[g]);
  if (!gpu<M>() && kind == kArrival) __builtin_prefetch(&ranks_[a]); // mpi: the sender's step waits for it too
  if (crossbar_gpus_) fifo_->prefetch(2 * node_of(g));
}

template <int M> std::uint64_t Engine::loop(Time begin_at) {
  std::uint64_t events = 0;
  if (begin_at >= 0)
    for (std::uint32_t g = 0; g < ranks_.size(); ++g) ++events, start_steps<M>(g, begin_at);
  // Below ~64k ranks the state fits in the cache and the look-ahead would only cost instructions.
  const bool prefetch = M != kGeneric && ranks_.size() >= (1u << 16);
  while (!queue_.empty()) {
    if (prefetch) prefetch_ahead<M>();
    const Event e = queue_.pop();
    ++events;
    switch (e.kind) {
      case kArrival: deliver<M>(e.a, e.b, e.time); break;
      case kStepDone: start_steps<M>(e.a, e.time); break;
      case kSendsDone: complete_step<M>(e.a, e.time); break;
      case kModel:
        arrived_.clear();
        left_.clear();
        net_->on_model_event(e.time, e.a, e.b, *sink_, arrived_, left_);
        for (std::uint64_t tok : left_) sent<M>(static_cast<std::uint32_t>(tok >> 32), e.time);
        for (std::uint64_t tok : arrived_)
          deliver<M>(static_cast<std::uint32_t>(tok >> 32), static_cast<std::uint32_t>(tok), e.time);
        break;
    }
  }
  return events;
}

// A rank of `job` finished: when it was the job's last, the jobs waiting for it may start.
void Engine::job_rank_done(std::uint32_t job, Time now) {
  if (--waiting_[job].ranks_left > 0) return;
  for (const auto& [next, delay] : dependents_[job]) {
    Waiting& w = waiting_[next];
    w.earliest = std::max(w.earliest, now + delay);
    if (--w.deps_left > 0) continue;
    const JobInfo& info = job_info_[next];
    for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(info.p); ++r) queue_.push(w.earliest, kStepDone, info.base + r, 0);
  }
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
template <int M> void Engine::start_steps(std::uint32_t g, Time now) {
  while (begin_step<M>(g, now)) {
  }
}

// The rank has no step left: it finished at `now`.
inline void Engine::finish_rank(std::uint32_t g, Time now) {
  ranks_[g].pending = -1;
  const std::uint32_t ji = job_of(g);
  job_finish_[ji] = std::max(job_finish_[ji], now);
  if (deps_) job_rank_done(ji, now);
}

// The rank's step ends at `at`, later than now: when that step is its last, it finishes there and then (see
// end_step_now) and this returns true. Out of line: the hot loop's code stays as it was without it.
[[gnu::noinline]] bool Engine::finish_last(std::uint32_t g, Time at) {
  if (ranks_[g].step < kLastStep || deps_) return false;
  finish_rank(g, at);
  ++skipped_events_;
  return true;
}

// Out of line and cold: the message's formatting stays out of begin_step.
[[noreturn, gnu::noinline, gnu::cold]] static void bad_peer(int rank, int step, int peer, int p) {
  fail("schedule error: rank {} step {} names peer {} (ranks 0..{})", rank, step, peer, p - 1);
}

// Returns true when the step just begun completed on the spot (nothing to wait for).
template <int M> bool Engine::begin_step(std::uint32_t g, Time now) {
  RankState& rs = ranks_[g];
  const std::uint32_t ji = job_of(g);
  const JobInfo& job = job_info_[ji];
  const int rank = static_cast<int>(g - job.base);
  const auto finish = [&] { return finish_rank(g, now), false; }; // the rank has no step left
  if (M != kGeneric && rs.step >= kLastStep) return finish(); // the step that ended was its last, its schedule said
  if (observed<M>()) {
    if (rs.step >= 0)
      for (auto* o : observers_) o->on_step(static_cast<int>(ji), rank, rs.step, step_begin_[g], now);
    step_begin_[g] = now;
  }
  const int step = ++rs.step;
  if (!plain_mpi<M>()) rs.ready = now; // plain mpi never reads it (see end_step_now)
  const schedule::Action* acts = fixed_actions_;
  int n;
  if (job.fixed) {
    n = job.schedule->step_fixed(rank, step, fixed_actions_);
  } else {
    n = job.schedule->step(rank, step, actions_) ? static_cast<int>(actions_.size()) : -1;
    acts = actions_.data();
  }
  if (n < 0) return finish();
  if (n >= schedule::kLastFixedStep) { // the rank's last step (only the fast modes, which have no on_step to report)
    n -= schedule::kLastFixedStep;
    if (M != kGeneric) rs.step += kLastStep;
  }
  int pending = 0; // what the step waits for (nothing can complete before the loop ends)
  Bytes reduce_bytes = 0;
  Time at = now; // when the action is posted: each one's overhead after the previous one's
  for (const schedule::Action* a = acts; a != acts + n; ++a) {
    if (a->kind == schedule::Action::Kind::Copy) continue;
    if (static_cast<unsigned>(a->peer) >= static_cast<unsigned>(job.p) || a->peer == rank) bad_peer(rank, step, a->peer, job.p);
    const std::uint32_t peer = job.base + static_cast<std::uint32_t>(a->peer);
    if constexpr (M == kGeneric) at += params_.overhead;
    if (a->kind == schedule::Action::Kind::Send) {
      pending += post_send<M>(Parked{g, step, a->len * job.elt_size + params_.header_bytes, a->off, at}, peer);
      continue;
    }
    if (M == kGeneric && a->kind == schedule::Action::Kind::RecvReduce) reduce_bytes += a->len * job.elt_size;
    pending += post_recv<M>(g, peer, at, now);
  }
  if constexpr (M == kGeneric) { // else `at` is `now`, and reductions are free
    rs.ready = std::max(rs.ready, at);
    if (params_.reduce_bw != 0) reduce_bytes_[g] = reduce_bytes;
  }
  rs.pending = pending;
  return pending == 0 && end_step_now<M>(g, now);
}

// Whether `src` may start one more message to `rd` now: fewer than window_ of its messages to `rd` have
// started before their receive was posted (a receive posted first counts as one message behind).
inline bool Engine::may_start(const RankState& rd, std::uint32_t src) const {
  if (window_ == kNone) return true;
  int ahead = 0;
  for (std::uint32_t e : rd.waiting)
    if (e / 4 == src) ahead += (e % 4 >= kEarly) - (e % 4 == kRecvPosted);
  return ahead < static_cast<int>(window_);
}

// Records at `rd` that a message from `src` may start (it takes the first receive posted for it, else
// comes early); false when it may not (no credit). One pass over the list: this runs for every send.
inline bool Engine::claim(RankState& rd, std::uint32_t src) {
  std::uint32_t* d = rd.waiting.begin();
  const std::uint32_t n = rd.waiting.size();
  int ahead = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (d[i] / 4 != src) continue;
    if (d[i] % 4 == kRecvPosted) return d[i] = entry(src, kInFlight), true;
    ahead += d[i] % 4 >= kEarly;
  }
  if (window_ != kNone && ahead >= static_cast<int>(window_)) return false;
  rd.waiting.push_back(entry(src, kEarly));
  return true;
}

// Posts send `t` to rank `peer`; returns 1 when the sender's step must wait for it, else 0 (gpu: it
// started and the model says when it will have left; the FIFO model always says).
template <int M> [[gnu::always_inline]] inline int Engine::post_send(const Parked& t, std::uint32_t peer) {
  RankState& rd = ranks_[peer];
  if (rendezvous<M>() ? !rd.waiting.replace(entry(t.src, kRecvPosted), entry(t.src, kInFlight)) : !claim(rd, t.src))
    return park(rd, t), 1; // rendezvous: its receive is not posted; credits: none left until one is
  const Time left = start_transfer<M>(t, peer, t.at);
  if (!gpu<M>() || (M == kGeneric && left == kNever)) return 1;
  RankState& rs = ranks_[t.src];
  rs.ready = std::max(rs.ready, left);
  return 0;
}

// Rank `g` posts at `at` its receive from `peer`; returns 1 when its step must wait for the message.
template <int M> inline int Engine::post_recv(std::uint32_t g, std::uint32_t peer, Time at, Time now) {
  RankState& rs = ranks_[g];
  Parked t;
  if (rendezvous<M>()) { // rendezvous: the send, if posted, is parked here
    if (unpark(rs, peer, t)) {
      rs.waiting.push_back(entry(peer, kInFlight));
      start_unparked<M>(t, g, at, now);
    } else {
      rs.waiting.push_back(entry(peer, kRecvPosted));
    }
    return 1;
  }
  int waits = 1;
  if (rs.waiting.erase(entry(peer, kArrived))) waits = 0;
  else if (!rs.waiting.replace(entry(peer, kEarly), entry(peer, kInFlight))) rs.waiting.push_back(entry(peer, kRecvPosted));
  // This receive frees one credit on the connection: a send parked for want of one may start.
  if (rs.parked != kNone && may_start(rs, peer) && unpark(rs, peer, t)) {
    claim(rs, peer);
    start_unparked<M>(t, g, at, now);
  }
  return waits;
}

// A parked send to `dst` may start now that `dst` posted a receive at `at`. Under gpu semantics its
// sender's step was waiting for it to start (and leave): that step may end, through an event, since
// the caller is in the middle of another rank's step.
template <int M> void Engine::start_unparked(const Parked& t, std::uint32_t dst, Time at, Time now) {
  const Time left = start_transfer<M>(t, dst, std::max(t.at, at));
  if (!gpu<M>() || (M == kGeneric && left == kNever)) return; // mpi: the sender waits for the arrival; flow: for sent()
  RankState& rs = ranks_[t.src];
  rs.ready = std::max(rs.ready, left);
  if (--rs.pending == 0) queue_.push(now, kSendsDone, t.src, 0);
}

// Both ends of `t` allow it to start (its receiver is `dst`): the network model takes the bytes from `at`;
// returns when its last byte has left the sender (kNever: the model reports that later). The FIFO model
// is called directly (inlined); the others through NetworkModel. Inlined into both callers: as a call,
// it made begin_step keep its state on the stack (~5% more instructions per transfer).
template <int M> [[gnu::always_inline]] inline Time Engine::start_transfer(const Parked& t, std::uint32_t dst, Time at) {
  const std::uint32_t from = node_of(t.src), to = node_of(dst);
  std::span<const ChannelId> route;
  Time arrive, left;
  const bool fifo = M == kFifoMpi || M == kFifoGpu || (M == kGeneric && fifo_);
  if (M != kGeneric && from < crossbar_gpus_ && to < crossbar_gpus_ && from != to) { // Router::route's pair
    arrive = fifo_->post_pair(2 * from, 2 * to + 1, t.bytes, at), left = fifo_->last_left();
  } else if (route = (router_of_.empty() ? router_ : *router_of_[t.src]).route(static_cast<int>(from), static_cast<int>(to)); fifo) {
    arrive = fifo_->post(route, t.bytes, at), left = fifo_->last_left();
  } else {
    arrive = net_->post((static_cast<std::uint64_t>(t.src) << 32) | dst, route, t.bytes, at, *sink_);
    left = gpu<M>() || M == kGeneric ? net_->last_left() : kNever; // mpi modes never read it: no virtual call
  }
  ++transfers_;
  if (M == kFifoMpi || M == kFifoGpu || arrive != kNever) queue_.push(arrive, kArrival, t.src, dst);
  if (observed<M>()) report_transfer(t.src, dst, t.step, t.bytes, t.off, at, arrive, route);
  return left;
}

// `now` is when both ends were posted, so start - now is time queued behind other messages on a link.
void Engine::report_transfer(std::uint32_t src, std::uint32_t dst, int step, Bytes bytes, std::uint64_t off, Time now,
                             Time arrive, std::span<const ChannelId> route) {
  net_->last_occupancy(route, bytes, hops_);
  const TransferRecord rec{static_cast<int>(job_of(src)), rank_of(src), rank_of(dst), step, bytes, now,
                           net_->last_start(), arrive, route, off, hops_};
  for (auto* o : observers_) o->on_transfer(rec);
}

// The step's messages are all in at `now`. It ends once it is `ready` (posts paid, gpu: sends left), then
// reduces what it received, if reductions cost time. Returns true when that is `now` (the caller
// begins the next step), else schedules the end.
template <int M> inline bool Engine::end_step_now(std::uint32_t g, Time now) {
  // Plain mpi: `ready` is the step's begin (no overhead, and under mpi sends leaving do not count).
  if (plain_mpi<M>()) return (void)g, (void)now, true;
  RankState& rs = ranks_[g];
  const Time at = std::max(now, rs.ready);
  if (M != kGeneric || params_.reduce_bw == 0 || reduce_bytes_[g] == 0) {
    if (at == now) return true;
    // The schedule marked the step the rank's last: all that is left is to finish at `at`, which no other event
    // can change, so the rank finishes now instead of through an event that would only do that (a quarter of a
    // binomial broadcast's events). The event is still counted, so `events` does not depend on this. Not with
    // job dependencies: a finished job queues its dependents' starts, and their order among other pushes counts.
    if (M == kGeneric || !finish_last(g, at)) queue_.push(at, kStepDone, g, 0);
    return false;
  }
  const Time end = at + transfer_time(reduce_bytes_[g], params_.reduce_bw);
  if (observed_)
    for (auto* o : observers_) o->on_reduce(static_cast<int>(job_of(g)), rank_of(g), rs.step, at, end, reduce_bytes_[g]);
  queue_.push(end, kStepDone, g, 0);
  return false;
}

// The step's last message is in (or its last send done): end it, then move on.
template <int M> inline void Engine::complete_step(std::uint32_t g, Time now) {
  if (end_step_now<M>(g, now)) start_steps<M>(g, now);
}

// The network model reports that a send of `src` has left (gpu semantics, flow model).
template <int M> inline void Engine::sent(std::uint32_t src, Time now) {
  if (--ranks_[src].pending == 0) complete_step<M>(src, now);
}

template <int M> inline void Engine::deliver(std::uint32_t src, std::uint32_t dst, Time now) {
  // mpi: the sender's send is complete.
  if (!gpu<M>() && --ranks_[src].pending == 0) complete_step<M>(src, now);
  // The receiver takes it if its current step waits for it, else keeps it for a later step.
  RankState& rd = ranks_[dst];
  if (rd.waiting.erase(entry(src, kInFlight))) {
    if (--rd.pending == 0) complete_step<M>(dst, now);
  } else {
    rd.waiting.replace(entry(src, kEarly), entry(src, kArrived)); // came before its receive was posted
  }
}

} // namespace ccsim::engine
