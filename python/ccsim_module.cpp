// ccsim._ccsim: the command line run in-process, and a topology's graph. The Python package (ccsim/__init__.py)
// turns keyword arguments into the CLI's flags and its --format json output into Python objects, so a result
// from Python is the CLI's result by construction: same flags, same checks, same numbers, same error line.
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "sim/cli/common.hpp"
#include "sim/cli/parse_errors.hpp"
#include "sim/cli/perf_command.hpp"
#include "sim/cli/explain_command.hpp"
#include "sim/cli/rings_command.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/cli/scenario_command.hpp"
#include "sim/cli/topo_command.hpp"
#include "sim/cli/trace_commands.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

namespace py = pybind11;

namespace {

// The one-line message the CLI prints after "ccsim: " (Python raises it as ccsim.Error).
struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The CLI keeps process-wide state (pending output files, the --p2p and --gpu settings, std::cout):
// one command at a time, each starting from the defaults.
std::mutex g_cli_mutex;

struct CoutCapture {
  std::ostringstream text;
  std::streambuf* saved = std::cout.rdbuf(text.rdbuf());
  ~CoutCapture() { std::cout.rdbuf(saved); }
};

struct CerrCapture {
  std::ostringstream text;
  std::streambuf* saved = std::cerr.rdbuf(text.rdbuf());
  ~CerrCapture() { std::cerr.rdbuf(saved); }
};

// Runs `ccsim <args...>` as main() does (sim/cli/main.cpp) and returns what it printed on stdout. The GIL is
// released meanwhile: a long simulation costs what it costs from the binary and other Python threads run.
std::string run_cli(const std::vector<std::string>& args) {
  py::gil_scoped_release release;
  std::lock_guard lock(g_cli_mutex);
  std::vector<std::string> storage{"ccsim"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage) argv.push_back(a.data());
  const int argc = static_cast<int>(argv.size());

  ccsim::topology::set_p2p_mode("on");
  ccsim::topology::clear_p2p_level();
  ccsim::topology::set_default_import_gpu("");
  // `ccsim all_reduce_perf ...` (any *_perf name): nccl-tests' front end, as main() dispatches it; its refusal is
  // "ccsim all_reduce_perf: <message>" on stderr and exit 2, raised here as the message.
  if (const auto perf = ccsim::cli::perf_invocation(argc, argv.data())) {
    CoutCapture out;
    CerrCapture err;
    if (ccsim::cli::perf_main(*perf, argc, argv.data()) == 0) return out.text.str();
    std::string line = err.text.str();
    if (const auto prefix = "ccsim " + perf->program + ": "; line.starts_with(prefix)) line.erase(0, prefix.size());
    while (!line.empty() && line.back() == '\n') line.pop_back();
    throw CliError(line);
  }
  CLI::App app{"ccsim"};
  app.require_subcommand(0, 1);
  ccsim::cli::RunOptions run;
  ccsim::cli::add_run_options(app, run);
  ccsim::cli::add_topo_command(app);
  ccsim::cli::add_explain_command(app);
  ccsim::cli::add_scenario_command(app);
  ccsim::cli::add_rings_command(app);
  ccsim::cli::add_compare_command(app);
  CoutCapture out;
  // compare over several files says each it could not read on stderr too; here the document (or Error) carries it.
  CerrCapture err;
  ccsim::cli::command_status() = 0;
  try {
    app.parse(argc, argv.data());
    if (app.get_subcommands().empty()) ccsim::cli::run_command(run);
    ccsim::cli::outputs().commit();
  } catch (const CLI::CallForHelp&) {
    return app.help();
  } catch (const ccsim::cli::ModelHelp&) {
    return "Prediction models (--model NAME):\n" + ccsim::model::model_table();
  } catch (const CLI::ParseError& e) {
    ccsim::cli::outputs().discard();
    throw CliError(ccsim::printable(ccsim::cli::parse_error_text(app, e), 4000) + ccsim::cli::help_hint(app, argc, argv.data()));
  } catch (const ccsim::Error& e) {
    ccsim::cli::outputs().discard();
    throw CliError(ccsim::printable(e.what(), 4000));
  } catch (const std::bad_alloc&) {
    ccsim::cli::outputs().discard();
    throw CliError("out of memory: the run needs more memory than this process may use (ulimit -v, cgroup); use "
                   "fewer GPUs, sizes or rings");
  } catch (...) {
    ccsim::cli::outputs().discard();
    throw;
  }
  return out.text.str();
}

// A loaded topology and its router, for the questions a notebook asks about the machine itself.
class Machine {
 public:
  explicit Machine(const std::string& spec) : topo_(load(spec)), router_(topo_) {}

  std::string json() const { return ccsim::topology::topology_to_json(topo_).dump(); }
  int gpus() const { return topo_.num_gpus(); }
  py::dict about() const {
    py::dict d;
    d["name"] = topo_.name;
    d["description"] = topo_.description;
    d["origin"] = topo_.origin;
    d["gpu_kind"] = topo_.gpu_kind;
    return d;
  }
  py::list nodes() const {
    py::list out;
    for (const auto& n : topo_.nodes) {
      py::dict d;
      d["name"] = n.name;
      d["kind"] = std::string(ccsim::topology::to_string(n.kind));
      d["gpu"] = n.gpu;
      out.append(d);
    }
    return out;
  }
  // Full-duplex links as `topo show` lists them: bandwidth per direction over all lanes.
  py::list links() const {
    py::list out;
    for (const auto& l : topo_.links) {
      py::dict d;
      d["a"] = topo_.nodes[static_cast<std::size_t>(l.a)].name;
      d["b"] = topo_.nodes[static_cast<std::size_t>(l.b)].name;
      d["type"] = std::string(ccsim::topology::to_string(l.type));
      d["lanes"] = l.lanes;
      d["bw_GBps"] = static_cast<double>(l.capacity()) / 1e9;
      d["latency_us"] = static_cast<double>(l.latency) / 1e6;
      d["source"] = l.source;
      d["host_staged"] = l.host_staged; // copies staged through host memory (NCCL's SHM transport)
      out.append(d);
    }
    return out;
  }

  // GPU a to GPU b: the node names passed, the links' kinds, hops, bottleneck and latency (as `topo show`).
  py::dict route(int a, int b) {
    const int n = topo_.num_gpus();
    if (a < 0 || a >= n || b < 0 || b >= n)
      throw CliError(fmt::format("route: GPU {} or {} does not exist ({} has GPUs 0..{})", a, b, topo_.name, n - 1));
    std::vector<std::string> path{topo_.nodes[static_cast<std::size_t>(topo_.gpu_node(a))].name};
    std::vector<std::string> kinds;
    const auto r = router_.route(topo_.gpu_node(a), topo_.gpu_node(b));
    for (auto c : r) {
      path.push_back(topo_.nodes[static_cast<std::size_t>(topo_.channel_to(c))].name);
      kinds.emplace_back(ccsim::topology::to_string(topo_.link_of(c).type));
    }
    const auto info = router_.info(r);
    py::dict d;
    d["path"] = path;
    d["links"] = kinds;
    d["hops"] = info.hops;
    d["bottleneck_GBps"] = static_cast<double>(info.bottleneck) / 1e9;
    d["latency_us"] = static_cast<double>(info.latency) / 1e6;
    return d;
  }

 private:
  static ccsim::topology::Topology load(const std::string& spec) {
    try {
      return ccsim::topology::resolve_topology(spec);
    } catch (const ccsim::Error& e) {
      throw CliError(ccsim::printable(e.what(), 4000));
    }
  }
  ccsim::topology::Topology topo_;
  ccsim::topology::Router router_;
};

std::string data_dir() {
  try {
    return ccsim::data_dir();
  } catch (const ccsim::Error& e) {
    throw CliError(e.what());
  }
}

} // namespace

PYBIND11_MODULE(_ccsim, m) {
  m.doc() = "ccsim's command line and topologies, in-process (use the ccsim package, not this module)";
  py::register_exception<CliError>(m, "Error", PyExc_RuntimeError);
  m.def("run_cli", &run_cli, py::arg("args"),
        "Run `ccsim ARGS...` in this process; returns its standard output, raises Error with its one-line message");
  m.def("data_dir", &data_dir, "Where the shipped topologies, models and scenarios are read from");
  py::class_<Machine>(m, "Machine")
      .def(py::init<const std::string&>(), py::arg("spec"))
      .def("json", &Machine::json)
      .def("gpus", &Machine::gpus)
      .def("about", &Machine::about)
      .def("nodes", &Machine::nodes)
      .def("links", &Machine::links)
      .def("route", &Machine::route, py::arg("a"), py::arg("b"));
}
