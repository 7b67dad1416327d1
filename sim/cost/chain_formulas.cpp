// Pipelined chain (ring) broadcast and reduce: k segments of S elements, the last of L <= S.
// Broadcast: each middle rank's step sends one segment while receiving the next, so segments move in
// lock-step rounds of alpha + S*beta; the shorter last one needs one round of its own: (p-3+k)
// rounds of S then one of L (k = 1: p-1 rounds of L).
// Reduce adds gamma. Middle ranks stay in lock-step (a step's reduction follows its send), but the
// root only receives, so it can be waiting for data or still reducing when the next segment lands;
// with p = 2 the same holds for the streaming head. The time is the longest of the paths below.
#include "sim/cost/family_formulas.hpp"
#include "sim/schedule/algorithms/chain.hpp"

namespace ccsim::cost {

namespace {
Term reduce_only(std::uint64_t times, Bytes b) { return {times, 0, b, "reduce (data already in)", 0}; }
} // namespace

Formula chain_broadcast(const CollArgs& a, Bytes elt) {
  Formula f{{}, "p-2+k", "(p-2+k)/k", "0", "k = ceil(count/segment) segments (default segment 512 KiB); the last may be shorter", {}};
  const auto p = static_cast<std::uint64_t>(a.ranks);
  if (p == 1) return f;
  const auto sg = schedule::chain_segments(a);
  const Bytes S = sg.size * elt, L = sg.last * elt;
  if (sg.count == 1) f.terms = {{p - 1, L, 0, "chain"}};
  else f.terms = {{p + sg.count - 3, S, 0, "pipelined segments"}, {1, L, 0, "last segment"}};
  return f;
}

Formula chain_reduce(const CollArgs& a, Bytes elt) {
  Formula f{{}, "p-2+k", "(p-2+k)/k", "(p-2+k)/k",
            "k = ceil(count/segment) segments (default segment 512 KiB); with reductions charged the root is not in "
            "lock-step, so the time is the longest of several paths",
            {}};
  const auto p = static_cast<std::uint64_t>(a.ranks);
  if (p == 1) return f;
  const auto sg = schedule::chain_segments(a);
  const std::uint64_t k = sg.count;
  const Bytes S = sg.size * elt, L = sg.last * elt;
  if (k == 1) {
    f.terms = {{p - 1, L, L, "chain"}};
  } else if (p == 2) {
    // The head's next segment starts only once the root has reduced the last one and posted its receive.
    f.terms = {{k - 1, S, S, "segments"}, {1, L, L, "last segment"}};
  } else {
    // Rank p-2 forwards the last full segment, reduces the short one and sends it; the root reduces it.
    f.terms = {{p + k - 4, S, S, "pipelined segments"}, {1, S, 0, "forward last full segment"},
               {1, L, L, "last segment"}, reduce_only(1, L)};
    // Or the root is still reducing the last full segment when the short one lands.
    f.alternatives = {{{p + k - 3, S, S, "pipelined segments"}, reduce_only(1, L)}};
  }
  return f;
}

} // namespace ccsim::cost
