#include "sim/topology/routing.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/property_map/function_property_map.hpp>

#include "sim/core/error.hpp"
#include "sim/topology/split_routes.hpp"

namespace ccsim::topology {

namespace {
std::uint64_t key(int a, int b) { return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b); }
} // namespace

// One directed Boost edge per channel; the edge property is the channel id.
struct Router::Graph {
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                  boost::property<boost::edge_index_t, ChannelId>>;
  G g;
  explicit Graph(const Topology& t) : g(t.nodes.size()) {
    for (std::size_t i = 0; i < t.links.size(); ++i) {
      const auto& l = t.links[i];
      boost::add_edge(static_cast<std::size_t>(l.a), static_cast<std::size_t>(l.b),
                      Topology::channel(static_cast<int>(i), false), g);
      boost::add_edge(static_cast<std::size_t>(l.b), static_cast<std::size_t>(l.a),
                      Topology::channel(static_cast<int>(i), true), g);
    }
  }
};

// Edge filter for the route searches: channels at least `level` wide whose tail may forward (the source
// itself, or any non-GPU node). A plain struct, not std::function: filtered_graph copies it on every
// out_edges call, and a heap-allocating copy there dominated large-cluster runs.
template <typename Graph>
struct RouteFilter {
  const Topology* topo = nullptr;
  const Graph* g = nullptr;
  int src = -1;
  Bandwidth level = 0;
  template <typename E>
  bool operator()(const E& e) const {
    const auto v = boost::source(e, *g);
    if (static_cast<int>(v) != src && topo->nodes[v].gpu >= 0) return false;
    return level == 0 || topo->link_of(boost::get(boost::edge_index, *g, e)).capacity() >= level;
  }
};

struct Router::Tree {
  std::vector<Bandwidth> width;
  std::map<Bandwidth, std::vector<std::uint32_t>> pred; // level -> predecessor vertex of each node
  std::size_t bytes() const { return width.size() * sizeof(Bandwidth) + pred.size() * width.size() * sizeof(std::uint32_t); }
};

Router::Router(const Topology& t, std::size_t tree_budget) : Router(t, {}, tree_budget) {}

Router::Router(const Topology& t, std::span<const Topology::RouteOverride> extra, std::size_t tree_budget)
    : topo_(t), tree_budget_(tree_budget) {
  const bool overridden = !t.route_overrides.empty() || !extra.empty();
  if (const auto* f = t.crossbar_formula(); f && !overridden) {
    crossbar_gpus_ = static_cast<std::uint32_t>(f->gpus); // GPU node i has link i: routes need no table
    return;
  }
  if (const auto* f = t.torus_formula(); f && !overridden) {
    torus_ = f;
    std::uint32_t slots = 1;
    while (slots < static_cast<std::uint32_t>(f->gpus()) && slots < (1u << 16)) slots *= 2;
    torus_hits_.resize(slots);
    torus_hit_mask_ = slots - 1;
    return;
  }
  add_overrides(t.route_overrides, extra);
  if (t.structure.kind == Structure::Kind::Crossbar) {
    gpu_uplink_.assign(t.nodes.size(), -1);
    for (std::size_t li = 0; li < t.links.size(); ++li) {
      const auto& l = t.links[li];
      for (int end : {l.a, l.b})
        if (t.nodes[static_cast<std::size_t>(end)].kind == NodeKind::Gpu) {
          if (gpu_uplink_[static_cast<std::size_t>(end)] >= 0) fail("{}: crossbar GPU '{}' has more than one link", t.origin, t.nodes[static_cast<std::size_t>(end)].name);
          gpu_uplink_[static_cast<std::size_t>(end)] = static_cast<int>(li);
        }
    }
    for (int g = 0; g < t.num_gpus(); ++g)
      if (gpu_uplink_[static_cast<std::size_t>(t.gpu_node(g))] < 0) fail("{}: crossbar GPU {} has no link", t.origin, g);
    // The channels of each GPU's link towards the switch and back, so a route is two loads.
    crossbar_up_.assign(t.nodes.size(), kNoChannel);
    crossbar_down_.assign(t.nodes.size(), kNoChannel);
    for (std::size_t v = 0; v < t.nodes.size(); ++v)
      if (const int li = gpu_uplink_[v]; li >= 0) {
        const bool a_side = t.links[static_cast<std::size_t>(li)].a == static_cast<int>(v);
        crossbar_up_[v] = Topology::channel(li, !a_side);
        crossbar_down_[v] = Topology::channel(li, a_side);
      }
    // Routes of the generated layout: GPU node v's link v goes from v (channel 2v up, 2v + 1 down).
    std::uint32_t n = 0;
    while (n < t.nodes.size() && crossbar_up_[n] == 2 * n && crossbar_down_[n] == 2 * n + 1) ++n;
    if (overrides_.empty() && n == static_cast<std::uint32_t>(t.num_gpus())) crossbar_gpus_ = n;
  } else if (t.structure.kind == Structure::Kind::Torus) {
    const auto& dims = t.structure.dims;
    const int D = static_cast<int>(dims.size());
    long total = 1;
    for (int d : dims) total = d < 1 || total > t.num_gpus() ? -1 : total * d; // no extent < 1, no overflow
    if (D == 0 || total != t.num_gpus()) fail("{}: torus dims do not match the {} GPUs", t.origin, t.num_gpus());
    torus_link_.assign(static_cast<std::size_t>(t.num_gpus()) * 2 * static_cast<std::size_t>(D), UINT32_MAX);
    torus_memo_.resize(static_cast<std::size_t>(t.num_gpus()));
    // Identify each link by the coordinate difference of its two GPUs.
    std::vector<int> stride(static_cast<std::size_t>(D), 1);
    for (int d = D - 2; d >= 0; --d) stride[static_cast<std::size_t>(d)] = stride[static_cast<std::size_t>(d) + 1] * dims[static_cast<std::size_t>(d) + 1];
    for (std::size_t li = 0; li < t.links.size(); ++li) {
      const auto& l = t.links[li];
      const int ga = t.nodes[static_cast<std::size_t>(l.a)].gpu, gb = t.nodes[static_cast<std::size_t>(l.b)].gpu;
      if (ga < 0 || gb < 0) fail("{}: torus links must join GPUs", t.origin);
      for (int d = 0; d < D; ++d) {
        const int sd = stride[static_cast<std::size_t>(d)], n = dims[static_cast<std::size_t>(d)];
        const int ca = (ga / sd) % n, cb = (gb / sd) % n;
        if (ga - ca * sd != gb - cb * sd) continue; // differ in another coordinate too
        if ((ca + 1) % n == cb) {
          torus_link_[static_cast<std::size_t>(ga) * 2 * D + 2 * d] = Topology::channel(static_cast<int>(li), false);
          torus_link_[static_cast<std::size_t>(gb) * 2 * D + 2 * d + 1] = Topology::channel(static_cast<int>(li), true);
        }
        if ((cb + 1) % n == ca) { // both hold when n == 2: the single link serves + and -
          torus_link_[static_cast<std::size_t>(gb) * 2 * D + 2 * d] = Topology::channel(static_cast<int>(li), true);
          torus_link_[static_cast<std::size_t>(ga) * 2 * D + 2 * d + 1] = Topology::channel(static_cast<int>(li), false);
        }
      }
    }
    for (std::size_t i = 0; i < torus_link_.size(); ++i)
      if (torus_link_[i] == UINT32_MAX && dims[(i / 2) % static_cast<std::size_t>(D)] > 1)
        fail("{}: torus is missing a neighbour link of GPU {}", t.origin, i / (2 * static_cast<std::size_t>(D)));
  }
}

Router::Router(Router& base, std::span<const Topology::RouteOverride> extra) : topo_(base.topo_), base_(&base), tree_budget_(0) {
  add_overrides({}, extra);
}

Router::~Router() = default;

// Explicit paths as channels, `then` winning over `first` for a pair. A hop takes the widest link between its two
// nodes, the first in link order among equals: one pass over the links for the hops' node pairs only, not one per
// hop (PXN's overrides on 192 GB200 ranks are ~36,000 paths; a pass per hop was a sixth of a calibration's time,
// scripts/BENCHMARKS.md "CI time, eighteenth session"), nor a map of every node pair a link joins.
void Router::add_overrides(std::span<const Topology::RouteOverride> first, std::span<const Topology::RouteOverride> then) {
  const Topology& t = topo_;
  if (first.empty() && then.empty()) return;
  std::unordered_map<std::uint64_t, int> widest_between; // hop's node pair (lower id first) -> link, -1: none yet
  for (auto list : {first, then})
    for (const auto& ro : list)
      for (std::size_t i = 0; i + 1 < ro.path.size(); ++i)
        widest_between.try_emplace(key(std::min(ro.path[i], ro.path[i + 1]), std::max(ro.path[i], ro.path[i + 1])), -1);
  for (std::size_t li = 0; li < t.links.size(); ++li) {
    const auto& l = t.links[li];
    const auto it = widest_between.find(key(std::min(l.a, l.b), std::max(l.a, l.b)));
    if (it == widest_between.end()) continue;
    if (it->second < 0 || l.capacity() > t.links[static_cast<std::size_t>(it->second)].capacity()) it->second = static_cast<int>(li);
  }
  const auto add_override = [&](const Topology::RouteOverride& ro) {
    std::vector<ChannelId> chans;
    for (std::size_t i = 0; i + 1 < ro.path.size(); ++i) {
      const int a = ro.path[i], b = ro.path[i + 1];
      const int best = widest_between.at(key(std::min(a, b), std::max(a, b)));
      if (best < 0)
        fail("{}: route override: no link between '{}' and '{}'", t.origin, t.nodes[static_cast<std::size_t>(a)].name,
             t.nodes[static_cast<std::size_t>(b)].name);
      chans.push_back(Topology::channel(best, t.links[static_cast<std::size_t>(best)].a != a));
    }
    overrides_[key(ro.src, ro.dst)] = std::move(chans);
  };
  for (const auto& ro : first) add_override(ro);
  for (const auto& ro : then) add_override(ro);
}

// Counting sort of link ends by node: each node's links stay in link order. Built on first use (a
// generated crossbar's GPU-to-GPU routes never need it).
void Router::build_incident() const {
  const Topology& t = topo_;
  incident_start_.assign(t.nodes.size() + 1, 0);
  for (const auto& l : t.links) ++incident_start_[static_cast<std::size_t>(l.a) + 1], ++incident_start_[static_cast<std::size_t>(l.b) + 1];
  for (std::size_t v = 0; v < t.nodes.size(); ++v) incident_start_[v + 1] += incident_start_[v];
  incident_links_.resize(2 * t.links.size());
  std::vector<std::uint32_t> fill(incident_start_.begin(), incident_start_.end() - 1);
  for (std::size_t li = 0; li < t.links.size(); ++li) {
    incident_links_[fill[static_cast<std::size_t>(t.links[li].a)]++] = static_cast<int>(li);
    incident_links_[fill[static_cast<std::size_t>(t.links[li].b)]++] = static_cast<int>(li);
  }
}

std::span<const ChannelId> Router::route_general(int src, int dst) {
  if (src == dst) return {};
  if (torus_ && static_cast<unsigned>(src) < static_cast<unsigned>(torus_->gpus()) &&
      static_cast<unsigned>(dst) < static_cast<unsigned>(torus_->gpus()))
    return torus_formula_route(src, dst);
  if (std::span<const ChannelId> r; recall(src, dst, r)) return r;
  if (!overrides_.empty()) {
    auto it = overrides_.find(key(src, dst));
    if (it != overrides_.end()) {
      remember(src, dst, it->second);
      return it->second;
    }
  }
  if (base_) {
    const auto r = base_->route(src, dst);
    // On a general graph the base's routes stay where they are stored (its overrides, route and GPU-pair caches), so
    // this router's memo may point at them; a generated crossbar's or torus's may be its scratch: asked again.
    if (base_->stable_routes()) remember(src, dst, r);
    return r;
  }
  const bool gpus = topo_.nodes[static_cast<std::size_t>(src)].gpu >= 0 && topo_.nodes[static_cast<std::size_t>(dst)].gpu >= 0;
  if (gpus && topo_.structure.kind == Structure::Kind::Crossbar) {
    pair_ = {crossbar_up_[static_cast<std::size_t>(src)], crossbar_down_[static_cast<std::size_t>(dst)]};
    return pair_;
  }
  if (gpus && topo_.structure.kind == Structure::Kind::Torus) {
    auto& memo = torus_memo_[static_cast<std::size_t>(topo_.nodes[static_cast<std::size_t>(src)].gpu)];
    if (memo.dst != dst) {
      torus_route(src, dst);
      memo.dst = dst;
      memo.route = scratch_;
    }
    return memo.route;
  }
  const auto r = graph_route(src, dst);
  remember(src, dst, r);
  return r;
}

// The memo's other ways (route() looked at the newest).
bool Router::recall(int src, int dst, std::span<const ChannelId>& out) const {
  if (memo_line_.empty()) return false;
  const std::uint32_t l = memo_line_[static_cast<std::size_t>(src)];
  if (l == kNoLine) return false;
  const MemoLine& m = memo_lines_[l];
  for (int w = 1; w < kMemoWays; ++w)
    if (m.dst[static_cast<std::size_t>(w)] == dst) {
      out = {m.data[static_cast<std::size_t>(w)], m.size[static_cast<std::size_t>(w)]};
      return true;
    }
  return false;
}

// Newest first: the oldest way is dropped.
void Router::remember(int src, int dst, std::span<const ChannelId> r) {
  if (memo_line_.empty()) memo_line_.assign(topo_.nodes.size(), kNoLine);
  std::uint32_t& l = memo_line_[static_cast<std::size_t>(src)];
  if (l == kNoLine) l = static_cast<std::uint32_t>(memo_lines_.size()), memo_lines_.emplace_back();
  MemoLine& m = memo_lines_[l];
  for (std::size_t w = kMemoWays - 1; w > 0; --w) m.dst[w] = m.dst[w - 1], m.size[w] = m.size[w - 1], m.data[w] = m.data[w - 1];
  m.dst[0] = dst, m.size[0] = static_cast<std::uint32_t>(r.size()), m.data[0] = r.data();
}

// Dimension-order routing, shortest way round each ring (ties go the + way).
void Router::torus_route(int src, int dst) {
  scratch_.clear();
  const auto& dims = topo_.structure.dims;
  const int D = static_cast<int>(dims.size());
  int cur = topo_.nodes[static_cast<std::size_t>(src)].gpu;
  const int target = topo_.nodes[static_cast<std::size_t>(dst)].gpu;
  int stride = 1;
  for (int d = D - 1; d >= 0; --d) {
    const int n = dims[static_cast<std::size_t>(d)];
    const int c = (cur / stride) % n, tc = (target / stride) % n;
    const int fwd = ((tc - c) % n + n) % n;
    const bool plus = fwd <= n - fwd;
    for (int s = 0; s < (plus ? fwd : n - fwd); ++s) {
      const ChannelId ch = torus_link_[static_cast<std::size_t>(cur) * 2 * D + 2 * d + (plus ? 0 : 1)];
      scratch_.push_back(ch);
      cur = topo_.nodes[static_cast<std::size_t>(topo_.channel_to(ch))].gpu;
    }
    stride *= n;
  }
}

std::span<const ChannelId> Router::torus_formula_route(int src, int dst) {
  TorusHit& hit = torus_hits_[static_cast<std::uint32_t>(src) & torus_hit_mask_];
  if (hit.src == src && hit.dst == dst) return {hit.hop.data(), hit.len};
  scratch_.clear();
  torus_->route(src, dst, scratch_);
  if (scratch_.size() > hit.hop.size()) return scratch_;
  hit.src = src, hit.dst = dst, hit.len = static_cast<std::uint32_t>(scratch_.size());
  std::copy(scratch_.begin(), scratch_.end(), hit.hop.begin());
  return {hit.hop.data(), hit.len};
}

std::span<const ChannelId> Router::graph_route(int src, int dst) {
  if (topo_.nodes[static_cast<std::size_t>(src)].gpu >= 0 && topo_.nodes[static_cast<std::size_t>(dst)].gpu >= 0) {
    auto pit = gpu_pairs_.find(key(src, dst));
    if (pit == gpu_pairs_.end()) pit = gpu_pairs_.emplace(key(src, dst), gpu_pair_route(src, dst)).first;
    if (!pit->second.empty()) return pit->second;
  }
  const auto* r = generic_route(src, dst);
  if (!r)
    fail("{}: no route from '{}' to '{}'", topo_.origin, topo_.nodes[static_cast<std::size_t>(src)].name,
         topo_.nodes[static_cast<std::size_t>(dst)].name);
  return *r;
}

// Per source: the widest-path bottleneck to every node, then, per bottleneck value that a requested
// destination needs, a latency-then-hops shortest-path tree restricted to channels at least that wide.
// (A single lexicographic Dijkstra would be wrong: (bottleneck, latency) pairs do not combine
// monotonically.) Only requested routes are materialised, and trees are evicted beyond a memory budget,
// so a 4096-GPU cluster ring computes 4096 small trees instead of storing 37 M paths.

Router::Tree& Router::tree_for(int src) {
  using G = Graph::G;
  if (!graph_) graph_ = std::make_unique<Graph>(topo_);
  if (auto it = trees_.find(src); it != trees_.end()) return *it->second;
  const G& g = graph_->g;
  const std::size_t n = boost::num_vertices(g);
  auto chan = boost::get(boost::edge_index, g);
  auto capacity = [&](const G::edge_descriptor& e) { return topo_.link_of(chan[e]).capacity(); };
  // GPUs do not forward in hardware: a generic route may start at a GPU but not pass through one.
  boost::filtered_graph<G, RouteFilter<G>> ng(g, RouteFilter<G>{&topo_, &g, src, 0});
  auto tree = std::make_unique<Tree>();
  tree->width.assign(n, 0);
  std::vector<std::size_t> pred(n);
  auto wmap = boost::make_function_property_map<G::edge_descriptor>(capacity);
  boost::dijkstra_shortest_paths(ng, static_cast<std::size_t>(src),
                                 boost::predecessor_map(pred.data())
                                     .distance_map(tree->width.data())
                                     .weight_map(wmap)
                                     .distance_compare(std::greater<Bandwidth>())
                                     .distance_combine([](Bandwidth a, Bandwidth b) { return std::min(a, b); })
                                     .distance_inf(Bandwidth{0})
                                     .distance_zero(std::numeric_limits<Bandwidth>::max()));
  // Bounded memory: drop the oldest trees (their requested routes stay cached).
  tree_bytes_ += tree->bytes();
  while (tree_bytes_ > tree_budget_ && !tree_order_.empty()) {
    auto old = trees_.find(tree_order_.front());
    tree_bytes_ -= old->second->bytes();
    trees_.erase(old);
    tree_order_.pop_front();
  }
  tree_order_.push_back(src);
  return *trees_.emplace(src, std::move(tree)).first->second;
}

const std::vector<ChannelId>* Router::generic_route(int src, int dst) {
  using G = Graph::G;
  if (auto it = cache_.find(key(src, dst)); it != cache_.end()) return &it->second;
  if (!split_checked_) split_ = SplitRoutes::make(topo_), split_checked_ = true;
  if (split_) {
    std::vector<ChannelId> path;
    const auto found = split_->route(src, dst, path);
    if (found == SplitRoutes::Result::Unreachable) return nullptr;
    if (found == SplitRoutes::Result::Unique) return &(cache_[key(src, dst)] = std::move(path));
  }
  Tree& tree = tree_for(src);
  const Bandwidth level = tree.width[static_cast<std::size_t>(dst)];
  if (level == 0) return nullptr;
  const G& g = graph_->g;
  auto chan = boost::get(boost::edge_index, g);
  auto capacity = [&](const G::edge_descriptor& e) { return topo_.link_of(chan[e]).capacity(); };
  auto pit = tree.pred.find(level);
  if (pit == tree.pred.end()) {
    const std::size_t n = boost::num_vertices(g);
    boost::filtered_graph<G, RouteFilter<G>> fg(g, RouteFilter<G>{&topo_, &g, src, level});
    // Latency in ps, scaled so one extra hop breaks ties between equal-latency paths.
    auto cost = boost::make_function_property_map<G::edge_descriptor>(
        [&](const G::edge_descriptor& e) { return topo_.link_of(chan[e]).latency * 4096 + 1; });
    std::vector<Time> dist(n);
    std::vector<std::size_t> p(n);
    boost::dijkstra_shortest_paths(fg, static_cast<std::size_t>(src),
                                   boost::predecessor_map(p.data()).distance_map(dist.data()).weight_map(cost));
    std::vector<std::uint32_t> compact(p.begin(), p.end());
    tree_bytes_ += n * sizeof(std::uint32_t);
    pit = tree.pred.emplace(level, std::move(compact)).first;
  }
  std::vector<ChannelId> path;
  for (std::size_t cur = static_cast<std::size_t>(dst); cur != static_cast<std::size_t>(src); cur = pit->second[cur]) {
    const std::size_t from = pit->second[cur];
    if (from == cur) return nullptr; // unreachable at this level (cannot happen when width > 0)
    // The lowest-latency qualifying channel from `from` to `cur` (a file may list parallel links).
    ChannelId best = UINT32_MAX;
    for (auto [ei, ee] = boost::out_edges(from, g); ei != ee; ++ei)
      if (boost::target(*ei, g) == cur && capacity(*ei) >= level &&
          (best == UINT32_MAX || topo_.link_of(chan[*ei]).latency < topo_.link_of(best).latency))
        best = chan[*ei];
    path.push_back(best);
  }
  std::reverse(path.begin(), path.end());
  return &(cache_[key(src, dst)] = std::move(path));
}

// Best direct link between two nodes (widest, then lowest latency), as a channel from a to b.
std::optional<ChannelId> Router::direct(int a, int b) const {
  std::optional<ChannelId> best;
  for (int li : incident(a)) {
    const auto& l = topo_.links[static_cast<std::size_t>(li)];
    if (l.a != b && l.b != b) continue;
    const ChannelId c = Topology::channel(li, l.a != a);
    if (!best || l.capacity() > topo_.link_of(*best).capacity() ||
        (l.capacity() == topo_.link_of(*best).capacity() && l.latency < topo_.link_of(*best).latency))
      best = c;
  }
  return best;
}

// GPU to GPU, as NCCL does it: a direct link if there is one (P2P over NVLink); otherwise the better
// of the generic route (PCIe, CPU, NIC, switches) and a two-link route through one intermediate GPU
// (NCCL's "NVB" path): widest first, then lowest latency, then fewest hops.
void Router::set_relay_gpus(const std::vector<int>& gpus) {
  relay_ok_.clear();
  if (!gpus.empty()) {
    relay_ok_.assign(static_cast<std::size_t>(topo_.num_gpus()), 0);
    for (int g : gpus) relay_ok_.at(static_cast<std::size_t>(g)) = 1;
  }
  gpu_pairs_.clear();
  memo_line_.clear(); // the memo may point into the routes just dropped
  memo_lines_.clear();
}

std::vector<ChannelId> Router::gpu_pair_route(int src, int dst) {
  if (auto d = direct(src, dst)) return {*d};
  std::vector<ChannelId> best;
  RouteInfo best_info;
  auto consider = [&](std::vector<ChannelId> r) {
    const RouteInfo ri = info(r);
    if (best.empty() || ri.bottleneck > best_info.bottleneck ||
        (ri.bottleneck == best_info.bottleneck &&
         (ri.latency < best_info.latency || (ri.latency == best_info.latency && ri.hops < best_info.hops)))) {
      best = std::move(r);
      best_info = ri;
    }
  };
  if (const auto* generic = generic_route(src, dst)) consider(*generic);
  for (int li : incident(src)) {
    const auto& l = topo_.links[static_cast<std::size_t>(li)];
    const int k = l.a == src ? l.b : l.a;
    const int relay = topo_.nodes[static_cast<std::size_t>(k)].gpu;
    if (relay < 0 || k == dst || (!relay_ok_.empty() && !relay_ok_[static_cast<std::size_t>(relay)])) continue;
    auto first = direct(src, k), second = direct(k, dst);
    if (first && second && *first == Topology::channel(li, l.a != src)) consider({*first, *second});
  }
  return best;
}

namespace {
// Records, for every node the breadth-first search reaches, the channel it was first reached by.
template <typename Channels>
struct EnteredBy : boost::default_bfs_visitor {
  Channels chan;
  std::vector<ChannelId>* via;
  template <typename E, typename G>
  void tree_edge(const E& e, const G& g) const { (*via)[boost::target(e, g)] = chan[e]; }
};
} // namespace

std::vector<ChannelId> Router::fewest_hops(int src, int dst, const std::function<bool(const Link&)>& usable) {
  using G = Graph::G;
  if (base_) return base_->fewest_hops(src, dst, usable);
  if (src == dst) return {};
  if (!graph_) graph_ = std::make_unique<Graph>(topo_);
  const G& g = graph_->g;
  const auto chan = boost::get(boost::edge_index, g);
  // RouteFilter keeps the no-forwarding-through-a-GPU rule; `usable` narrows the links.
  const RouteFilter<G> no_relay{&topo_, &g, src, 0};
  const std::function<bool(const G::edge_descriptor&)> keep = [&](const G::edge_descriptor& e) {
    return no_relay(e) && usable(topo_.link_of(chan[e]));
  };
  boost::filtered_graph<G, std::function<bool(const G::edge_descriptor&)>> fg(g, keep);
  std::vector<ChannelId> via(boost::num_vertices(g), kNoChannel);
  boost::breadth_first_search(fg, static_cast<std::size_t>(src), boost::visitor(EnteredBy<decltype(chan)>{{}, chan, &via}));
  std::vector<ChannelId> route;
  for (int n = dst; n != src && via[static_cast<std::size_t>(n)] != kNoChannel; n = topo_.channel_from(via[static_cast<std::size_t>(n)]))
    route.push_back(via[static_cast<std::size_t>(n)]);
  if (route.empty() || topo_.channel_from(route.back()) != src) return {};
  std::reverse(route.begin(), route.end());
  return route;
}

RouteInfo Router::info(std::span<const ChannelId> r) const {
  RouteInfo ri;
  ri.bottleneck = r.empty() ? 0 : std::numeric_limits<Bandwidth>::max();
  for (ChannelId c : r) {
    ri.bottleneck = std::min(ri.bottleneck, topo_.channel_capacity(c));
    ri.latency += topo_.channel_latency(c);
    ++ri.hops;
  }
  return ri;
}

} // namespace ccsim::topology
