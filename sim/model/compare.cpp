#include "sim/model/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/error.hpp"

namespace ccsim::model {

Predictor::Predictor(const topology::Topology& t, metrics::RunConfig cfg, PredictOptions o)
    : opt_(std::move(o)), cfg_(std::move(cfg)) {
  if (opt_.model == "nccl") {
    tables_ = std::make_unique<NcclTables>(load_nccl_tables(opt_.nccl_tables));
    topo_ = std::make_unique<topology::Topology>(t);
    nccl_ = std::make_unique<NcclSimulator>(*topo_, *tables_, cfg_, opt_.params, opt_.gpu_arch, opt_.nccl_algo);
    return;
  }
  engine::make_network(opt_.model, 0); // throws the usual "--model: unknown network model" error
  cfg_.model.network = opt_.model;
  cfg_.model.alpha_sw += from_us(opt_.params.step_us);
  // A fitted parameter set's step_us is a per-step cost of the lockstep (blocking) model it was fitted
  // under, as NCCL's tuning formula charges it: replay it that way.
  cfg_.model.semantics = engine::Semantics::mpi;
  topo_ = std::make_unique<topology::Topology>(scaled_topology(t, opt_.params));
  router_ = std::make_unique<topology::Router>(*topo_);
}

Predictor::~Predictor() = default;

const NcclGraph* Predictor::nccl_graph() const { return nccl_ ? &nccl_->graph() : nullptr; }

Prediction Predictor::predict(metrics::SizePlan plan) {
  Prediction p;
  if (nccl_) {
    const auto r = nccl_->run(plan);
    p.time = r.time + from_us(opt_.params.launch_per_gpu_us * opt_.gpus_per_thread);
    p.algo = r.choice.algo;
    p.proto = r.choice.proto;
    p.channels = r.channels_used;
    p.loops = r.loops;
    p.simulated = r.simulated;
    p.overrides_nccl = r.faster_than_nccl_choice;
    return p;
  }
  const auto row = metrics::simulate_plan(*topo_, *router_, cfg_, plan);
  p.time = row.time + from_us(opt_.params.launch_us + opt_.params.launch_per_gpu_us * opt_.gpus_per_thread);
  p.algo = cfg_.algo;
  p.channels = static_cast<int>(cfg_.placements.size());
  return p;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int gpus_per_thread(const trace::Trace& t) {
  auto it = t.header_values.find("nGpus");
  if (it == t.header_values.end()) return 1;
  try {
    return std::max(1, std::stoi(it->second));
  } catch (...) {
    return 1;
  }
}

metrics::SizePlan plan_of(const trace::MeasuredRow& r) { return {r.count, r.size}; }

CompareResult compare(const trace::Trace& tr, Predictor& p, bool in_place) {
  CompareResult out;
  const auto op = p.config().op;
  const int ranks = metrics::ranks_of(p.config());
  std::vector<double> all, ge;
  for (const auto& m : tr.rows) {
    const double t_us = trace::measured_time_us(m, in_place);
    if (m.size == 0 || m.count == 0 || t_us <= 0) {
      ++out.skipped;
      continue;
    }
    CompareRow r;
    r.line = m.line;
    r.size = m.size;
    r.count = m.count;
    r.measured_time_us = t_us;
    const auto mb = metrics::bandwidths(op, ranks, m.size, from_us(t_us));
    r.measured_algbw = mb.algbw_GBps;
    r.measured_busbw = mb.busbw_GBps;
    r.pred = p.predict(plan_of(m));
    r.predicted_time_us = to_us(r.pred.time);
    const auto pb = metrics::bandwidths(op, ranks, m.size, r.pred.time);
    r.predicted_algbw = pb.algbw_GBps;
    r.predicted_busbw = pb.busbw_GBps;
    r.err_pct = (r.predicted_busbw - r.measured_busbw) / r.measured_busbw * 100.0;
    all.push_back(std::abs(r.err_pct));
    if (m.size >= (Bytes{1} << 20)) ge.push_back(std::abs(r.err_pct));
    out.max_abs_err = std::max(out.max_abs_err, std::abs(r.err_pct));
    out.rows.push_back(r);
  }
  if (out.rows.empty()) fail("{}: no rows with a size and a time to compare", tr.origin);
  out.median_abs_err_all = median(all);
  out.median_abs_err_ge_1MiB = median(ge);
  out.n_ge_1MiB = static_cast<int>(ge.size());
  return out;
}

namespace {
nlohmann::ordered_json num_or_null(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); }
std::string choice_text(const Prediction& p) {
  if (p.proto.empty()) return p.algo;
  const char* loops = p.algo == "tree" ? " segments=" : " loops=";
  return fmt::format("{}/{} ch={}{}{}{}", p.algo, p.proto, p.channels, p.loops > 1 ? fmt::format("{}{}", loops, p.loops) : "",
                     p.simulated ? "" : " (analytic)", p.overrides_nccl ? " (replayed faster than NCCL's pick)" : "");
}
} // namespace

nlohmann::ordered_json compare_json(const CompareResult& r, const CompareMeta& m) {
  nlohmann::ordered_json j;
  j["tool"] = "ccsim compare";
  j["trace"] = m.trace;
  j["hardware"] = m.hardware;
  j["op"] = m.op;
  j["op_from"] = m.op_from;
  j["ranks"] = m.ranks;
  j["ranks_from"] = m.ranks_from;
  j["topology"] = m.topology;
  j["topology_origin"] = m.topology_origin;
  j["model"] = m.model;
  j["params"] = m.params;
  j["placements"] = m.placements;
  if (!m.nccl_graph.empty()) j["nccl_graph"] = m.nccl_graph;
  j["measured_column"] = m.in_place ? "in-place" : "out-of-place";
  j["old_busbw_convention"] = m.old_busbw_convention;
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& x : r.rows) {
    nlohmann::ordered_json row{{"size", x.size},
                               {"count", x.count},
                               {"line", x.line},
                               {"measured_time_us", x.measured_time_us},
                               {"predicted_time_us", x.predicted_time_us},
                               {"measured_algbw", x.measured_algbw},
                               {"predicted_algbw", x.predicted_algbw},
                               {"measured_busbw", x.measured_busbw},
                               {"predicted_busbw", x.predicted_busbw},
                               {"err_pct", x.err_pct},
                               {"algo", x.pred.algo}};
    if (!x.pred.proto.empty()) {
      row["proto"] = x.pred.proto;
      row["channels"] = x.pred.channels;
      row["loops"] = x.pred.loops;
      row["simulated"] = x.pred.simulated;
      row["faster_than_nccl_pick"] = x.pred.overrides_nccl;
    }
    j["rows"].push_back(row);
  }
  j["summary"] = {{"median_abs_err_pct_ge_1MiB", num_or_null(r.median_abs_err_ge_1MiB)},
                  {"median_abs_err_pct_all", num_or_null(r.median_abs_err_all)},
                  {"max_abs_err_pct", r.max_abs_err},
                  {"rows", r.rows.size()},
                  {"rows_ge_1MiB", r.n_ge_1MiB},
                  {"rows_skipped", r.skipped}};
  return j;
}

std::string compare_table(const CompareResult& r, const CompareMeta& m) {
  std::string s = fmt::format("# ccsim compare: {} ({} ranks, op from {}, ranks from {})\n", m.trace, m.ranks, m.op_from, m.ranks_from);
  if (!m.hardware.empty()) s += fmt::format("# hardware: {}\n", m.hardware);
  s += fmt::format("# prediction: {} on topology {} ({}), model {}{}\n", m.op, m.topology, m.topology_origin, m.model,
                   m.params.empty() ? "" : ", params " + m.params);
  if (!m.nccl_graph.empty()) s += fmt::format("# nccl graph: {}\n", m.nccl_graph);
  s += fmt::format("# measured: {} column; busbw recomputed from size/time (nccl-tests definitions){}\n",
                   m.in_place ? "in-place" : "out-of-place",
                   m.old_busbw_convention ? "; this file prints the 2019 algbw = busbw convention" : "");
  s += "# err = (predicted - measured) / measured busbw\n#\n";
  s += fmt::format("#{:>11} {:>11} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8}  {}\n", "size", "count", "meas(us)", "pred(us)",
                   "m_algbw", "p_algbw", "m_busbw", "p_busbw", "err%", "choice");
  for (const auto& x : r.rows)
    s += fmt::format("{:>12} {:>11} {:>10.2f} {:>10.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>+8.1f}  {}\n", x.size, x.count,
                     x.measured_time_us, x.predicted_time_us, x.measured_algbw, x.predicted_algbw, x.measured_busbw,
                     x.predicted_busbw, x.err_pct, choice_text(x.pred));
  s += fmt::format("# median |busbw err|: {:.1f}% for sizes >= 1 MiB ({} rows), {:.1f}% over all {} rows; max {:.1f}%{}\n",
                   r.median_abs_err_ge_1MiB, r.n_ge_1MiB, r.median_abs_err_all, r.rows.size(), r.max_abs_err,
                   r.skipped ? fmt::format(" ({} zero-size rows skipped)", r.skipped) : "");
  return s;
}

std::string compare_csv(const CompareResult& r, const CompareMeta&) {
  std::string s = "size,count,measured_time_us,predicted_time_us,measured_algbw,predicted_algbw,measured_busbw,predicted_busbw,err_pct,algo,proto,channels\n";
  for (const auto& x : r.rows)
    s += fmt::format("{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.3f},{},{},{}\n", x.size, x.count, x.measured_time_us,
                     x.predicted_time_us, x.measured_algbw, x.predicted_algbw, x.measured_busbw, x.predicted_busbw, x.err_pct,
                     x.pred.algo, x.pred.proto, x.pred.channels);
  return s;
}

} // namespace ccsim::model
