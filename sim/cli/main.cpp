// ccsim: parse the command line, run one command, print its result. No logic lives here.
#include <csignal>
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "sim/cli/bench_command.hpp"
#include "sim/cli/common.hpp"
#include "sim/cli/explain_command.hpp"
#include "sim/cli/perf_command.hpp"
#include "sim/cli/rings_command.hpp"
#include "sim/cli/run_options.hpp"
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
               "              cluster:nodes=2,node=hgx-h100,nics=8x400G[,fabric=switch|fattree][,kind=ib|roce|efa][,sharp=1]\n"
               "              machine:gpu=h200[,gpus=8][,intra=nvswitch|cubemesh|pcie|bridge][,p2p=off][,nodes=4,nics=8x400G]\n";
  s += "\nExample: ccsim --topo dgx1 --algo ring --op allreduce -b 8 -e 128M\n";
  s += "nccl-tests mode: ccsim all_reduce_perf -b 8 -e 128M -f 2 -g 8 --topo dgx1 (all of nccl-tests' flags and output; "
       "also as a symlink named all_reduce_perf, all_gather_perf, ...)\n";
  return s;
}

} // namespace

int main(int argc, char** argv) {
  // `ccsim all_reduce_perf ...` or a symlink named all_reduce_perf: nccl-tests' flags and output.
  if (const auto perf = ccsim::cli::perf_invocation(argc, argv)) return ccsim::cli::perf_main(*perf, argc, argv);
  CLI::App app{"ccsim: predict collective communication (nccl-tests style) by discrete-event simulation"};
  app.footer(catalogue());
  app.require_subcommand(0, 1);
  ccsim::cli::RunOptions run;
  ccsim::cli::add_run_options(app, run);
  ccsim::cli::add_topo_command(app);
  ccsim::cli::add_bench_command(app);
  ccsim::cli::add_explain_command(app);
  ccsim::cli::add_scenario_command(app);
  ccsim::cli::add_rings_command(app);
  ccsim::cli::add_compare_command(app);
  ccsim::cli::add_calibrate_command(app, argc, argv);
  ccsim::cli::add_sweep_command(app);
  // Past a file size limit (ulimit -f) a write fails with EFBIG instead of killing ccsim, so the
  // temporaries are removed and the error is reported.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    app.parse(argc, argv);
    const int rc = app.get_subcommands().empty() ? ccsim::cli::run_command(run) : 0;
    ccsim::cli::outputs().commit(); // every output file at once, only after the whole command succeeded
    return rc;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const ccsim::cli::ModelHelp&) {
    std::cout << "Prediction models (--model NAME):\n" << ccsim::model::model_table();
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << "ccsim: " << ccsim::printable(e.what(), 4000) << " (see ccsim --help)\n";
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
