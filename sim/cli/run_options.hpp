// The main command's flags (nccl-tests names where they overlap) and turning them into a RunConfig.
// Flags come in groups declared once and shared by every command that takes them: the machine and
// placement, the model, the collective and its sizes, the output.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/metrics/sweep.hpp"
#include "sim/model/registry.hpp"
#include "sim/report/report.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::cli {

// One run's prediction as data: what `ccsim sweep` takes from each point instead of printed output.
struct RunRows {
  report::RunHeader header;
  std::vector<metrics::Row> rows;
};

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
  std::string sw_overhead = "0us"; // LogP's o per send/receive, serialised at the posting rank
  std::string semantics = "gpu";   // gpu | mpi (engine::Semantics)
  std::string reduce_bw;
  std::string chunk_size;
  std::string dims;
  std::string dump_schedule;
  bool eager = false; // sends start at once instead of when their receive is posted
  // Seeing inside one size of the sweep (sim/cli/inspect.hpp): Chrome trace, link report.
  std::string timeline, timeline_size;
  bool links = false;
  bool why = false; // after the table: what NCCL's tuner weighed at each size (--model nccl)
  std::string params;      // --params: a fitted parameter set (ccsim calibrate)
  std::string nccl_tables; // --nccl-tables for --model nccl ("" = models/nccl.json)
  std::string gpu_arch;    // --gpu-arch for --model nccl
  std::string nccl_algo = "auto"; // --nccl-algo for --model nccl
  std::string nccl_proto;         // --nccl-proto for --model nccl: NCCL_PROTO's list ("" = all protocols)
  std::string nvls = "auto";      // --nvls for --model nccl: auto | on | off
  std::string msccl = "auto";     // --msccl for --model nccl on AMD (RCCL): auto | off
  std::string collnet = "auto";   // --collnet for --model nccl: auto | on | off (SHARP in the fabric)
  // Set by `ccsim sweep`: the rows are handed back here instead of printed (no progress bar, no file).
  RunRows* result = nullptr;
  int nccl_channels = 0;          // compare: CUDA channels an NCCL log in the trace reports (0 = NCCL's own)
  int nccl_min_channels = 0, nccl_max_channels = 0; // compare: the trace's NCCL_MIN/MAX_NCHANNELS or _CTAS (0 = not stated)
  int nccl_min_ctas = 0, nccl_max_ctas = 0; // compare: the trace's NCCL_MIN/MAX_CTAS alone, which bound NVLS too (0 = not stated)
  int nvls_channels = 0;          // compare: NVLS CUDA channels an NCCL log in the trace reports (0 = NCCL's own)
  bool nvls_nchannels_set = false; long long nvls_nchannels = 0; // compare: the trace's NCCL_NVLS_NCHANNELS, as stated
  long long nvls_chunk_bytes = 0;          // compare: the trace's NCCL_NVLS_CHUNKSIZE (0 = NCCL's default)
  long long nvls_tree_max_chunk_bytes = 0; // compare: the trace's NCCL_NVLSTREE_MAX_CHUNKSIZE (0 = NCCL's rule)
  std::string nccl_version;       // --nccl-version for --model nccl (compare: else the trace's own line)
  std::string trace_p2p_level;    // compare/calibrate: the trace's NCCL_P2P_LEVEL, applied to its machine (--p2p-level wins)
};

// The what-ifs that change the machine or NCCL's choices, declared once for every command that takes them (the main
// command, compare, calibrate, the *_perf drop-ins, `ccsim scenario`); each returns its options, for whatif_text().
// --gpu: the GPU kind of an imported --topo file that names none (a thread-wide setting, as --p2p).
CLI::Option* add_gpu_option(CLI::App& app);
// --p2p, --p2p-level (thread-wide topology settings, applied when a topology is resolved).
std::vector<CLI::Option*> add_p2p_options(CLI::App& app);
// --nccl-algo, --nccl-proto, --nvls, --collnet, --msccl, --nccl-version (--model nccl).
std::vector<CLI::Option*> add_nccl_whatif_options(CLI::App& app, RunOptions& o);
// The given ones in words ("--nvls off, --p2p off"), "" when none was given.
std::string whatif_text(const std::vector<CLI::Option*>& opts);
// --params (a fitted set, 'none', or not given: the shipped default under --model nccl; model_options chooses).
CLI::Option* add_params_option(CLI::App& app, RunOptions& o);

// --topo, --gpu, --p2p, --p2p-level, --gpus, --ring, --rings, --one-based. `short_t` = false leaves -t free (nccl-tests' thread count).
void add_topology_options(CLI::App& app, RunOptions& o, bool short_t = true);
// --model and what tunes it: --params, --nccl-tables, --gpu-arch, --nccl-algo, --sw-alpha, --eager, --reduce-bw,
// and the step semantics (add_semantics_options).
void add_model_options(CLI::App& app, RunOptions& o);
// --op, -a, -b, -e, -f, -i, -d, -o, -r, --chunk-size, --dims.
void add_collective_options(CLI::App& app, RunOptions& o);
// --format, --output.
void add_output_options(CLI::App& app, RunOptions& o);
// Topology and model groups (compare, rings, explain, calibrate).
// --semantics and --sw-overhead (part of add_model_options; alone for commands with their own model flags).
void add_semantics_options(CLI::App& app, RunOptions& o);
void add_placement_options(CLI::App& app, RunOptions& o);
// Everything the main command takes.
void add_run_options(CLI::App& app, RunOptions& o);

// The model flags as the registry takes them (--params loaded, or the shipped default under --model nccl):
// every command's model is built from this one function. Throws Error naming the flag or file.
model::ModelOptions model_options(const RunOptions& o, int gpus_per_thread = 1);
// The parameter set model_options applies, as outputs name it ("" = none), and "MODEL + that" for a header.
std::string params_label(const RunOptions& o);
std::string model_label(const RunOptions& o);
// `--model help`: thrown by make_run_config so that every command prints the model table and exits 0.
struct ModelHelp {};

// Validates and resolves the options; throws Error with a one-line message naming the flag.
metrics::RunConfig make_run_config(const RunOptions& o, const topology::Topology& topo);
int run_command(const RunOptions& o);

} // namespace ccsim::cli
