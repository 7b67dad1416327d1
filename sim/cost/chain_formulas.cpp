// Pipelined chain (ring) broadcast and reduce: k segments of S elements, the last of L <= S.
// Number each rank's steps by round: the head sends segment j in round j, and a rank receives
// segment j in the same round its predecessor sends it (rendezvous: a transfer starts when both are
// posted), so a step waits only for itself and its two neighbours' steps of the round before. A round
// costs at most alpha + S*beta (+ S*gamma when the rank reduces), and a path through the rounds can
// always pick a rank that is receiving a full segment (rank i in rounds i-1 .. i+k-3, then the end
// rank), so the time is p-3+k full rounds and the end rank's last one: (p-3+k)(alpha + S(beta+gamma))
// + alpha + L(beta+gamma) (k = 1: p-1 rounds of L). Broadcast is the same with gamma = 0.
#include "sim/cost/family_formulas.hpp"
#include "sim/schedule/algorithms/chain.hpp"

namespace ccsim::cost {

namespace {

Formula chain(const CollArgs& a, Bytes elt, bool reduce) {
  Formula f{{}, "p-2+k", "(p-2+k)/k", reduce ? "(p-2+k)/k" : "0",
            "k = ceil(count/segment) segments (default segment 512 KiB); the last may be shorter", {}};
  const auto p = static_cast<std::uint64_t>(a.ranks);
  if (p == 1) return f;
  const auto sg = schedule::chain_segments(a);
  const Bytes S = sg.size * elt, L = sg.last * elt;
  const Bytes rS = reduce ? S : 0, rL = reduce ? L : 0;
  if (sg.count == 1) f.terms = {{p - 1, L, rL, "chain"}};
  else f.terms = {{p + sg.count - 3, S, rS, "pipelined segments"}, {1, L, rL, "last segment"}};
  return f;
}

} // namespace

Formula chain_broadcast(const CollArgs& a, Bytes elt) { return chain(a, elt, false); }
Formula chain_reduce(const CollArgs& a, Bytes elt) { return chain(a, elt, true); }

} // namespace ccsim::cost
