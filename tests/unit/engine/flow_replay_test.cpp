// Batches of flows that start on an empty network and recur (a ring's steps): the flow model replays a batch
// it has shared before (sim/engine/batch_memo.hpp) until another flow starts while it runs; then the batch's
// flows rejoin their channels with the progress their rates made since its start. Times by hand; GPUs around
// one switch, a route is two links, so a message's latency is 2 x the link latency.
#include <doctest/doctest.h>

#include <map>
#include <utility>

#include "listed_transfers.hpp"

using namespace ccsim;
using namespace ccsim::engine;

namespace {

constexpr Bandwidth kGBps = 1'000'000'000;
constexpr Time kUs = 1'000'000; // ps
constexpr Time kMs = 1'000 * kUs;

std::map<std::pair<int, int>, Time> run(Semantics semantics, const std::vector<Bandwidth>& bw, Time lat,
                                        std::vector<test::ListedTransfer> list, bool eager = true) {
  ModelParams mp;
  mp.semantics = semantics;
  mp.eager = eager;
  return test::run_on_switch(bw, lat, mp, std::move(list));
}

// Rank 3 sends rank 4 eight empty messages (each step lasts their latency, 0.2 ms), then, at 1.6 ms, `bytes`
// to rank 2: a flow that starts moving at 1.8 ms, while step 1 of ranks 0-2 (started at 1.4 ms) runs.
void add_latecomer(std::vector<test::ListedTransfer>& list, Bytes bytes) {
  for (int s = 0; s < 8; ++s) list.push_back({s, 3, 4, 0});
  list.push_back({8, 3, 2, bytes});
}

} // namespace

// Each step: g0 -> g2 6 MB and g1 -> g2 3 MB over g2's 12 GB/s link (the others 100 GB/s): 6 GB/s each until
// g1's ends at 0.5 ms, then g0's last 3 MB alone at 12 GB/s, 0.25 ms more. Two phases: the step's outcome is
// not one instant, so nothing may be replayed from a single rate per flow. Rendezvous (not eager): a step's
// sends start when rank 2 posts its receives, once its step before is over.
TEST_CASE("flow replay: a recurring batch whose flows end at different instants") {
  std::vector<test::ListedTransfer> list;
  for (int s = 0; s < 3; ++s) {
    list.push_back({s, 0, 2, 6'000'000});
    list.push_back({s, 1, 2, 3'000'000});
  }
  const auto end = run(Semantics::mpi, {100 * kGBps, 100 * kGBps, 12 * kGBps}, 0, list, false);
  for (int s = 0; s < 3; ++s) {
    CHECK(end.at({1, s}) == s * 750 * kUs + 500 * kUs);
    CHECK(end.at({0, s}) == (s + 1) * 750 * kUs);
    CHECK(end.at({2, s}) == (s + 1) * 750 * kUs);
  }
}

// Link latency 0.1 ms. Steps 0 and 1 of ranks 0-2: g0 -> g2 and g1 -> g2, 6 MB each over g2's 12 GB/s link,
// 6 GB/s each for 1 ms after 0.2 ms of latency: step 0 moves 0.2-1.2 ms (recorded), step 1 would move
// 1.4-2.4 ms (replayed). At 1.8 ms rank 3's 3.6 MB to g2 starts: g0's and g1's flows have 6 - 0.4 x 6 =
// 3.6 MB left, and the three share 12 GB/s at 4 GB/s each: all end 0.9 ms later, at 2.7 ms.
TEST_CASE("flow replay: a flow starting while a replayed batch runs shares the batch's channels from then on") {
  std::vector<test::ListedTransfer> list{{0, 0, 2, 6'000'000}, {0, 1, 2, 6'000'000}, {1, 0, 2, 6'000'000}, {1, 1, 2, 6'000'000}};
  add_latecomer(list, 3'600'000);
  const auto end = run(Semantics::mpi, std::vector<Bandwidth>(5, 12 * kGBps), 100 * kUs, list);
  for (int g : {0, 1, 2}) {
    CHECK(end.at({g, 0}) == 1200 * kUs);
    CHECK(end.at({g, 1}) == 2700 * kUs);
  }
  CHECK(end.at({3, 8}) == 2700 * kUs);
}

// The same with flows of unequal rates that end together: g0 (4 GB/s) -> g2 4 MB and g1 (8 GB/s) -> g2 8 MB,
// 1 ms each, steps at 0.2-1.2 ms and 1.4-2.4 ms. Rank 3's 1 MB from its 10 GB/s link starts at 1.8 ms beside
// them on g2's 100 GB/s link, which binds nobody: it ends at 1.9 ms and theirs at 2.4 ms, as long as each
// flow rejoins with its own progress (4 MB x 0.4 and 8 MB x 0.4 moved; with the rates swapped g0's would end
// at 2.0 ms).
TEST_CASE("flow replay: a batch rejoining its channels keeps each flow's own rate and progress") {
  std::vector<test::ListedTransfer> list{{0, 0, 2, 4'000'000}, {0, 1, 2, 8'000'000}, {1, 0, 2, 4'000'000}, {1, 1, 2, 8'000'000}};
  add_latecomer(list, 1'000'000);
  const auto end = run(Semantics::mpi, {4 * kGBps, 8 * kGBps, 100 * kGBps, 10 * kGBps, 100 * kGBps}, 100 * kUs, list);
  for (int g : {0, 1, 2}) {
    CHECK(end.at({g, 0}) == 1200 * kUs);
    CHECK(end.at({g, 1}) == 2400 * kUs);
  }
  CHECK(end.at({3, 8}) == 1900 * kUs);
}

// Five steps of g0 -> g2 and g1 -> g2 (6 MB each, g2's link 12 GB/s, latency 0): 1 ms each, steps 1-4 replayed;
// under gpu semantics too (the bytes move first, the latency, none here, follows).
TEST_CASE("flow replay: a batch recurring step after step keeps its time") {
  std::vector<test::ListedTransfer> list;
  for (int s = 0; s < 5; ++s) {
    list.push_back({s, 0, 2, 6'000'000});
    list.push_back({s, 1, 2, 6'000'000});
  }
  for (Semantics sem : {Semantics::mpi, Semantics::gpu}) {
    const auto end = run(sem, {100 * kGBps, 100 * kGBps, 12 * kGBps}, 0, list);
    for (int s = 0; s < 5; ++s)
      for (int g : {0, 1, 2}) CHECK(end.at({g, s}) == (s + 1) * kMs);
  }
}

// Steps 0 and 1: g0 -> g2 and g1 -> g2, 6 MB each, share g2's 12 GB/s link at 6 GB/s: 1 ms each step, the
// batch recorded at step 1. Step 2 sends the same bytes from the same GPUs to g3 instead, whose link is
// 100 GB/s: routes equal in their first channel, not in their second. It must be shared anew (50 GB/s each,
// 0.12 ms: all end at 2.12 ms), not replayed from g2's batch (6 GB/s: 3 ms).
TEST_CASE("flow replay: a batch differing from the recorded one only in its routes' second channel is shared anew") {
  std::vector<test::ListedTransfer> list{{0, 0, 2, 6'000'000}, {0, 1, 2, 6'000'000}, {1, 0, 2, 6'000'000},
                                         {1, 1, 2, 6'000'000}, {2, 0, 3, 6'000'000}, {2, 1, 3, 6'000'000}};
  const auto end = run(Semantics::mpi, {100 * kGBps, 100 * kGBps, 12 * kGBps, 100 * kGBps}, 0, list);
  CHECK(end.at({2, 1}) == 2 * kMs);
  for (int g : {0, 1}) CHECK(end.at({g, 2}) == 2120 * kUs);
  CHECK(end.at({3, 2}) == 2120 * kUs);
}
