#include "sim/metrics/ring_rank.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::metrics {

double ring_step_bytes(schedule::Op op, int p, Bytes size, Bytes elt_size) {
  const auto plan = plan_size(op, p, size, elt_size);
  // Ring allreduce/allgather/reducescatter move size/p per step; chains (broadcast, reduce) pipeline
  // the whole buffer, so per step it is a segment of it, but the ranking only needs a common weight.
  return static_cast<double>(plan.size) / std::max(1, p);
}

RankedRing simulate_rings(const topology::Topology& t, topology::Router& r, const topology::HopTable& h,
                          const RunConfig& base, Bytes size, std::vector<std::vector<int>> rings) {
  RankedRing out;
  RunConfig cfg = base;
  cfg.algo = "ring";
  cfg.placements = rings;
  out.row = simulate(t, r, cfg, size);
  std::vector<std::vector<int>> local;
  for (const auto& ring : rings) local.push_back(h.to_local(ring));
  const int p = static_cast<int>(rings.front().size());
  out.bound = topology::score_rings(h, local, ring_step_bytes(base.op, p, size, base.dtype.size) / static_cast<double>(rings.size()));
  out.rings = std::move(rings);
  return out;
}

std::vector<RankedRing> rank_candidates(const topology::Topology& t, topology::Router& r, const topology::HopTable& h,
                                        const RunConfig& base, Bytes size, const topology::RingSearchResult& found,
                                        const SimulationProgress& progress) {
  std::vector<RankedRing> out;
  for (const auto& c : found.best) {
    if (progress) progress(out.size(), found.best.size(), fmt::format("ring {} of {}", out.size() + 1, found.best.size()));
    out.push_back(simulate_rings(t, r, h, base, size, {h.to_gpus(c.order)}));
  }
  // Times equal to the nanosecond tie (they differ by per-message rounding only); a tie goes to the ring
  // whose hops cross fewer links, then to the lower summed hop latency, then to the better bound.
  auto links_and_latency = [&](const RankedRing& x) {
    std::pair<std::size_t, Time> s{0, 0};
    const auto local = h.to_local(x.rings[0]);
    for (std::size_t k = 0; k < local.size(); ++k) {
      const auto& hop = h.at(local[k], local[(k + 1) % local.size()]);
      s.first += hop.channels.size(), s.second += hop.latency;
    }
    return s;
  };
  std::stable_sort(out.begin(), out.end(), [&](const RankedRing& a, const RankedRing& b) {
    if (a.row.time / 1000 != b.row.time / 1000) return a.row.time < b.row.time;
    if (const auto la = links_and_latency(a), lb = links_and_latency(b); la != lb) return la < lb;
    return a.bound < b.bound;
  });
  return out;
}

bool same_ring(const std::vector<int>& a, const std::vector<int>& b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  const auto it = std::find(b.begin(), b.end(), a[0]);
  if (it == b.end()) return false;
  const auto n = a.size(), start = static_cast<std::size_t>(it - b.begin());
  bool fwd = true, bwd = true;
  for (std::size_t k = 0; k < n; ++k) {
    fwd = fwd && a[k] == b[(start + k) % n];
    bwd = bwd && a[k] == b[(start + n - k) % n];
  }
  return fwd || bwd;
}

RingPosition ring_position(const std::vector<RankedRing>& ranked, const std::vector<int>& ring, Time time) {
  RingPosition p;
  p.tied = 1;
  for (const auto& r : ranked) {
    if (!p.found && same_ring(r.rings[0], ring)) {
      p.found = true;
      continue;
    }
    if (r.row.time < time) ++p.faster;
    else if (r.row.time == time) ++p.tied;
    else ++p.slower;
  }
  p.of = p.faster + p.tied + p.slower;
  p.rank = p.faster + 1;
  return p;
}

std::vector<std::vector<int>> channel_pool(const topology::HopTable& h, const topology::RingSearchResult& found,
                                           std::size_t max_direct) {
  std::vector<std::vector<int>> pool;
  auto add_both = [&](std::vector<int> r) {
    if (std::find(pool.begin(), pool.end(), r) == pool.end()) pool.push_back(r);
    std::reverse(r.begin() + 1, r.end());
    if (std::find(pool.begin(), pool.end(), r) == pool.end()) pool.push_back(r);
  };
  // Search results first: the set search seeds from the front of the pool.
  for (const auto& c : found.best) add_both(c.order);
  if (h.size() <= 16) {
    const auto cycles = topology::hamiltonian_cycles(h.topology(), h.gpus(), [](const topology::Link&) { return true; }, max_direct + 1);
    if (cycles.size() <= max_direct)
      for (const auto& c : cycles) add_both(h.to_local(c));
  }
  return pool;
}

std::size_t schedule_runs(schedule::Op op, std::size_t placements) {
  std::size_t runs = 0;
  for (const auto& a : schedule::all_algorithms()) runs += a.op == op ? placements : 0;
  return runs;
}

std::vector<ScheduleResult> compare_schedules(const topology::Topology& t, topology::Router& r, const RunConfig& base,
                                              Bytes size, const std::vector<std::vector<int>>& placements,
                                              const SimulationProgress& progress) {
  std::vector<ScheduleResult> out;
  const std::size_t runs = schedule_runs(base.op, placements.size());
  std::size_t done = 0;
  for (const auto& a : schedule::all_algorithms()) {
    if (a.op != base.op) continue;
    std::optional<ScheduleResult> best;
    for (std::size_t i = 0; i < placements.size(); ++i) {
      const auto& pl = placements[i];
      if (progress) progress(done, runs, a.name);
      ++done;
      // The best ring is often the order as given: the same placement simulates to the same time.
      if (std::find(placements.begin(), placements.begin() + static_cast<long>(i), pl) != placements.begin() + static_cast<long>(i)) continue;
      RunConfig cfg = base;
      cfg.algo = a.name;
      cfg.placements = {pl};
      cfg.dims.clear(); // hierarchical algorithms pick their default grid for this many ranks
      try {
        Row row = simulate(t, r, cfg, size);
        if (!best || row.time < best->row.time) best = ScheduleResult{a.name, pl, std::move(row)};
      } catch (const Error&) {
        // e.g. an algorithm that needs a power-of-two number of ranks: not a candidate here
      }
    }
    if (best) out.push_back(std::move(*best));
  }
  std::stable_sort(out.begin(), out.end(), [](const ScheduleResult& x, const ScheduleResult& y) { return x.row.time < y.row.time; });
  return out;
}

} // namespace ccsim::metrics
