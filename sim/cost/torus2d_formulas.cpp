// Mirrors sim/schedule/algorithms/torus2d.cpp. Every row runs the same ring, so column x starts in
// step; row block 0 is the largest and its column ring the slowest, so the chain through column 0
// sets the pace: ring reduce-scatter and allgather of row block 0, ring allreduce of its first piece.
// Uneven blocks put ranks a few element-times apart between phases; exact while alpha exceeds the time
// of one element (below that a rank that finished a phase early can queue a message on a neighbour's
// link ahead of one the neighbour still needs, adding a few picoseconds).
#include "sim/cost/formulas_algos2.hpp"
#include "sim/schedule/algorithms/torus2d.hpp"

namespace ccsim::cost {

Formula torus2d_allreduce(const schedule::CollArgs& a, Bytes elt) {
  const auto [X, Y] = schedule::torus2d_grid(a);
  const std::uint64_t row0 = schedule::split_block(a.count, static_cast<std::uint64_t>(X), 0).len;
  const Bytes b = row0 * elt, s = schedule::split_block(row0, static_cast<std::uint64_t>(Y), 0).len * elt;
  const auto x1 = static_cast<std::uint64_t>(X - 1), y1 = static_cast<std::uint64_t>(Y - 1);
  return {{{x1, b, b, "row reduce-scatter"}, {y1, s, s, "column reduce-scatter"}, {y1, s, 0, "column allgather"},
           {x1, b, 0, "row allgather"}},
          "2(X-1) + 2(Y-1)",
          "2(X-1)/X + 2(Y-1)/(XY)",
          "(X-1)/X + (Y-1)/(XY)",
          "X x Y = p grid from --dims, else the most square with X >= Y; beta equals the flat ring's 2(p-1)/p. Uneven "
          "counts: exact while alpha exceeds one element's transfer time"};
}

} // namespace ccsim::cost
