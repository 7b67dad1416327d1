// Barrier and scan: every round is one message per rank each way, so the critical path is simply the
// rounds, one after another (sim/schedule/algorithms/scan_barrier.cpp).
#include "sim/cost/formulas_algos2.hpp"

namespace ccsim::cost {

Formula dissemination_barrier(const schedule::CollArgs& a, Bytes) {
  Formula f{{}, "ceil(lg p)", "0", "0", "empty messages: only latency counts", {}};
  if (a.ranks > 1) f.terms = {{lg_rounds(a), 0, 0, "round (empty message)"}};
  return f;
}

Formula recursive_doubling_scan(const schedule::CollArgs& a, Bytes elt) {
  const Bytes n = a.count * elt;
  Formula f{{}, "ceil(lg p)", "ceil(lg p)", "ceil(lg p)", "", {}};
  if (a.ranks > 1) f.terms = {{lg_rounds(a), n, n, "step (send prefix, reduce the received one)"}};
  return f;
}

Formula linear_scan(const schedule::CollArgs& a, Bytes elt) {
  const Bytes n = a.count * elt;
  Formula f{{}, "p-1", "p-1", "p-1", "", {}};
  if (a.ranks > 1) f.terms = {{static_cast<std::uint64_t>(a.ranks - 1), n, n, "hop (receive, reduce, pass on)"}};
  return f;
}

} // namespace ccsim::cost
