#include "sim/engine/clock_range.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::engine {

void check_clock_range(const topology::Topology& topo, const ModelParams& params, std::span<const Job> jobs) {
  Bandwidth min_bw = 0;
  Time max_lat = 0;
  if (const auto* f = topo.link_formula()) {
    min_bw = f->bw, max_lat = f->latency; // a generated crossbar or torus: every link alike, no list to build
  } else {
    for (const auto& l : topo.links) {
      min_bw = min_bw == 0 ? l.bw : std::min(min_bw, l.bw);
      max_lat = std::max(max_lat, l.latency);
    }
  }
  double bytes = 0, per_rank = 0, steps = 64, start = 0, delays = 0;
  for (const auto& j : jobs) {
    start = std::max(start, static_cast<double>(j.start));
    for (const auto& d : j.after) delays += static_cast<double>(d.second); // a chain of waits at worst
    const double p = j.schedule->args().ranks;
    const double buffer = static_cast<double>(j.schedule->buffer_elems()) * static_cast<double>(j.elt_size);
    bytes += p * buffer * (2 + std::log2(std::max(1.0, p)));
    per_rank = std::max(per_rank, buffer * (2 + std::log2(std::max(1.0, p))));
    steps += 4 * p;
  }
  const double ps = 1e12;
  const double wire = min_bw ? bytes * ps / static_cast<double>(min_bw) : 0;
  const double reduce = params.reduce_bw ? per_rank * ps / static_cast<double>(params.reduce_bw) : 0;
  const double latency = steps * (16 * static_cast<double>(max_lat) + static_cast<double>(params.alpha_sw));
  const double bound = wire + reduce + latency + start + delays;
  constexpr double kLimit = static_cast<double>(kNever / 2);
  if (bound > kLimit)
    fail("the run could last up to {:.3g} s of simulated time (moving {:.3g} B over the slowest link, {}{}), more than the "
         "{:.3g} s that 64-bit picoseconds hold with margin; use a smaller size, faster links or a smaller latency",
         bound / ps, bytes, format_bandwidth(min_bw),
         params.reduce_bw ? fmt::format(", reducing at {}", format_bandwidth(params.reduce_bw)) : std::string{}, kLimit / ps);
}


} // namespace ccsim::engine
