// ccsim calibrate: least-squares fit of a parameter set (per-link-type bandwidth efficiency, per-message
// step overhead, launch overhead) to one or more measured traces; prints the fitted values, residuals,
// R^2 and the error on traces (or rows) held out of the fit, and writes models/<name>.json recording the
// exact command. Apply the result with --params on the main command or compare.
#include <algorithm>
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
#include "sim/report/calibrate_report.hpp"
#include "sim/core/json_file.hpp"
#include "sim/trace/ccsim_output.hpp"
#include "sim/trace/trace_runs.hpp"

namespace ccsim::cli {
namespace {

struct CalibrateOptions {
  RunOptions run;
  TraceOptions tr;
  std::vector<std::string> traces, topos;
  std::string out, min_size = "0";
  std::string command;
  bool fit_protocols = false;
  bool fit_latency = false;
  bool no_cross_validation = false;
  std::vector<std::string> hold;
  std::vector<int> run_index; // --run: one for all traces or one per --trace (0 = a file of one run)
};

void run_calibrate(const CalibrateOptions& o) {
  if (o.traces.empty()) fail("calibrate: give at least one --trace");
  if (o.topos.empty()) fail("calibrate: give --topo (one for all traces, or one per --trace)");
  if (o.topos.size() != 1 && o.topos.size() != o.traces.size())
    fail("calibrate: {} --topo for {} --trace; give one for all or one per trace", o.topos.size(), o.traces.size());
  if (o.out.empty()) fail("calibrate: -o/--output models/<name>.json is required");
  if (o.run_index.size() > 1 && o.run_index.size() != o.traces.size())
    fail("calibrate: {} --run for {} --trace; give one for all or one per trace", o.run_index.size(), o.traces.size());
  const Bytes min_size = parse_size(o.min_size, "--min-size");
  std::vector<std::unique_ptr<TraceRun>> runs;
  std::vector<model::CalibInput> in;
  for (std::size_t i = 0; i < o.traces.size(); ++i) {
    const auto& spec = o.topos.size() == 1 ? o.topos[0] : o.topos[i];
    // --run K: that run of a file holding several (a scaling study), each run its own input.
    const int k = o.run_index.empty() ? 0 : o.run_index.size() == 1 ? o.run_index[0] : o.run_index[i];
    if (k < 0) fail("--run: {} is not a run of {}", k, o.traces[i]);
    trace::Trace t = k == 0 ? trace::load_one_trace(o.traces[i], trace_hints(o.tr))
                            : std::move(trace::load_trace_runs(o.traces[i], trace_hints(o.tr), k).front());
    // The trace's own NCCL settings, as compare applies them: a fit replays the algorithm, protocols and channels
    // the comparison of the same file does. The fit's values replace any parameter set, so none is loaded here.
    RunOptions ro = o.run;
    ro.params = "none";
    auto applied = apply_trace_env(ro, t);
    runs.push_back(std::make_unique<TraceRun>(setup_trace_run(ro, std::move(t), o.traces[i], spec)));
    model::CalibInput ci;
    ci.label = k == 0 ? o.traces[i] : fmt::format("{} [run {}]", o.traces[i], k);
    ci.trace = runs.back()->trace;
    ci.topo = &runs.back()->topo;
    ci.cfg = runs.back()->cfg;
    ci.settings = model_options(ro);
    ci.applied = std::move(applied);
    for (std::size_t r = 0; r < ci.trace.rows.size(); ++r) {
      const auto& row = ci.trace.rows[r];
      if (row.size >= std::max<Bytes>(1, min_size) && row.count > 0 && trace::measured_time_us(row, o.tr.in_place) > 0)
        ci.rows.push_back(r);
    }
    in.push_back(std::move(ci));
  }
  if (min_size > 0 && std::all_of(in.begin(), in.end(), [](const model::CalibInput& ci) { return ci.rows.empty(); }))
    fail("--min-size: no measured row is {} or larger, nothing is left to fit", o.min_size);
  model::CalibOptions co;
  co.model = o.run.model;
  co.in_place = o.tr.in_place;
  co.fit_protocols = o.fit_protocols;
  co.fit_latency = o.fit_latency;
  if (co.fit_latency && !co.fit_protocols) fail("--fit-latency: only with --fit-protocols (it fits a latency per protocol beside its rate)");
  co.hold.insert(o.hold.begin(), o.hold.end());
  if (co.fit_protocols && !model::require_model(co.model).chooses_algorithm)
    fail("--fit-protocols: only with a model that chooses protocols (--model nccl)");
  // The fit starts from --params when given; 'none' (the bare model, as elsewhere) is the default start.
  if (!o.run.params.empty() && o.run.params != "none") co.start = model::load_params(o.run.params);
  const auto f = model::fit(in, co);
  const auto cv = o.no_cross_validation ? std::vector<model::Holdout>{} : model::cross_validate(in, co);

  std::vector<std::string> topologies;
  for (std::size_t i = 0; i < in.size(); ++i) topologies.push_back(o.topos.size() == 1 ? o.topos[0] : o.topos[i]);
  write_output(o.out, model::params_file(f, cv, in, co.model, topologies, o.command), "-o/--output");
  write_stdout(report::calibrate_text(f, cv, in, co.model));
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
  c->add_option("--run", opts->run_index, "Fit this run (1-based) of a file holding several: one for all --trace or one per --trace");
  c->add_option("--min-size", opts->min_size, "Fit only rows at least this large (e.g. 1M)")->capture_default_str();
  c->add_option("-a,--algo", opts->run.algo, "Algorithm for the fifo/store_forward models")->capture_default_str();
  c->add_option("--hold", opts->hold, "Keep these parameters at their start value (--params or default), e.g. launch_us,step_us")
      ->delimiter(',');
  c->add_flag("--fit-protocols", opts->fit_protocols, "--model nccl: also fit a bandwidth multiplier per protocol (more parameters; check the held-out error)");
  c->add_flag("--fit-latency", opts->fit_latency,
              "--fit-protocols: also fit a multiplier per protocol on NCCL's latency figures (lat:LL, lat:LL128, lat:Simple)");
  c->add_flag("--no-cross-validation", opts->no_cross_validation,
              "Skip the held-out fits (one more fit per trace): for a fit whose held-out error is measured elsewhere");
  c->callback([opts] { run_calibrate(*opts); });
}

} // namespace ccsim::cli
