// `ccsim rings` output: the ranked ring orders, a channel set, every schedule of the op, or one order
// explained hop by hop against the best ring, as a table or as JSON. The search and the simulations
// are done by the caller (sim/cli/rings_command.cpp); this file only renders what they found.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sim/metrics/ring_rank.hpp"
#include "sim/topology/ring_search.hpp"

namespace ccsim::report {

struct RingsFindings {
  const topology::Topology* topo = nullptr;
  const topology::HopTable* hops = nullptr;
  const metrics::RunConfig* base = nullptr; // op, dtype and model the rings were predicted with
  const topology::RingSearchResult* found = nullptr;
  const std::vector<metrics::RankedRing>* ranked = nullptr; // fastest first; never empty
  Bytes size = 0;
  int top = 10;             // how many ranked rings to print
  bool relay_outside = false;
  bool one_based = false;   // --explain's ring was given 1-based (it is printed 0-based)
  int direct_rings = -1;    // rings over direct GPU-GPU links only (capped at 1000; -1: not counted)
  double rank_all_max = 0;  // --explain ranks an order among all rings up to this many

  // --explain ORDER: the order, its simulation, and its place among all rings (when every ring was simulated).
  std::vector<int> explain_ring;
  std::optional<metrics::RankedRing> explained;
  std::optional<metrics::RingPosition> position;

  // --channels K: the set of K rings chosen from `pool` candidates, and its simulation.
  struct ChannelSet {
    int k = 0;
    std::size_t pool = 0;
    std::vector<std::vector<int>> rings;       // GPU orders
    topology::RingSetChoice choice;            // local orders and the bound's score
    metrics::RankedRing simulated;
  };
  std::optional<ChannelSet> channels;

  // Every schedule of the op on the given order and the best ring's, fastest first, and the ring time
  // they are measured against (the best ring, or the channel set when faster).
  std::vector<metrics::ScheduleResult> schedules;
  Time best_ring_time = 0;
};

std::string rings_text(const RingsFindings& f);
std::string rings_json(const RingsFindings& f);

} // namespace ccsim::report
