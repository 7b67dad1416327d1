// `ccsim compare` (prediction beside a measured nccl-tests trace) and `ccsim calibrate` (fit a
// parameter set to traces), plus what they share: loading a trace and placing its ranks.
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/cli/run_options.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::cli {

void add_compare_command(CLI::App& app);
void add_calibrate_command(CLI::App& app, int argc, char** argv);

// Trace-driven options both commands take besides the placement flags.
struct TraceOptions {
  std::string op;            // when the trace does not say
  int ranks = 0;             // when the trace does not say
  bool force = false;        // --op/--ranks win over the file
  bool in_place = false;     // compare the in-place column
};
void add_trace_options(CLI::App& app, TraceOptions& t);

struct TraceRun {
  trace::Trace trace;
  topology::Topology topo;
  metrics::RunConfig cfg;
};
// Resolves the topology and builds the run configuration from the trace's op, rank count and data type plus
// the placement flags in `o` (`trace` read by the caller: one run of a file, its settings applied first).
// Throws Error with one line naming `trace_path`.
TraceRun setup_trace_run(const RunOptions& o, trace::Trace trace, const std::string& trace_path, const std::string& topo_spec);
trace::Hints trace_hints(const TraceOptions& t);
// The NCCL settings a trace states (NCCL_NVLS_ENABLE, NCCL_ALGO, NCCL_PROTO, NCCL_COLLNET_ENABLE, its release) and the
// facts of its NCCL INFO lines (coll/nvls channels) become `run`'s where the user left the default; one note each.
// compare and calibrate both apply them, so a fit runs the algorithm and channels the comparison does.
std::vector<std::string> apply_trace_env(RunOptions& run, const trace::Trace& t);

} // namespace ccsim::cli
