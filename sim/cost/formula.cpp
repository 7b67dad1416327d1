#include "sim/cost/formula.hpp"

#include <algorithm>

namespace ccsim::cost {

Breakdown breakdown(const std::vector<Term>& terms, const Params& c) {
  Breakdown b;
  for (const auto& term : terms) {
    const auto m = static_cast<Time>(term.messages);
    if (term.transfers > 0) {
      b.latency += m * c.alpha;
      b.overhead += m * static_cast<Time>(term.transfers) * c.overhead;
      const Bandwidth bw = std::max<Bandwidth>(c.bw / term.shared, 1);
      b.bandwidth += m * static_cast<Time>(term.transfers) * transfer_time(term.bytes, bw);
    }
    if (c.reduce_bw > 0 && term.reduce_bytes > 0) b.reduction += m * transfer_time(term.reduce_bytes, c.reduce_bw);
  }
  return b;
}

const std::vector<Term>& critical_path(const Formula& f, const Params& c) {
  const std::vector<Term>* best = &f.terms;
  Time t = breakdown(f.terms, c).total();
  for (const auto& alt : f.alternatives)
    if (const Time a = breakdown(alt, c).total(); a > t) t = a, best = &alt;
  return *best;
}

Time evaluate(const Formula& f, const Params& c) { return breakdown(critical_path(f, c), c).total(); }

Coefficients coefficients(const Formula& f, Bytes n) {
  Coefficients k;
  for (const auto& term : f.terms) {
    if (term.transfers > 0) k.alpha += static_cast<double>(term.messages);
    if (n > 0) {
      k.beta += static_cast<double>(term.messages * term.transfers * term.shared) * static_cast<double>(term.bytes) /
                static_cast<double>(n);
      k.gamma += static_cast<double>(term.messages) * static_cast<double>(term.reduce_bytes) / static_cast<double>(n);
    }
  }
  return k;
}

} // namespace ccsim::cost
