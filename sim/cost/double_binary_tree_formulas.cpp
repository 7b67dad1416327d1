// Mirrors the tick plan of sim/schedule/algorithms/double_binary_tree.hpp: in each tick every rank
// sends at most one segment and receives at most one, so a tick costs at most one message of its
// largest segment plus the reduction of its largest reduced segment. NOT exact beyond p = 2: this is the
// plan run in lockstep. The engine is data-driven: a rank idle in a tick does not wait for it and a
// segment that arrived early lets a rank finish its next tick at once, so ticks overlap (while the
// pipeline fills, between reduce and broadcast, while it drains); and a rank that ran ahead can queue a
// segment on a peer's link in front of one the peer needs first. Either way the engine differs from
// this sum by a few messages, and a sum of full rounds cannot express it (a queued message costs T
// without alpha).
#include <algorithm>

#include "sim/cost/formulas_algos2.hpp"
#include "sim/schedule/algorithms/double_binary_tree.hpp"

namespace ccsim::cost {

Formula double_binary_tree_allreduce(const schedule::CollArgs& a, Bytes elt) {
  const schedule::DbtStructure st(a);
  std::vector<Bytes> moved(static_cast<std::size_t>(std::max(st.ticks(), 0L)), 0), reduced(moved.size(), 0);
  std::vector<bool> busy(moved.size(), false);
  for (const auto& e : st.edges())
    for (std::uint64_t j = 0; j < st.segments(e.tree); ++j) {
      const Bytes b = st.piece(e.tree, j).len * elt;
      auto& up = moved[static_cast<std::size_t>(st.up_tick(e, j))];
      up = std::max(up, b);
      auto& red = reduced[static_cast<std::size_t>(st.up_tick(e, j))];
      red = std::max(red, b);
      auto& down = moved[static_cast<std::size_t>(st.down_tick(e, j))];
      down = std::max(down, b);
      busy[static_cast<std::size_t>(st.up_tick(e, j))] = busy[static_cast<std::size_t>(st.down_tick(e, j))] = true;
    }
  Formula out;
  for (std::size_t t = 0; t < moved.size(); ++t)
    if (busy[t]) out.terms.push_back({1, moved[t], reduced[t], "tick"});
  out.alpha = "ticks: 2(k-1) + the plan's reduce and broadcast depths (k segments per tree)";
  out.beta = "ticks * segment / n (about 2 for k >> tree height)";
  out.gamma = "reduce ticks * segment / n (about 1)";
  out.note = "not exact for p > 2: the lockstep tick plan; the data-driven engine overlaps ticks while the pipeline "
             "fills and drains (shorter) and early segments can queue ahead of needed ones (longer)";
  return out;
}

} // namespace ccsim::cost
