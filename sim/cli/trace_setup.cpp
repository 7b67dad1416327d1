#include <fmt/format.h>

#include "sim/cli/common.hpp"
#include "sim/cli/trace_commands.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/trace/ccsim_output.hpp"

namespace ccsim::cli {

void add_trace_options(CLI::App& app, TraceOptions& t) {
  app.add_option("--op", t.op, "Collective, when the trace does not say which (allreduce, allgather, ...)");
  app.add_option("--ranks", t.ranks, "Rank count, when the trace does not say (or to pick among the counts its busbw/algbw print leaves open)");
  app.add_flag("--force-hints", t.force, "--op/--ranks override what the trace says");
  app.add_flag("--in-place", t.in_place, "Use the in-place columns of the trace (default out-of-place)");
}

trace::Hints trace_hints(const TraceOptions& t) {
  trace::Hints hints;
  if (!t.op.empty()) {
    hints.op = require_op(t.op);
  }
  if (t.ranks < 0) fail("--ranks: must be positive, got {}", t.ranks);
  hints.ranks = t.ranks;
  hints.force = t.force;
  return hints;
}

TraceRun setup_trace_run(const RunOptions& o_in, const TraceOptions& t, const std::string& trace_path,
                         const std::string& topo_spec) {
  return setup_trace_run(o_in, trace::load_any_trace(trace_path, trace_hints(t)), trace_path, topo_spec);
}

TraceRun setup_trace_run(const RunOptions& o_in, trace::Trace trace, const std::string& trace_path, const std::string& topo_spec) {
  TraceRun r{std::move(trace), topology::resolve_topology(topo_spec), {}};
  const auto& tr = r.trace;
  if (tr.rows.empty())
    fail("{}: no nccl-tests rows to compare ({} NCCL ring hops only)", trace_path, tr.ring_hops.size());
  if (!tr.op) fail("{}: the trace does not say which collective it measured; pass --op", trace_path);
  if (tr.ranks <= 0) fail("{}: the trace does not say how many ranks ran; pass --ranks", trace_path);
  // nccl-tests' busbw factor is 2(n-1)/n or (n-1)/n for these: one GPU alone prints 0 and leaves no error to report.
  if (tr.ranks == 1 && (*tr.op == schedule::Op::AllReduce || *tr.op == schedule::Op::AllGather ||
                        *tr.op == schedule::Op::ReduceScatter || *tr.op == schedule::Op::AllToAll))
    fail("{}: the trace ran on 1 rank ({}): {}'s busbw is 0 on one rank, nothing to compare; compare a run on 2 or more", trace_path,
         tr.ranks_from, schedule::to_string(*tr.op));
  if (tr.ranks > r.topo.num_gpus())
    fail("{}: the trace ran on {} ranks ({}) but topology {} has {} GPUs", trace_path, tr.ranks, tr.ranks_from, r.topo.name,
         r.topo.num_gpus());
  RunOptions o = o_in;
  o.op = std::string(schedule::to_string(*tr.op));
  o.datatype = tr.rows.front().type;
  const std::string redop = tr.rows.front().redop;
  o.redop = (redop == "sum" || redop == "prod" || redop == "max" || redop == "min" || redop == "avg") ? redop : "sum";
  o.root = std::max(0, tr.rows.front().root.value_or(0));
  // The root comes from the file, so the file is named, never a -r flag nobody gave.
  if (o.root >= tr.ranks)
    fail("{}:{}: root {} does not exist on the trace's {} ranks", trace_path, tr.rows.front().line, o.root, tr.ranks);
  if (o.gpus.empty() && o.ring.empty() && o.rings.empty() && tr.ranks < r.topo.num_gpus()) {
    for (int g = 0; g < tr.ranks; ++g) o.gpus += fmt::format("{}{}", g ? "," : "", g);
  }
  r.cfg = make_run_config(o, r.topo);
  // Fitted parameter sets' step_us is a per-step cost of the lockstep model they were fitted under (as
  // NCCL's tuning formula charges it), so comparisons and fits replay that way whatever --semantics says.
  r.cfg.model.semantics = engine::Semantics::mpi;
  if (metrics::ranks_of(r.cfg) != tr.ranks)
    fail("{}: the trace ran on {} ranks but the placement ({}) has {}", trace_path, tr.ranks,
         !o_in.rings.empty() ? "--rings" : !o_in.ring.empty() ? "--ring" : !o_in.gpus.empty() ? "--gpus" : "--topo",
         metrics::ranks_of(r.cfg));
  return r;
}

} // namespace ccsim::cli
