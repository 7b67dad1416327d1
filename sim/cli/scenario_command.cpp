#include "sim/cli/scenario_command.hpp"

#include "sim/cli/common.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/core/error.hpp"
#include "sim/model/registry.hpp"
#include "sim/report/hybrid_report.hpp"
#include "sim/report/scenario_report.hpp"
#include "sim/scenario/hybrid_step.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/topology/import.hpp"

namespace ccsim::cli {
namespace {

scenario::Scenario load_with_flags(const ScenarioOptions& o) {
  auto s = scenario::load_scenario_file(o.file);
  if (o.no_overlap) s.overlap = false;
  if (!o.model.empty()) s.model_name = model::require_model(o.model).name; // the file's network.model, as the main command's --model
  // The model as the main command builds it (model_options: --params, else the shipped calibration under
  // --model nccl, and the what-ifs), so that a step's allreduce is the main command's prediction for that size.
  RunOptions run = o.run;
  run.model = s.model_name;
  // The file's network.params where --params is not given; the label says which set and where it came from.
  const bool from_file = run.params.empty() && !s.params_file.empty();
  if (from_file) run.params = s.params_file;
  s.model_options = model_options(run);
  s.params_label = params_label(run);
  if (from_file)
    s.params_label = (run.params == "none" ? std::string("no parameter set") : s.params_label) + " (network.params in " + s.origin + ")";
  else if (!o.run.params.empty() && !s.params_file.empty())
    s.params_label = (o.run.params == "none" ? std::string("no parameter set") : s.params_label) + " (--params, over network.params " + s.params_file + ")";
  s.whatifs = whatif_text(o.whatif_opts);
  if (!o.bucket_size.empty()) {
    s.bucket_bytes = parse_size(o.bucket_size, "--bucket-size");
    if (s.bucket_bytes == 0) fail("--bucket-size: must be positive");
    scenario::check_work(s, "--bucket-size");
  }
  return s;
}

// A hybrid-parallel scenario: one step on one topology, its breakdown, optionally its timeline.
void run_hybrid(const scenario::Scenario& s, const ScenarioOptions& o) {
  if (!o.timeline.empty() && (o.timeline == "-" || o.timeline == o.output)) fail("--timeline: give a file of its own");
  topology::Topology topo;
  try {
    topo = topology::resolve_topology(o.topo.empty() ? s.topologies.front() : o.topo);
  } catch (const Error& e) {
    if (!o.topo.empty()) throw;
    fail("scenario {}: topology: {}", s.origin, e.what());
  }
  const auto r = scenario::run_hybrid_step(s, topo, o.allow_oversubscribed);
  if (!o.timeline.empty()) write_output(o.timeline, report::hybrid_timeline(s, r), "--timeline");
  write_output(o.output, o.format == "json" ? report::hybrid_json(s, topo.name, r) : report::hybrid_table(s, topo.name, r), "--output");
}

} // namespace

void run_scenario_options(const ScenarioOptions& o, const std::function<void(const scenario::Report&)>& use) {
  const auto s = load_with_flags(o);
  if (s.hybrid) fail("scenario {}: a hybrid-parallel scenario is run by `ccsim scenario` alone; `ccsim sweep` runs data-parallel scenarios", o.file);
  use(scenario::run_scenario(s, o.topo, o.allow_oversubscribed));
}

void add_scenario_run_options(CLI::App& cmd, ScenarioOptions& o) {
  cmd.add_option("file", o.file, "Scenario file (see docs/training-scenarios.md)")->required();
  cmd.add_option("-t,--topo", o.topo, "Run on this topology instead of the file's");
  cmd.add_option("--model", o.model, "Network model instead of the file's network.model (fifo, store_forward, flow, nccl)");
  cmd.add_flag("--no-overlap", o.no_overlap, "Start every exchange after backward ends (what overlap saves)");
  cmd.add_option("--bucket-size", o.bucket_size, "Gradient bucket size instead of the file's (e.g. 1G = one bucket)");
  cmd.add_flag("--allow-oversubscribed-memory", o.allow_oversubscribed, "Simulate a step whose memory per GPU does not fit the GPU kind's memory");
  add_params_option(cmd, o.run);
  o.whatif_opts = add_p2p_options(cmd);
  for (auto* opt : add_nccl_whatif_options(cmd, o.run)) o.whatif_opts.push_back(opt);
}

void add_scenario_command(CLI::App& app) {
  auto o = std::make_shared<ScenarioOptions>();
  auto* cmd = app.add_subcommand("scenario", "Simulate a training step (scenarios/*.json): data-parallel sweeps over GPU counts, or "
                                             "one hybrid-parallel (tp/pp/dp/ep) step with its breakdown and memory");
  add_scenario_run_options(*cmd, *o);
  add_gpu_option(*cmd);
  cmd->add_option("--format", o->format, "Output: table, json")->capture_default_str();
  cmd->add_option("--timeline", o->timeline, "Hybrid-parallel scenarios: write the step as a Chrome trace (compute, each group's collectives, pipeline waits)");
  cmd->add_option("--output", o->output, "Write the output to this file (atomically) instead of stdout");
  cmd->callback([o] {
    if (o->format != "table" && o->format != "json") fail("--format: unknown '{}' (table, json)", o->format);
    const auto s = load_with_flags(*o);
    if (s.hybrid) return run_hybrid(s, *o);
    if (!o->timeline.empty()) fail("--timeline: only a hybrid-parallel scenario (\"parallel\" + \"transformer\") has a step timeline");
    const auto rep = scenario::run_scenario(s, o->topo, o->allow_oversubscribed);
    write_output(o->output, o->format == "json" ? report::scenario_json(rep) : report::scenario_table(rep), "--output");
  });
}

} // namespace ccsim::cli
