// Alltoall with n = p*c bytes sent per rank. Pairwise: p-1 contention-free rounds of n/p.
#include "sim/cost/family_formulas.hpp"

namespace ccsim::cost {

Formula pairwise_alltoall(const CollArgs& a, Bytes elt) {
  const auto p = static_cast<std::uint64_t>(a.ranks);
  return {{{p - 1, a.count * elt, 0, "exchange"}}, "p-1", "(p-1)/p", "0", "", {}};
}

// Direct: all p(p-1) messages start together and every uplink and downlink carries p-1 of them, so under
// fair sharing each moves at bw/(p-1) and all arrive after alpha + (p-1) n/p beta, the contention-free
// ideal (exact under --model flow). The fifo model serves a link's messages one at a time in the
// order they start, and no posting order lets it reach this (see the schedule's comment).
Formula direct_alltoall(const CollArgs& a, Bytes elt) {
  Formula f{{}, "1", "(p-1)/p", "0",
            "every rank's p-1 messages share its link fairly (exact under --model flow; fifo queues them, slower)", {}};
  const auto p = static_cast<std::uint64_t>(a.ranks);
  if (p > 1) f.terms = {{1, a.count * elt, 0, "all messages at once", 1, p - 1}};
  return f;
}

// Sendrecv: one round in which every rank sends n bytes to r+1 and receives from r-1; each message has its
// own pair of ports, so nothing queues: alpha + n beta (nothing on 1 rank, a local copy).
Formula direct_sendrecv(const CollArgs& a, Bytes elt) {
  Formula f{{}, "1", "1", "0", "", {}};
  if (a.ranks > 1) f.terms = {{1, a.count * elt, 0, "shift to r+1"}};
  return f;
}

} // namespace ccsim::cost
