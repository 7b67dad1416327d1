#include "sim/cost/formula.hpp"

#include <algorithm>

namespace ccsim::cost {

namespace {
Time path_time(const std::vector<Term>& terms, const Params& c) {
  Time t = 0;
  for (const auto& term : terms) {
    Time one = term.transfers > 0 ? c.alpha + static_cast<Time>(term.transfers) * transfer_time(term.bytes, c.bw) : 0;
    if (c.reduce_bw > 0 && term.reduce_bytes > 0) one += transfer_time(term.reduce_bytes, c.reduce_bw);
    t += static_cast<Time>(term.messages) * one;
  }
  return t;
}
} // namespace

Time evaluate(const Formula& f, const Params& c) {
  Time t = path_time(f.terms, c);
  for (const auto& alt : f.alternatives) t = std::max(t, path_time(alt, c));
  return t;
}

Coefficients coefficients(const Formula& f, Bytes n) {
  Coefficients k;
  for (const auto& term : f.terms) {
    if (term.transfers > 0) k.alpha += static_cast<double>(term.messages);
    if (n > 0) {
      k.beta += static_cast<double>(term.messages * term.transfers) * static_cast<double>(term.bytes) / static_cast<double>(n);
      k.gamma += static_cast<double>(term.messages) * static_cast<double>(term.reduce_bytes) / static_cast<double>(n);
    }
  }
  return k;
}

} // namespace ccsim::cost
