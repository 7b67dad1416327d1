// Mirrors sim/schedule/algorithms/bruck.cpp: every rank sends one message and receives one per round
// (a permutation, so no link is shared) and the copy steps take no time.
#include <algorithm>

#include "sim/cost/formulas_algos2.hpp"

namespace ccsim::cost {

Formula bruck_allgather(const schedule::CollArgs& a, Bytes elt) {
  Formula out{{}, "ceil(lg p)", "(p-1)/p", "0", ""};
  for (int d = 1; d < a.ranks; d *= 2)
    out.terms.push_back({1, static_cast<Bytes>(std::min(d, a.ranks - d)) * a.count * elt, 0, "round"});
  return out;
}

Formula bruck_alltoall(const schedule::CollArgs& a, Bytes elt) {
  Formula out{{}, "ceil(lg p)", "(sum_k b_k)/p", "0",
              "b_k = how many j < p have bit k set (the blocks round k forwards); p/2 each for p = 2^k, so (lg p)/2 n beta"};
  for (int d = 1; d < a.ranks; d *= 2) {
    const int period = 2 * d, moved = (a.ranks / period) * d + std::max(0, a.ranks % period - d);
    out.terms.push_back({1, static_cast<Bytes>(moved) * a.count * elt, 0, "round"});
  }
  return out;
}

} // namespace ccsim::cost
