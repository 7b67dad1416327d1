// Parameter server: the p-1 pushes queue on the server's downlink (alpha once, p-1 transfers), it
// reduces all (p-1)n received bytes, and the p-1 replies queue on its uplink.
#include "sim/cost/family_formulas.hpp"

namespace ccsim::cost {

Formula ps_allreduce(const CollArgs& a, Bytes elt) {
  Formula f{{}, "2", "2(p-1)", "p-1", "one port: the server's link carries p-1 vectors each way", {}};
  const auto p = static_cast<std::uint64_t>(a.ranks);
  const Bytes n = a.count * elt;
  if (p > 1) f.terms = {{1, n, (p - 1) * n, "push and reduce", p - 1}, {1, n, 0, "reply", p - 1}};
  return f;
}

} // namespace ccsim::cost
