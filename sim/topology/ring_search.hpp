// Rings over GPUs for ring algorithms, found on the topology the way NCCL's search does it:
// Hamiltonian cycles over direct GPU-GPU links, each directed ring taking one lane of every hop
// it uses, repeated while lanes remain (so a DGX-1V's 24 NVLinks give 6 directed rings). Across
// nodes, one ring per NIC, each leaving every node through its own NIC (NCCL opens rings at the NIC).
// When neither applies (PCIe servers, NVSwitch boxes) the GPUs' own order is the one ring.
//
// Below pack_rings: the search behind `ccsim rings`. It treats every GPU pair as a possible hop (a
// pair without a direct link uses its route: two NVLinks through a GPU, PCIe, QPI, the network) and
// scores a ring by a link-load bound: the slowest hop's latency plus one step's bytes times the
// most loaded channel's load/capacity. The bound only orders candidates; sim/metrics/ring_rank
// simulates the best of them.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/topology/routing.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::topology {

struct RingSet {
  std::vector<std::vector<int>> rings; // GPU indices in ring order, each a permutation of the input
  bool over_direct_links = false;      // false: the fallback single ring (routes decide the hops)
};

// `gpus`: the GPU indices to connect (all of them when empty). `max_rings` caps the search.
RingSet pack_rings(const Topology& t, std::vector<int> gpus, int max_rings = 16);

// One ring hop from GPU a to GPU b as the router sends it, named the way people talk about it.
struct HopRoute {
  std::vector<ChannelId> channels;
  Bandwidth bottleneck = 0;
  Time latency = 0;
  bool direct = false;      // one link, no intermediate node
  bool nvlink_only = false; // every link NVLink (direct or through GPUs)
  std::string kind;         // "NVLink x2", "NVLink", "NVLink x2+NVLink", "NVSwitch", "xGMI", "PCIe", "QPI", "NET", "link"
  std::string via;          // intermediate nodes, e.g. "gpu4" or "pcie_sw0 cpu0 cpu1 pcie_sw2"; empty if direct
  std::vector<int> via_gpus; // GPU indices among the intermediate nodes (NCCL's NVB path)
};
HopRoute describe_hop(const Topology& t, Router& r, int gpu_a, int gpu_b);

// Routes between every ordered pair of the chosen GPUs (local indices 0..n-1 into `gpus`).
class HopTable {
 public:
  HopTable(const Topology& t, Router& r, std::vector<int> gpus);
  int size() const { return n_; }
  const std::vector<int>& gpus() const { return gpus_; }
  const HopRoute& at(int i, int j) const { return hops_[static_cast<std::size_t>(i * n_ + j)]; }
  const Topology& topology() const { return topo_; }
  double ps_per_byte(ChannelId c) const { return ps_per_byte_[c]; } // 1 / channel capacity
  int local_of(int gpu) const; // -1 when not chosen
  std::vector<int> to_local(const std::vector<int>& ring) const;
  std::vector<int> to_gpus(const std::vector<int>& ring) const;

 private:
  const Topology& topo_;
  int n_;
  std::vector<int> gpus_;
  std::vector<HopRoute> hops_;
  std::vector<double> ps_per_byte_;
};

// The link-load bound of a set of rings used at once (one ring = the usual case). Each ring carries
// `step_bytes` per hop per step; hops of different rings that share a channel share its capacity.
struct RingScore {
  double step_ps = 0;    // max hop latency + step_bytes * max over channels of load/capacity
  double balance = 0;    // tie-break: summed hop cost for one ring, squared channel use for sets
  int limiting_from = -1, limiting_to = -1; // a hop (local indices) through the most loaded channel
  ChannelId limiting_channel = 0;
  int limiting_load = 0; // hops of all rings on that channel
  bool within_lanes = true; // no channel carries more hops than its link has lanes
  bool operator<(const RingScore& o) const {
    return step_ps != o.step_ps ? step_ps < o.step_ps : balance < o.balance;
  }
};
RingScore score_rings(const HopTable& h, const std::vector<std::vector<int>>& local_rings, double step_bytes);

struct RingSearchOptions {
  double step_bytes = 16.0 * 1024 * 1024; // weighs bandwidth against latency in the bound
  int keep = 32;                          // best distinct rings returned
  int exhaustive_max = 12;                // up to this many GPUs every ring is examined
  long bounded_work = 20'000'000;         // work units for the bounded search beyond that
  std::function<void(double)> progress;   // fraction done, for a progress line
};

struct RingCandidate {
  std::vector<int> order; // local indices, starting at 0, in the better of the two directions
  RingScore score;
};

struct RingSearchResult {
  std::vector<RingCandidate> best; // ascending score, at most `keep`
  bool exhaustive = false;
  double distinct_rings = 0;       // (n-1)!/2: rings up to rotation and direction
  std::uint64_t scored = 0;        // complete rings whose bound was computed
  std::string method;              // how the candidates were found, one line
};
RingSearchResult search_rings(const HopTable& h, const RingSearchOptions& o);

// Undirected Hamiltonian cycles of the graph whose edges are the direct GPU links that pass `keep_link`
// (parallel links merge into one pair). Each cycle is listed once: it starts at gpus[0] and its second
// GPU is smaller than its last. GPU indices, not local ones. Stops after `limit` cycles.
std::vector<std::vector<int>> hamiltonian_cycles(const Topology& t, const std::vector<int>& gpus,
                                                 const std::function<bool(const Link&)>& keep_link,
                                                 std::size_t limit = 1'000'000);

// Multisets of k cycles (indices into `cycles`, non-decreasing) that, each cycle taking one lane of each
// GPU pair it uses, fit in the direct links' lanes; with `exact`, they use every lane.
std::vector<std::vector<int>> lane_decompositions(const Topology& t, const std::vector<int>& gpus,
                                                  const std::vector<std::vector<int>>& cycles, int k, bool exact);

// The best set of k directed rings run at once (each carrying 1/k of the data), chosen from `pool`
// (local orders) by the link-load bound: greedy from several seeds, then swaps until nothing improves.
struct RingSetChoice {
  std::vector<std::vector<int>> rings; // local orders
  RingScore score;
};
RingSetChoice choose_ring_set(const HopTable& h, const std::vector<std::vector<int>>& pool, int k, double step_bytes);

} // namespace ccsim::topology
