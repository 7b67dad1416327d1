// `ccsim scenario FILE ...`'s flags as that command and `ccsim sweep`'s scenario points take them (--topo, --model,
// --bucket-size, --no-overlap, --params and the what-ifs --nvls, --collnet, --msccl, --nccl-algo, --nccl-proto,
// --nccl-version, --p2p, --p2p-level): one argument per input line, then the scenario is run. The first line, when it
// names a shipped scenario small enough to run in a moment (scenarios/NAME), picks it; otherwise lm300m_dgx1.json
// runs and that line is an argument too. A parse error (CLI11's) and ccsim::Error are refusals, as the command's
// one line and exit 2; anything else escapes and is a crash.
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/cli/run_options.hpp"
#include "sim/cli/scenario_command.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/p2p.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  // A valid run on a machine of thousands of GPUs, or a sweep over many sizes, measures speed, not robustness.
  if (input.size() > 1000 || !fuzz::numbers_at_most(input, 1024)) return 0;
  std::vector<std::string> lines;
  for (std::size_t at = 0; at <= input.size();) {
    const auto end = std::min(input.find('\n', at), input.size());
    lines.emplace_back(input.substr(at, end - at));
    at = end + 1;
  }
  std::string file = "lm300m_dgx1.json";
  if (!lines.empty()) {
    for (const char* small : {"lm300m_dgx1.json", "resnet50_ps_dgx1.json", "resnet50_dgx1_vs_pcie.json", "gpt_zero_2x8_a100.json"})
      if (lines.front() == small) {
        file = small;
        lines.erase(lines.begin());
        break;
      }
  }
  std::vector<std::string> args{"ccsim", data_dir() + "/scenarios/" + file};
  for (auto& l : lines) args.push_back(std::move(l));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  try {
    CLI::App app;
    cli::ScenarioOptions o;
    cli::add_scenario_run_options(app, o);
    app.parse(static_cast<int>(argv.size()), argv.data());
    cli::run_scenario_options(o, [](const scenario::Report&) {});
  } catch (const CLI::ParseError&) { // a flag CLI11 refuses: the command's one line, exit 2
  } catch (const cli::ModelHelp&) {  // --model help: the command prints the models' list
  } catch (const Error&) {
  }
  // The thread-wide machine settings a run leaves (--p2p, --p2p-level, --gpu), as `ccsim sweep` resets them per point.
  topology::set_p2p_mode("on");
  topology::clear_p2p_level();
  topology::set_default_import_gpu("");
})
