#include "sim/topology/ring_search.hpp"

#include "sim/topology/routing.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <functional>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::topology {
namespace {

// The GPUs a search runs over (all of them when none are named) and each topology node's index
// among them (-1 for nodes that are not one of them).
struct GpuIndex {
  std::vector<int> gpus;
  std::vector<int> local;
};
GpuIndex index_gpus(const Topology& t, std::vector<int> gpus) {
  if (gpus.empty()) {
    gpus.resize(static_cast<std::size_t>(t.num_gpus()));
    std::iota(gpus.begin(), gpus.end(), 0);
  }
  std::vector<int> local(t.nodes.size(), -1);
  for (std::size_t i = 0; i < gpus.size(); ++i) local[static_cast<std::size_t>(t.gpu_node(gpus[i]))] = static_cast<int>(i);
  return {std::move(gpus), std::move(local)};
}


// Remaining lanes per directed GPU pair (indices into the chosen GPU list), as neighbour lists sorted
// by index: a 64x64x64 torus has 262,144 GPUs but only 6 neighbours each, so no n x n matrix.
struct LaneGraph {
  struct Edge {
    int to, lanes;
  };
  std::vector<std::vector<Edge>> adj;
  int n() const { return static_cast<int>(adj.size()); }
  void add(int a, int b, int lanes) {
    auto& list = adj[static_cast<std::size_t>(a)];
    auto it = std::lower_bound(list.begin(), list.end(), b, [](const Edge& e, int v) { return e.to < v; });
    if (it != list.end() && it->to == b) it->lanes += lanes;
    else list.insert(it, Edge{b, lanes});
  }
  int lanes(int a, int b) const {
    for (const Edge& e : adj[static_cast<std::size_t>(a)])
      if (e.to == b) return e.lanes;
    return 0;
  }
  // Takes (or with -1 gives back) one lane of a pair that has one.
  void spend(int a, int b, int d = 1) {
    for (Edge& e : adj[static_cast<std::size_t>(a)])
      if (e.to == b) e.lanes -= d;
  }
};

// Depth-first search for a Hamiltonian cycle starting at path[0], trying the neighbour with the most
// remaining lanes first so that doubled links are spent before scarce single ones. Iterative (an explicit
// stack of candidate lists), so a path of a quarter million GPUs cannot overflow the call stack; every
// vertex entered costs one unit of `budget`.
bool hamiltonian(const LaneGraph& g, std::vector<int>& path, std::vector<bool>& used, long& budget) {
  struct Frame {
    std::size_t begin, end; // this vertex's untried candidates in `cands`
  };
  std::vector<int> cands;
  std::vector<Frame> stack;
  // Enters path.back(): true when it closes the cycle; else pushes its candidates.
  auto enter = [&]() {
    const int cur = path.back();
    if (static_cast<int>(path.size()) == g.n()) {
      stack.push_back({cands.size(), cands.size()});
      return g.lanes(cur, path.front()) > 0;
    }
    const std::size_t begin = cands.size();
    for (const auto& e : g.adj[static_cast<std::size_t>(cur)])
      if (!used[static_cast<std::size_t>(e.to)] && e.lanes > 0) cands.push_back(e.to);
    // Then Warnsdorff's rule: the neighbour with the fewest free neighbours of its own, so the path
    // does not strand corners it must come back for (it is what lets a 3D torus close a snake).
    auto onward = [&](int v) {
      int k = 0;
      for (const auto& e2 : g.adj[static_cast<std::size_t>(v)]) k += !used[static_cast<std::size_t>(e2.to)] && e2.lanes > 0;
      return k;
    };
    std::stable_sort(cands.begin() + static_cast<long>(begin), cands.end(), [&](int a, int b) {
      const int la = g.lanes(cur, a), lb = g.lanes(cur, b);
      return la != lb ? la > lb : onward(a) < onward(b);
    });
    stack.push_back({begin, cands.size()});
    return false;
  };
  if (--budget < 0) return false;
  if (enter()) return true;
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.begin == f.end) { // every candidate tried: step back
      stack.pop_back();
      if (stack.empty()) break;
      cands.resize(stack.back().end); // drop the finished vertex's candidates
      used[static_cast<std::size_t>(path.back())] = false;
      path.pop_back();
      continue;
    }
    const int v = cands[f.begin++];
    if (--budget < 0) return false;
    used[static_cast<std::size_t>(v)] = true;
    path.push_back(v);
    if (enter()) return true;
  }
  return false;
}

// All directed Hamiltonian cycles from vertex 0 over pairs with lanes (up to `limit`).
// (Recursive: only run on at most 12 GPUs.)
void all_cycles(const LaneGraph& g, std::vector<int>& path, std::vector<bool>& used, std::vector<std::vector<int>>& out,
                std::size_t limit) {
  if (out.size() >= limit) return;
  const int cur = path.back();
  if (static_cast<int>(path.size()) == g.n()) {
    if (g.lanes(cur, 0) > 0) out.push_back(path);
    return;
  }
  for (const auto& e : g.adj[static_cast<std::size_t>(cur)])
    if (const int v = e.to; v != 0 && !used[static_cast<std::size_t>(v)] && e.lanes > 0) {
      used[static_cast<std::size_t>(v)] = true;
      path.push_back(v);
      all_cycles(g, path, used, out, limit);
      path.pop_back();
      used[static_cast<std::size_t>(v)] = false;
    }
}

// Largest multiset of cycles whose hops fit in the lanes (branch and bound, bounded work).
void best_packing(LaneGraph& g, const std::vector<std::vector<int>>& cycles, std::size_t from, std::vector<int>& cur,
                  std::vector<int>& best, int cap, long& budget) {
  if (static_cast<int>(cur.size()) > static_cast<int>(best.size())) best = cur;
  if (static_cast<int>(cur.size()) >= cap || --budget < 0) return;
  for (std::size_t i = from; i < cycles.size(); ++i) {
    const auto& c = cycles[i];
    bool fits = true;
    for (std::size_t k = 0; k < c.size() && fits; ++k) fits = g.lanes(c[k], c[(k + 1) % c.size()]) > 0;
    if (!fits) continue;
    for (std::size_t k = 0; k < c.size(); ++k) g.spend(c[k], c[(k + 1) % c.size()]);
    cur.push_back(static_cast<int>(i));
    best_packing(g, cycles, i, cur, best, cap, budget); // i, not i+1: a ring may repeat on spare lanes
    cur.pop_back();
    for (std::size_t k = 0; k < c.size(); ++k) g.spend(c[k], c[(k + 1) % c.size()], -1);
    if (static_cast<int>(best.size()) >= cap) return;
  }
}

} // namespace

// A ring over neighbour links of a torus whose extents include an even one, built directly: the
// reflected mixed-radix Gray code visits every GPU changing one coordinate by 1 per hop; with an even
// extent as its slowest digit it ends at coordinate (k-1) of that dimension and 0 elsewhere, one wrap
// link from GPU 0. The depth-first search misses such cycles on large 3D tori (it closes 2D ones).
// Empty when every extent is odd.
static std::vector<int> torus_snake(const std::vector<int>& dims) {
  const std::size_t D = dims.size();
  std::vector<long> stride(D);
  long s = 1;
  for (std::size_t d = D; d-- > 0;) stride[d] = s, s *= dims[d];
  std::size_t slow = D;
  for (std::size_t d = 0; d < D && slow == D; ++d)
    if (dims[d] % 2 == 0) slow = d;
  if (slow == D) return {};
  std::vector<int> seq{0};
  auto add_digit = [&](std::size_t d) {
    std::vector<int> next;
    next.reserve(seq.size() * static_cast<std::size_t>(dims[d]));
    for (int v = 0; v < dims[d]; ++v) {
      const int off = static_cast<int>(v * stride[d]);
      if (v % 2 == 0) for (int g : seq) next.push_back(g + off);
      else for (auto it = seq.rbegin(); it != seq.rend(); ++it) next.push_back(*it + off);
    }
    seq.swap(next);
  };
  for (std::size_t d = 0; d < D; ++d)
    if (d != slow && dims[d] > 1) add_digit(d);
  add_digit(slow);
  return seq;
}

// A host whose n GPUs (n even) are all directly linked (an AMD Instinct xGMI mesh): inside a host a ring
// opened at the NICs is a Hamiltonian path, and the n directed zigzag paths s, s+1, s-1, s+2, ... (s <
// n/2, both directions; Walecki's decomposition of the complete graph) use every directed GPU pair once,
// so n rings share no link. The path of ring j ends at exits[j] and starts n/2 further round. Empty when
// that does not apply (exits not distinct, odd n, a pair without a direct link). `link_ids`: the host's own
// links (a link between two of its GPUs is one of them; a scan of the cluster's links per host was quadratic).
static std::vector<std::vector<int>> mesh_paths(const Topology& t, const std::vector<int>& members,
                                                const std::vector<int>& exits, const std::vector<int>& link_ids) {
  const int n = static_cast<int>(members.size());
  if (n < 4 || n % 2 != 0 || exits.size() > members.size()) return {};
  if (std::set<int>(exits.begin(), exits.end()).size() != exits.size()) return {};
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      const int x = t.gpu_node(members[static_cast<std::size_t>(a)]), y = t.gpu_node(members[static_cast<std::size_t>(b)]);
      if (std::none_of(link_ids.begin(), link_ids.end(), [&](int li) {
            const Link& l = t.links[static_cast<std::size_t>(li)];
            return (l.a == x && l.b == y) || (l.a == y && l.b == x);
          }))
        return {};
    }
  auto zigzag = [n](int s) {
    std::vector<int> out{s};
    for (int k = 1; static_cast<int>(out.size()) < n; ++k) {
      out.push_back((s + k) % n);
      if (static_cast<int>(out.size()) < n) out.push_back(((s - k) % n + n) % n);
    }
    return out;
  };
  std::vector<std::vector<int>> paths;
  for (int x : exits) { // x: local index of the exit GPU
    auto path = x >= n / 2 ? zigzag(x - n / 2) : zigzag(x);
    if (x < n / 2) std::reverse(path.begin(), path.end());
    for (int& v : path) v = members[static_cast<std::size_t>(v)];
    paths.push_back(std::move(path));
  }
  return paths;
}

// For each of the first `rings` NICs, the local index in `members` of the one GPU fewest hops from it
// (-1 when several tie: no single exit GPU).
static std::vector<int> nearest_members(Router& router, const Topology& t, const std::vector<int>& members,
                                        const std::vector<int>& nics, std::size_t rings) {
  std::vector<int> out;
  for (std::size_t j = 0; j < rings && j < nics.size(); ++j) {
    int best = -1, fewest = INT32_MAX, ties = 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
      const int h = router.info(router.route(t.gpu_node(members[i]), nics[j])).hops;
      if (h < fewest) fewest = h, best = static_cast<int>(i), ties = 0;
      else if (h == fewest) ++ties;
    }
    if (ties > 0) return {};
    out.push_back(best);
  }
  return out;
}

// Ring j's stretch inside one host, leaving it from a GPU `near` NIC j: an inside ring in which two such
// GPUs are neighbours (on a DGX-1 the two GPUs under one PCIe switch share an NVLink), else one leaving
// from the nearest GPU and entering at its successor; rotated to end at the exit GPU. Among those, first an
// exit and entry whose NIC paths still have room (`room(exit, entry)`): NCCL's search takes each channel's
// speed off every link of its NET-GPU paths and skips a GPU whose path has less left (NVIDIA/nccl v2.18.3-1 to
// v2.29.2-1 src/graph/search.cc followPath, ncclTopoSearchTryGpu; the "most local GPUs" loop of
// ncclTopoSearchRecNet tries the next tied GPU), so where several GPUs tie for the NIC two channels do not
// leave (or enter) through one GPU port or PCIe switch uplink that one channel fills.
static std::vector<int> inside_part(const std::vector<std::vector<int>>& inside, std::size_t j, const std::vector<int>& order,
                                    const std::function<bool(int)>& near, std::set<int>& entries,
                                    const std::function<bool(int, int)>& room) {
  std::vector<int> r;
  std::size_t exit = SIZE_MAX;
  // Within an inside ring, the pair whose entry comes first from GPU j on in the host's GPU order: NCCL's
  // channel c tries the tied GPUs from index c on (ncclTopoSearchRecNet: g = (nChannels + i) % ngpus).
  const auto from_j = [&](int g) {
    const auto pos = static_cast<std::size_t>(std::find(order.begin(), order.end(), g) - order.begin());
    return (pos + order.size() - j % std::max<std::size_t>(1, order.size())) % std::max<std::size_t>(1, order.size());
  };
  for (const bool need_room : {true, false})
    for (std::size_t k = 0; k < inside.size() && exit == SIZE_MAX; ++k) {
      const auto& c = inside[(j + k) % inside.size()];
      for (std::size_t i = 0; i < c.size(); ++i)
        if (const int e = c[(i + 1) % c.size()]; near(c[i]) && near(e) && c.size() > 1 && (!need_room || room(c[i], e)) &&
                                                  (exit == SIZE_MAX || from_j(e) < from_j(r[(exit + 1) % r.size()])))
          r = c, exit = i;
    }
  if (exit == SIZE_MAX) { // no such pair: leave from the nearest GPU, enter at its successor
    // Of the inside rings, the first whose successor is not yet another ring's entry: the network
    // delivers to the entry GPU through the NIC beside it, so distinct entries spread the receives
    // over the NICs (RCCL's xGMI-mesh models enter each ring at a different GPU's NIC).
    for (const bool need_room : {true, false})
      for (std::size_t k = 0; k <= inside.size() && exit == SIZE_MAX; ++k) {
        const auto& c = inside[(j + k) % inside.size()];
        for (std::size_t i = 0; i < c.size() && exit == SIZE_MAX; ++i)
          if (near(c[i]) && (k == inside.size() || !entries.count(c[(i + 1) % c.size()])) &&
              (!need_room || room(c[i], c[(i + 1) % c.size()])))
            r = c, exit = i;
      }
    if (exit != SIZE_MAX) entries.insert(r[(exit + 1) % r.size()]);
  }
  std::rotate(r.begin(), r.begin() + static_cast<long>(exit) + 1, r.end());
  return r;
}

// Several hosts (topology::host_map): NCCL opens each ring at a NIC, so ring j leaves every host through
// NIC j and runs the host's own ring order inside. Empty when the GPUs are not spread over several hosts
// that all have NICs.
static RingSet pack_rings_on(const Topology& t, std::vector<int> gpus_in, int max_rings, const HostMap* hosts,
                             const std::vector<int>* link_ids = nullptr);
static RingSet nic_rings(const Topology& t, const std::vector<int>& gpus, const HostMap* known) {
  // The host map once per search, not once per host's own search (that was quadratic in a cluster's size).
  const HostMap hosts = known ? HostMap{} : host_map(t);
  const HostMap& host_of_node = known ? *known : hosts;
  auto host_of = [&](int node) { return host_of_node.of_node[static_cast<std::size_t>(node)]; };
  std::vector<int> order;
  std::map<int, std::vector<int>> members, nics;
  for (int g : gpus) {
    const int pre = host_of(t.gpu_node(g));
    if (pre < 0) return {};
    if (members[pre].empty()) order.push_back(pre);
    members[pre].push_back(g);
  }
  if (order.size() < 2) return {};
  // NICs that reach the network (a machine preset may list NICs a cluster spec did not cable).
  for (const auto& l : t.links)
    if (is_network(l.type))
      for (int end : {l.a, l.b})
        if (t.nodes[static_cast<std::size_t>(end)].kind == NodeKind::Nic) nics[host_of(end)].push_back(end);
  for (auto& [pre, list] : nics) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  // Each host's own links, once: a host's search over every link of the cluster was quadratic in its size.
  std::map<int, std::vector<int>> own_links;
  for (std::size_t li = 0; li < t.links.size(); ++li)
    if (const int h = host_of(t.links[li].a); h >= 0 && h == host_of(t.links[li].b)) own_links[h].push_back(static_cast<int>(li));
  std::size_t rings = SIZE_MAX;
  for (const auto& pre : order) rings = std::min(rings, nics[pre].size());
  if (rings == 0 || rings == SIZE_MAX) return {};
  Router router(t);
  RingSet out;
  out.rings.resize(rings);
  for (const auto& pre : order) {
    const auto inside = pack_rings_on(t, members[pre], 16, &host_of_node, &own_links[pre]).rings;
    std::set<int> entries; // entry GPUs already taken by a ring on this host
    if (const auto paths = mesh_paths(t, members[pre], nearest_members(router, t, members[pre], nics[pre], rings), own_links[pre]);
        !paths.empty()) {
      for (std::size_t j = 0; j < rings; ++j) out.rings[j].insert(out.rings[j].end(), paths[j].begin(), paths[j].end());
      continue;
    }
    // Rings already through each directed link of this host's GPU-NIC paths. At the search's speed a channel fills
    // its NET-GPU path's narrowest link (NCCL's first inter speed is at or under that path's bandwidth:
    // ncclTopoSearchInit maxBw, ncclTopoCompute), so a link carries as many rings as it has that bandwidth over.
    std::map<ChannelId, int> taken;
    const auto nic_path = [&](int from, int to) {
      const auto span = router.route(from, to);
      return std::vector<ChannelId>(span.begin(), span.end());
    };
    const auto fits = [&](const std::vector<ChannelId>& path) {
      const Bandwidth narrowest = router.info(path).bottleneck;
      for (ChannelId c : path) {
        const Bandwidth rings_on = narrowest > 0 ? std::max<Bandwidth>(1, t.channel_capacity(c) / narrowest) : 1;
        if (const auto it = taken.find(c); it != taken.end() && static_cast<Bandwidth>(it->second) >= rings_on) return false;
      }
      return true;
    };
    for (std::size_t j = 0; j < rings; ++j) {
      const int nic = nics[pre][j];
      const std::function<bool(int, int)> room = [&](int exit_gpu, int entry_gpu) {
        return fits(nic_path(t.gpu_node(exit_gpu), nic)) && fits(nic_path(nic, t.gpu_node(entry_gpu)));
      };
      // GPUs nearest NIC j (fewest hops): the ring should leave the node from one and enter at another,
      // so that both directions of the network hop use NIC j.
      std::map<int, int> hops; // per member GPU (a vector over every GPU per host and ring was quadratic)
      int fewest = INT32_MAX;
      for (int g : members[pre]) {
        hops[g] = router.info(router.route(t.gpu_node(g), nics[pre][j])).hops;
        fewest = std::min(fewest, hops[g]);
      }
      const std::function<bool(int)> near = [&](int g) { const auto it = hops.find(g); return it != hops.end() && it->second == fewest; };
      const auto r = inside_part(inside, j, members[pre], near, entries, room);
      for (ChannelId c : nic_path(t.gpu_node(r.back()), nic)) ++taken[c];
      for (ChannelId c : nic_path(nic, t.gpu_node(r.front()))) ++taken[c];
      out.rings[j].insert(out.rings[j].end(), r.begin(), r.end());
    }
  }
  return out;
}

RingSet pack_rings(const Topology& t, std::vector<int> gpus_in, int max_rings) { return pack_rings_on(t, std::move(gpus_in), max_rings, nullptr); }

// pack_rings with the host map when a caller has it (nullptr: made when needed), over the links `link_ids`
// (nullptr: every link; a host's own links keep a cluster's per-host searches linear in its size).
static RingSet pack_rings_on(const Topology& t, std::vector<int> gpus_in, int max_rings, const HostMap* hosts,
                             const std::vector<int>* link_ids) {
  std::vector<int> gpus;
  std::function<int(int)> local_of; // a node's index among the GPUs, -1 for other nodes
  GpuIndex whole;
  std::unordered_map<int, int> few;
  if (!link_ids || gpus_in.empty()) {
    whole = index_gpus(t, std::move(gpus_in));
    gpus = whole.gpus;
    local_of = [&](int node) { return whole.local[static_cast<std::size_t>(node)]; };
  } else {
    gpus = std::move(gpus_in);
    for (std::size_t i = 0; i < gpus.size(); ++i) few.emplace(t.gpu_node(gpus[i]), static_cast<int>(i));
    local_of = [&](int node) { const auto it = few.find(node); return it == few.end() ? -1 : it->second; };
  }
  const int n = static_cast<int>(gpus.size());
  RingSet out;
  if (n < 3) return {{gpus}, false};
  LaneGraph m{std::vector<std::vector<LaneGraph::Edge>>(static_cast<std::size_t>(n))};
  const auto add = [&](const Link& l) {
    const int a = local_of(l.a), b = local_of(l.b);
    if (a < 0 || b < 0) return;
    m.add(a, b, l.lanes);
    m.add(b, a, l.lanes);
  };
  if (link_ids) {
    for (const int li : *link_ids) add(t.links[static_cast<std::size_t>(li)]);
  } else {
    for (const auto& l : t.links) add(l);
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
        for (const auto& e : m.adj[static_cast<std::size_t>(a)]) out_lanes += e.lanes;
        cap = std::min(cap, out_lanes);
      }
      std::vector<int> cur, best;
      long budget = 2'000'000;
      best_packing(m, cycles, 0, cur, best, cap, budget);
      // A full mesh of one lane per pair that no set of link-disjoint rings covers: the complete directed graph
      // splits into directed Hamiltonian cycles for every n but 4 and 6 (Tillson, 1980), so 4 or 6 GPUs of an xGMI
      // mesh leave a third (a fifth) of each GPU's links idle at a full lane per ring. NCCL's search (and RCCL's,
      // which keeps it: ROCm/rccl src/graph/search.cc ncclTopoCompute, speedArrayIntra 48, 24, ...) then lowers
      // the speed while channels x speed stays under the GPU's total and the next speed is above 0.49 of the
      // best, so at half a link it puts two channels on each directed link: 6 rings over 4 GPUs at half the
      // speed carry 3 links' worth, 2 at full speed carry 2. RCCL's own 4-GPU mesh model lists all six directed
      // cycles (rome_models.cc, the nGpus = 4 model's ringBase). Packed here at half a lane (make_graph halves
      // each ring's speed where rings share a lane) when that carries more.
      bool full_mesh = true;
      for (int a = 0; a < n; ++a) full_mesh = full_mesh && static_cast<int>(m.adj[static_cast<std::size_t>(a)].size()) == n - 1;
      if (full_mesh && static_cast<int>(best.size()) < cap) {
        LaneGraph half = m;
        for (auto& list : half.adj)
          for (auto& e : list) e.lanes *= 2;
        std::vector<int> cur2, best2;
        long budget2 = 2'000'000;
        best_packing(half, cycles, 0, cur2, best2, 2 * cap, budget2);
        if (best2.size() > 2 * best.size()) best = std::move(best2);
      }
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
    for (int i = 0; i < n; ++i) m.spend(path[static_cast<std::size_t>(i)], path[static_cast<std::size_t>((i + 1) % n)]);
    std::vector<int> ring;
    for (int v : path) ring.push_back(gpus[static_cast<std::size_t>(v)]);
    out.rings.push_back(std::move(ring));
  }
  if (out.rings.empty()) {
    if (t.structure.kind == Structure::Kind::Torus && n == t.num_gpus())
      if (auto snake = torus_snake(t.structure.dims); !snake.empty()) return {{std::move(snake)}, true};
    if (auto per_nic = nic_rings(t, gpus, hosts); !per_nic.rings.empty()) return per_nic;
    return {{gpus}, false};
  }
  out.over_direct_links = true;
  return out;
}

} // namespace ccsim::topology

// ---------------------------------------------------------------------------------------------
// The search behind `ccsim rings`.

namespace ccsim::topology {

HopRoute describe_hop(const Topology& t, Router& r, int gpu_a, int gpu_b) {
  HopRoute h;
  const auto route = r.route(t.gpu_node(gpu_a), t.gpu_node(gpu_b));
  h.channels.assign(route.begin(), route.end());
  const auto info = r.info(route);
  h.bottleneck = info.bottleneck;
  h.latency = info.latency;
  h.direct = h.channels.size() == 1;
  bool all_nv = !h.channels.empty(), all_xgmi = all_nv, net = false, qpi = false, upi = false, pcie = false, nvswitch = false;
  std::string nv, xgmi;
  for (std::size_t k = 0; k < h.channels.size(); ++k) {
    const auto& l = t.link_of(h.channels[k]);
    if (is_nvlink(l.type)) nv += (nv.empty() ? "" : "+") + (l.lanes > 1 ? fmt::format("NVLink x{}", l.lanes) : std::string("NVLink"));
    else all_nv = false;
    // Infinity Fabric between Instinct GPUs is named as NVLink is; a socket's xGMI link stays with the host path.
    const bool gpu_xgmi = l.type == LinkType::Xgmi && (t.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Gpu ||
                                                        t.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Gpu);
    if (gpu_xgmi) xgmi += (xgmi.empty() ? "" : "+") + (l.lanes > 1 ? fmt::format("xGMI x{}", l.lanes) : std::string("xGMI"));
    else all_xgmi = false;
    net |= is_network(l.type);
    qpi |= l.type == LinkType::Qpi;
    upi |= l.type == LinkType::Upi;
    pcie |= is_pcie(l.type);
    if (k + 1 < h.channels.size()) {
      const auto& mid = t.nodes[static_cast<std::size_t>(t.channel_to(h.channels[k]))];
      h.via += (h.via.empty() ? "" : " ") + mid.name;
      if (mid.gpu >= 0) h.via_gpus.push_back(mid.gpu);
      nvswitch |= mid.kind == NodeKind::NvSwitch;
    }
  }
  h.nvlink_only = all_nv;
  // The slowest technology names the hop: the network, then the socket link, then PCIe.
  h.kind = net ? "NET" : qpi ? "QPI" : upi ? "UPI" : all_nv ? (nvswitch ? "NVSwitch" : nv) : all_xgmi ? xgmi : pcie ? "PCIe" : "link";
  return h;
}

HopTable::HopTable(const Topology& t, Router& r, std::vector<int> gpus) : topo_(t), gpus_(std::move(gpus)) {
  if (gpus_.empty()) {
    gpus_.resize(static_cast<std::size_t>(t.num_gpus()));
    std::iota(gpus_.begin(), gpus_.end(), 0);
  }
  n_ = static_cast<int>(gpus_.size());
  hops_.resize(static_cast<std::size_t>(n_ * n_));
  for (int i = 0; i < n_; ++i)
    for (int j = 0; j < n_; ++j)
      if (i != j) hops_[static_cast<std::size_t>(i * n_ + j)] = describe_hop(t, r, gpus_[static_cast<std::size_t>(i)], gpus_[static_cast<std::size_t>(j)]);
  ps_per_byte_.resize(t.num_channels());
  for (std::size_t c = 0; c < ps_per_byte_.size(); ++c)
    ps_per_byte_[c] = static_cast<double>(kPsPerSec) / static_cast<double>(t.link_of(static_cast<ChannelId>(c)).capacity());
}

int HopTable::local_of(int gpu) const {
  auto it = std::find(gpus_.begin(), gpus_.end(), gpu);
  return it == gpus_.end() ? -1 : static_cast<int>(it - gpus_.begin());
}

std::vector<int> HopTable::to_local(const std::vector<int>& ring) const {
  std::vector<int> out;
  for (int g : ring) out.push_back(local_of(g));
  return out;
}

std::vector<int> HopTable::to_gpus(const std::vector<int>& ring) const {
  std::vector<int> out;
  for (int i : ring) out.push_back(gpus_[static_cast<std::size_t>(i)]);
  return out;
}

namespace {

// Reusable channel-load buffer: scoring touches only the channels the rings use.
class Scorer {
 public:
  explicit Scorer(const HopTable& h) : h_(h), load_(h.topology().num_channels(), 0) {}

  RingScore score(const std::vector<std::vector<int>>& rings, double step_bytes, bool details) {
    RingScore s;
    Time lmax = 0;
    double hop_cost = 0;
    for (const auto& r : rings)
      for (std::size_t k = 0; k < r.size(); ++k) {
        const auto& hop = h_.at(r[k], r[(k + 1) % r.size()]);
        lmax = std::max(lmax, hop.latency);
        hop_cost += static_cast<double>(hop.latency) + step_bytes * static_cast<double>(kPsPerSec) / static_cast<double>(hop.bottleneck);
        for (ChannelId c : hop.channels)
          if (load_[c]++ == 0) touched_.push_back(c);
      }
    double umax = 0, squares = 0;
    for (ChannelId c : touched_) {
      const double u = load_[c] * h_.ps_per_byte(c);
      squares += u * u;
      if (u > umax || (u == umax && c < s.limiting_channel)) {
        umax = u;
        s.limiting_channel = c;
        s.limiting_load = load_[c];
      }
      if (load_[c] > h_.topology().link_of(c).lanes) s.within_lanes = false;
    }
    s.step_ps = static_cast<double>(lmax) + step_bytes * umax;
    // One ring: prefer wide, short hops; several: prefer spreading load over the channels.
    s.balance = rings.size() == 1 ? hop_cost : squares;
    if (details)
      for (const auto& r : rings)
        for (std::size_t k = 0; k < r.size() && s.limiting_from < 0; ++k) {
          const auto& hop = h_.at(r[k], r[(k + 1) % r.size()]);
          if (std::find(hop.channels.begin(), hop.channels.end(), s.limiting_channel) != hop.channels.end()) {
            s.limiting_from = r[k];
            s.limiting_to = r[(k + 1) % r.size()];
          }
        }
    for (ChannelId c : touched_) load_[c] = 0;
    touched_.clear();
    return s;
  }

  // The better direction of one ring; reverses `r` in place (keeping r[0]) when the reverse wins.
  RingScore best_direction(std::vector<int>& r, double step_bytes, bool details) {
    scratch_.assign(1, r);
    const RingScore fwd = score(scratch_, step_bytes, details);
    std::reverse(scratch_[0].begin() + 1, scratch_[0].end());
    const RingScore rev = score(scratch_, step_bytes, details);
    if (rev < fwd) {
      r = scratch_[0];
      return rev;
    }
    return fwd;
  }

 private:
  const HopTable& h_;
  std::vector<int> load_;
  std::vector<ChannelId> touched_;
  std::vector<std::vector<int>> scratch_;
};

// Rotation to start at 0 and the direction whose second element is smaller: one key per undirected ring.
std::vector<int> canonical(std::vector<int> r) {
  std::rotate(r.begin(), std::find(r.begin(), r.end(), 0), r.end());
  if (r.size() > 2 && r[1] > r.back()) std::reverse(r.begin() + 1, r.end());
  return r;
}

struct TopK {
  std::size_t keep;
  std::vector<RingCandidate> items; // ascending
  bool full() const { return items.size() >= keep; }
  const RingScore& worst() const { return items.back().score; }
  void offer(RingCandidate c) {
    if (full() && !(c.score < worst())) return;
    auto it = std::upper_bound(items.begin(), items.end(), c, [](const RingCandidate& a, const RingCandidate& b) { return a.score < b.score; });
    items.insert(it, std::move(c));
    if (items.size() > keep) items.pop_back();
  }
};

// Every ring up to rotation and direction, depth first from GPU 0, with both directions' channel loads
// kept incrementally. A partial ring's bound never decreases as hops are added, so a branch whose bound
// already reaches the k-th best complete ring cannot enter the top k and is cut.
class Exhaustive {
 public:
  Exhaustive(const HopTable& h, const RingSearchOptions& o, TopK& top)
      : h_(h), o_(o), top_(top), n_(h.size()), fwd_(h.topology().num_channels()), rev_(h.topology().num_channels()) {
    min_cost_ = std::numeric_limits<double>::max();
    for (int i = 0; i < n_; ++i)
      for (int j = 0; j < n_; ++j)
        if (i != j) min_cost_ = std::min(min_cost_, cost(i, j));
  }

  std::uint64_t run() {
    path_.assign(1, 0);
    used_.assign(static_cast<std::size_t>(n_), false);
    used_[0] = true;
    dfs();
    return scored_;
  }

 private:
  struct Dir {
    explicit Dir(std::size_t channels) : load(channels, 0) {}
    std::vector<int> load;
    double umax = 0, sum = 0;
    Time lmax = 0;
  };
  struct Saved {
    double umax, sum;
    Time lmax;
  };

  double cost(int i, int j) const {
    const auto& hop = h_.at(i, j);
    return static_cast<double>(hop.latency) + o_.step_bytes * static_cast<double>(kPsPerSec) / static_cast<double>(hop.bottleneck);
  }
  Saved add(Dir& d, int i, int j) {
    const Saved s{d.umax, d.sum, d.lmax};
    const auto& hop = h_.at(i, j);
    for (ChannelId c : hop.channels) d.umax = std::max(d.umax, ++d.load[c] * h_.ps_per_byte(c));
    d.lmax = std::max(d.lmax, hop.latency);
    d.sum += cost(i, j);
    return s;
  }
  void remove(Dir& d, int i, int j, const Saved& s) {
    for (ChannelId c : h_.at(i, j).channels) --d.load[c];
    d.umax = s.umax;
    d.sum = s.sum;
    d.lmax = s.lmax;
  }
  RingScore bound(const Dir& d, int remaining) const {
    RingScore s;
    s.step_ps = static_cast<double>(d.lmax) + o_.step_bytes * d.umax;
    s.balance = d.sum + remaining * min_cost_;
    return s;
  }

  void dfs() {
    const int cur = path_.back();
    const int depth = static_cast<int>(path_.size());
    if (o_.progress && (++visits_ & ((1u << 20) - 1)) == 0 && depth >= 2) {
      const double a = path_[1] - 1, b = depth > 2 ? static_cast<double>(path_[2]) / n_ : 0;
      o_.progress((a + b) / (n_ - 1));
    }
    if (depth == n_) {
      if (path_[1] > path_.back()) return; // the other direction of a ring already counted
      const Saved sf = add(fwd_, cur, 0), sr = add(rev_, 0, cur);
      ++scored_;
      const RingScore f = bound(fwd_, 0), r = bound(rev_, 0);
      if (!top_.full() || f < top_.worst() || r < top_.worst()) {
        RingCandidate c{path_, f};
        if (r < f) {
          std::reverse(c.order.begin() + 1, c.order.end());
          c.score = r;
        }
        top_.offer(std::move(c));
      }
      remove(fwd_, cur, 0, sf);
      remove(rev_, 0, cur, sr);
      return;
    }
    for (int v = 1; v < n_; ++v) {
      if (used_[static_cast<std::size_t>(v)]) continue;
      const Saved sf = add(fwd_, cur, v), sr = add(rev_, v, cur);
      const int remaining = n_ - depth;
      const RingScore bf = bound(fwd_, remaining), br = bound(rev_, remaining);
      if (!top_.full() || bf < top_.worst() || br < top_.worst()) {
        used_[static_cast<std::size_t>(v)] = true;
        path_.push_back(v);
        dfs();
        path_.pop_back();
        used_[static_cast<std::size_t>(v)] = false;
      }
      remove(fwd_, cur, v, sf);
      remove(rev_, v, cur, sr);
    }
  }

  const HopTable& h_;
  const RingSearchOptions& o_;
  TopK& top_;
  int n_;
  Dir fwd_, rev_;
  double min_cost_;
  std::vector<int> path_;
  std::vector<bool> used_;
  std::uint64_t scored_ = 0, visits_ = 0;
};

// A Hamiltonian cycle over direct links only (Warnsdorff order: the neighbour with the fewest free
// neighbours first, then the widest), within `budget` steps; empty when none was found.
std::vector<int> direct_cycle(const HopTable& h, long& budget) {
  const int n = h.size();
  std::vector<std::vector<int>> adj(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && h.at(i, j).direct) adj[static_cast<std::size_t>(i)].push_back(j);
  std::vector<int> path{0};
  std::vector<bool> used(static_cast<std::size_t>(n), false);
  used[0] = true;
  std::function<bool()> go = [&]() -> bool {
    if (--budget < 0) return false;
    const int cur = path.back();
    if (static_cast<int>(path.size()) == n) return h.at(cur, 0).direct;
    auto free_degree = [&](int v) {
      int d = 0;
      for (int w : adj[static_cast<std::size_t>(v)]) d += !used[static_cast<std::size_t>(w)];
      return d;
    };
    std::vector<int> next;
    for (int v : adj[static_cast<std::size_t>(cur)])
      if (!used[static_cast<std::size_t>(v)]) next.push_back(v);
    std::stable_sort(next.begin(), next.end(), [&](int a, int b) {
      const int da = free_degree(a), db = free_degree(b);
      if (da != db) return da < db;
      return h.at(cur, a).bottleneck > h.at(cur, b).bottleneck;
    });
    for (int v : next) {
      used[static_cast<std::size_t>(v)] = true;
      path.push_back(v);
      if (go()) return true;
      path.pop_back();
      used[static_cast<std::size_t>(v)] = false;
    }
    return false;
  };
  return go() ? path : std::vector<int>{};
}

// Nearest neighbour by hop cost (latency + step over bottleneck) from `start`, rotated to begin at 0.
std::vector<int> nearest_neighbour(const HopTable& h, int start, double step_bytes) {
  const int n = h.size();
  std::vector<int> r{start};
  std::vector<bool> used(static_cast<std::size_t>(n), false);
  used[static_cast<std::size_t>(start)] = true;
  while (static_cast<int>(r.size()) < n) {
    int best = -1;
    double best_cost = 0;
    for (int v = 0; v < n; ++v) {
      if (used[static_cast<std::size_t>(v)]) continue;
      const auto& hop = h.at(r.back(), v);
      const double c = static_cast<double>(hop.latency) + step_bytes * static_cast<double>(kPsPerSec) / static_cast<double>(hop.bottleneck);
      if (best < 0 || c < best_cost) best = v, best_cost = c;
    }
    used[static_cast<std::size_t>(best)] = true;
    r.push_back(best);
  }
  std::rotate(r.begin(), std::find(r.begin(), r.end(), 0), r.end());
  return r;
}

// 2-opt: reverse a stretch of the ring while that lowers the bound, until no move helps or work runs out.
RingScore two_opt(Scorer& sc, std::vector<int>& r, double step_bytes, long& work) {
  const int n = static_cast<int>(r.size());
  RingScore cur = sc.best_direction(r, step_bytes, false);
  for (bool improved = true; improved && work > 0;) {
    improved = false;
    for (int i = 1; i < n - 1 && work > 0; ++i)
      for (int j = i + 1; j < n && work > 0; ++j) {
        std::vector<int> t = r;
        std::reverse(t.begin() + i, t.begin() + j + 1);
        work -= 2 * n;
        const RingScore s = sc.best_direction(t, step_bytes, false);
        if (s < cur) {
          r = std::move(t);
          cur = s;
          improved = true;
        }
      }
  }
  return cur;
}

} // namespace

RingScore score_rings(const HopTable& h, const std::vector<std::vector<int>>& local_rings, double step_bytes) {
  Scorer sc(h);
  return sc.score(local_rings, step_bytes, true);
}

RingSearchResult search_rings(const HopTable& h, const RingSearchOptions& o) {
  RingSearchResult res;
  const int n = h.size();
  if (n < 1) fail("rings: no GPUs chosen");
  res.distinct_rings = 1;
  for (int k = 3; k < n; ++k) res.distinct_rings *= k; // (n-1)!/2 for n >= 3
  if (n < 3) res.distinct_rings = 1;
  Scorer sc(h);
  TopK top{static_cast<std::size_t>(std::max(1, o.keep)), {}};
  if (n <= 3) {
    std::vector<int> r(static_cast<std::size_t>(n));
    std::iota(r.begin(), r.end(), 0);
    const RingScore s = sc.best_direction(r, o.step_bytes, false);
    top.offer({r, s});
    res.exhaustive = true;
    res.scored = 1;
    res.method = "exhaustive: only one ring exists";
  } else if (n <= o.exhaustive_max) {
    Exhaustive ex(h, o, top);
    res.scored = ex.run();
    res.exhaustive = true;
    res.method = fmt::format("exhaustive over all {:.0f} rings (rotation and direction reduced), branches cut by the link-load bound",
                             res.distinct_rings);
  } else {
    // Bounded: a direct-link cycle, greedy rings from several starts and the rank order, each improved by 2-opt.
    long work = o.bounded_work;
    std::vector<std::vector<int>> seeds;
    long dfs_budget = std::min(o.bounded_work / 4, 2'000'000L);
    if (auto d = direct_cycle(h, dfs_budget); !d.empty()) seeds.push_back(d);
    // The rings `--algo ring` runs by default (on a large torus, the Gray-code snake): never rank below them.
    for (const auto& r : pack_rings(h.topology(), h.gpus()).rings) seeds.push_back(h.to_local(r));
    std::vector<int> identity(static_cast<std::size_t>(n));
    std::iota(identity.begin(), identity.end(), 0);
    seeds.push_back(identity);
    const int starts = std::min(n, 8);
    for (int s = 0; s < starts; ++s) seeds.push_back(nearest_neighbour(h, s * n / starts, o.step_bytes));
    std::vector<std::vector<int>> seen;
    for (std::size_t si = 0; si < seeds.size(); ++si) {
      if (o.progress) o.progress(static_cast<double>(si) / static_cast<double>(seeds.size()));
      auto& r = seeds[si];
      const RingScore raw = sc.best_direction(r, o.step_bytes, false);
      auto key = canonical(r);
      if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
        seen.push_back(key);
        top.offer({r, raw});
        ++res.scored;
      }
      std::vector<int> improved = r;
      const RingScore s = two_opt(sc, improved, o.step_bytes, work);
      key = canonical(improved);
      if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
        seen.push_back(key);
        top.offer({improved, s});
        ++res.scored;
      }
    }
    res.exhaustive = false;
    res.method = fmt::format("bounded search, NOT exhaustive ({} GPUs > {}): direct-link cycle, the default packed rings, rank order and {} greedy rings, "
                             "each improved by 2-opt under the link-load bound",
                             n, o.exhaustive_max, starts);
  }
  for (auto& c : top.items) c.score = sc.best_direction(c.order, o.step_bytes, true);
  std::stable_sort(top.items.begin(), top.items.end(), [](const RingCandidate& a, const RingCandidate& b) { return a.score < b.score; });
  res.best = std::move(top.items);
  return res;
}

std::vector<std::vector<int>> hamiltonian_cycles(const Topology& t, const std::vector<int>& gpus_in,
                                                 const std::function<bool(const Link&)>& keep_link, std::size_t limit) {
  const GpuIndex gi = index_gpus(t, gpus_in); // not a structured binding: a lambda below uses gpus (clang 14)
  const auto &gpus = gi.gpus, &local = gi.local;
  const int n = static_cast<int>(gpus.size());
  std::vector<char> adj(static_cast<std::size_t>(n * n), 0);
  for (const auto& l : t.links) {
    const int a = local[static_cast<std::size_t>(l.a)], b = local[static_cast<std::size_t>(l.b)];
    if (a < 0 || b < 0 || !keep_link(l)) continue;
    adj[static_cast<std::size_t>(a * n + b)] = adj[static_cast<std::size_t>(b * n + a)] = 1;
  }
  std::vector<std::vector<int>> out;
  if (n < 3) return out;
  std::vector<int> path{0};
  std::vector<bool> used(static_cast<std::size_t>(n), false);
  used[0] = true;
  std::function<void()> go = [&] {
    if (out.size() >= limit) return;
    const int cur = path.back();
    if (static_cast<int>(path.size()) == n) {
      if (adj[static_cast<std::size_t>(cur * n)] && path[1] < path.back()) {
        std::vector<int> ring;
        for (int v : path) ring.push_back(gpus[static_cast<std::size_t>(v)]);
        out.push_back(std::move(ring));
      }
      return;
    }
    for (int v = 1; v < n; ++v)
      if (!used[static_cast<std::size_t>(v)] && adj[static_cast<std::size_t>(cur * n + v)]) {
        used[static_cast<std::size_t>(v)] = true;
        path.push_back(v);
        go();
        path.pop_back();
        used[static_cast<std::size_t>(v)] = false;
      }
  };
  go();
  return out;
}

std::vector<std::vector<int>> lane_decompositions(const Topology& t, const std::vector<int>& gpus_in,
                                                  const std::vector<std::vector<int>>& cycles, int k, bool exact) {
  const auto [gpus, local] = index_gpus(t, gpus_in);
  const int n = static_cast<int>(gpus.size());
  std::vector<int> lanes(static_cast<std::size_t>(n * n), 0);
  int total = 0;
  for (const auto& l : t.links) {
    const int a = local[static_cast<std::size_t>(l.a)], b = local[static_cast<std::size_t>(l.b)];
    if (a < 0 || b < 0) continue;
    lanes[static_cast<std::size_t>(a * n + b)] += l.lanes;
    lanes[static_cast<std::size_t>(b * n + a)] += l.lanes;
    total += l.lanes;
  }
  // Each undirected cycle takes one lane of each pair it passes (a lane carries both directions).
  std::vector<std::vector<std::pair<int, int>>> pairs;
  for (const auto& c : cycles) {
    pairs.emplace_back();
    for (std::size_t i = 0; i < c.size(); ++i) {
      const int a = local[static_cast<std::size_t>(t.gpu_node(c[i]))], b = local[static_cast<std::size_t>(t.gpu_node(c[(i + 1) % c.size()]))];
      if (a < 0 || b < 0) fail("lane_decompositions: cycle visits a GPU outside the chosen set");
      pairs.back().emplace_back(a, b);
    }
  }
  std::vector<std::vector<int>> out;
  std::vector<int> cur;
  int used_lanes = 0;
  std::function<void(std::size_t)> go = [&](std::size_t from) {
    if (static_cast<int>(cur.size()) == k) {
      if (!exact || used_lanes == total) out.push_back(cur);
      return;
    }
    for (std::size_t i = from; i < cycles.size(); ++i) {
      bool fits = true;
      for (auto [a, b] : pairs[i]) fits = fits && lanes[static_cast<std::size_t>(a * n + b)] > 0;
      if (!fits) continue;
      for (auto [a, b] : pairs[i]) --lanes[static_cast<std::size_t>(a * n + b)], --lanes[static_cast<std::size_t>(b * n + a)];
      used_lanes += static_cast<int>(pairs[i].size());
      cur.push_back(static_cast<int>(i));
      go(i); // i again: a cycle may be used twice when its pairs have two lanes
      cur.pop_back();
      used_lanes -= static_cast<int>(pairs[i].size());
      for (auto [a, b] : pairs[i]) ++lanes[static_cast<std::size_t>(a * n + b)], ++lanes[static_cast<std::size_t>(b * n + a)];
    }
  };
  go(0);
  return out;
}

RingSetChoice choose_ring_set(const HopTable& h, const std::vector<std::vector<int>>& pool, int k, double step_bytes) {
  if (k < 1) fail("--channels: must be at least 1");
  if (pool.empty()) fail("rings: no candidate rings to build channels from");
  Scorer sc(h);
  const double per_ring = step_bytes / k;
  auto eval = [&](const std::vector<std::vector<int>>& set) { return sc.score(set, per_ring, false); };
  RingSetChoice best;
  bool have = false;
  const std::size_t seeds = std::min<std::size_t>(pool.size(), 16);
  for (std::size_t seed = 0; seed < seeds; ++seed) {
    std::vector<std::vector<int>> set{pool[seed]};
    // Greedy: add the pool ring that keeps the bound lowest.
    while (static_cast<int>(set.size()) < k) {
      std::size_t pick = 0;
      RingScore pick_score;
      for (std::size_t i = 0; i < pool.size(); ++i) {
        set.push_back(pool[i]);
        const RingScore s = eval(set);
        set.pop_back();
        if (i == 0 || s < pick_score) pick = i, pick_score = s;
      }
      set.push_back(pool[pick]);
    }
    // Swaps: replace one ring by another pool ring while that helps.
    RingScore cur = eval(set);
    for (bool improved = true; improved;) {
      improved = false;
      for (std::size_t slot = 0; slot < set.size(); ++slot)
        for (std::size_t i = 0; i < pool.size(); ++i) {
          if (set[slot] == pool[i]) continue;
          auto old = set[slot];
          set[slot] = pool[i];
          const RingScore s = eval(set);
          if (s < cur) {
            cur = s;
            improved = true;
          } else {
            set[slot] = std::move(old);
          }
        }
    }
    if (!have || cur < best.score) {
      best.rings = set;
      best.score = cur;
      have = true;
    }
  }
  best.score = sc.score(best.rings, per_ring, true);
  return best;
}

} // namespace ccsim::topology
