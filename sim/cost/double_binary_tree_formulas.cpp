// The double binary tree's time is the longest chain of its tick plan (sim/schedule/algorithms/
// double_binary_tree.hpp) as the engine runs it: a rank's step is its next tick with work (ticks where
// it has nothing to do take no time); a transfer in tick t starts once both ranks have begun their
// step for t (rendezvous) and costs alpha + bytes*beta, and a step ends when its transfers are done,
// plus gamma times the bytes it reduces. In every tick a rank sends at most one segment and receives
// at most one, so no link ever carries two messages at once and the plan alone fixes the time.
// The chain that is longest depends on alpha, beta and gamma (a chain through more reducing ticks
// against one through more messages), so every chain no other outlasts for all numbers is kept and
// the formula is the longest of them. About 2 ceil(lg p) alpha + 2n beta + n gamma for k >> tree
// height (the textbook form), exactly to the picosecond here.
#include <algorithm>

#include "sim/cost/formulas_algos2.hpp"
#include "sim/cost/longest_paths.hpp"
#include "sim/schedule/algorithms/double_binary_tree.hpp"

namespace ccsim::cost {

namespace {

// One rank's work in one tick: the segments it moves (peer, bytes) and the bytes it reduces.
struct TickWork {
  struct Move {
    int peer;
    Bytes bytes;
  };
  std::vector<Move> moves;
  Bytes reduce = 0;
};

// Every rank's work in tick t.
void work_in_tick(const schedule::DbtStructure& st, long t, Bytes elt, std::vector<TickWork>& w) {
  for (auto& x : w) x.moves.clear(), x.reduce = 0;
  for (const auto& e : st.edges()) {
    const auto k = static_cast<long>(st.segments(e.tree));
    for (const bool up : {true, false}) {
      const long first = up ? e.up : e.down;
      if (t < first || ((t - first) & 1) != 0 || ((t - first) >> 1) >= k) continue; // t >= first: shifts, not divisions
      const Bytes b = st.piece(e.tree, static_cast<std::uint64_t>((t - first) >> 1)).len * elt;
      w[static_cast<std::size_t>(e.child)].moves.push_back({e.parent, b});
      w[static_cast<std::size_t>(e.parent)].moves.push_back({e.child, b});
      if (up) w[static_cast<std::size_t>(e.parent)].reduce += b;
    }
  }
}

} // namespace

Formula double_binary_tree_allreduce(const schedule::CollArgs& a, Bytes elt) {
  Formula out;
  out.alpha = "m";
  out.beta = "m s/n";
  out.gamma = "m_r s/n";
  out.note = "m = messages on the tick plan's longest chain (about 4k + 4 lg p for k segments of s bytes per tree; "
             "2k at p = 2), m_r of them reducing (about half); a rank skips ticks it has no work in. Textbook "
             "approximation: 2 ceil(lg p) alpha + 2n beta + n gamma";
  const schedule::DbtStructure st(a);
  const auto p = static_cast<std::size_t>(a.ranks);
  if (p < 2 || st.ticks() <= 0) return out;
  // Kinds of edge: any segment size moved, then nothing or any segment size reduced.
  std::vector<Bytes> sizes;
  for (int tree = 0; tree < 2; ++tree)
    if (st.segments(tree) > 0) {
      sizes.push_back(st.piece(tree, 0).len * elt);
      sizes.push_back(st.piece(tree, st.segments(tree) - 1).len * elt);
    }
  std::vector<std::pair<Bytes, Bytes>> listed;
  for (Bytes b : sizes) {
    listed.emplace_back(b, 0);
    for (Bytes r : sizes) listed.emplace_back(b, r);
  }
  const EdgeKinds kinds(listed);
  // begun[x]: the chains that end where rank x begins its next step; a rank begins its first at 0.
  std::vector<PathSet> begun(p, PathSet::start()), done(p);
  std::vector<TickWork> w(p);
  for (long t = 0; t < st.ticks(); ++t) {
    work_in_tick(st, t, elt, w);
    for (std::size_t x = 0; x < p; ++x) {
      if (w[x].moves.empty()) continue;
      done[x].clear();
      for (const auto& m : w[x].moves) { // the transfer starts when the later of the two ranks begins
        const std::size_t k = kinds.id(m.bytes, w[x].reduce);
        done[x].add_extended(begun[x], kinds, k);
        done[x].add_extended(begun[static_cast<std::size_t>(m.peer)], kinds, k);
      }
    }
    for (std::size_t x = 0; x < p; ++x)
      if (!w[x].moves.empty()) std::swap(begun[x], done[x]);
  }
  PathSet last; // the makespan: the latest any rank finishes
  for (const auto& b : begun) last.add_all(b);
  // Main terms: the chain with the most messages (the longest when alpha dominates); the rest are
  // alternatives, the longest of which sets the time.
  std::vector<Path> chains = last.paths();
  auto messages = [](const Path& c) {
    std::uint64_t n = 0;
    for (auto e : c.edges) n += e;
    return n;
  };
  std::stable_sort(chains.begin(), chains.end(), [&](const Path& x, const Path& y) { return messages(x) > messages(y); });
  out.terms = to_terms(kinds, chains.front(), "tick");
  for (std::size_t i = 1; i < chains.size(); ++i) out.alternatives.push_back(to_terms(kinds, chains[i], "tick"));
  return out;
}

} // namespace ccsim::cost
