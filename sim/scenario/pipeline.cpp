#include "sim/scenario/pipeline.hpp"

#include <algorithm>

namespace ccsim::scenario {

namespace {

// Interleaved: the k-th forward (or backward) of a stage runs chunk (k mod pv) / p of micro-batch
// (k / pv) p + k mod p; backwards take the chunks in reverse.
PipeOp interleaved_op(const Parallel& p, int k, bool forward) {
  const int pv = p.pp * p.virtual_stages;
  int chunk = (k % pv) / p.pp;
  if (!forward) chunk = p.virtual_stages - 1 - chunk;
  return {forward, (k / pv) * p.pp + k % p.pp, chunk};
}

} // namespace

std::vector<PipeOp> stage_ops(const Parallel& p, int stage) {
  const int m = static_cast<int>(p.micro_batches);
  std::vector<PipeOp> ops;
  if (p.schedule == PipeSchedule::GPipe) {
    for (int i = 0; i < m; ++i) ops.push_back({true, i, 0});
    for (int i = m - 1; i >= 0; --i) ops.push_back({false, i, 0});
    return ops;
  }
  const int v = p.virtual_stages;
  const int total = m * v;
  int warmup = 0;
  if (v == 1) warmup = std::min(p.pp - stage - 1, m);
  else warmup = std::min((p.pp - stage - 1) * 2 + (v - 1) * p.pp, total);
  int f = 0, b = 0;
  auto fwd = [&] { ops.push_back(v == 1 ? PipeOp{true, f, 0} : interleaved_op(p, f, true)), ++f; };
  auto bwd = [&] { ops.push_back(v == 1 ? PipeOp{false, b, 0} : interleaved_op(p, b, false)), ++b; };
  for (int i = 0; i < warmup; ++i) fwd();
  while (f < total) {
    fwd();
    bwd();
  }
  while (b < total) bwd();
  return ops;
}

} // namespace ccsim::scenario
