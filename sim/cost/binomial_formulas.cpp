// Binomial trees (see sim/schedule/algorithms/binomial.cpp for the split rule): ceil(lg p) rounds.
// Broadcast/reduce move the whole vector every round. Gather's critical path is the root's receives
// (MPICH's tree: min(2^k, p-2^k) blocks in round k); scatter's is the root's own sends, floor(m/2) of
// m. Both add up to exactly p-1 blocks.
#include <algorithm>

#include "sim/cost/family_formulas.hpp"

namespace ccsim::cost {

Formula binomial_broadcast(const CollArgs& a, Bytes elt) {
  const Bytes n = a.count * elt;
  return {{{lg_rounds(a), n, 0, "broadcast"}}, "ceil(lg p)", "ceil(lg p)", "0", "", {}};
}

Formula binomial_reduce(const CollArgs& a, Bytes elt) {
  const Bytes n = a.count * elt;
  return {{{lg_rounds(a), n, n, "reduce"}}, "ceil(lg p)", "ceil(lg p)", "ceil(lg p)", "", {}};
}

Formula reduce_bcast_allreduce(const CollArgs& a, Bytes elt) {
  const Bytes n = a.count * elt;
  const auto l = lg_rounds(a);
  return {{{l, n, n, "reduce"}, {l, n, 0, "broadcast"}}, "2ceil(lg p)", "2ceil(lg p)", "ceil(lg p)", "", {}};
}

Formula binomial_gather(const CollArgs& a, Bytes elt) {
  Formula f{{}, "ceil(lg p)", "(p-1)/p", "0", "", {}};
  // The root's round k brings min(2^k, p - 2^k) blocks from rank 2^k, which is ready by then.
  const auto p = static_cast<std::uint64_t>(a.ranks);
  for (std::uint64_t m = 1; m < p; m *= 2) f.terms.push_back({1, std::min(m, p - m) * a.count * elt, 0, "gather"});
  return f;
}

Formula binomial_scatter(const CollArgs& a, Bytes elt) {
  Formula f{{}, "ceil(lg p)", "(p-1)/p", "0", "", {}};
  for (auto m = static_cast<std::uint64_t>(a.ranks); m > 1; m = (m + 1) / 2)
    f.terms.push_back({1, m / 2 * a.count * elt, 0, "scatter"});
  return f;
}

} // namespace ccsim::cost
