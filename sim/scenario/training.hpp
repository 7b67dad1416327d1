// Many iterations with per-worker compute-time variation, under three consistency models:
//   sync  - every worker waits for all others each iteration (one barrier per step);
//   ssp   - stale-synchronous parallel: a worker may start iteration k only once every worker has
//           finished iteration k-s-1, i.e. it runs at most s iterations ahead of the slowest;
//   async - no waiting at all (ssp with s = infinity); the server applies pushes as they come.
// A worker's iteration is its own step (StepSimulator::run with its compute multiplier); in sync the
// exchange cannot start before the slowest worker's buckets are ready, so the step follows the slowest.
#pragma once
#include <functional>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace ccsim::scenario {

// factors[k][i]: worker i's compute multiplier in iteration k, mean 1. Reproducible from the seed: the
// 64-bit Mersenne Twister's output is fixed by the C++ standard and the transforms are our own.
std::vector<std::vector<double>> draw_factors(const Variation& v, int workers, int iterations);

struct ModeResult {
  SyncMode mode = SyncMode::Sync;
  int staleness = 0;
  Time makespan = 0;          // last worker's finish
  double mean_iteration = 0;  // seconds: mean over workers of (own finish / iterations)
  double samples_per_s = 0;   // sum over workers of iterations * batch / own finish
  double idle_fraction = 0;   // time spent waiting for other workers / (workers * makespan)
  double slowdown = 0;        // mean_iteration / the step without variation
  int max_lead = 0;           // most iterations any worker was ahead of the slowest when it started one
};

using StepTime = std::function<Time(double scale)>;
// Requires step_time to be non-decreasing in scale (so the slowest worker sets a synchronous step).
ModeResult run_mode(SyncMode mode, int staleness, const std::vector<std::vector<double>>& factors,
                    const StepTime& step_time, std::uint64_t batch_per_gpu);

} // namespace ccsim::scenario
