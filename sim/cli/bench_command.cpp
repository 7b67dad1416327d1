// `ccsim bench --topo crossbar:ranks=1024,bw=10GB/s,alpha=1us --op allreduce --algo ring -n 64M`
// Ranks are placed on GPUs in order (rank r on GPU r, or as --gpus says), one job, as SimGrid's hostfile does. Prints one
// line of key=value pairs: simulated time, events, transfers, setup and engine wall and CPU time (the
// fastest of --repeat runs), events and transfers per second, and the process's peak RSS (getrusage).
#include "sim/cli/bench_command.hpp"

#include <sys/resource.h>

#include <chrono>
#include <ctime>
#include <numeric>

#include <fmt/format.h>

#include "sim/cli/common.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/topology/import.hpp"

namespace ccsim::cli {
namespace {

struct BenchOptions {
  std::string topo = "crossbar:ranks=1024,bw=10GB/s,alpha=1us";
  std::string op = "allreduce", algo = "ring", bytes = "64M", datatype = "int32", model = "fifo";
  std::string header = "0";
  std::string semantics = "gpu", overhead = "0us";
  std::string gpus; // rank order over GPUs; default 0..G-1
  int repeat = 1;
};

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss; // KiB on Linux
}

std::string bench(const BenchOptions& o) {
  if (o.repeat < 1) fail("--repeat must be at least 1");
  const auto t0 = std::chrono::steady_clock::now();
  const auto topo = topology::resolve_topology(o.topo);
  topology::Router router(topo);
  metrics::RunConfig cfg;
  cfg.op = require_op(o.op);
  cfg.algo = o.algo;
  schedule::require_algorithm(cfg.op, cfg.algo);
  const auto dt = metrics::datatype_from(o.datatype);
  if (!dt) fail("-d/--datatype: unknown type '{}' ({})", o.datatype, metrics::datatype_names());
  cfg.dtype = *dt;
  if (o.gpus.empty()) {
    // Built in place, without a temporary to copy.
    cfg.placements.resize(1);
    cfg.placements[0].resize(static_cast<std::size_t>(topo.num_gpus()));
    std::iota(cfg.placements[0].begin(), cfg.placements[0].end(), 0);
  } else {
    cfg.placements = {parse_gpu_list(o.gpus, "--gpus", topo, false)};
  }
  cfg.model_name = o.model;
  cfg.model.header_bytes = parse_size(o.header, "--header");
  cfg.model.semantics = engine::semantics_from(o.semantics, "--semantics");
  cfg.model.overhead = parse_duration(o.overhead, "--sw-overhead");
  cfg.model.channel_totals = false; // the line below reports no link
  const Bytes n = parse_size(o.bytes, "-n/--bytes");
  const double setup_s = seconds_since(t0);

  // The machine may be shared: CPU time of the run is reported next to wall time.
  double best = 0, best_cpu = 0;
  metrics::Row row;
  for (int i = 0; i < o.repeat; ++i) {
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpu_seconds();
    row = metrics::simulate(topo, router, cfg, n);
    const double s = seconds_since(t1), c = cpu_seconds() - c1;
    if (i == 0 || s < best) best = s;
    if (i == 0 || c < best_cpu) best_cpu = c;
  }
  const auto& r = row.result;
  return fmt::format(
      "bench topo={} ranks={} op={} algo={} model={} bytes={} header={} sim_time_ps={} sim_time_s={:.9e} events={} "
      "transfers={} setup_s={:.4f} run_s={:.4f} run_cpu_s={:.4f} events_per_s={:.4e} events_per_cpu_s={:.4e} "
      "transfers_per_s={:.4e} peak_rss_mib={:.1f}\n",
      topo.name, topo.num_gpus(), o.op, o.algo, o.model, row.plan.size, cfg.model.header_bytes, row.time,
      to_sec(row.time), r.events, r.transfers, setup_s, best, best_cpu, static_cast<double>(r.events) / best,
      static_cast<double>(r.events) / best_cpu,
      static_cast<double>(r.transfers) / best, static_cast<double>(peak_rss_kib()) / 1024.0);
}

} // namespace

void add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand("bench", "Time one collective: simulated time, wall time, events/s, peak RSS");
  cmd->add_option("-t,--topo", o->topo, "Topology: generator spec (crossbar:ranks=N,bw=..,alpha=..), shipped name or file")
      ->capture_default_str();
  cmd->add_option("--op", o->op, "Collective")->capture_default_str();
  cmd->add_option("-a,--algo", o->algo, "Algorithm")->capture_default_str();
  cmd->add_option("-n,--bytes", o->bytes, "Message size as nccl-tests counts it (K/M/G suffixes)")->capture_default_str();
  cmd->add_option("-d,--datatype", o->datatype, "Element type")->capture_default_str();
  cmd->add_option("--model", o->model, "Network model: fifo, store_forward, flow")->capture_default_str();
  add_gpu_option(*cmd);
  cmd->add_option("--gpus", o->gpus, "Rank order over GPUs, e.g. 0,8,1,9 (default: rank r on GPU r)");
  cmd->add_option("--header", o->header, "Bytes added to every message (16 = SimGrid SMPI's envelope)")->capture_default_str();
  cmd->add_option("--semantics", o->semantics, "gpu (a send completes when its data has left) or mpi (blocking "
                                               "sendrecv, as SimGrid SMPI)")->capture_default_str();
  cmd->add_option("--sw-overhead", o->overhead, "LogP's o per send and receive, serialised at the posting rank")
      ->capture_default_str();
  cmd->add_option("--repeat", o->repeat, "Run the simulation this many times, report the fastest")->capture_default_str();
  cmd->callback([o] { write_stdout(bench(*o)); });
}

} // namespace ccsim::cli
