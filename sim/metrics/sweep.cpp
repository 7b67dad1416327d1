#include "sim/metrics/sweep.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace ccsim::metrics {

int ranks_of(const RunConfig& c) { return c.placements.empty() ? 0 : static_cast<int>(c.placements.front().size()); }

schedule::CollArgs coll_args(const RunConfig& c, std::uint64_t count, int ranks) {
  schedule::CollArgs a;
  a.op = c.op;
  a.ranks = ranks;
  a.count = count;
  a.root = c.root;
  a.segment = c.segment_bytes / c.dtype.size;
  a.dims = c.dims;
  a.elt_size = c.dtype.size;
  return a;
}

Row simulate(const topology::Topology& topo, topology::Router& router, const RunConfig& cfg, Bytes requested,
             const std::vector<engine::Observer*>& observers) {
  if (cfg.placements.empty()) fail("run: no GPUs to run on");
  return simulate_plan(topo, router, cfg, plan_size(cfg.op, ranks_of(cfg), requested, cfg.dtype.size), observers);
}

Row simulate_plan(const topology::Topology& topo, topology::Router& router, const RunConfig& cfg, SizePlan plan,
                  const std::vector<engine::Observer*>& observers) {
  if (cfg.placements.empty()) fail("run: no GPUs to run on");
  const int p = ranks_of(cfg);
  for (const auto& pl : cfg.placements)
    if (static_cast<int>(pl.size()) != p) fail("--rings: every ring must visit the same number of GPUs");
  const auto& algo = schedule::require_algorithm(cfg.op, cfg.algo);
  Row row;
  row.plan = plan;

  // Rooted ops: every ring must start from the root's GPU (rank `root` of the first ring's order),
  // wherever that GPU sits in the other rings.
  if (schedule::has_root(cfg.op) && (cfg.root < 0 || cfg.root >= p)) fail("-r/--root: rank {} does not exist", cfg.root);
  const int root_gpu = schedule::has_root(cfg.op) ? cfg.placements.front()[static_cast<std::size_t>(cfg.root)] : -1;
  // Split the count across concurrent rings; each ring is its own job on the shared links.
  const auto nrings = static_cast<std::uint64_t>(cfg.placements.size());
  std::vector<std::unique_ptr<schedule::Schedule>> schedules;
  std::vector<engine::Job> jobs;
  for (std::uint64_t i = 0; i < nrings; ++i) {
    auto args = coll_args(cfg, schedule::split_block(row.plan.count, nrings, i).len, p);
    if (root_gpu >= 0) {
      const auto& pl = cfg.placements[i];
      const auto at = std::find(pl.begin(), pl.end(), root_gpu);
      if (at == pl.end()) fail("--rings: ring {} does not visit the root's GPU {}", i, root_gpu);
      args.root = static_cast<int>(at - pl.begin());
    }
    schedules.push_back(algo.make(args));
    engine::Job job;
    job.schedule = schedules.back().get();
    for (int gpu : cfg.placements[i]) job.node_of_rank.push_back(topo.gpu_node(gpu));
    job.elt_size = cfg.dtype.size;
    jobs.push_back(std::move(job));
  }
  engine::Engine eng(topo, router, cfg.model);
  for (auto* o : observers) eng.add_observer(o);
  row.result = eng.run(jobs);
  row.time = row.result.makespan;
  row.bw = bandwidths(cfg.op, p, row.plan.size, row.time);
  return row;
}

// nccl-tests' sweep: multiply by the factor (or add step_bytes) from min to max inclusive.
std::vector<Bytes> size_series(Bytes min_bytes, Bytes max_bytes, double factor, std::uint64_t step_bytes) {
  if (min_bytes > max_bytes) fail("-b/--minbytes {} is larger than -e/--maxbytes {}", min_bytes, max_bytes);
  if (step_bytes == 0 && !(factor > 1.0)) fail("-f/--stepfactor must be greater than 1, got {}", factor);
  std::vector<Bytes> out;
  for (double s = static_cast<double>(min_bytes); s <= static_cast<double>(max_bytes);) {
    out.push_back(static_cast<Bytes>(s));
    if (out.size() > 10000) fail("size sweep has more than 10000 sizes; raise -f or narrow -b/-e");
    s = step_bytes ? s + static_cast<double>(step_bytes) : std::max(s * factor, s + 1);
  }
  return out;
}

} // namespace ccsim::metrics
