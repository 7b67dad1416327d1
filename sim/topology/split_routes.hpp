// Exact routes on topologies made of hosts that meet only at network switches (clusters): a route between
// two nodes can only pass through their own hosts and the switches, so it is searched on that small part of
// the graph instead of from scratch over every host (which made a 16,384-GPU cluster cost a full-graph
// search per GPU). Used by Router for its generic (widest, then lowest-latency, then fewest-hop) routes.
//
// Why the answer is the Router's own: a host no route can cross (no component of its forwarding nodes, i.e.
// non-GPU nodes, touches two different switches) cannot lie on a route between two other hosts, so the
// route's width and its shortest paths are the same on the part. When the shortest path there is unique,
// every correct search, Boost's included, returns it; when it is not, route() says so and the Router falls
// back to its full search, whose tie-breaking then decides.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

class SplitRoutes {
 public:
  // nullptr when the topology has no such split: no network switch, fewer than two hosts, or a host a
  // route could cross.
  static std::unique_ptr<SplitRoutes> make(const Topology& t);

  enum class Result { Unreachable, Unique, Ambiguous };
  // The widest, then lowest-latency-then-fewest-hops route from node src to node dst (src != dst) into
  // `out`, with the Router's rules (only the source may be a GPU that forwards; among parallel links the
  // first of the lowest latency in link order). Ambiguous: several shortest paths, `out` is unspecified.
  Result route(int src, int dst, std::vector<ChannelId>& out);

 private:
  explicit SplitRoutes(const Topology& t) : topo_(t) {}
  void prune_switch_trees();
  void gather(int src, int dst);
  Bandwidth widest(int src, int dst);
  Result shortest(int src, int dst, Bandwidth level, std::vector<ChannelId>& out);
  ChannelId best_channel(int from, int to, Bandwidth level) const;

  const Topology& topo_;
  std::vector<int> host_of_;                    // host per node, -1 for network switches
  std::vector<std::uint32_t> host_start_;       // host h's links: host_links_[host_start_[h] .. host_start_[h + 1])
  std::vector<int> host_links_;                 // links inside a host or between it and a switch
  // Network switches: those on a cycle of switches (always searched), and for the others, which hang off
  // in trees, the next switch towards that core (-1: a tree's root). A route enters such a tree only to
  // reach a host below it, so a query takes the core plus the chains up from the switches at its hosts.
  std::vector<int> core_switches_, up_switch_;
  std::vector<std::uint32_t> sw_start_; // switch-to-switch links at each node: sw_links_[sw_start_[v] .. sw_start_[v + 1])
  std::vector<int> sw_links_;
  std::vector<std::uint32_t> inc_start_;        // all links at each node, in link order
  std::vector<int> inc_links_;
  // Per query: the part's nodes (global ids), their local index (-1 elsewhere), and its adjacency.
  std::vector<int> nodes_, local_;
  std::vector<std::uint32_t> adj_start_;
  struct Arc {
    int to;         // local index
    ChannelId chan; // global channel
  };
  std::vector<Arc> arcs_;
};

} // namespace ccsim::topology
