// Synthetic traces for calibration tests: what the nccl model itself predicts with known parameters, written as
// nccl-tests output, so a fit's expected values are those parameters (an independent route to the answer).
#pragma once
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sim/model/calibrate.hpp"
#include "sim/topology/ring_search.hpp"

namespace ccsim::test {
// The nccl model's allreduce row at `size` bytes on `topo` with parameters `p`.
inline metrics::Row nccl_allreduce_row(const topology::Topology& topo, const model::ParamSet& p, Bytes size) {
  metrics::RunConfig cfg;
  cfg.placements = topology::pack_rings(topo, {}).rings;
  model::ModelOptions mo;
  mo.params = p;
  model::Predictor pr(topo, cfg, "nccl", mo);
  return pr.predict({size / 4, size});
}

// An allreduce sweep of 4 KiB .. 256 MiB on `topo` made by the nccl model with `truth`, in nccl-tests format.
inline model::CalibInput synthetic_allreduce_sweep(const topology::Topology& topo, const model::ParamSet& truth, const std::string& label) {
  model::CalibInput in;
  in.cfg.placements = topology::pack_rings(topo, {}).rings;
  in.label = label;
  std::string s = "# command: ./build/all_reduce_perf -b 4K -e 256M -f 2 -g 1\n#  size  count  type  redop  root  time  algbw  busbw  #wrong\n";
  for (Bytes size = 4096; size <= (Bytes{256} << 20); size *= 2)
    s += fmt::format("{} {} float sum -1 {:.4f} 0 0 0\n", size, size / 4, to_us(nccl_allreduce_row(topo, truth, size).time));
  in.trace = trace::parse_trace(s, in.label);
  in.topo = &topo;
  for (std::size_t i = 0; i < in.trace.rows.size(); ++i) in.rows.push_back(i);
  return in;
}

// Whether the fit marked parameter `name` fitted (false when it is not among the fit's parameters).
inline bool fitted(const model::FitResult& f, const std::string& name) {
  const auto it = std::find(f.names.begin(), f.names.end(), name);
  return it != f.names.end() && f.fitted[static_cast<std::size_t>(it - f.names.begin())];
}
} // namespace ccsim::test
