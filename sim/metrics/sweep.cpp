#include "sim/metrics/sweep.hpp"
#include "sim/metrics/explain.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

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
  if (cfg.builder) return run(*cfg.builder, cfg, plan, observers);
  const auto* net = engine::find_network(cfg.model_name);
  if (!net) fail("--model: '{}' is not a network model of the engine (fifo, store_forward, flow)", cfg.model_name);
  PlainBuilder b(topo, router, *net);
  return run(b, cfg, plan, observers);
}

namespace {

bool wants_best_segment(const RunConfig& cfg) {
  return cfg.segment_bytes == 0 && cfg.best_segment && schedule::require_algorithm(cfg.op, cfg.algo).pipelined;
}

RunConfig at_best_segment(const topology::Topology& topo, const RunConfig& cfg, Bytes size) {
  ExplainSetup s;
  s.op = cfg.op;
  s.topo = &topo;
  s.run = cfg;
  s.elt_size = cfg.dtype.size;
  s.params.reduce_bw = cfg.model.reduce_bw;
  RunConfig out = cfg;
  out.segment_bytes = chosen_segment(s, cfg.algo, size);
  return out;
}

} // namespace

engine::RunPlan PlainBuilder::plan(const RunConfig& cfg_in, SizePlan size) const {
  // A copy only when the segment changes (the copy of a 16,384-rank placement is fresh memory to fault in).
  std::optional<RunConfig> segmented;
  if (wants_best_segment(cfg_in)) segmented = at_best_segment(topo_, cfg_in, size.size);
  const RunConfig& cfg = segmented ? *segmented : cfg_in;
  if (cfg.placements.empty()) fail("run: no GPUs to run on");
  const int p = ranks_of(cfg);
  for (const auto& pl : cfg.placements)
    if (static_cast<int>(pl.size()) != p) fail("--rings: every ring must visit the same number of GPUs");
  const auto& algo = schedule::require_algorithm(cfg.op, cfg.algo);
  // Rooted ops: every ring must start from the root's GPU (rank `root` of the first ring's order),
  // wherever that GPU sits in the other rings.
  if (schedule::has_root(cfg.op) && (cfg.root < 0 || cfg.root >= p)) fail("-r/--root: rank {} does not exist", cfg.root);
  const int root_gpu = schedule::has_root(cfg.op) ? cfg.placements.front()[static_cast<std::size_t>(cfg.root)] : -1;
  engine::RunPlan out;
  out.topo = &topo_;
  out.router = &router_;
  out.network = &network_;
  out.params = cfg.model;
  out.params.alpha_sw += extra_alpha_;
  out.fixed = fixed_;
  out.choice.algo = cfg.algo;
  out.choice.channels = static_cast<int>(cfg.placements.size());
  // Each ring is its own job on the shared links, carrying an even share of the data.
  const std::vector<int> even(cfg.placements.size(), 1);
  const auto shares = engine::split_by_weight(size.count, even);
  for (std::size_t i = 0; i < cfg.placements.size(); ++i) {
    auto args = coll_args(cfg, shares[i], p);
    const auto& pl = cfg.placements[i];
    if (root_gpu >= 0) {
      const auto at = std::find(pl.begin(), pl.end(), root_gpu);
      if (at == pl.end()) fail("--rings: ring {} does not visit the root's GPU {}", i, root_gpu);
      args.root = static_cast<int>(at - pl.begin());
    }
    engine::add_job(out, algo.make(args), pl, cfg.dtype.size);
  }
  return out;
}

std::vector<engine::RunPlan> PlainBuilder::plans(const RunConfig& cfg, SizePlan size) {
  std::vector<engine::RunPlan> v;
  v.push_back(plan(cfg, size));
  return v;
}

Row run(PlanBuilder& builder, const RunConfig& cfg, SizePlan size, std::span<engine::Observer* const> observers) {
  auto plans = builder.plans(cfg, size);
  if (plans.empty()) fail("run: the model offers no plan for {} B", size.size);
  Row row;
  row.plan = size;
  std::size_t best = 0;
  engine::Execution ex;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    auto e = engine::execute(plans[i], plans.size() == 1 ? observers : std::span<engine::Observer* const>{});
    if (i == 0 || e.time < ex.time) best = i, ex = std::move(e);
  }
  if (plans.size() > 1 && !observers.empty()) ex = engine::execute(plans[best], observers);
  row.time = ex.time;
  row.result = std::move(ex.result);
  const auto& chosen = plans[best];
  row.choice = chosen.choice;
  row.job_names = chosen.job_names;
  if (chosen.topo)
    for (const auto& job : chosen.jobs) {
      auto& gpus = row.job_gpus.emplace_back(job.node_of_rank.size());
      // A generated crossbar or torus: node g is GPU g (Topology::gpu_of_node), one test for the whole job.
      const int formula_gpus = chosen.topo->link_formula() ? chosen.topo->num_gpus() : -1;
      if (formula_gpus >= 0) // no call in the loop: vectorised
        for (std::size_t r = 0; r < gpus.size(); ++r) gpus[r] = job.node_of_rank[r] < formula_gpus ? job.node_of_rank[r] : -1;
      else
        for (std::size_t r = 0; r < gpus.size(); ++r) gpus[r] = chosen.topo->gpu_of_node(job.node_of_rank[r]);
    }
  if (plans.size() > 1 && best != 0 && row.choice.note.empty()) row.choice.note = "faster than the model's first pick";
  row.bw = bandwidths(cfg.op, ranks_of(cfg), size.size, row.time);
  return row;
}

// nccl-tests' sweep: multiply by the factor (or add step_bytes) from min to max inclusive.
std::vector<Bytes> size_series(Bytes min_bytes, Bytes max_bytes, double factor, std::uint64_t step_bytes) {
  if (min_bytes > max_bytes) fail("-b/--minbytes {} is larger than -e/--maxbytes {}", min_bytes, max_bytes);
  if (step_bytes == 0 && !(factor > 1.0 && std::isfinite(factor)))
    fail("-f/--stepfactor must be a finite number greater than 1, got {}", factor); // inf would stop after -b's row
  std::vector<Bytes> out;
  for (double s = static_cast<double>(min_bytes); s <= static_cast<double>(max_bytes);) {
    out.push_back(static_cast<Bytes>(s));
    if (out.size() > 10000) fail("size sweep has more than 10000 sizes; raise -f or narrow -b/-e");
    s = step_bytes ? s + static_cast<double>(step_bytes) : std::max(s * factor, s + 1);
  }
  return out;
}

} // namespace ccsim::metrics
