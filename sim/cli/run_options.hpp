// The main command's flags (nccl-tests names where they overlap) and turning them into a RunConfig.
// Other subcommands (compare, rings, explain) reuse the topology/placement/model part.
#pragma once
#include <string>

#include <CLI/CLI.hpp>

#include "sim/metrics/sweep.hpp"
#include "sim/report/report.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::cli {

struct RunOptions {
  std::string topo = "dgx1";
  std::string op = "allreduce";
  std::string algo; // empty: schedule::default_algorithm(op)
  std::string minbytes = "8", maxbytes = "128M", stepbytes;
  double stepfactor = 2;
  std::string datatype = "float", redop = "sum";
  int root = 0;
  std::string gpus, ring, rings;
  bool one_based = false;
  std::string format = "table";
  std::string output;
  std::string model = "fifo";
  std::string sw_alpha = "0us";
  std::string reduce_bw;
  std::string chunk_size;
  std::string dims;
  std::string dump_schedule;
  bool eager = false; // sends start at once instead of when their receive is posted
  // Seeing inside one size of the sweep (sim/cli/inspect.hpp): Chrome trace, link report.
  std::string timeline, timeline_size;
  bool links = false;
  std::string params;      // --params: a fitted parameter set (ccsim calibrate)
  std::string gpu_arch;    // --gpu-arch for --model nccl
  std::string nccl_algo = "auto"; // --nccl-algo for --model nccl
};

// Flags that pick the machine and the placement (shared with compare/rings/explain).
void add_placement_options(CLI::App& app, RunOptions& o);
// Everything the main command takes.
void add_run_options(CLI::App& app, RunOptions& o);

// Validates and resolves the options; throws Error with a one-line message naming the flag.
metrics::RunConfig make_run_config(const RunOptions& o, const topology::Topology& topo);
int run_command(const RunOptions& o);

} // namespace ccsim::cli
