// Calibrate's inputs: a trace, fitted on a small ideal machine with the fifo model (as `ccsim calibrate
// --topo crossbar:ranks=8 --trace FILE`), which reads every row's size, count, type and time.
#include <numeric>

#include "sim/model/calibrate.hpp"
#include "sim/topology/generators.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  trace::Hints hints;
  hints.ranks = 4;
  hints.op = schedule::Op::AllReduce;
  const auto tr = trace::parse_trace(input, "fuzz.txt", hints);
  if (!tr.op || tr.ranks < 2 || tr.ranks > 8 || tr.rows.empty() || tr.rows.size() > 12) return 0;
  static const topology::Topology topo = topology::make_crossbar(8, 25'000'000'000, 2'000'000);
  model::CalibInput in;
  in.label = "fuzz.txt";
  in.trace = tr;
  in.topo = &topo;
  in.cfg.op = *tr.op;
  const auto dt = metrics::datatype_from(tr.rows.front().type);
  if (!dt) return 0;
  in.cfg.dtype = *dt;
  std::vector<int> gpus(static_cast<std::size_t>(tr.ranks));
  std::iota(gpus.begin(), gpus.end(), 0);
  in.cfg.placements = {gpus};
  in.cfg.root = std::max(0, tr.rows.front().root.value_or(0));
  if (in.cfg.root >= tr.ranks) return 0; // refused by the CLI before fitting (trace_setup.cpp)
  for (std::size_t r = 0; r < tr.rows.size(); ++r)
    if (tr.rows[r].size > 0 && tr.rows[r].size <= (Bytes{1} << 30) && tr.rows[r].count > 0 &&
        trace::measured_time_us(tr.rows[r], false) > 0)
      in.rows.push_back(r);
  (void)model::fit({in}, model::CalibOptions{});
})
