#include "sim/cli/scenario_command.hpp"

#include "sim/cli/common.hpp"
#include "sim/core/error.hpp"
#include "sim/report/scenario_report.hpp"

namespace ccsim::cli {

void run_scenario_options(const ScenarioOptions& o, const std::function<void(const scenario::Report&)>& use) {
  auto s = scenario::load_scenario_file(o.file);
  if (o.no_overlap) s.overlap = false;
  if (!o.bucket_size.empty()) {
    s.bucket_bytes = parse_size(o.bucket_size, "--bucket-size");
    if (s.bucket_bytes == 0) fail("--bucket-size: must be positive");
    scenario::check_work(s, "--bucket-size");
  }
  use(scenario::run_scenario(s, o.topo));
}

void add_scenario_run_options(CLI::App& cmd, ScenarioOptions& o) {
  cmd.add_option("file", o.file, "Scenario file (see docs/training-scenarios.md)")->required();
  cmd.add_option("-t,--topo", o.topo, "Run on this topology instead of the file's");
  cmd.add_flag("--no-overlap", o.no_overlap, "Start every exchange after backward ends (what overlap saves)");
  cmd.add_option("--bucket-size", o.bucket_size, "Gradient bucket size instead of the file's (e.g. 1G = one bucket)");
}

void add_scenario_command(CLI::App& app) {
  auto o = std::make_shared<ScenarioOptions>();
  auto* cmd = app.add_subcommand("scenario", "Simulate a data-parallel training step (scenarios/*.json): step time, "
                                             "exposed communication, throughput, speedup and efficiency per GPU count");
  add_scenario_run_options(*cmd, *o);
  cmd->add_option("--format", o->format, "Output: table, json")->capture_default_str();
  cmd->add_option("--output", o->output, "Write the output to this file (atomically) instead of stdout");
  cmd->callback([o] {
    if (o->format != "table" && o->format != "json") fail("--format: unknown '{}' (table, json)", o->format);
    run_scenario_options(*o, [&](const scenario::Report& rep) {
      write_output(o->output, o->format == "json" ? report::scenario_json(rep) : report::scenario_table(rep));
    });
  });
}

} // namespace ccsim::cli
