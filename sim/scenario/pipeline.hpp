// The order in which one pipeline stage runs its micro-batches' forward and backward passes:
// GPipe (all forwards, then all backwards), 1F1B (Narayanan et al. 2021 §2.2.1: p - k - 1 warm-up
// forwards on stage k, then one forward and one backward alternately) and interleaved 1F1B (§2.2.2,
// v model chunks per stage, the order Megatron-LM's forward_backward_pipelining_with_interleaving uses).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/scenario/hybrid.hpp"

namespace ccsim::scenario {

struct PipeOp {
  bool forward = true;
  int micro = 0; // micro-batch
  int chunk = 0; // model chunk (0 unless interleaved)
};

std::vector<PipeOp> stage_ops(const Parallel& p, int stage);

} // namespace ccsim::scenario
