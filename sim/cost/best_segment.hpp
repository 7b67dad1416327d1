// The pipeline segment that minimises a pipelined algorithm's time (chain, double binary tree): a
// fixed segment makes such an algorithm lose to others at sizes where a better cut would win, so
// explain's selection map and the sweep compare every algorithm at its best.
// Chain: T(k) = (p-2+k)(alpha + n(beta+gamma)/k) is least near k* = sqrt((p-2) n (beta+gamma) / alpha);
// the double binary tree's time is a longest path with no closed form. Both are found by the same
// search on the exact formula: golden section over ln k, then every k near the best.
#pragma once
#include <string>

#include "sim/cost/formula.hpp"

namespace ccsim::cost {

struct SegmentChoice {
  std::uint64_t segment = 0; // elements per segment (CollArgs::segment)
  std::uint64_t segments = 1; // k = ceil(count / segment) as the algorithm counts them (largest part)
  Time time = 0;             // the formula's time with it
};

// Best segment for (a.op, algo) under `c`; a.segment is ignored. count 0 or 1: segment 1.
SegmentChoice best_segment(const schedule::CollArgs& a, const std::string& algo, Bytes elt, const Params& c);

} // namespace ccsim::cost
