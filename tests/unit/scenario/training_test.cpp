// Sync, async and stale-synchronous training over many iterations with compute-time variation.
#include <doctest/doctest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "sim/scenario/run.hpp"
#include "sim/scenario/training.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using scenario::SyncMode;

namespace {

// A step of 10 ms compute plus a fixed 2 ms exchange, monotone in the compute multiplier.
Time toy_step(double scale) { return static_cast<Time>(std::llround(scale * 10e9)) + 2'000'000'000; }

scenario::Variation lognormal(double cv, std::uint64_t seed) { return {"lognormal", cv, seed}; }

} // namespace

TEST_CASE("variation draws are reproducible, have mean 1, and depend on the seed") {
  const auto a = scenario::draw_factors(lognormal(0.3, 42), 8, 2000);
  const auto b = scenario::draw_factors(lognormal(0.3, 42), 8, 2000);
  const auto c = scenario::draw_factors(lognormal(0.3, 43), 8, 2000);
  CHECK(a == b);
  CHECK(a != c);
  for (const char* dist : {"normal", "lognormal", "uniform"}) {
    const auto f = scenario::draw_factors({dist, 0.3, 5}, 8, 4000);
    double sum = 0, sq = 0;
    for (const auto& row : f)
      for (double x : row) sum += x, sq += x * x;
    const double n = 8 * 4000, mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    CAPTURE(dist);
    CHECK(mean == doctest::Approx(1.0).epsilon(0.01));
    CHECK(sd == doctest::Approx(0.3).epsilon(0.05));
  }
  for (const auto& row : scenario::draw_factors({"none", 0.5, 1}, 4, 10))
    for (double x : row) CHECK(x == 1.0);
}

TEST_CASE("without variation, sync = async = ssp: every worker takes the same step every iteration") {
  const auto f = scenario::draw_factors({"none", 0, 1}, 8, 50);
  const auto sync = scenario::run_mode(SyncMode::Sync, 0, f, toy_step, 32);
  const auto async = scenario::run_mode(SyncMode::Async, 0, f, toy_step, 32);
  const auto ssp = scenario::run_mode(SyncMode::Ssp, 3, f, toy_step, 32);
  CHECK(sync.makespan == 50 * toy_step(1.0));
  CHECK(async.makespan == sync.makespan);
  CHECK(ssp.makespan == sync.makespan);
  CHECK(sync.idle_fraction == 0);
  CHECK(async.idle_fraction == 0);
  CHECK(ssp.idle_fraction == 0);
  CHECK(async.samples_per_s == doctest::Approx(sync.samples_per_s));
  CHECK(sync.slowdown == doctest::Approx(1.0));
}

TEST_CASE("ssp with s = 0 is sync, larger s and async wait less for stragglers") {
  const auto f = scenario::draw_factors(lognormal(0.4, 11), 8, 200);
  const auto sync = scenario::run_mode(SyncMode::Sync, 0, f, toy_step, 1);
  const auto ssp0 = scenario::run_mode(SyncMode::Ssp, 0, f, toy_step, 1);
  const auto ssp2 = scenario::run_mode(SyncMode::Ssp, 2, f, toy_step, 1);
  const auto async = scenario::run_mode(SyncMode::Async, 0, f, toy_step, 1);
  CHECK(ssp0.makespan == sync.makespan);
  CHECK(ssp0.idle_fraction == doctest::Approx(sync.idle_fraction));
  CHECK(ssp0.samples_per_s == doctest::Approx(sync.samples_per_s));
  CHECK(ssp0.mean_iteration == doctest::Approx(sync.mean_iteration));
  CHECK(ssp0.max_lead == 0);
  // The straggler effect: sync's step follows the slowest of 8 workers each iteration.
  CHECK(sync.slowdown > 1.1);
  CHECK(sync.idle_fraction > 0.05);
  CHECK(ssp2.makespan < sync.makespan);
  CHECK(async.makespan <= ssp2.makespan);
  CHECK(ssp2.idle_fraction < sync.idle_fraction);
  CHECK(async.idle_fraction == 0);
  CHECK(async.samples_per_s > sync.samples_per_s);
  // The bound holds, and without it workers drift further apart.
  CHECK(ssp2.max_lead <= 2);
  CHECK(ssp2.max_lead >= 1);
  CHECK(async.max_lead > 2);
}

TEST_CASE("a parameter-server scenario runs all three modes, the collective strategy only sync") {
  nlohmann::json j = {
      {"model", {{"layers", {{{"params", 4'000'000}, {"forward", "2ms"}, {"backward", "4ms"}},
                             {{"params", 4'000'000}, {"forward", "2ms"}, {"backward", "4ms"}}}}}},
      {"compute", {{"batch_per_gpu", 16}}},
      {"topology", "dgx1"},
      {"degrees", {1, 4}},
      {"strategy", {"allreduce", "ps_gpu0"}},
      {"training", {{"modes", {"sync", "async", "ssp"}}, {"staleness", 0}, {"iterations", 30},
                    {"variation", {{"distribution", "normal"}, {"cv", 0.2}, {"seed", 3}}}}}};
  const auto s = scenario::scenario_from_json(j, "inline.json");
  const auto rep = scenario::run_scenario(s);
  REQUIRE(rep.training.size() == 4); // allreduce: sync; ps_gpu0: sync, async, ssp0 (degree 1 is skipped)
  CHECK(rep.training[0].strategy == scenario::Strategy::AllReduce);
  const auto& sync = rep.training[1].mode;
  const auto& ssp0 = rep.training[3].mode;
  CHECK(rep.training[3].mode.mode == SyncMode::Ssp);
  CHECK(ssp0.makespan == sync.makespan); // the real step (engine-timed exchanges) is monotone too
  CHECK(rep.training[2].mode.makespan <= sync.makespan);
}
