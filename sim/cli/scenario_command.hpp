// `ccsim scenario FILE [--format table|json] [--topo NAME] [--output FILE]`: simulate a training step.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/cli/run_options.hpp"
#include "sim/scenario/run.hpp"

namespace ccsim::cli {

struct ScenarioOptions {
  std::string file, format = "table", topo, output, bucket_size, timeline, model;
  bool no_overlap = false, allow_oversubscribed = false;
  RunOptions run;                        // the main command's model flags (--params, --nvls, --nccl-algo, ...), those fields alone
  std::vector<CLI::Option*> whatif_opts; // those options and --p2p/--p2p-level, for the report's words
};

void add_scenario_command(CLI::App& app);
// The file and the flags that change what runs (--topo, --model, --bucket-size, --no-overlap and the main command's
// --params and what-ifs: --nvls, --collnet, --msccl, --nccl-algo, --nccl-proto, --nccl-version, --p2p, --p2p-level),
// shared with `ccsim sweep`. The model is built by model_options, as the main command's.
void add_scenario_run_options(CLI::App& cmd, ScenarioOptions& o);
// Loads the file, applies the flags, runs it and hands the report to `use` (it points into the loaded scenario).
// A hybrid-parallel scenario ("parallel" + "transformer") is run and written by `ccsim scenario` itself;
// here it is refused in one line (its one-step report has other columns).
void run_scenario_options(const ScenarioOptions& o, const std::function<void(const scenario::Report&)>& use);

} // namespace ccsim::cli
