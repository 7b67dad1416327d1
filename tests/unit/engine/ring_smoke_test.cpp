// The ring allreduce on the ideal crossbar takes exactly 2(p-1)(alpha + n/p * beta).
#include <doctest/doctest.h>

#include "sim/metrics/sweep.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"

using namespace ccsim;

TEST_CASE("ring allreduce on a crossbar matches 2(p-1)(alpha + n/p beta)") {
  for (int p : {2, 3, 8, 37, 256}) {
    const Time alpha = 2 * kPsPerUs;
    const Bandwidth bw = 25'000'000'000;
    auto topo = topology::make_crossbar(p, bw, alpha);
    topology::Router router(topo);
    metrics::RunConfig cfg;
    cfg.placements = {{}};
    for (int g = 0; g < p; ++g) cfg.placements[0].push_back(g);
    const Bytes n = 4 * 1024 * 1024 * static_cast<Bytes>(p) * 3; // divisible by p and by 4
    auto row = metrics::simulate(topo, router, cfg, n);
    const Time expect = 2 * (p - 1) * (alpha + transfer_time(n / static_cast<Bytes>(p), bw));
    CHECK(row.time == expect);
  }
}
