#include "sim/model/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/error.hpp"

namespace ccsim::model {

Predictor::Predictor(const topology::Topology& t, metrics::RunConfig cfg, std::string model, ModelOptions o)
    : cfg_(std::move(cfg)), builder_(make_model(model, t, o)) {
  cfg_.model_name = std::move(model);
}

Predictor::~Predictor() = default;

metrics::Row Predictor::predict(metrics::SizePlan plan, std::span<engine::Observer* const> observers) {
  return metrics::run(*builder_, cfg_, plan, observers);
}

metrics::Row Predictor::predict(const metrics::RunConfig& cfg, metrics::SizePlan plan,
                                std::span<engine::Observer* const> observers) {
  auto c = cfg;
  c.model_name = cfg_.model_name;
  return metrics::run(*builder_, c, plan, observers);
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

namespace {
// A count the header states ("nGpus", "nThread"), at least 1; `absent` where it does not, 1 where it is no number.
int header_count(const trace::Trace& t, const char* key, int absent) {
  const auto it = t.header_values.find(key);
  if (it == t.header_values.end()) return absent;
  try {
    return std::max(1, std::stoi(it->second));
  } catch (...) {
    return 1;
  }
}
} // namespace

int gpus_per_thread(const trace::Trace& t) { return header_count(t, "nGpus", std::max(1, t.command_ngpus)); }

int threads_per_process(const trace::Trace& t) { return header_count(t, "nThread", 1); }

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
    const auto row = p.predict(plan_of(m));
    r.pred = row.choice;
    r.predicted_time_us = to_us(row.time);
    const auto pb = metrics::bandwidths(op, ranks, m.size, row.time);
    r.predicted_algbw = pb.algbw_GBps;
    r.predicted_busbw = pb.busbw_GBps;
    r.err_pct = (r.predicted_busbw - r.measured_busbw) / r.measured_busbw * 100.0;
    if (out.rows.empty() || m.size >= out.rows.back().size) { // the largest so far (a table's sizes grow)
      out.largest = row.result;
      out.largest_replayed = row.choice.simulated && row.result.makespan > 0;
    }
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

} // namespace ccsim::model
