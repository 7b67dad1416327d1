// Ranking rings by simulation: the topology search (sim/topology/ring_search) proposes candidates by a
// link-load bound; here each is run through the engine at the requested size, as one ring or as a set
// of rings used at once (NCCL's channels), and compared with every other schedule of the op.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "sim/metrics/sweep.hpp"
#include "sim/topology/ring_search.hpp"

namespace ccsim::metrics {

struct RankedRing {
  std::vector<std::vector<int>> rings; // GPU indices in ring order (one entry for a single ring)
  topology::RingScore bound;           // the search's link-load bound
  Row row;                             // the simulated run
};

// Bytes each ring hop carries per step for `op` at nccl-tests size `size` on p GPUs: what the bound weighs.
double ring_step_bytes(schedule::Op op, int p, Bytes size, Bytes elt_size);

// Simulates `rings` (GPU orders, run at once) with the ring algorithm and base's op/dtype/model.
RankedRing simulate_rings(const topology::Topology& t, topology::Router& r, const topology::HopTable& h,
                          const RunConfig& base, Bytes size, std::vector<std::vector<int>> rings);

// The search's candidates, simulated and sorted by time (ties, equal to the nanosecond: fewer links crossed,
// then lower summed hop latency, then the bound).
// `progress(i, of)` is called before the i-th (from 0) of `of` simulations (for a progress bar).
using SimulationProgress = std::function<void(std::size_t i, std::size_t of, const std::string& what)>;
std::vector<RankedRing> rank_candidates(const topology::Topology& t, topology::Router& r, const topology::HopTable& h,
                                        const RunConfig& base, Bytes size, const topology::RingSearchResult& found,
                                        const SimulationProgress& progress = {});

// Where one ring order (GPU indices) stands among `ranked` (all rings of an exhaustive search, one per
// undirected ring): its own entry (equal up to rotation and direction) is left out, and `time` (the
// given order's simulated time, in its own direction) is compared with every other entry's.
struct RingPosition {
  std::size_t rank = 0;    // 1 + strictly faster
  std::size_t of = 0;      // rings ranked (the given one included)
  std::size_t faster = 0;  // other rings strictly faster
  std::size_t tied = 0;    // rings taking exactly `time`, the given one included
  std::size_t slower = 0;
  bool found = false;      // the given ring is one of `ranked`
};
bool same_ring(const std::vector<int>& a, const std::vector<int>& b); // equal up to rotation and direction
RingPosition ring_position(const std::vector<RankedRing>& ranked, const std::vector<int>& ring, Time time);

// Candidate rings for channel sets: every directed Hamiltonian cycle over direct links (both directions,
// when there are at most `max_direct` of them) plus the search's best rings in both directions. Local orders.
std::vector<std::vector<int>> channel_pool(const topology::HopTable& h, const topology::RingSearchResult& found,
                                           std::size_t max_direct = 5000);

// Every algorithm registered for base.op, each tried on every placement given (rank order matters for
// trees too), keeping its fastest; algorithms that cannot run on this many ranks are left out.
struct ScheduleResult {
  std::string algo;
  std::vector<int> placement;
  Row row;
};
// How many simulations compare_schedules runs: every algorithm of `op` on each of `placements` placements.
std::size_t schedule_runs(schedule::Op op, std::size_t placements);
std::vector<ScheduleResult> compare_schedules(const topology::Topology& t, topology::Router& r, const RunConfig& base,
                                              Bytes size, const std::vector<std::vector<int>>& placements,
                                              const SimulationProgress& progress = {});

} // namespace ccsim::metrics
