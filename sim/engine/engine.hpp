// The discrete-event engine: replays schedules on a topology under a network model.
// An Engine is an ordinary object (two can run side by side); it reports through observers and
// never prints. Several jobs (e.g. one ring per channel) run at once and share the links.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/engine/big_block.hpp"
#include "sim/engine/event_queue.hpp"
#include "sim/engine/fifo_network.hpp"
#include "sim/engine/network.hpp"
#include "sim/schedule/schedule.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::engine {

struct Job {
  const schedule::Schedule* schedule = nullptr;
  std::vector<int> node_of_rank; // topology node id of each rank
  Bytes elt_size = 4;
  Time start = 0;
  // Jobs this one waits for (a training step's compute and collectives in dependency order): it starts
  // at max(start, each listed job's finish + its delay). Listed jobs come earlier in the run's list.
  std::vector<std::pair<std::uint32_t, Time>> after;
  // This job's routes, on the engine's topology (nullptr: the engine's router): NCCL's channels that share GPU
  // pairs but leave a host through different NICs (the model's rings over equally near NICs).
  topology::Router* router = nullptr;
};

struct TransferRecord {
  int job, src, dst, step; // ranks within the job; step of the sender
  Bytes bytes;
  Time post, start, arrive;
  std::span<const ChannelId> route;
  std::uint64_t off = 0;               // first element of the sent range in the sender's buffer
  std::span<const Occupancy> hops;     // per route channel, when it held this message (empty: model can't say)
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_transfer(const TransferRecord&) {}
  virtual void on_step(int job, int rank, int step, Time begin, Time end) { (void)job, (void)rank, (void)step, (void)begin, (void)end; }
  virtual void on_reduce(int job, int rank, int step, Time begin, Time end, Bytes bytes) {
    (void)job, (void)rank, (void)step, (void)begin, (void)end, (void)bytes;
  }
};

struct RunResult {
  Time makespan = 0;               // last rank's finish, from time 0
  std::vector<Time> job_finish;    // per job
  std::uint64_t events = 0;
  std::uint64_t transfers = 0;
  ChannelStats channels;           // per directed channel
};

class Engine {
 public:
  // The network model is injected (see network_entries() for the shipped ones).
  Engine(const topology::Topology& topo, topology::Router& router, ModelParams params, std::unique_ptr<NetworkModel> net);
  Engine(const topology::Topology& topo, topology::Router& router, ModelParams params, const NetworkEntry& net)
      : Engine(topo, router, params, net.make(params)) {}
  ~Engine();
  void add_observer(Observer* o) { observers_.push_back(o); }
  // Throws Error if a schedule deadlocks (a receive nobody sends) or names a rank out of range.
  RunResult run(std::span<const Job> jobs);

 private:
  struct RankState;
  struct Parked;
  struct JobInfo;
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  class Sink;
  // The hot path is compiled once per Mode (engine.cpp): the common cases with their switches fixed at
  // compile time (FIFO under mpi or gpu semantics, another model such as flow under mpi semantics), and
  // one that reads them at run time.
  enum Mode : int { kGeneric, kFifoMpi, kFifoGpu, kModelMpi };
  // Mpi semantics with rendezvous, no observers, overhead or reduction time, whatever the model.
  template <int M> static constexpr bool plain_mpi() { return M == kFifoMpi || M == kModelMpi; }
  template <int M> bool gpu() const;
  template <int M> bool rendezvous() const;
  template <int M> bool observed() const;
  template <int M> std::uint64_t loop(Time begin_at); // begin_at >= 0: every rank begins its first step then
  template <int M> void start_steps(std::uint32_t g, Time now);
  template <int M> void prefetch_ahead() const;
  template <int M> bool begin_step(std::uint32_t g, Time now);
  template <int M> int post_send(const Parked& t, std::uint32_t peer);
  template <int M> int post_recv(std::uint32_t g, std::uint32_t peer, Time at, Time now);
  template <int M> Time start_transfer(const Parked& t, std::uint32_t dst, Time at);
  bool may_start(const RankState& rd, std::uint32_t src) const;
  bool claim(RankState& rd, std::uint32_t src);
  template <int M> void start_unparked(const Parked& t, std::uint32_t dst, Time at, Time now);
  template <int M> bool end_step_now(std::uint32_t g, Time now);
  template <int M> void complete_step(std::uint32_t g, Time now);
  template <int M> void deliver(std::uint32_t src, std::uint32_t dst, Time now);
  template <int M> void sent(std::uint32_t src, Time now);
  void park(RankState& rd, const Parked& t);
  bool unpark(RankState& rs, std::uint32_t src, Parked& t);
  void job_rank_done(std::uint32_t job, Time now);
  void finish_rank(std::uint32_t g, Time now);
  bool finish_last(std::uint32_t g, Time at);
  void place(std::span<const Job> jobs, std::uint32_t total);
  // One load and a test each (an empty side array has no storage, see place()).
  std::uint32_t node_of(std::uint32_t g) const { return node_.data() ? node_.data()[g] : g; }
  std::uint32_t job_of(std::uint32_t g) const { return job_.data() ? job_.data()[g] : 0; }
  int rank_of(std::uint32_t g) const;
  void report_transfer(std::uint32_t src, std::uint32_t dst, int step, Bytes bytes, std::uint64_t off, Time now,
                       Time arrive, std::span<const ChannelId> route);

  const topology::Topology& topo_;
  topology::Router& router_;
  ModelParams params_;
  bool gpu_;                // params_.semantics == gpu
  std::uint32_t window_;    // messages a send may run ahead of its receive per connection (kNone: unlimited)
  std::unique_ptr<NetworkModel> net_;
  FifoNetwork* fifo_ = nullptr; // net_ when it is the FIFO model (fifo, store_forward): called directly
  std::vector<Observer*> observers_;
  bool observed_ = false; // observers_ is not empty (fixed for a run)
  EventQueue queue_;
  std::unique_ptr<Sink> sink_; // lets the network model schedule its own events
  std::vector<RankState, BigAllocator<RankState>> ranks_; // in huge pages when large (big_block.hpp)
  std::vector<std::uint32_t> node_, job_; // per rank; empty: node g, job 0 (see place())
  std::vector<topology::Router*> router_of_; // per rank where some job has its own router (Job::router); else empty
  std::vector<Time> step_begin_;         // per rank, when observed
  std::vector<Bytes> reduce_bytes_;      // per rank, when reductions take time: received with reduction this step
  std::vector<Time> job_finish_;         // per job: its last rank's finish
  std::uint32_t crossbar_gpus_ = 0;      // FIFO on a generated crossbar of this many GPUs: GPU node n sends on channel 2n
  std::vector<Parked> parked_;          // pool of sends waiting for their receive (RankState::parked)
  std::uint32_t free_parked_ = kNone;   // first free slot of parked_
  std::vector<JobInfo> job_info_; // per job, what every step reads
  // Job dependencies (Job::after), used only when some job has them.
  struct Waiting {
    std::uint32_t deps_left = 0, ranks_left = 0;
    Time earliest = 0;
  };
  bool deps_ = false;
  std::vector<Waiting> waiting_;
  std::vector<std::vector<std::pair<std::uint32_t, Time>>> dependents_;
  std::vector<schedule::Action> actions_;
  schedule::Action fixed_actions_[schedule::Schedule::kFixedActions]; // steps of fixed_steps() schedules
  std::vector<std::uint64_t> arrived_, left_;
  std::vector<Occupancy> hops_; // filled only when observers are attached
  std::uint64_t transfers_ = 0;
  std::uint64_t skipped_events_ = 0; // step ends handled without an event (end_step_now), counted as events
};

} // namespace ccsim::engine
