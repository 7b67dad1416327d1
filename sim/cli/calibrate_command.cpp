// ccsim calibrate: least-squares fit of a parameter set (per-link-type bandwidth efficiency, per-message
// step overhead, launch overhead) to one or more measured traces; prints the fitted values, residuals,
// R^2 and the error on traces (or rows) held out of the fit, and writes models/<name>.json recording the
// exact command. Apply the result with --params on the main command or compare.
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/common.hpp"
#include "sim/cli/trace_commands.hpp"
#include "sim/core/error.hpp"
#include "sim/model/calibrate.hpp"
#include "sim/core/json_file.hpp"

namespace ccsim::cli {
namespace {

struct CalibrateOptions {
  RunOptions run;
  TraceOptions tr;
  std::vector<std::string> traces, topos;
  std::string out, min_size = "0";
  std::string command;
  bool fit_protocols = false;
  std::vector<std::string> hold;
};

std::string pct(double v) { return std::isfinite(v) ? fmt::format("{:.1f}%", v) : "-"; }

void run_calibrate(const CalibrateOptions& o) {
  if (o.traces.empty()) fail("calibrate: give at least one --trace");
  if (o.topos.empty()) fail("calibrate: give --topo (one for all traces, or one per --trace)");
  if (o.topos.size() != 1 && o.topos.size() != o.traces.size())
    fail("calibrate: {} --topo for {} --trace; give one for all or one per trace", o.topos.size(), o.traces.size());
  if (o.out.empty()) fail("calibrate: -o/--output models/<name>.json is required");
  const Bytes min_size = parse_size(o.min_size, "--min-size");
  std::vector<std::unique_ptr<TraceRun>> runs;
  std::vector<model::CalibInput> in;
  for (std::size_t i = 0; i < o.traces.size(); ++i) {
    const auto& spec = o.topos.size() == 1 ? o.topos[0] : o.topos[i];
    runs.push_back(std::make_unique<TraceRun>(setup_trace_run(o.run, o.tr, o.traces[i], spec)));
    model::CalibInput ci;
    ci.label = o.traces[i];
    ci.trace = runs.back()->trace;
    ci.topo = &runs.back()->topo;
    ci.cfg = runs.back()->cfg;
    for (std::size_t r = 0; r < ci.trace.rows.size(); ++r) {
      const auto& row = ci.trace.rows[r];
      if (row.size >= std::max<Bytes>(1, min_size) && row.count > 0 && trace::measured_time_us(row, o.tr.in_place) > 0)
        ci.rows.push_back(r);
    }
    in.push_back(std::move(ci));
  }
  model::CalibOptions co;
  co.model = o.run.model;
  co.in_place = o.tr.in_place;
  co.nccl_tables = o.tr.nccl_tables;
  co.gpu_arch = o.tr.gpu_arch;
  co.nccl_algo = o.tr.nccl_algo;
  co.fit_protocols = o.fit_protocols;
  co.hold.insert(o.hold.begin(), o.hold.end());
  if (co.fit_protocols && co.model != "nccl") fail("--fit-protocols: only with --model nccl");
  if (!o.tr.params.empty()) co.start = model::load_params(o.tr.params);
  const auto f = model::fit(in, co);
  const auto cv = model::cross_validate(in, co);

  std::string s = fmt::format("# ccsim calibrate: model {}, {} trace(s), {} points, {} Levenberg-Marquardt iteration(s)\n", co.model,
                              in.size(), f.points.size(), f.iterations);
  s += "# parameter         value   (fitted: the data constrains it; held: start value kept)\n";
  for (std::size_t k = 0; k < f.names.size(); ++k)
    s += fmt::format("  {:<16} {:>9.4f}  {}\n", f.names[k], f.values[k],
                     f.fitted[k] ? "fitted"
                     : f.held_by_user.count(f.names[k])  ? "held: --hold"
                     : f.not_separable.count(f.names[k]) ? "held: not separable from the others with these traces"
                                                         : "held: the data does not depend on it");
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
  for (std::size_t i = 0; i < in.size(); ++i) s += fmt::format("# trace {}: {}\n", i, in[i].label);

  nlohmann::ordered_json j;
  j["kind"] = "ccsim-params";
  j["model"] = co.model;
  j["command"] = o.command;
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char when[64];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  j["created"] = when;
  j["source"] = "fitted by ccsim calibrate (least squares on relative time residuals, Levenberg-Marquardt with Eigen LDLT, rank-revealing QR to hold inseparable parameters)";
  j["params"] = model::params_json(f.params);
  j["fitted"] = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < f.names.size(); ++k) j["fitted"][f.names[k]] = f.fitted[k];
  j["inputs"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < in.size(); ++i)
    j["inputs"].push_back({{"trace", in[i].label},
                           {"topology", o.topos.size() == 1 ? o.topos[0] : o.topos[i]},
                           {"op", schedule::to_string(in[i].cfg.op)},
                           {"ranks", metrics::ranks_of(in[i].cfg)},
                           {"points", in[i].rows.size()}});
  j["fit"] = {{"r2_time", f.r2_time}, {"r2_log_time", f.r2_log_time}, {"rms_rel", f.rms_rel}, {"points", f.points.size()}};
  j["residuals"] = nlohmann::ordered_json::array();
  for (const auto& p : f.points)
    j["residuals"].push_back({{"trace", p.input}, {"size", p.size}, {"measured_us", p.measured_us}, {"predicted_us", p.predicted_us}});
  j["cross_validation"] = nlohmann::ordered_json::array();
  for (const auto& h : cv)
    j["cross_validation"].push_back({{"held_out", h.label},
                                     {"rows", h.n},
                                     {"median_abs_err_pct_ge_1MiB", std::isfinite(h.median_ge_1MiB) ? nlohmann::ordered_json(h.median_ge_1MiB) : nlohmann::ordered_json()},
                                     {"median_abs_err_pct_all", std::isfinite(h.median_all) ? nlohmann::ordered_json(h.median_all) : nlohmann::ordered_json()},
                                     {"note", h.note}});
  write_output(o.out, safe_dump(j, 2) + "\n");
  write_output("", s);
}

} // namespace

void add_calibrate_command(CLI::App& app, int argc, char** argv) {
  auto opts = std::make_shared<CalibrateOptions>();
  opts->command = "ccsim";
  for (int i = 1; i < argc; ++i) opts->command += std::string(" ") + argv[i];
  auto* c = app.add_subcommand("calibrate", "Fit link efficiencies and step/launch overheads to measured traces");
  add_placement_options(*c, opts->run);
  c->remove_option(c->get_option("--topo"));
  c->add_option("-t,--topo", opts->topos, "Topology per --trace (repeat in the same order) or one for all")->required();
  add_trace_options(*c, opts->tr);
  c->add_option("--trace", opts->traces, "Measured nccl-tests output (repeat for several)")->required();
  c->add_option("-o,--output", opts->out, "Write the parameter set here (models/<name>.json)")->required();
  c->add_option("--min-size", opts->min_size, "Fit only rows at least this large (e.g. 1M)")->capture_default_str();
  c->add_option("-a,--algo", opts->run.algo, "Algorithm for the fifo/store_forward models")->capture_default_str();
  c->add_option("--hold", opts->hold, "Keep these parameters at their start value (--params or default), e.g. launch_us,step_us")
      ->delimiter(',');
  c->add_flag("--fit-protocols", opts->fit_protocols, "--model nccl: also fit a bandwidth multiplier per protocol (more parameters; check the held-out error)");
  c->callback([opts] { run_calibrate(*opts); });
}

} // namespace ccsim::cli
