// The inside of run_hybrid_step (hybrid_step.cpp: engine assembly and the run; hybrid_program.cpp: the
// per-layer program of every tensor-parallel group). Not for use elsewhere.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "sim/engine/run_plan.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/registry.hpp"
#include "sim/scenario/hybrid_step.hpp"
#include "sim/scenario/pipeline.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::scenario::detail {
using schedule::Op;

inline constexpr std::uint32_t kNoJob = ~0u;
// A run this large (ranks summed over jobs) would take minutes and gigabytes on the engine (the 39.1B
// Megatron row has about 4.5 million and takes 0.8 GB).
inline constexpr std::uint64_t kMaxRanks = 8'000'000;

// A job with nothing to send: the point where a program waits for several jobs (joins) or a time.
class EmptySchedule final : public schedule::Schedule {
 public:
  EmptySchedule() : Schedule(schedule::CollArgs{}) {}
  bool step(int, int, std::vector<schedule::Action>& out) const override { return out.clear(), false; }
};

// Rank 0 sends `count` elements to rank 1 (a pipeline stage's activation or gradient).
class P2pSchedule final : public schedule::Schedule {
 public:
  explicit P2pSchedule(schedule::CollArgs a) : Schedule(std::move(a)) {}
  bool step(int rank, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    if (s > 0) return false;
    if (rank == 0) schedule::send(out, 1, {0, args_.count});
    else schedule::recv(out, 0, {0, args_.count});
    return true;
  }
};

// When something happens: `offset` after job `job` finished (kNoJob: after time 0).
struct Mark {
  std::uint32_t job = kNoJob;
  Time offset = 0;
};

// One tensor-parallel group's program: its GPUs (tp ranks) and where it stands.
struct Chain {
  std::vector<int> gpus;
  Mark at;          // the program's next instruction may start here
  bool recorded = false;
  Time compute = 0, bubble = 0;
  std::map<CommKind, Time> exposed;
};

enum class RecKind { Compute, Blocking, Wait, Async };
struct Rec {
  RecKind kind;
  int stage;
  std::string track, label;
  Mark ready;                         // Compute: its start; Blocking/Wait: when the chain was ready
  Time dur = 0;                       // Compute only
  std::uint32_t first = kNoJob, join = kNoJob; // the collective's first job and its join
  Chain* chain = nullptr;
  CommKind comm = CommKind::Tp;
};

struct PlanEntry {
  std::vector<engine::Job> jobs; // placed on the drawn topology, no start, no `after`
  Time fixed = 0;                // the model's launch/base latency, before the data moves
  std::optional<Time> closed;    // no replay: the model's own time
  engine::Choice choice;         // what the model chose (algorithm, protocol, channels)
};

class StepBuilder {
 public:
  StepBuilder(const Scenario& s, const topology::Topology& topo)
      : s_(s), h_(*s.hybrid), m_(h_.model), p_(h_.par), topo_(topo), router_(topo),
        model_(model::make_model(s.model_name, topo, s.model_options)) {
    params_ = s.model;
    const auto* net = engine::find_network(s.model_name);
    network_ = net ? net : &engine::fifo_network();
    if (!net) params_.semantics = engine::Semantics::mpi; // nccl: NCCL's lockstep replay (sim/model/nccl/builder.cpp)
  }

  HybridResult run();

 private:
  void setup_compute();
  void build_program();
  void collect(const engine::RunResult& r, const std::vector<std::pair<Chain*, std::uint32_t>>& ends);
  int gpu_of(int tp, int cp, int ep, int dpx, int pp) const;
  void make_chains();
  std::uint32_t add_job(engine::Job job) {
    total_ranks_ += job.node_of_rank.size();
    if (total_ranks_ > kMaxRanks) too_big();
    jobs_.push_back(std::move(job));
    return static_cast<std::uint32_t>(jobs_.size() - 1);
  }
  [[noreturn]] void too_big() const {
    fail("scenario {}: the step needs more than {:.0e} ranks in engine jobs (collectives x group size): use fewer "
         "micro-batches (a larger micro_batch), fewer layers or a plain model with one ring per collective",
         s_.origin, static_cast<double>(kMaxRanks));
  }
  std::uint32_t join(std::vector<std::pair<std::uint32_t, Time>> after, Time start, int gpu);
  const PlanEntry& plan(Op op, const std::vector<int>& gpus, Bytes size, Bytes elt);
  // Adds a collective that starts when every `ready` mark has passed; returns its join job.
  std::uint32_t collective(CommKind kind, Op op, const std::vector<int>& gpus, Bytes size, Bytes elt, const std::vector<Mark>& ready,
                           std::uint32_t* first);
  static std::pair<std::uint32_t, Time> dep(const Mark& m) { return {m.job, m.offset}; }

  // Program instructions (every chain of a stage runs the same ones at once).
  void compute(std::vector<Chain*>& cs, int stage, Time dur, const std::string& label);
  void blocking(std::vector<Chain*>& cs, int stage, CommKind kind, Op op, Bytes size, Bytes elt,
                const std::vector<std::vector<std::pair<Chain*, int>>>& groups, const std::string& label);
  void tp_collective(std::vector<Chain*>& cs, int stage, Op op, Bytes size, const std::string& label);
  void layer_forward(std::vector<Chain*>& cs, int stage, std::uint64_t layer, int micro, bool recompute);
  void layer_backward(std::vector<Chain*>& cs, int stage, std::uint64_t layer, int micro);
  bool run_op(int stage, const PipeOp& op);
  void gradient_buckets(int stage, std::uint64_t layer, bool flush);
  void finish_stage(int stage);

  std::vector<std::vector<std::pair<Chain*, int>>> groups_over(int stage, char dim) ;
  Time seconds(double flops) const {
    return static_cast<Time>(std::llround(flops / (peak_ * h_.efficiency) * kPsPerSec));
  }

  const Scenario& s_;
  const HybridSpec& h_;
  const Transformer& m_;
  const Parallel& p_;
  const topology::Topology& topo_;
  topology::Router router_;
  std::unique_ptr<metrics::PlanBuilder> model_;
  const engine::NetworkEntry* network_;
  engine::ModelParams params_;
  double peak_ = 0;
  std::vector<int> gpus_;      // rank -> GPU index
  std::vector<int> dims_;      // order of tp, cp, ep, dp, pp as sizes
  std::vector<std::vector<Chain>> stages_; // [pp][cp x ep x dpx]
  std::vector<engine::Job> jobs_;
  std::vector<std::unique_ptr<schedule::Schedule>> own_;
  std::vector<std::unique_ptr<engine::RunPlan>> kept_;
  std::map<std::tuple<int, std::vector<int>, Bytes, Bytes>, PlanEntry> plans_;
  std::uint64_t total_ranks_ = 0;
  std::map<std::tuple<bool, int, int, int>, std::uint32_t> sends_; // (forward, micro, virtual stage, chain) -> join
  std::vector<Rec> recs_;
  HybridResult res_;
  // Data-parallel gradient buckets per stage: elements filled so far, and each group's last exchange.
  std::vector<double> fill_dense_, fill_expert_;
  std::map<std::pair<int, int>, std::uint32_t> dp_last_; // (stage, group index) -> last join
  std::vector<std::vector<std::uint64_t>> buckets_;      // per stage: elements of each dense bucket sent
};

} // namespace ccsim::scenario::detail
