// Alltoall with n = p*c bytes sent per rank. Pairwise: p-1 contention-free rounds of n/p.
#include "sim/cost/family_formulas.hpp"

namespace ccsim::cost {

Formula pairwise_alltoall(const CollArgs& a, Bytes elt) {
  const auto p = static_cast<std::uint64_t>(a.ranks);
  return {{{p - 1, a.count * elt, 0, "exchange"}}, "p-1", "(p-1)/p", "0", "", {}};
}

// Direct: the contention-free ideal, every rank's p-1 sends back to back on its link behind one alpha.
// A lower bound of the engine's time: all sends are posted at once and queue in the order they start.
Formula direct_alltoall(const CollArgs& a, Bytes elt) {
  Formula f{{}, "1", "(p-1)/p", "0", "contention-free ideal; link queueing can only add to it", {}};
  const auto p = static_cast<std::uint64_t>(a.ranks);
  if (p > 1) f.terms = {{1, a.count * elt, 0, "all sends at once", p - 1}};
  return f;
}

} // namespace ccsim::cost
