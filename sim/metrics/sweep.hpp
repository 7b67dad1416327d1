// One prediction per message size, the way nccl-tests measures one row: a model's PlanBuilder turns the
// run configuration and the size into a RunPlan (schedules placed on GPUs, network model, overheads),
// engine::execute replays it, and the time becomes algbw/busbw.
#pragma once
#include <string>
#include <vector>

#include "sim/engine/run_plan.hpp"
#include "sim/metrics/nccl_metrics.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::metrics {

struct RunConfig {
  schedule::Op op = schedule::Op::AllReduce;
  std::string algo = "ring";
  // Rank -> GPU index, one list per concurrent ring/channel; each carries an even share of the data.
  // A single list is the usual case (--gpus / --ring).
  std::vector<std::vector<int>> placements;
  int root = 0;
  DataType dtype{"float", 4};
  std::string redop = "sum";
  std::string model_name = "fifo"; // a name from model::model_registry() (fifo, store_forward, flow, nccl)
  // The model instance to predict with (made by model::make_model and owned by the caller); null = the
  // plain network model named by model_name on the topology simulate() is given.
  class PlanBuilder* builder = nullptr;
  engine::ModelParams model;
  std::uint64_t segment_bytes = 0; // --chunk-size; 0 = see best_segment
  // A pipelined algorithm (chain, double binary tree) without segment_bytes runs at the segment that
  // minimises its closed form with the links' alpha and beta (what `ccsim explain` prints); false keeps
  // the algorithm's fixed default segment. Every command gets the same choice through PlainBuilder.
  bool best_segment = true;
  std::vector<int> dims;           // for hierarchical algorithms
  // nccl-tests' in-place half (sendbuff == recvbuff). Only NCCL's one-rank path reads it: with one rank
  // and the buffers the same, NCCL enqueues no copy (model/nccl builder one_rank_copy).
  bool in_place = false;
};

struct Row {
  SizePlan plan;
  Time time = 0;
  Bandwidths bw;
  engine::RunResult result;
  engine::Choice choice; // what the model ran
  std::vector<std::vector<int>> job_gpus; // per engine job, the GPU of each rank (observers' job ids)
  std::vector<std::string> job_names;     // per engine job, what it is ("ring 0 loop 3"); may be empty
};

// A model family's way from (configuration, size) to what the engine replays.
class PlanBuilder {
 public:
  virtual ~PlanBuilder() = default;
  // Candidate plans for one size; the prediction is the fastest replay (most models give one plan).
  virtual std::vector<engine::RunPlan> plans(const RunConfig& cfg, SizePlan size) = 0;
  // One line on what the model derived from the topology (NCCL: its graph), or "".
  virtual std::string describe(const RunConfig& cfg) { return (void)cfg, std::string(); }
};

// The alpha-beta family (fifo, store_forward, flow): cfg.algo's schedule on every placement (one job
// per ring, each an even share of the data) on `topo` under `network`; `extra_alpha` is added to every
// message and `fixed` once per collective (a fitted parameter set's step and launch overheads).
class PlainBuilder final : public PlanBuilder {
 public:
  PlainBuilder(const topology::Topology& topo, topology::Router& router, const engine::NetworkEntry& network,
               Time extra_alpha = 0, Time fixed = 0)
      : topo_(topo), router_(router), network_(network), extra_alpha_(extra_alpha), fixed_(fixed) {}
  std::vector<engine::RunPlan> plans(const RunConfig& cfg, SizePlan size) override;
  engine::RunPlan plan(const RunConfig& cfg, SizePlan size) const;

 private:
  const topology::Topology& topo_;
  topology::Router& router_;
  const engine::NetworkEntry& network_;
  Time extra_alpha_, fixed_;
};

// Executes the builder's plans for this size and keeps the fastest; observers watch only that one
// (it is replayed again with them when there were several candidates: runs are deterministic).
Row run(PlanBuilder& builder, const RunConfig& cfg, SizePlan size, std::span<engine::Observer* const> observers = {});

int ranks_of(const RunConfig& c);
// The schedule arguments a run asks for: `count` elements on `ranks` ranks, with the run's op, root,
// segment, grid and element size. (simulate() then moves the root to each ring's own rank index.)
schedule::CollArgs coll_args(const RunConfig& c, std::uint64_t count, int ranks);
// Shorthands for the plain network models (cfg.model_name is fifo, store_forward or flow).
// Throws Error for a configuration that cannot run (unknown algorithm, bad root, ...).
Row simulate(const topology::Topology& topo, topology::Router& router, const RunConfig& cfg, Bytes requested,
             const std::vector<engine::Observer*>& observers = {});
// Same, for a size plan given directly (a measured trace's size and count, which 2019-era nccl-tests
// did not align the way plan_size does).
Row simulate_plan(const topology::Topology& topo, topology::Router& router, const RunConfig& cfg, SizePlan plan,
                  const std::vector<engine::Observer*>& observers = {});
std::vector<Bytes> size_series(Bytes min_bytes, Bytes max_bytes, double factor, std::uint64_t step_bytes = 0);

} // namespace ccsim::metrics
