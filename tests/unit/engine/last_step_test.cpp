// A rank whose last step (the schedule's kLastFixedStep mark) ends later than now finishes without a queued
// step-end event in the fast modes (Engine::finish_last); the event still counts in RunResult::events. The
// generic mode (forced by a do-nothing observer) queues every event, so both must agree, and both must meet the
// hand count and the binomial tree's time.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"

using namespace ccsim;
using namespace ccsim::engine;

namespace {

struct Quiet final : Observer {}; // observes nothing, but makes the engine take its generic mode

// Binomial broadcasts of `bytes` on a p-GPU crossbar at 10 GB/s and 1 us, gpu semantics; with `chained`, a
// second broadcast waits for the first (job dependencies: every step end goes through the queue).
RunResult broadcast(int p, std::uint64_t bytes, bool generic, bool chained) {
  auto topo = topology::make_crossbar(p, 10'000'000'000ULL, kPsPerUs);
  topology::Router router(topo);
  ModelParams mp;
  mp.semantics = Semantics::gpu;
  Engine eng(topo, router, mp, fifo_network());
  Quiet quiet;
  if (generic) eng.add_observer(&quiet);
  schedule::CollArgs a;
  a.op = schedule::Op::Broadcast;
  a.ranks = p;
  a.count = bytes / 4; // floats
  const auto tree = schedule::find_algorithm(schedule::Op::Broadcast, "binomial")->make(a);
  std::vector<Job> jobs(chained ? 2 : 1);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    jobs[j].schedule = tree.get();
    for (int r = 0; r < p; ++r) jobs[j].node_of_rank.push_back(topo.gpu_node(r));
  }
  if (chained) jobs[1].after = {{0, 0}};
  return eng.run(jobs);
}

} // namespace

TEST_CASE("a broadcast's last steps finish without events yet count as events, as in the generic mode") {
  const std::uint64_t bytes = 1'000'000; // 100 us at 10 GB/s
  const Time hop = kPsPerUs + 100 * kPsPerUs; // alpha + n beta
  for (int p : {2, 8, 16, 64}) {
    CAPTURE(p);
    int lg = 0;
    while ((1 << lg) < p) ++lg;
    const RunResult fast = broadcast(p, bytes, false, false), generic = broadcast(p, bytes, true, false);
    // Rank v receives at (depth + sends of its ancestors before it) hops; the last leaf, p - 1, after lg p hops.
    CHECK(fast.makespan == lg * hop);
    CHECK(fast.transfers == static_cast<std::uint64_t>(p - 1));
    // p first steps begun at time 0, then one arrival and one send-step end (later than its post) per transfer.
    CHECK(fast.events == static_cast<std::uint64_t>(p + 2 * (p - 1)));
    CHECK(generic.events == fast.events);
    CHECK(generic.makespan == fast.makespan);
  }
}

TEST_CASE("with job dependencies every last step still ends through the queue, as in the generic mode") {
  const RunResult fast = broadcast(16, 1'000'000, false, true), generic = broadcast(16, 1'000'000, true, true);
  CHECK(fast.makespan == 2 * 4 * (kPsPerUs + 100 * kPsPerUs)); // the second tree starts when the first is done
  CHECK(fast.job_finish == generic.job_finish);
  CHECK(fast.events == generic.events);
}
