#include "sim/cli/scenario_command.hpp"

#include "sim/cli/common.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/run.hpp"

namespace ccsim::cli {
namespace {

struct ScenarioOptions {
  std::string file, format = "table", topo, output;
};

void run(const ScenarioOptions& o) {
  if (o.format != "table" && o.format != "json") fail("--format: unknown '{}' (table, json)", o.format);
  const auto s = scenario::load_scenario_file(o.file);
  const auto rep = scenario::run_scenario(s, o.topo);
  write_output(o.output, o.format == "json" ? scenario::render_json(rep) : scenario::render_table(rep));
}

} // namespace

void add_scenario_command(CLI::App& app) {
  auto o = std::make_shared<ScenarioOptions>();
  auto* cmd = app.add_subcommand("scenario", "Simulate a data-parallel training step (scenarios/*.json): step time, "
                                             "exposed communication, throughput, speedup and efficiency per GPU count");
  cmd->add_option("file", o->file, "Scenario file (see docs/training-scenarios.md)")->required();
  cmd->add_option("--format", o->format, "Output: table, json")->capture_default_str();
  cmd->add_option("-t,--topo", o->topo, "Run on this topology instead of the file's");
  cmd->add_option("--output", o->output, "Write the output to this file (atomically) instead of stdout");
  cmd->callback([o] { run(*o); });
}

} // namespace ccsim::cli
