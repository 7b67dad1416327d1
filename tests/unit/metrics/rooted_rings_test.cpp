// Rooted ops over several rings: each ring (job) must start from the same GPU, the root's.
#include <doctest/doctest.h>

#include "sim/metrics/sweep.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"

using namespace ccsim;

namespace {
struct FirstSenders final : engine::Observer {
  std::vector<std::vector<int>> placements;
  std::vector<int> gpus; // GPU of every sender posting at time 0
  void on_transfer(const engine::TransferRecord& t) override {
    if (t.post == 0) gpus.push_back(placements[static_cast<std::size_t>(t.job)][static_cast<std::size_t>(t.src)]);
  }
};
} // namespace

TEST_CASE("ring broadcast over several rings starts every ring at the root's GPU") {
  const auto topo = topology::make_crossbar(4, 25'000'000'000, 2 * kPsPerUs);
  topology::Router router(topo);
  metrics::RunConfig cfg;
  cfg.op = schedule::Op::Broadcast;
  cfg.algo = "ring";
  cfg.placements = {{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 3, 0, 2}};
  for (int root = 0; root < 4; ++root) {
    cfg.root = root;
    FirstSenders obs;
    obs.placements = cfg.placements;
    metrics::simulate(topo, router, cfg, 3 * 1024 * 1024, {&obs});
    REQUIRE(obs.gpus.size() == 3); // one first segment per ring
    for (int g : obs.gpus) CHECK(g == cfg.placements[0][static_cast<std::size_t>(root)]);
  }
}
