#include "sim/topology/split_routes.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <utility>

namespace ccsim::topology {

namespace {
struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int v) {
    while (parent[static_cast<std::size_t>(v)] != v) v = parent[static_cast<std::size_t>(v)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(v)])];
    return v;
  }
  void join(int a, int b) { parent[static_cast<std::size_t>(find(a))] = find(b); }
};

// Counting sort of items by key into a CSR index: key k's items are items[start[k] .. start[k + 1]) in input
// order. key_of(i) gives up to two keys of item i (-1: none).
template <typename KeyOf>
void bucket(std::size_t keys, std::size_t count, KeyOf key_of, std::vector<std::uint32_t>& start, std::vector<int>& items) {
  start.assign(keys + 1, 0);
  for (std::size_t i = 0; i < count; ++i)
    for (int k : key_of(i))
      if (k >= 0) ++start[static_cast<std::size_t>(k) + 1];
  for (std::size_t k = 0; k < keys; ++k) start[k + 1] += start[k];
  items.resize(start[keys]);
  std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < count; ++i)
    for (int k : key_of(i))
      if (k >= 0) items[fill[static_cast<std::size_t>(k)]++] = static_cast<int>(i);
}
} // namespace

std::unique_ptr<SplitRoutes> SplitRoutes::make(const Topology& t) {
  const std::size_t n = t.nodes.size();
  auto is_switch = [&](int v) { return t.nodes[static_cast<std::size_t>(v)].kind == NodeKind::NetSwitch; };
  auto forwards = [&](int v) { return t.nodes[static_cast<std::size_t>(v)].gpu < 0 && !is_switch(v); };
  // Hosts: what stays joined without the switches. Forwarding parts: what stays joined without GPUs too.
  UnionFind hosts(n), parts(n);
  for (const auto& l : t.links) {
    if (l.a == l.b) return nullptr; // not expected from any loader; keep the general search's answer
    if (!is_switch(l.a) && !is_switch(l.b)) hosts.join(l.a, l.b);
    if (forwards(l.a) && forwards(l.b)) parts.join(l.a, l.b);
  }
  // A part next to two different switches lets a route cross its host: no split then.
  std::vector<int> switch_of_part(n, -1);
  for (const auto& l : t.links)
    for (auto [in, sw] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
      if (!forwards(in) || !is_switch(sw)) continue;
      int& seen = switch_of_part[static_cast<std::size_t>(parts.find(in))];
      if (seen >= 0 && seen != sw) return nullptr;
      seen = sw;
    }
  auto s = std::unique_ptr<SplitRoutes>(new SplitRoutes(t));
  s->host_of_.assign(n, -1);
  std::vector<int> id_of_root(n, -1);
  int count = 0, switches = 0;
  for (std::size_t v = 0; v < n; ++v) {
    if (is_switch(static_cast<int>(v))) {
      ++switches;
      continue;
    }
    int& id = id_of_root[static_cast<std::size_t>(hosts.find(static_cast<int>(v)))];
    if (id < 0) id = count++;
    s->host_of_[v] = id;
  }
  if (count < 2 || switches == 0) return nullptr;
  std::vector<int> host_of_link(t.links.size(), -1);
  for (std::size_t li = 0; li < t.links.size(); ++li) {
    const auto& l = t.links[li];
    host_of_link[li] = std::max(s->host_of_[static_cast<std::size_t>(l.a)], s->host_of_[static_cast<std::size_t>(l.b)]);
  }
  bucket(n, t.links.size(),
         [&](std::size_t li) { return host_of_link[li] >= 0 ? std::array<int, 2>{-1, -1} : std::array<int, 2>{t.links[li].a, t.links[li].b}; },
         s->sw_start_, s->sw_links_);
  s->prune_switch_trees();
  // Every query searches the whole switch core: worth it only while the core is a small part of the graph
  // (the full search keeps one tree per source for all its destinations).
  if (s->core_switches_.size() * 4 > n) return nullptr;
  bucket(static_cast<std::size_t>(count), t.links.size(), [&](std::size_t li) { return std::array<int, 1>{host_of_link[li]}; },
         s->host_start_, s->host_links_);
  bucket(n, t.links.size(), [&](std::size_t li) { return std::array<int, 2>{t.links[li].a, t.links[li].b}; }, s->inc_start_,
         s->inc_links_);
  s->local_.assign(n, -1);
  return s;
}

// Switches whose switch neighbours (distinct) are at most one are peeled off repeatedly, remembering
// that neighbour; what is left is the core. (Every switch of a two-level fat tree with one spine node
// hangs in one tree rooted at the spine.)
void SplitRoutes::prune_switch_trees() {
  const std::size_t n = topo_.nodes.size();
  auto other = [&](int li, int v) { const auto& l = topo_.links[static_cast<std::size_t>(li)]; return l.a == v ? l.b : l.a; };
  std::vector<int> degree(n, 0); // distinct switch neighbours still present
  std::vector<char> gone(n, 0);
  std::vector<int> queue;
  for (std::size_t v = 0; v < n; ++v) {
    if (topo_.nodes[v].kind != NodeKind::NetSwitch) continue;
    std::vector<int> seen;
    for (std::uint32_t i = sw_start_[v]; i < sw_start_[v + 1]; ++i) seen.push_back(other(sw_links_[i], static_cast<int>(v)));
    std::sort(seen.begin(), seen.end());
    degree[v] = static_cast<int>(std::unique(seen.begin(), seen.end()) - seen.begin());
    if (degree[v] <= 1) queue.push_back(static_cast<int>(v));
  }
  up_switch_.assign(n, -1);
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const int v = queue[q];
    gone[static_cast<std::size_t>(v)] = 1;
    for (std::uint32_t i = sw_start_[static_cast<std::size_t>(v)]; i < sw_start_[static_cast<std::size_t>(v) + 1]; ++i) {
      const int w = other(sw_links_[i], v);
      if (gone[static_cast<std::size_t>(w)] || up_switch_[static_cast<std::size_t>(v)] == w) continue;
      up_switch_[static_cast<std::size_t>(v)] = w; // the one neighbour left
      if (--degree[static_cast<std::size_t>(w)] == 1) queue.push_back(w);
    }
  }
  for (std::size_t v = 0; v < n; ++v)
    if (topo_.nodes[v].kind == NodeKind::NetSwitch && !gone[v]) core_switches_.push_back(static_cast<int>(v));
}

// The part for one query: the core switches, the hosts of both ends, the switches from those hosts up to
// the core, the links among them, as local arcs.
void SplitRoutes::gather(int src, int dst) {
  for (int v : nodes_) local_[static_cast<std::size_t>(v)] = -1;
  nodes_.clear();
  auto add_node = [&](int v) {
    if (local_[static_cast<std::size_t>(v)] < 0) local_[static_cast<std::size_t>(v)] = static_cast<int>(nodes_.size()), nodes_.push_back(v);
  };
  add_node(src);
  add_node(dst);
  for (int v : core_switches_) add_node(v);
  std::vector<int> links;
  const int hs = host_of_[static_cast<std::size_t>(src)], hd = host_of_[static_cast<std::size_t>(dst)];
  for (int h : {hs, hd == hs ? -1 : hd})
    if (h >= 0)
      links.insert(links.end(), host_links_.begin() + host_start_[static_cast<std::size_t>(h)],
                   host_links_.begin() + host_start_[static_cast<std::size_t>(h) + 1]);
  for (int li : links) add_node(topo_.links[static_cast<std::size_t>(li)].a), add_node(topo_.links[static_cast<std::size_t>(li)].b);
  // Switches so far: the core, the ends (when switches) and those next to the two hosts; add their chains up.
  for (std::size_t i = 0, known = nodes_.size(); i < known; ++i)
    for (int v = nodes_[i]; topo_.nodes[static_cast<std::size_t>(v)].kind == NodeKind::NetSwitch && up_switch_[static_cast<std::size_t>(v)] >= 0;) {
      v = up_switch_[static_cast<std::size_t>(v)];
      if (local_[static_cast<std::size_t>(v)] >= 0) break;
      add_node(v);
    }
  // Links between two switches of the part, once each (from its end with the lower node id).
  for (int v : nodes_) {
    if (topo_.nodes[static_cast<std::size_t>(v)].kind != NodeKind::NetSwitch) continue;
    for (std::uint32_t i = sw_start_[static_cast<std::size_t>(v)]; i < sw_start_[static_cast<std::size_t>(v) + 1]; ++i) {
      const auto& l = topo_.links[static_cast<std::size_t>(sw_links_[i])];
      const int w = l.a == v ? l.b : l.a;
      if (v < w && local_[static_cast<std::size_t>(w)] >= 0) links.push_back(sw_links_[i]);
    }
  }
  adj_start_.assign(nodes_.size() + 1, 0);
  for (int li : links) {
    const auto& l = topo_.links[static_cast<std::size_t>(li)];
    ++adj_start_[static_cast<std::size_t>(local_[static_cast<std::size_t>(l.a)]) + 1];
    ++adj_start_[static_cast<std::size_t>(local_[static_cast<std::size_t>(l.b)]) + 1];
  }
  for (std::size_t v = 0; v < nodes_.size(); ++v) adj_start_[v + 1] += adj_start_[v];
  arcs_.resize(adj_start_.back());
  std::vector<std::uint32_t> fill(adj_start_.begin(), adj_start_.end() - 1);
  for (int li : links) {
    const auto& l = topo_.links[static_cast<std::size_t>(li)];
    const int a = local_[static_cast<std::size_t>(l.a)], b = local_[static_cast<std::size_t>(l.b)];
    arcs_[fill[static_cast<std::size_t>(a)]++] = {b, Topology::channel(li, false)};
    arcs_[fill[static_cast<std::size_t>(b)]++] = {a, Topology::channel(li, true)};
  }
}

// The widest route's bottleneck (0: unreachable). Only the value is used, and it has no ties.
Bandwidth SplitRoutes::widest(int src, int dst) {
  const int s = local_[static_cast<std::size_t>(src)], d = local_[static_cast<std::size_t>(dst)];
  std::vector<Bandwidth> width(nodes_.size(), 0);
  std::priority_queue<std::pair<Bandwidth, int>> heap;
  width[static_cast<std::size_t>(s)] = std::numeric_limits<Bandwidth>::max();
  heap.emplace(width[static_cast<std::size_t>(s)], s);
  while (!heap.empty()) {
    const auto [w, u] = heap.top();
    heap.pop();
    if (w != width[static_cast<std::size_t>(u)]) continue;
    if (u == d) return w;
    if (u != s && topo_.nodes[static_cast<std::size_t>(nodes_[static_cast<std::size_t>(u)])].gpu >= 0) continue; // GPUs do not forward
    for (std::uint32_t i = adj_start_[static_cast<std::size_t>(u)]; i < adj_start_[static_cast<std::size_t>(u) + 1]; ++i) {
      const Arc& a = arcs_[i];
      const Bandwidth nw = std::min(w, topo_.link_of(a.chan).capacity());
      if (nw > width[static_cast<std::size_t>(a.to)]) width[static_cast<std::size_t>(a.to)] = nw, heap.emplace(nw, a.to);
    }
  }
  return 0;
}

// Lowest latency (x4096, +1 per hop so fewer hops break ties) over channels at least `level` wide,
// as the Router's search does; flags a node reached by two shortest paths through different nodes.
SplitRoutes::Result SplitRoutes::shortest(int src, int dst, Bandwidth level, std::vector<ChannelId>& out) {
  const int s = local_[static_cast<std::size_t>(src)], d = local_[static_cast<std::size_t>(dst)];
  const std::size_t n = nodes_.size();
  std::vector<Time> dist(n, std::numeric_limits<Time>::max());
  std::vector<int> pred(n, -1);
  std::vector<char> ambiguous(n, 0);
  using Entry = std::pair<Time, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  dist[static_cast<std::size_t>(s)] = 0;
  heap.emplace(0, s);
  bool reached = false;
  while (!heap.empty()) {
    const auto [du, u] = heap.top();
    heap.pop();
    if (du != dist[static_cast<std::size_t>(u)]) continue;
    if (u == d) {
      reached = true;
      break;
    }
    if (u != s && topo_.nodes[static_cast<std::size_t>(nodes_[static_cast<std::size_t>(u)])].gpu >= 0) continue;
    for (std::uint32_t i = adj_start_[static_cast<std::size_t>(u)]; i < adj_start_[static_cast<std::size_t>(u) + 1]; ++i) {
      const Arc& a = arcs_[i];
      const auto& l = topo_.link_of(a.chan);
      if (l.capacity() < level) continue;
      const Time nd = du + l.latency * 4096 + 1;
      const auto v = static_cast<std::size_t>(a.to);
      if (nd < dist[v]) {
        dist[v] = nd, pred[v] = u, ambiguous[v] = ambiguous[static_cast<std::size_t>(u)];
        heap.emplace(nd, a.to);
      } else if (nd == dist[v] && pred[v] != u) {
        ambiguous[v] = 1;
      }
    }
  }
  if (!reached) return Result::Unreachable; // cannot happen when the widest search reached dst
  if (ambiguous[static_cast<std::size_t>(d)]) return Result::Ambiguous;
  out.clear();
  for (int cur = d; cur != s; cur = pred[static_cast<std::size_t>(cur)])
    out.push_back(best_channel(nodes_[static_cast<std::size_t>(pred[static_cast<std::size_t>(cur)])], nodes_[static_cast<std::size_t>(cur)], level));
  std::reverse(out.begin(), out.end());
  return Result::Unique;
}

// Among parallel links from `from` to `to` at least `level` wide: the first of the lowest latency in link
// order (the Router's choice). Scans the end with fewer links (a switch may have thousands).
ChannelId SplitRoutes::best_channel(int from, int to, Bandwidth level) const {
  auto degree = [&](int v) { return inc_start_[static_cast<std::size_t>(v) + 1] - inc_start_[static_cast<std::size_t>(v)]; };
  const int scan = degree(from) <= degree(to) ? from : to;
  ChannelId best = UINT32_MAX;
  for (std::uint32_t i = inc_start_[static_cast<std::size_t>(scan)]; i < inc_start_[static_cast<std::size_t>(scan) + 1]; ++i) {
    const int li = inc_links_[i];
    const auto& l = topo_.links[static_cast<std::size_t>(li)];
    const bool forward = l.a == from && l.b == to, backward = l.b == from && l.a == to;
    if ((!forward && !backward) || l.capacity() < level) continue;
    const ChannelId c = Topology::channel(li, backward);
    if (best == UINT32_MAX || l.latency < topo_.link_of(best).latency) best = c;
  }
  return best;
}

SplitRoutes::Result SplitRoutes::route(int src, int dst, std::vector<ChannelId>& out) {
  gather(src, dst);
  const Bandwidth level = widest(src, dst);
  if (level == 0) return Result::Unreachable;
  return shortest(src, dst, level, out);
}

} // namespace ccsim::topology
