// Alltoall with n = p*c bytes sent per rank. Pairwise: p-1 contention-free rounds of n/p.
// Direct: everything posted at once; the engine holds a message's uplink and the peer's downlink
// together in posting order, which puts rank r's k-th send in slot 2r+k-1 (p >= 3), so the last
// message ends after 3(p-1) transfers of n/p, plus one alpha.
#include "sim/cost/family_formulas.hpp"

namespace ccsim::cost {

Formula pairwise_alltoall(const CollArgs& a, Bytes elt) {
  const auto p = static_cast<std::uint64_t>(a.ranks);
  return {{{p - 1, a.count * elt, 0, "exchange"}}, "p-1", "(p-1)/p", "0", "", {}};
}

Formula direct_alltoall(const CollArgs& a, Bytes elt) {
  Formula f{{}, "1", "3(p-1)/p", "0", "p = 2: one transfer; p >= 3: posting-order queueing costs 3(p-1) transfers", {}};
  const auto p = static_cast<std::uint64_t>(a.ranks);
  if (p > 1) f.terms = {{1, a.count * elt, 0, "all sends at once", p == 2 ? 1 : 3 * (p - 1)}};
  return f;
}

} // namespace ccsim::cost
