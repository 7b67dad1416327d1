#include "sim/cost/formula.hpp"

namespace ccsim::cost {

Time evaluate(const Formula& f, const Params& c) {
  Time t = 0;
  for (const auto& term : f.terms) {
    Time one = c.alpha + transfer_time(term.bytes, c.bw);
    if (c.reduce_bw > 0 && term.reduce_bytes > 0) one += transfer_time(term.reduce_bytes, c.reduce_bw);
    t += static_cast<Time>(term.messages) * one;
  }
  return t;
}

Coefficients coefficients(const Formula& f, Bytes n) {
  Coefficients k;
  for (const auto& term : f.terms) {
    k.alpha += static_cast<double>(term.messages);
    if (n > 0) {
      k.beta += static_cast<double>(term.messages) * static_cast<double>(term.bytes) / static_cast<double>(n);
      k.gamma += static_cast<double>(term.messages) * static_cast<double>(term.reduce_bytes) / static_cast<double>(n);
    }
  }
  return k;
}

} // namespace ccsim::cost
