#include "sim/report/scenario_report.hpp"

#include "sim/core/json_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ccsim::report {
using namespace scenario;

namespace {

double to_ms(Time t) { return to_sec(t) * 1e3; }

std::string algos_text(const std::map<std::string, int>& a) {
  std::string s;
  for (const auto& [name, n] : a) s += fmt::format("{}{}:{}", s.empty() ? "" : ",", name, n);
  return s.empty() ? "-" : s;
}

std::string epoch_text(double sec) {
  if (sec <= 0) return "-";
  if (sec >= 3600) return fmt::format("{:.2f} h", sec / 3600);
  if (sec >= 60) return fmt::format("{:.1f} min", sec / 60);
  return fmt::format("{:.1f} s", sec);
}

} // namespace

std::string scenario_table(const scenario::Report& r) {
  const Scenario& s = *r.scenario;
  std::string out = fmt::format("# scenario {} ({})\n", s.name, s.origin);
  if (!s.description.empty()) out += fmt::format("# {}\n", s.description);
  out += fmt::format("# model: {:.4g} M parameters in {} layers; batch {} per GPU\n", static_cast<double>(s.total_params()) / 1e6,
                     s.layers.size(), s.batch_per_gpu);
  out += fmt::format("# compute per step: forward {} + backward {} = {}\n", format_duration(s.forward_time()),
                     format_duration(s.backward_time()), format_duration(s.forward_time() + s.backward_time()));
  out += fmt::format("#   {}\n", s.compute_note);
  out += fmt::format("# buckets of {} in reverse layer order; algorithm {}; overlap {}; network model {}{}\n",
                     format_size(s.bucket_bytes), s.algorithm, s.overlap ? "on" : "off",
                     s.model_name + (s.params_label.empty() ? "" : " + " + s.params_label),
                     s.whatifs.empty() ? "" : " (what-if: " + s.whatifs + ")");
  out += "# step = max(compute, last exchange); exposed = step - compute; speedup = n * T_1 / T_n with T_1 = compute\n";
  out += fmt::format("#{:>11} {:>10} {:>8} {:>4} {:>7} {:>10} {:>10} {:>10} {:>10} {:>11} {:>8} {:>6} {:>9} {:>10}  {}\n",
                     "topology", "strategy", "dtype", "gpus", "buckets", "step_ms", "compute_ms", "comm_ms", "exposed_ms",
                     "samples/s", "speedup", "eff%", "state_GB", "epoch", "exchanges");
  for (const auto& row : r.steps)
    out += fmt::format(" {:>11} {:>10} {:>8} {:>4} {:>7} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>11.1f} {:>8.2f} {:>6.1f} {:>9.2f} {:>10}  {}\n",
                       row.topology, to_string(row.strategy), row.dtype.name, row.gpus, row.gpus > 1 ? row.buckets : 0,
                       to_ms(row.result.step), to_ms(row.result.compute), to_ms(row.result.comm_busy), to_ms(row.result.exposed()),
                       row.samples_per_s, row.speedup, 100 * row.efficiency, row.state_bytes / 1e9, epoch_text(row.epoch_s),
                       algos_text(row.algos));
  if (r.training.empty()) return out;
  const auto& t = *s.training;
  out += fmt::format("\n# training: {} iterations, compute variation {} cv={:g} seed={}{}\n", t.iterations,
                     t.variation.distribution, t.variation.cv, t.variation.seed,
                     std::count(t.modes.begin(), t.modes.end(), SyncMode::Ssp) ? fmt::format(", ssp staleness {}", t.staleness) : "");
  out += "# iter = mean over workers of own finish / iterations; idle = waiting for other workers; slowdown = iter / step without variation;\n";
  out += "# lead = most iterations a worker ran ahead of the slowest\n";
  out += fmt::format("#{:>11} {:>10} {:>8} {:>4} {:>6} {:>10} {:>10} {:>11} {:>7} {:>9} {:>5}\n", "topology", "strategy", "dtype", "gpus",
                     "mode", "step_ms", "iter_ms", "samples/s", "idle%", "slowdown", "lead");
  for (const auto& row : r.training)
    out += fmt::format(" {:>11} {:>10} {:>8} {:>4} {:>6} {:>10.3f} {:>10.3f} {:>11.1f} {:>7.2f} {:>9.3f} {:>5}\n", row.topology,
                       to_string(row.strategy), row.dtype.name, row.gpus,
                       row.mode.mode == SyncMode::Ssp ? fmt::format("ssp{}", row.mode.staleness) : std::string(to_string(row.mode.mode)),
                       to_ms(row.nominal_step), row.mode.mean_iteration * 1e3, row.mode.samples_per_s, 100 * row.mode.idle_fraction,
                       row.mode.slowdown, row.mode.max_lead);
  return out;
}

std::string scenario_json(const scenario::Report& r) {
  using nlohmann::json;
  const Scenario& s = *r.scenario;
  json j;
  j["scenario"] = {{"name", s.name},
                   {"file", s.origin},
                   {"description", s.description},
                   {"sources", s.sources},
                   {"params", s.total_params()},
                   {"layers", s.layers.size()},
                   {"batch_per_gpu", s.batch_per_gpu},
                   {"forward_ms", to_ms(s.forward_time())},
                   {"backward_ms", to_ms(s.backward_time())},
                   {"compute_note", s.compute_note},
                   {"bucket_bytes", s.bucket_bytes},
                   {"algorithm", s.algorithm},
                   {"overlap", s.overlap},
                   {"network_model", s.model_name}};
  if (!s.params_label.empty()) j["scenario"]["network_params"] = s.params_label;
  if (!s.whatifs.empty()) j["scenario"]["whatif"] = s.whatifs;
  j["steps"] = json::array();
  for (const auto& row : r.steps) {
    json items = json::array();
    for (const auto& it : row.result.items)
      items.push_back({{"kind", std::string(to_string(it.kind))}, {"elements", it.elems}, {"algorithm", it.algo}, {"ready_ms", to_ms(it.ready)},
                       {"start_ms", to_ms(it.start)}, {"end_ms", to_ms(it.end)}});
    j["steps"].push_back({{"topology", row.topology},
                          {"strategy", std::string(to_string(row.strategy))},
                          {"grad_dtype", row.dtype.name},
                          {"gpus", row.gpus},
                          {"buckets", row.gpus > 1 ? row.buckets : 0},
                          {"grad_bytes_per_gpu", row.grad_bytes},
                          {"step_ms", to_ms(row.result.step)},
                          {"compute_ms", to_ms(row.result.compute)},
                          {"comm_ms", to_ms(row.result.comm_busy)},
                          {"exposed_ms", to_ms(row.result.exposed())},
                          {"samples_per_s", row.samples_per_s},
                          {"speedup", row.speedup},
                          {"efficiency", row.efficiency},
                          {"state_bytes_per_gpu", row.state_bytes},
                          {"epoch_s", row.epoch_s},
                          {"exchanges", items}});
  }
  if (s.training) {
    j["training"] = {{"iterations", s.training->iterations},
                     {"staleness", s.training->staleness},
                     {"variation", {{"distribution", s.training->variation.distribution},
                                    {"cv", s.training->variation.cv},
                                    {"seed", s.training->variation.seed}}},
                     {"runs", json::array()}};
    for (const auto& row : r.training)
      j["training"]["runs"].push_back({{"topology", row.topology},
                                       {"strategy", std::string(to_string(row.strategy))},
                                       {"grad_dtype", row.dtype.name},
                                       {"gpus", row.gpus},
                                       {"mode", std::string(to_string(row.mode.mode))},
                                       {"staleness", row.mode.staleness},
                                       {"step_ms", to_ms(row.nominal_step)},
                                       {"makespan_ms", to_ms(row.mode.makespan)},
                                       {"iteration_ms", row.mode.mean_iteration * 1e3},
                                       {"samples_per_s", row.mode.samples_per_s},
                                       {"idle_fraction", row.mode.idle_fraction},
                                       {"slowdown", row.mode.slowdown},
                                       {"max_lead", row.mode.max_lead}});
  }
  return safe_dump(j, 1) + "\n";
}

} // namespace ccsim::report
