// ccsim: parse the command line, run one command, print its result. No logic lives here.
#include <algorithm>
#include <csignal>
#include <functional>
#include <iostream>
#include <optional>
#include <new>
#include <string_view>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/cli/bench_command.hpp"
#include "sim/cli/common.hpp"
#include "sim/cli/explain_command.hpp"
#include "sim/cli/parse_errors.hpp"
#include "sim/cli/perf_command.hpp"
#include "sim/cli/rings_command.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/cli/sbatch_command.hpp"
#include "sim/cli/scenario_command.hpp"
#include "sim/cli/sweep_command.hpp"
#include "sim/cli/topo_command.hpp"
#include "sim/cli/trace_commands.hpp"
#include "sim/core/error.hpp"
#include "sim/model/registry.hpp"
#include "sim/core/printable.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/topology_json.hpp"

namespace {

std::string catalogue() {
  using namespace ccsim;
  std::string s = "\nCollectives and algorithms (--op / --algo):\n";
  for (auto op : schedule::kAllOps) {
    std::string names;
    for (const auto& a : schedule::all_algorithms())
      if (a.op == op) names += (names.empty() ? "" : ", ") + a.name;
    s += fmt::format("  {:<14} {}\n", schedule::to_string(op), names.empty() ? "(none yet)" : names);
  }
  s += "\nPrediction models (--model NAME):\n" + model::model_table();
  s += "\nShipped topologies (--topo NAME):\n  ";
  std::string line;
  for (const auto& n : topology::shipped_topologies()) line += n + " ";
  s += line + "\n  generators: crossbar:ranks=N,bw=25GB/s,alpha=1us  torus:dims=4x4,bw=100GB/s,alpha=1us\n"
               "              cluster:nodes=2,node=hgx-h100,nics=8x400G[,fabric=switch|fattree][,kind=ib|roce|efa|slingshot|ethernet|gib|tcpx|tcpxo|spectrumx|pollara][,instance=p5.48xlarge|a3-megagpu-8g][,sharp=1]\n"
               "              machine:gpu=h200[,gpus=8][,intra=nvswitch|cubemesh|pcie|bridge][,p2p=off][,nodes=4,nics=8x400G]\n"
               "              machine:instance=p5en.48xlarge|a3-ultragpu-8g|...[,nodes=4] (a cloud instance type: its GPUs and NICs)\n";
  s += "\nExample: ccsim --topo dgx1 --algo ring --op allreduce -b 8 -e 128M\n";
  s += "nccl-tests mode: ccsim all_reduce_perf -b 8 -e 128M -f 2 -g 8 --topo dgx1 (all of nccl-tests' flags and output; "
       "also as a symlink named all_reduce_perf, all_gather_perf, ...)\n";
  s += "Launcher lines and batch scripts: ccsim srun -N 2 --ntasks-per-node=8 all_reduce_perf ... --topo ...; "
       "ccsim sbatch job.sbatch --topo ...\n";
  return s;
}

// Building a command's options costs more instructions than a small run (CLI11 checks every new option's
// names against the earlier ones), so `ccsim SUBCOMMAND ...` builds that subcommand alone; anything else
// builds the main command, and all the subcommands too when help is asked or an argument names one.
void build_commands(CLI::App& app, ccsim::cli::RunOptions& run, int argc, char** argv) {
  using namespace ccsim::cli;
  const std::pair<std::string_view, std::function<void()>> commands[] = {
      {"topo", [&] { add_topo_command(app); }},         {"bench", [&] { add_bench_command(app); }},
      {"explain", [&] { add_explain_command(app); }},   {"scenario", [&] { add_scenario_command(app); }},
      {"rings", [&] { add_rings_command(app); }},       {"compare", [&] { add_compare_command(app); }},
      {"calibrate", [&] { add_calibrate_command(app, argc, argv); }}, {"sweep", [&] { add_sweep_command(app); }}};
  const auto is_command = [&](std::string_view a) {
    return std::any_of(std::begin(commands), std::end(commands), [&](const auto& c) { return c.first == a; });
  };
  if (argc > 1)
    for (const auto& [name, add] : commands)
      if (name == argv[1]) return add();
  add_run_options(app, run);
  // The main command alone (the nccl-tests-like run) when no argument names a subcommand or asks for help.
  bool others = false;
  for (int i = 1; i < argc && !others; ++i)
    others = is_command(argv[i]) || std::string_view(argv[i]) == "-h" || std::string_view(argv[i]) == "--help";
  if (!others) return;
  for (const auto& c : commands) c.second();
}

// The catalogue ends every help text, the subcommands' too (unless one has its own footer).
void set_footer(CLI::App& app, const std::function<std::string()>& footer) {
  if (app.get_footer().empty()) app.footer(footer);
  for (auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) set_footer(*sub, footer);
}


} // namespace

// Help text ends with the catalogue, which needs the data folder: a binary that cannot find it (copied
// elsewhere, no CCSIM_DATA_DIR) says so in one line instead of aborting on an exception out of a handler.
template <typename HelpError>
int print_help(CLI::App& app, const HelpError& e) {
  try {
    return app.exit(e);
  } catch (const ccsim::Error& err) {
    std::cerr << "ccsim: " << ccsim::printable(err.what(), 4000) << "\n";
    return 2;
  }
}

int main(int argc, char** argv) {
  // `ccsim all_reduce_perf ...` or a symlink named all_reduce_perf: nccl-tests' flags and output.
  // `ccsim sbatch job.sbatch --topo ...`: the nccl-tests lines of a Slurm batch script.
  // Both return their own status for ccsim::Error; anything else is said in one line as below, not an abort from an
  // exception no handler took (a script whose variables doubled line by line ended in std::bad_alloc, exit 134).
  std::optional<ccsim::cli::PerfInvocation> perf;
  try {
    if (argc >= 2 && std::string_view(argv[1]) == "sbatch") return ccsim::cli::sbatch_main(argc, argv);
    perf = ccsim::cli::perf_invocation(argc, argv);
  } catch (const ccsim::Error& e) { // a launcher line that starts no test
    std::cerr << "ccsim: " << ccsim::printable(e.what(), 4000) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "ccsim: out of memory: the run needs more memory than this process may use (ulimit -v, cgroup)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ccsim: internal error: " << ccsim::printable(e.what(), 4000) << "\n";
    return 3;
  }
  if (perf) return ccsim::cli::perf_main(*perf, argc, argv);
  CLI::App app{"ccsim: predict collective communication (nccl-tests style) by discrete-event simulation"};
  app.require_subcommand(0, 1);
  ccsim::cli::RunOptions run;
  build_commands(app, run, argc, argv);
  set_footer(app, [] { // only when help is printed: it lists the data folder and reads the models
    auto s = catalogue();
    s.pop_back(); // CLI11 adds a newline after a footer given as a function
    return s;
  });
  // Past a file size limit (ulimit -f) a write fails with EFBIG instead of killing ccsim, so the
  // temporaries are removed and the error is reported.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    app.parse(argc, argv);
    const int rc = app.get_subcommands().empty() ? ccsim::cli::run_command(run) : ccsim::cli::command_status();
    ccsim::cli::outputs().commit(); // every output file at once, only after the whole command succeeded
    return rc;
  } catch (const CLI::CallForHelp& e) {
    return print_help(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    return print_help(app, e);
  } catch (const ccsim::cli::ModelHelp&) {
    std::cout << "Prediction models (--model NAME):\n" << ccsim::model::model_table();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "ccsim: " << ccsim::printable(ccsim::cli::parse_error_text(app, e), 4000) << ccsim::cli::help_hint(app, argc, argv) << "\n";
    return 2;
  } catch (const ccsim::Error& e) {
    // Messages quote file contents and arguments: control characters are escaped so it stays one line.
    std::cerr << "ccsim: " << ccsim::printable(e.what(), 4000) << "\n";
    return 2;
  } catch (const std::bad_alloc&) { // a resource limit, not a bug: say which
    std::cerr << "ccsim: out of memory: the run needs more memory than this process may use (ulimit -v, "
                 "cgroup); use fewer GPUs, sizes or rings\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ccsim: internal error: " << ccsim::printable(e.what(), 4000) << "\n";
    return 3;
  }
}
