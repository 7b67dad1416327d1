// Reading measured nccl-tests output (all_reduce_perf & co.) and NCCL INFO ring/channel log lines.
// Accepted shapes (reference §2; shared/traces/README.md):
//   * new format: size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong
//   * old format (2019-era builds): no root column, "error" instead of #wrong; all_gather/reduce_scatter
//     without a redop column and printing algbw = busbw = size*(n-1)/n/time;
//   * out-of-place and in-place halves, or only one; srun task prefixes ("0: "); indented markdown copies;
//   * `# ` provenance lines (source/hardware/command/...) kept verbatim.
// The collective and rank count come from the file when it says them (an `op:` or `command:` header line,
// `-g N`, the `nThread/nGpus` line, the `Rank N ... device` list), else from the caller's hints.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/schedule/collective.hpp"

namespace ccsim::trace {

struct Half { // one of out-of-place / in-place
  double time_us = 0;
  double algbw = 0, busbw = 0; // as printed (GB/s)
  std::string wrong;           // "#wrong" or "error" column as printed ("" when absent)
};

struct MeasuredRow {
  int line = 0; // 1-based line in the file
  Bytes size = 0;
  std::uint64_t count = 0;
  std::string type, redop;
  std::optional<int> root;
  std::optional<Half> out_of_place, in_place;
  int sweep = 0; // which size sweep of the table (nccl-tests -d all, -o all, -r -1, -N print several)
};

// One directed hop of an NCCL ring/channel as logged ("Ring 00 : 3[3] -> 2[2] via P2P/IPC").
struct RingHop {
  int channel = 0;
  int src = 0, dst = 0;             // global ranks
  int src_dev = -1, dst_dev = -1;   // local CUDA devices when printed ("3[3]")
  std::string transport;            // "P2P/IPC", "NET/Socket/0", ...
};

struct Trace {
  std::string origin;                   // file path or label, for messages
  std::vector<std::string> provenance;  // '#' lines before the table, verbatim (prefixes stripped)
  std::optional<schedule::Op> op;
  std::string op_from;                  // where op came from: "op: line", "command line", "hint"
  int ranks = 0;
  std::string ranks_from;               // "device list", "nThread*nGpus", "-g flag", "hint"
  std::string hardware;                 // the "# hardware:" header line's text, if any
  int hosts = 0;                        // distinct hosts the device list names ("Rank 8 ... on node2 device 0"), 0: none
  bool has_root_column = false;         // new format
  bool has_redop_column = false;
  bool old_busbw_convention = false;    // algbw printed as size*(n-1)/n/time (2019 AG/RS builds)
  std::vector<MeasuredRow> rows;
  int sweeps = 1; // size sweeps in the table (rows' `sweep` 0 .. sweeps-1); load_trace_runs makes each a run
  std::vector<RingHop> ring_hops;       // NCCL INFO Ring/Channel lines
  std::map<std::string, std::string> header_values; // "nThread" -> "1", "nGpus" -> "8", "minBytes" -> ...
  // GPUs per thread as the header's command line sets them (-g N, --ngpus N) where the nThread line is missing: 0 when no
  // command line names it, when its lines name different values, when the value does not divide the rank count, or
  // when the file holds several runs (its header's command may be another run's).
  int command_ngpus = 0;
  std::vector<std::string> notes;       // what the reader decided about the file (rows left out, facts read)
  // load_trace_runs, every run of a file of several: why this run could not be read (a test that died before its
  // first row); the file's other runs stand. Empty for a run that was read.
  std::string unreadable;
  // nccl-tests' closing line "Out of bounds values : N FAILED" (util.cu writeResultFooter: N = elements the check found
  // wrong over all rows, FAILED when N > 0); -1 when the file has no such line.
  double out_of_bounds = -1;
  std::map<std::string, std::string> env; // NCCL_* settings the file says the run was made with (NCCL_NVLS_ENABLE -> 0)
  // Facts of NCCL INFO lines ("24 coll channels, 0 collnet channels, 0 nvls channels", "Using network IB");
  // -1 / "" when the log does not say.
  struct NcclInfo {
    int coll_channels = -1, collnet_channels = -1, nvls_channels = -1;
    std::string network;
    // "NCCL INFO NCCL version 2.21.5+cuda12.4": the release the log itself names (what its other INFO lines mean
    // depends on it; applied as --nccl-version when the file's header names none, cli apply_trace_release).
    std::string release;
    std::string other_release; // a second release another INFO line names ("" when every line names `release`)
    // SHARP library log lines ("INFO [group#:1] ... tree_type:SAT ... group size:4"): the run used CollNet
    // with SHARP trees of that many nodes.
    int sharp_trees = 0, sharp_group_size = -1;
    bool msccl_loaded = false; // RCCL's "Using MSCCL files from ...": MSCCL was on in this run
    // The first "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ..." line (NCCL's net_ib.cc, one per process
    // at init): the devices NCCL's IB transport uses on that host ("mlx5_0:1"), in its order; empty when none.
    std::vector<std::string> net_devices;
    std::string net_devices_transport; // "IB" (the NET/<name> the line names)
  } info;
};

struct Hints {
  std::optional<schedule::Op> op; // used when the file does not say (or to override with force_op)
  int ranks = 0;
  bool force = false;             // hints win over what the file says
  // One run of a file of several (split_runs_at): the text's lines past its first `preamble_lines` are the file's from
  // `first_line` on, so line numbers in messages and rows are the file's. 0: the text is the file.
  int preamble_lines = 0, first_line = 0;
};

// Reads the facts of one NCCL INFO line into `info` (channel counts, network); other lines change nothing.
// SHARP log lines into t.info (sim/trace/nccl_info.cpp); NCCL_COLLNET_ENABLE is parse_env_facts'.
void parse_collnet_facts(std::string_view line, Trace& t, const std::string& where);
void parse_info_facts(std::string_view line, Trace::NcclInfo& info, const std::string& where);
// NCCL_PROTO, NCCL_ALGO, NCCL_NVLS_ENABLE and NCCL_COLLNET_ENABLE as the run stated them, into t.env: NCCL's own
// "NCCL INFO <NAME> set by environment to <v>", a plugin's "NCCL INFO ... Adding NCCL_PROTO=<v> to environment" (aws-ofi-nccl), or an
// env dump / launch line "<NAME>=<v>" / "export <NAME>=<v>", or the settings a launch line passes (mpirun -x
// <NAME>=<v>, srun --export=ALL,<NAME>=<v>, mpiexec -genv <NAME> <v>, a continuation line of one). `line` is a log
// line, never a comment (a '#' note that names a setting, e.g. another run's, says nothing about this run).
void parse_env_facts(std::string_view line, Trace& t);

// Throws ccsim::Error with a one-line message "<origin>:<line>: ..." on malformed input.
Trace parse_trace(std::string_view text, const std::string& origin, const Hints& hints = {});
Trace load_trace(const std::string& path, const Hints& hints = {});

// "" when nccl-tests found every result right (or did not check, #wrong N/A), else what says it did not: the rows whose
// #wrong (the 2019 format's "error") is above 0 ("#wrong above 0 on 4 rows, 1 MiB..8 MiB (3 at most)"), or without such rows, the closing line
// ("'Out of bounds values : 12 FAILED'"). Such a run computed wrong data: its bandwidth says nothing a machine should do.
std::string wrong_results(const Trace& t);

// Measured time for a row: out-of-place unless `in_place` (falls back to the half that exists).
double measured_time_us(const MeasuredRow& r, bool in_place);

// Ring orders reconstructed from the hops of one channel: maximal chains (a complete ring is one chain
// whose last rank links back to its first; `closed` says so).
struct RingChain {
  int channel = 0;
  std::vector<int> ranks;
  bool closed = false;
};
std::vector<RingChain> ring_chains(const std::vector<RingHop>& hops);

} // namespace ccsim::trace
