#include "sim/scenario/training.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

namespace ccsim::scenario {

namespace {

// Uniform in (0, 1]: the top 53 bits of one mt19937_64 draw.
double uniform01(std::mt19937_64& g) { return (static_cast<double>(g() >> 11) + 1.0) * 0x1.0p-53; }

// Box-Muller with one normal per pair of draws, so the stream never depends on caching.
double standard_normal(std::mt19937_64& g) {
  const double u1 = uniform01(g), u2 = uniform01(g);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

} // namespace

std::vector<std::vector<double>> draw_factors(const Variation& v, int workers, int iterations) {
  std::mt19937_64 g(v.seed);
  std::vector<std::vector<double>> f(static_cast<std::size_t>(iterations), std::vector<double>(static_cast<std::size_t>(workers), 1.0));
  if (v.distribution == "none" || v.cv == 0) return f;
  // lognormal with mean 1: sigma^2 = ln(1 + cv^2), mu = -sigma^2 / 2.
  const double sigma = std::sqrt(std::log1p(v.cv * v.cv)), mu = -sigma * sigma / 2;
  for (auto& row : f)
    for (auto& x : row) {
      if (v.distribution == "normal") x = std::max(0.0, 1.0 + v.cv * standard_normal(g)); // no negative compute
      else if (v.distribution == "lognormal") x = std::exp(mu + sigma * standard_normal(g));
      else x = 1.0 + v.cv * std::sqrt(3.0) * (2.0 * uniform01(g) - 1.0); // uniform: std = half-width / sqrt(3)
    }
  return f;
}

ModeResult run_mode(SyncMode mode, int staleness, const std::vector<std::vector<double>>& factors,
                    const StepTime& step_time, std::uint64_t batch_per_gpu) {
  ModeResult r;
  r.mode = mode;
  r.staleness = mode == SyncMode::Ssp ? staleness : 0;
  const int K = static_cast<int>(factors.size());
  const int P = K ? static_cast<int>(factors.front().size()) : 0;
  if (K == 0 || P == 0) return r;
  std::vector<Time> finish(static_cast<std::size_t>(P), 0);
  double idle = 0;
  if (mode == SyncMode::Sync) {
    // One barrier per iteration: the next iteration starts when the slowest worker's step is done.
    // Waiting is counted before an iteration starts (as in the ssp/async recurrence below), so after
    // the last iteration each worker simply finishes its own step.
    Time t = 0;
    for (int k = 0; k < K; ++k) {
      const auto& row = factors[static_cast<std::size_t>(k)];
      const Time slowest = step_time(*std::max_element(row.begin(), row.end()));
      for (int i = 0; i < P; ++i) {
        const Time own = step_time(row[static_cast<std::size_t>(i)]);
        if (k + 1 < K) idle += static_cast<double>(slowest - own);
        else finish[static_cast<std::size_t>(i)] = t + own;
      }
      t += slowest;
    }
  } else {
    // end[i][k]; worker i starts k at max(its own previous end, every worker's end of k - s - 1).
    const long s = mode == SyncMode::Async ? K : staleness;
    const auto uk = static_cast<std::size_t>(K);
    std::vector<std::vector<Time>> end(static_cast<std::size_t>(P), std::vector<Time>(uk, 0));
    for (int k = 0; k < K; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      Time gate = 0;
      if (k - s - 1 >= 0)
        for (const auto& w : end) gate = std::max(gate, w[static_cast<std::size_t>(k - s - 1)]);
      for (int i = 0; i < P; ++i) {
        auto& mine = end[static_cast<std::size_t>(i)];
        const Time prev = k ? mine[kk - 1] : 0;
        const Time start = std::max(prev, gate);
        idle += static_cast<double>(start - prev);
        mine[kk] = start + step_time(factors[kk][static_cast<std::size_t>(i)]);
        // How far ahead of the slowest is worker i as it starts k? Count everyone's finished iterations
        // (ends are increasing per worker; iteration k of workers after i is not placed yet).
        long slowest_done = k;
        for (int j = 0; j < P && slowest_done > 0; ++j) {
          const auto& w = end[static_cast<std::size_t>(j)];
          long done = std::upper_bound(w.begin(), w.begin() + k, start) - w.begin();
          if (done == k && j < i && w[kk] <= start) ++done;
          slowest_done = std::min(slowest_done, done);
        }
        r.max_lead = std::max(r.max_lead, static_cast<int>(k - slowest_done));
      }
    }
    for (int i = 0; i < P; ++i) finish[static_cast<std::size_t>(i)] = end[static_cast<std::size_t>(i)].back();
  }
  r.makespan = *std::max_element(finish.begin(), finish.end());
  double iter_sum = 0;
  for (Time f : finish) {
    iter_sum += to_sec(f) / K;
    r.samples_per_s += f > 0 ? static_cast<double>(K) * static_cast<double>(batch_per_gpu) / to_sec(f) : 0;
  }
  r.mean_iteration = iter_sum / P;
  r.idle_fraction = r.makespan > 0 ? idle / (static_cast<double>(P) * static_cast<double>(r.makespan)) : 0;
  const Time nominal = step_time(1.0);
  r.slowdown = nominal > 0 ? r.mean_iteration / to_sec(nominal) : 0;
  return r;
}

} // namespace ccsim::scenario
