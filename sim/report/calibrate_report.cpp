#include "sim/report/calibrate_report.hpp"

#include <cmath>

#include <fmt/format.h>

namespace ccsim::report {

namespace {
std::string pct(double v) { return std::isfinite(v) ? fmt::format("{:.1f}%", v) : "-"; }
} // namespace

std::string calibrate_text(const model::FitResult& f, const std::vector<model::Holdout>& cv,
                           const std::vector<model::CalibInput>& in, const std::string& model) {
  std::string s = fmt::format("# ccsim calibrate: model {}, {} trace(s), {} points, {} Levenberg-Marquardt iteration(s)\n", model,
                              in.size(), f.points.size(), f.iterations);
  s += "# parameter         value   (fitted: the data constrains it; held: start value kept)\n";
  for (std::size_t k = 0; k < f.names.size(); ++k) {
    const auto& nm = f.names[k];
    const std::string bottleneck = f.not_bottleneck.count(nm)
        ? fmt::format("held: not the bottleneck at >= 1 MiB (sensitivity {:.2f} < {})", f.sensitivity.at(nm), model::kBottleneckSensitivity)
        : "";
    // A protocol factor's rows: whether it is a rate or bends a few latency-bound rows (kProtocolRateRows).
    std::string use;
    if (const auto u = nm.starts_with("proto:") ? f.protocol_use.find(nm.substr(6)) : f.protocol_use.end(); u != f.protocol_use.end())
      use = fmt::format(" (ran on {} row(s), bandwidth-bound on {}: {})", u->second.chosen, u->second.bandwidth_bound,
                        u->second.rate() ? "a rate" : fmt::format("a correction of those rows, no rate: < {}", model::kProtocolRateRows));
    // A latency multiplier's rows: whether the protocol's latency set the time of enough of them (LatencyUse).
    if (const auto u = nm.starts_with("lat:") ? f.latency_use.find(nm.substr(4)) : f.latency_use.end(); u != f.latency_use.end())
      use = fmt::format(" (ran on {} row(s), latency-bound on {}: {})", u->second.chosen, u->second.latency_bound,
                        u->second.identified() ? "a latency" : fmt::format("not identified as a latency: < {}", model::kProtocolRateRows));
    // Whether the fit tells it apart from the others it moved (kSeparability): what the class-level votes take.
    std::string sep;
    if (const auto e = f.separation.find(nm); e != f.separation.end() && f.fitted[k])
      sep = e->second.votes()
                ? fmt::format(" - separable ({:.2f}){}", e->second.separability,
                              std::isfinite(e->second.log_se) ? fmt::format(", within x{:.2f} (1 s.e.)", std::exp(e->second.log_se)) : "")
                : e->second.separable()
                ? fmt::format(" - separable ({:.2f}) but the rows do not place it: 1 s.e. x{:.2f} > x{:.2f}: no class vote", e->second.separability,
                              std::exp(e->second.log_se), std::exp(model::kMaxLogSe))
                : fmt::format(" - moves with {} (separability {:.2f} < {:.2f}): no class vote", e->second.closest.empty() ? "the others" : e->second.closest,
                              e->second.separability, model::kSeparability);
    s += fmt::format("  {:<16} {:>9.4f}  {}\n", nm, f.values[k],
                     f.fitted[k] ? "fitted" + use + (k < f.free_at_end.size() && !f.free_at_end[k] ? ", then held: not separable at the end" : "") + sep
                     : f.held_by_user.count(nm)  ? "held: --hold"
                     : !bottleneck.empty()       ? bottleneck
                     : f.unidentified.count(nm)
                         ? fmt::format("held: no row's time hangs on it by >= {:g} % (largest share {:.3g} %)", model::kIdentifiedShare * 100,
                                       f.row_share.at(nm) * 100)
                     : f.not_separable.count(nm) ? "held: not separable from the others with these traces"
                                                 : "held: the data does not depend on it");
  }
  s += fmt::format("# R^2 (time) {:.5f}   R^2 (log time) {:.5f}   rms relative time residual {:.2f}%\n", f.r2_time,
                   f.r2_log_time, f.rms_rel * 100);
  s += "# residuals: trace, size, measured us, predicted us, time residual, busbw error\n";
  for (const auto& p : f.points)
    s += fmt::format("  {:<3} {:>12} {:>10.2f} {:>10.2f} {:>+8.2f}% {:>+8.2f}%\n", p.input, p.size, p.measured_us, p.predicted_us,
                     p.rel() * 100, p.busbw_err_pct());
  s += "# cross-validation (|busbw error| on data left out of the fit):\n";
  for (const auto& h : cv)
    s += fmt::format("  {}: {} rows, median {} for >= 1 MiB, {} over all{}\n", h.label, h.n, pct(h.median_ge_1MiB),
                     pct(h.median_all), h.note.empty() ? "" : " (" + h.note + ")");
  for (std::size_t i = 0; i < in.size(); ++i) {
    s += fmt::format("# trace {}: {}\n", i, in[i].label);
    for (const auto& a : in[i].applied) s += fmt::format("#   {}\n", a);
  }

  return s;
}

} // namespace ccsim::report
