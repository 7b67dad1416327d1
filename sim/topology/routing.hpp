// Routes between nodes, as lists of directed channels.
// General graphs: the widest path (highest bottleneck bandwidth), then the lowest summed latency,
// then the fewest hops, computed with Boost.Graph and cached per source. GPUs do not forward in
// hardware, so generic routes never pass through one; between two GPUs a direct link wins, else the
// better of the generic route and a route through one intermediate GPU (NCCL's NVB path). Crossbars and tori route on
// demand (up/down, dimension order) so a million-GPU crossbar needs no route table. Explicit
// overrides from the topology file win over both.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

class SplitRoutes;

struct RouteInfo {
  Bandwidth bottleneck = 0; // min channel capacity along the route
  Time latency = 0;         // summed link latency
  int hops = 0;
};

class Router {
 public:
  // `tree_budget`: bytes of per-source route trees kept for general graphs (older ones are recomputed if needed).
  explicit Router(const Topology& t, std::size_t tree_budget = std::size_t{256} << 20);
  // With `extra` route overrides besides the drawing's own (taken as if they were in t.route_overrides, later
  // ones winning), without a copy of the topology: a cluster's Topology is megabytes, an override a few nodes.
  Router(const Topology& t, std::span<const Topology::RouteOverride> extra, std::size_t tree_budget = std::size_t{256} << 20);
  // The same routes as Router(base.topology(), extra) when `base` is a plain Router(t) (no relay GPUs set): `extra`
  // answered here, every other pair asked of `base`, so its route trees and caches serve both (a ring's router on a
  // cluster computed its own trees, up to its own 256 MiB budget, for routes the drawn router already had). `base`
  // must outlive this router; its relay GPUs (set_relay_gpus) apply to the pairs it answers, and are not to be set
  // again while this router lives (this router's memo may point at the base's GPU-pair routes).
  Router(Router& base, std::span<const Topology::RouteOverride> extra);
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // Channels from node `src` to node `dst` (empty when equal). The span stays valid until the next call.
  // Throws Error when dst cannot be reached from src.
  std::span<const ChannelId> route(int src, int dst) {
    // Generated crossbar, GPU to GPU: up GPU src's link (link src), down GPU dst's, computed without a table.
    if (static_cast<std::uint32_t>(src) < crossbar_gpus_ && static_cast<std::uint32_t>(dst) < crossbar_gpus_ && src != dst) {
      pair_ = {2 * static_cast<ChannelId>(src), 2 * static_cast<ChannelId>(dst) + 1};
      return pair_;
    }
    if (!memo_line_.empty()) { // graphs: a ring asks each source for the same route again and again
      if (const std::uint32_t l = memo_line_[static_cast<std::size_t>(src)]; l != kNoLine) {
        const MemoLine& m = memo_lines_[l];
        if (m.dst[0] == dst) return {m.data[0], m.size[0]};
      }
    }
    return route_general(src, dst);
  }
  RouteInfo info(std::span<const ChannelId> r) const;
  const Topology& topology() const { return topo_; }
  // The fewest-hops route from `src` to `dst` over the links `usable` accepts, forwarding through no GPU
  // (breadth first, ties to the lower link id), uncached; empty when there is none. For searches that see
  // less of the drawing than the router (NCCL's topology has no link past a NIC: graph.cpp).
  std::vector<ChannelId> fewest_hops(int src, int dst, const std::function<bool(const Link&)>& usable);
  // The links at node v, in link order.
  std::span<const int> incident(int v) const {
    if (base_) return base_->incident(v);
    if (incident_start_.empty()) build_incident();
    const auto i = static_cast<std::size_t>(v);
    return {incident_links_.data() + incident_start_[i], incident_start_[i + 1] - incident_start_[i]};
  }
  // Only these GPUs (indices) may relay a GPU-to-GPU route (NCCL's NVB path): NCCL cannot forward through a
  // GPU outside the communicator. Empty: any GPU may (the default). Forgets the GPU-pair routes chosen so far.
  void set_relay_gpus(const std::vector<int>& gpus);

 private:
  std::span<const ChannelId> route_general(int src, int dst);
  bool recall(int src, int dst, std::span<const ChannelId>& out) const;
  void remember(int src, int dst, std::span<const ChannelId> r);
  void torus_route(int src, int dst);
  std::span<const ChannelId> graph_route(int src, int dst);
  struct Tree;
  Tree& tree_for(int src);
  const std::vector<ChannelId>* generic_route(int src, int dst); // nullptr: unreachable
  std::optional<ChannelId> direct(int a, int b) const;
  std::vector<ChannelId> gpu_pair_route(int src, int dst);
  void add_overrides(std::span<const Topology::RouteOverride> first, std::span<const Topology::RouteOverride> then);
  // Every route this router hands out stays valid while it lives (a general graph: no crossbar or torus scratch).
  bool stable_routes() const { return base_ ? base_->stable_routes() : crossbar_gpus_ == 0 && !torus_ && topo_.structure.kind == Structure::Kind::General; }

  const Topology& topo_;
  Router* base_ = nullptr; // Router(base, extra): answers every pair outside overrides_
  std::vector<ChannelId> scratch_;
  std::vector<int> gpu_uplink_;   // crossbar: link id of each GPU node's single link (-1 if not a GPU)
  static constexpr ChannelId kNoChannel = UINT32_MAX;
  std::vector<ChannelId> crossbar_up_, crossbar_down_; // crossbar: each GPU node's channel to / from the switch
  std::array<ChannelId, 2> pair_{};                    // the last crossbar route
  std::uint32_t crossbar_gpus_ = 0; // crossbar whose GPU node i has link i (as generated), no overrides: GPU count
  std::vector<ChannelId> torus_link_; // torus: [gpu * 2D + 2d + (0:+,1:-)] -> channel to the neighbour
  struct TorusMemo {
    int dst = -1;
    std::vector<ChannelId> route;
  };
  std::vector<TorusMemo> torus_memo_; // torus: each source GPU's last route (a ring asks for the same one 2(p-1) times)
  // A generated torus kept as its formula, without overrides: routes by arithmetic, no per-GPU table. Short
  // routes are remembered in a direct-mapped cache by source GPU (2 MiB at most; a ring asks for the same
  // route 2(p-1) times); longer ones are computed on each request.
  const TorusFormula* torus_ = nullptr;
  struct TorusHit {
    std::int32_t src = 0, dst = 0; // src == dst: empty slot
    std::uint32_t len = 0;
    std::array<ChannelId, 5> hop{};
  };
  std::vector<TorusHit> torus_hits_;
  std::uint32_t torus_hit_mask_ = 0;
  std::span<const ChannelId> torus_formula_route(int src, int dst);
  // General graphs and overrides: each source node's last few routes (newest first), pointing into overrides_,
  // cache_ or gpu_pairs_, whose vectors never move once stored. A line (one cache line) only for a source that
  // asked for a route; memo_line_ (one index per node) is made on the first such route.
  static constexpr int kMemoWays = 4; // a tree's parent and children, a ring's neighbours
  static constexpr std::uint32_t kNoLine = UINT32_MAX;
  struct MemoLine {
    std::array<int, kMemoWays> dst{-1, -1, -1, -1};
    std::array<std::uint32_t, kMemoWays> size{};
    std::array<const ChannelId*, kMemoWays> data{};
  };
  std::vector<std::uint32_t> memo_line_;
  std::vector<MemoLine> memo_lines_;
  std::unordered_map<std::uint64_t, std::vector<ChannelId>> overrides_;
  // General graphs: routes cached per requested (src, dst) node pair; per-source trees under a memory budget.
  std::unordered_map<std::uint64_t, std::vector<ChannelId>> cache_;
  std::unordered_map<int, std::unique_ptr<Tree>> trees_;
  std::deque<int> tree_order_;
  std::size_t tree_bytes_ = 0, tree_budget_;
  std::unordered_map<std::uint64_t, std::vector<ChannelId>> gpu_pairs_;
  std::vector<char> relay_ok_; // per GPU index; empty: every GPU may relay
  // Links at each node, flat: node v's are incident_links_[incident_start_[v] .. incident_start_[v + 1]) (one
  // small vector per node cost a million allocations on a million-GPU crossbar); built on first use.
  mutable std::vector<std::uint32_t> incident_start_;
  mutable std::vector<int> incident_links_;
  void build_incident() const;
  struct Graph;
  std::unique_ptr<Graph> graph_;
  // Hosts that meet only at network switches: generic routes searched on the two hosts and the switches
  // (split_routes.hpp), made on the first generic route.
  std::unique_ptr<SplitRoutes> split_;
  bool split_checked_ = false;
};

} // namespace ccsim::topology
