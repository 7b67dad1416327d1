#include "sim/engine/run_plan.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace ccsim::engine {

Execution execute(const RunPlan& plan, std::span<Observer* const> observers) {
  Execution ex;
  if (plan.closed_form) {
    ex.time = pipelined_time(plan.host_issue, *plan.closed_form, plan.pipeline_iters);
    return ex;
  }
  if (!plan.topo || !plan.router || !plan.network) fail("run plan: no topology, router or network model");
  Engine eng(*plan.topo, *plan.router, plan.params, *plan.network);
  for (auto* o : observers) eng.add_observer(o);
  ex.result = eng.run(plan.jobs);
  ex.time = pipelined_time(plan.host_issue, ex.result.makespan + plan.fixed, plan.pipeline_iters);
  return ex;
}

Time pipelined_time(Time host, Time gpu, int iters) {
  if (host <= 0) return gpu;
  if (iters < 1) fail("run plan: {} pipelined iterations (at least 1)", iters);
  const Time slow = std::max(host, gpu), fast = std::min(host, gpu);
  return slow + fast / iters;
}

std::vector<std::uint64_t> split_by_weight(std::uint64_t count, std::span<const int> weights) {
  unsigned __int128 total = 0;
  for (int w : weights) total += static_cast<unsigned>(std::max(w, 0));
  std::vector<std::uint64_t> out(weights.size(), 0);
  if (total == 0) return out;
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    out[i] = static_cast<std::uint64_t>(count * static_cast<unsigned __int128>(std::max(weights[i], 0)) / total);
    given += out[i];
  }
  for (std::size_t i = 0; given < count && i < out.size(); ++i, ++given) ++out[i]; // fewer than weights.size() left
  return out;
}

void add_job(RunPlan& plan, std::unique_ptr<schedule::Schedule> s, std::span<const int> gpus, Bytes elt_size) {
  Job job;
  job.schedule = s.get();
  // A generated crossbar or torus puts GPU g on node g (Topology::gpu_node): one test for the list, not a
  // formula look-up per rank of a 65,536-rank job.
  const topology::Topology& topo = *plan.topo;
  const int formula_gpus = topo.link_formula() ? topo.num_gpus() : 0;
  // Whether every GPU is one of those, as one pass without early exit (vectorised), then a copy.
  bool outside = false;
  for (int g : gpus) outside |= static_cast<unsigned>(g) >= static_cast<unsigned>(formula_gpus);
  if (!outside) {
    job.node_of_rank.assign(gpus.begin(), gpus.end());
  } else {
    job.node_of_rank.resize(gpus.size());
    for (std::size_t i = 0; i < gpus.size(); ++i)
      job.node_of_rank[i] = gpus[i] >= 0 && gpus[i] < formula_gpus ? gpus[i] : topo.gpu_node(gpus[i]);
  }
  job.elt_size = elt_size;
  plan.jobs.push_back(std::move(job));
  plan.schedules.push_back(std::move(s));
}

} // namespace ccsim::engine
