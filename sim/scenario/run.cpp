#include "sim/scenario/run.hpp"

#include "sim/core/error.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/core/json_file.hpp"
#include "sim/topology/gpu_catalogue.hpp"

namespace ccsim::scenario {

Report run_scenario(const Scenario& s, const std::string& topology_override, bool allow_oversubscribed) {
  Report rep;
  rep.scenario = &s;
  const auto topos = topology_override.empty() ? s.topologies : std::vector<std::string>{topology_override};
  for (const auto& spec : topos) {
    topology::Topology topo;
    try {
      topo = topology::resolve_topology(spec);
    } catch (const Error& e) {
      if (!topology_override.empty()) throw; // --topo's own line names the flag the user typed
      std::string msg = e.what();
      if (msg.rfind("--topo", 0) == 0) msg = msg.substr(msg.find(' ') + 1); // the flag is not what the user typed
      fail("scenario {}: topology: {}", s.origin, msg);
    }
    for (auto st : s.strategies)
      for (const auto& dt : s.grad_dtypes)
        for (int p : s.degrees) {
          StepSimulator sim(s, topo, st, dt, p);
          StepRow row{topo.name, st, dt, p, sim.run(), make_buckets(s, dt.size).size(), s.total_params() * dt.size, 0, 0, 0, 0, 0, {}};
          const double step_s = to_sec(row.result.step);
          row.samples_per_s = static_cast<double>(p) * static_cast<double>(s.batch_per_gpu) / step_s;
          row.speedup = p * to_sec(row.result.compute) / step_s;
          row.efficiency = row.speedup / p;
          row.state_bytes = state_bytes_per_gpu(s, st, dt.size, p);
          if (!allow_oversubscribed && !topo.gpu_kind.empty() && topology::gpu_table()["gpus"].contains(topo.gpu_kind)) {
            const double cap = static_cast<double>(topology::gpu_kind(topo.gpu_kind, "scenario " + s.origin).memory_gb) * (1ULL << 30);
            if (row.state_bytes > cap)
              fail("scenario {}: strategy {} on {} GPUs needs {:.1f} GiB of model state per GPU but a {} has {:.0f} GiB; use zero or "
                   "more GPUs, or pass --allow-oversubscribed-memory",
                   s.origin, to_string(st), p, row.state_bytes / (1ULL << 30), topo.gpu_kind, cap / (1ULL << 30));
          }
          row.epoch_s = s.dataset_samples ? static_cast<double>(s.dataset_samples) / row.samples_per_s : 0;
          for (const auto& it : row.result.items) ++row.algos[it.algo];
          rep.steps.push_back(std::move(row));
          if (!s.training || p < 2) continue;
          const auto factors = draw_factors(s.training->variation, p, s.training->iterations);
          const StepTime step_time = [&sim](double scale) { return sim.run(scale).step; };
          for (auto m : s.training->modes)
            if (m == SyncMode::Sync || is_parameter_server(st))
              rep.training.push_back({topo.name, st, dt, p, rep.steps.back().result.step,
                                    run_mode(m, s.training->staleness, factors, step_time, s.batch_per_gpu)});
        }
  }
  return rep;
}

} // namespace ccsim::scenario
