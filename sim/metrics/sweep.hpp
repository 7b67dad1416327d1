// One prediction per message size, the way nccl-tests measures one row: build the schedule(s) for the
// size, place ranks on GPUs, run the engine, and turn the time into algbw/busbw.
#pragma once
#include <string>
#include <vector>

#include "sim/engine/engine.hpp"
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
  engine::ModelParams model;
  std::uint64_t segment_bytes = 0; // --chunk-size; 0 = algorithm default
  std::vector<int> dims;           // for hierarchical algorithms
};

struct Row {
  SizePlan plan;
  Time time = 0;
  Bandwidths bw;
  engine::RunResult result;
};

int ranks_of(const RunConfig& c);
// The schedule arguments a run asks for: `count` elements on `ranks` ranks, with the run's op, root,
// segment, grid and element size. (simulate() then moves the root to each ring's own rank index.)
schedule::CollArgs coll_args(const RunConfig& c, std::uint64_t count, int ranks);
// Throws Error for a configuration that cannot run (unknown algorithm, bad root, ...).
Row simulate(const topology::Topology& topo, topology::Router& router, const RunConfig& cfg, Bytes requested,
             const std::vector<engine::Observer*>& observers = {});
// Same, for a size plan given directly (a measured trace's size and count, which 2019-era nccl-tests
// did not align the way plan_size does).
Row simulate_plan(const topology::Topology& topo, topology::Router& router, const RunConfig& cfg, SizePlan plan,
                  const std::vector<engine::Observer*>& observers = {});
std::vector<Bytes> size_series(Bytes min_bytes, Bytes max_bytes, double factor, std::uint64_t step_bytes = 0);

} // namespace ccsim::metrics
