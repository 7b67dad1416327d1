// One data-parallel training step on the event engine, the way PyTorch DDP runs it:
// forward, then backward in reverse layer order; gradients are packed into buckets (reverse layer
// order, bucket_size each); a bucket's exchange starts when its last gradient is computed and after
// the previous bucket's exchange (one communication stream, as NCCL), overlapping the rest of backward.
// The step ends when both compute and the last exchange are done.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/metrics/sweep.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::scenario {

struct Bucket {
  std::uint64_t elems = 0;
  Time ready = 0; // from the step's start, at unscaled compute: forward + backward up to its last layer
};
// Buckets in the order backward fills them. A layer larger than the cap spills into the next bucket
// (as if it were several tensors); every bucket holding part of it is ready when it is.
std::vector<Bucket> make_buckets(const Scenario& s, Bytes elt_size);

// What goes on the communication stream.
enum class ExchangeKind { AllReduce, ReduceScatter, AllGather, PushPull };
std::string_view to_string(ExchangeKind k);

struct CommItem {
  ExchangeKind kind;
  std::uint64_t elems = 0; // elements of the bucket (per-rank block for reduce-scatter/allgather)
  Time ready = 0, start = 0, end = 0;
  std::string algo;        // the algorithm that ran (auto picks per bucket)
};

struct StepResult {
  Time compute = 0, step = 0, comm_busy = 0;
  std::vector<CommItem> items;
  Time exposed() const { return step - compute; }
};

// Simulates steps of one (topology, strategy, dtype, degree). Exchange durations come from engine runs
// of one bucket's schedule on the otherwise idle machine; they are cached by (kind, elements) because
// the engine is shift-invariant (a job started at t ends at t + its duration when nothing else runs),
// and the one communication stream means nothing else does.
class StepSimulator {
 public:
  StepSimulator(const Scenario& s, const topology::Topology& topo, Strategy strategy, metrics::DataType dtype, int gpus);
  // Every layer's compute multiplied by `scale` (per-iteration variation); overlap as the scenario says.
  StepResult run(double scale = 1.0);
  // Engine time of one exchange of `elems` elements, and the algorithm used.
  std::pair<Time, std::string> exchange(ExchangeKind kind, std::uint64_t elems);
  int gpus() const { return static_cast<int>(gpus_.size()); }

 private:
  Time run_collective(const schedule::AlgorithmInfo& a, std::uint64_t count);
  Time run_push_pull(std::uint64_t count);

  const Scenario& s_;
  const topology::Topology& topo_;
  topology::Router router_;
  Strategy strategy_;
  metrics::DataType dtype_;
  std::unique_ptr<metrics::PlanBuilder> model_; // the scenario's network model, from the model registry
  std::vector<int> gpus_;
  std::vector<std::vector<int>> rings_; // for ring-like algorithms, packed once
  int server_node_ = -1;                // ps_cpu
  std::vector<Bucket> buckets_;
  std::map<std::pair<int, std::uint64_t>, std::pair<Time, std::string>> cache_;
};

// Model-state bytes on the fullest GPU: parameters and gradients in the gradient dtype plus optimizer
// state (ZeRO paper's 2+2+K bytes per parameter); ZeRO (stage 2) shards gradients and optimizer state,
// a CPU server keeps the optimizer state off the GPUs, GPU0 as server holds all of it.
double state_bytes_per_gpu(const Scenario& s, Strategy st, Bytes elt, int gpus);

} // namespace ccsim::scenario
