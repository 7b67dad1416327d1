#include "sim/topology/ring_search.hpp"

#include <algorithm>
#include <numeric>

namespace ccsim::topology {
namespace {

// Remaining lanes per directed GPU pair (index into the chosen GPU list).
struct LaneMatrix {
  int n;
  std::vector<int> lanes;
  int& at(int a, int b) { return lanes[static_cast<std::size_t>(a * n + b)]; }
};

// Depth-first search for a Hamiltonian cycle starting at 0, trying the neighbour with the most
// remaining lanes first so that doubled links are spent before scarce single ones.
bool hamiltonian(LaneMatrix& m, std::vector<int>& path, std::vector<bool>& used, long& budget) {
  if (--budget < 0) return false;
  const int cur = path.back();
  if (static_cast<int>(path.size()) == m.n) return m.at(cur, path.front()) > 0;
  std::vector<int> next;
  for (int v = 0; v < m.n; ++v)
    if (!used[static_cast<std::size_t>(v)] && m.at(cur, v) > 0) next.push_back(v);
  std::stable_sort(next.begin(), next.end(), [&](int a, int b) { return m.at(cur, a) > m.at(cur, b); });
  for (int v : next) {
    used[static_cast<std::size_t>(v)] = true;
    path.push_back(v);
    if (hamiltonian(m, path, used, budget)) return true;
    path.pop_back();
    used[static_cast<std::size_t>(v)] = false;
  }
  return false;
}

// All directed Hamiltonian cycles from vertex 0 over pairs with lanes (up to `limit`).
void all_cycles(LaneMatrix& m, std::vector<int>& path, std::vector<bool>& used, std::vector<std::vector<int>>& out,
                std::size_t limit) {
  if (out.size() >= limit) return;
  const int cur = path.back();
  if (static_cast<int>(path.size()) == m.n) {
    if (m.at(cur, 0) > 0) out.push_back(path);
    return;
  }
  for (int v = 1; v < m.n; ++v)
    if (!used[static_cast<std::size_t>(v)] && m.at(cur, v) > 0) {
      used[static_cast<std::size_t>(v)] = true;
      path.push_back(v);
      all_cycles(m, path, used, out, limit);
      path.pop_back();
      used[static_cast<std::size_t>(v)] = false;
    }
}

// Largest multiset of cycles whose hops fit in the lanes (branch and bound, bounded work).
void best_packing(LaneMatrix& m, const std::vector<std::vector<int>>& cycles, std::size_t from, std::vector<int>& cur,
                  std::vector<int>& best, int cap, long& budget) {
  if (static_cast<int>(cur.size()) > static_cast<int>(best.size())) best = cur;
  if (static_cast<int>(cur.size()) >= cap || --budget < 0) return;
  for (std::size_t i = from; i < cycles.size(); ++i) {
    const auto& c = cycles[i];
    bool fits = true;
    for (std::size_t k = 0; k < c.size() && fits; ++k) fits = m.at(c[k], c[(k + 1) % c.size()]) > 0;
    if (!fits) continue;
    for (std::size_t k = 0; k < c.size(); ++k) --m.at(c[k], c[(k + 1) % c.size()]);
    cur.push_back(static_cast<int>(i));
    best_packing(m, cycles, i, cur, best, cap, budget); // i, not i+1: a ring may repeat on spare lanes
    cur.pop_back();
    for (std::size_t k = 0; k < c.size(); ++k) ++m.at(c[k], c[(k + 1) % c.size()]);
    if (static_cast<int>(best.size()) >= cap) return;
  }
}

} // namespace

RingSet pack_rings(const Topology& t, std::vector<int> gpus, int max_rings) {
  if (gpus.empty()) {
    gpus.resize(static_cast<std::size_t>(t.num_gpus()));
    std::iota(gpus.begin(), gpus.end(), 0);
  }
  const int n = static_cast<int>(gpus.size());
  RingSet out;
  if (n < 3) return {{gpus}, false};
  std::vector<int> local(static_cast<std::size_t>(t.nodes.size()), -1);
  for (int i = 0; i < n; ++i) local[static_cast<std::size_t>(t.gpu_node(gpus[static_cast<std::size_t>(i)]))] = i;
  LaneMatrix m{n, std::vector<int>(static_cast<std::size_t>(n * n), 0)};
  for (const auto& l : t.links) {
    const int a = local[static_cast<std::size_t>(l.a)], b = local[static_cast<std::size_t>(l.b)];
    if (a < 0 || b < 0) continue;
    m.at(a, b) += l.lanes;
    m.at(b, a) += l.lanes;
  }
  // Small machines: exact packing over every Hamiltonian cycle (a DGX-1 has 60 directed ones).
  if (n <= 12) {
    std::vector<std::vector<int>> cycles;
    std::vector<int> path{0};
    std::vector<bool> used(static_cast<std::size_t>(n), false);
    used[0] = true;
    all_cycles(m, path, used, cycles, 20000);
    if (!cycles.empty() && cycles.size() < 20000) {
      // Upper bound: no GPU can be in more rings than it has outgoing lanes.
      int cap = max_rings;
      for (int a = 0; a < n; ++a) {
        int out_lanes = 0;
        for (int b = 0; b < n; ++b) out_lanes += m.at(a, b);
        cap = std::min(cap, out_lanes);
      }
      std::vector<int> cur, best;
      long budget = 2'000'000;
      best_packing(m, cycles, 0, cur, best, cap, budget);
      for (int i : best) {
        std::vector<int> ring;
        for (int v : cycles[static_cast<std::size_t>(i)]) ring.push_back(gpus[static_cast<std::size_t>(v)]);
        out.rings.push_back(std::move(ring));
      }
      out.over_direct_links = true;
      return out;
    }
  }
  long budget = 2'000'000; // bounds the greedy search on large or sparse GPU graphs
  while (static_cast<int>(out.rings.size()) < max_rings) {
    std::vector<int> path{0};
    std::vector<bool> used(static_cast<std::size_t>(n), false);
    used[0] = true;
    if (!hamiltonian(m, path, used, budget)) break;
    for (int i = 0; i < n; ++i) --m.at(path[static_cast<std::size_t>(i)], path[static_cast<std::size_t>((i + 1) % n)]);
    std::vector<int> ring;
    for (int v : path) ring.push_back(gpus[static_cast<std::size_t>(v)]);
    out.rings.push_back(std::move(ring));
  }
  if (out.rings.empty()) return {{gpus}, false};
  out.over_direct_links = true;
  return out;
}

} // namespace ccsim::topology
