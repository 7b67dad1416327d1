// Repeated steps on the same links, the pattern a ring repeats every step: the same flows again, a flow from
// outside joining the links the last step used, and fewer flows than the last step. Written for branch
// flow256's "ghost" components (a component retired whole kept for the next step's flows; measured and
// reverted, scripts/BENCHMARKS.md); they hold for any correct max-min sharing. Links have no latency, so every
// time below is bytes / rate, by hand.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <utility>

#include "listed_transfers.hpp"

using namespace ccsim;
using namespace ccsim::engine;

namespace {

constexpr Bandwidth kGBps = 1'000'000'000;
constexpr Time kMs = 1'000'000'000; // ps

std::map<std::pair<int, int>, Time> run(Semantics semantics, const std::vector<Bandwidth>& bw,
                                        std::vector<test::ListedTransfer> list) {
  ModelParams mp;
  mp.semantics = semantics;
  mp.eager = true;
  return test::run_on_switch(bw, 0, mp, std::move(list));
}

} // namespace

// Three steps of g0 -> g2 and g1 -> g2 (6 MB each) over g2's 12 GB/s link: 6 GB/s each, 1 ms per step
// (the other links are 100 GB/s). Steps 1 and 2 use exactly the channels the step before left.
TEST_CASE("flow ghost: three repeated steps of two flows into one link, under mpi and gpu semantics") {
  std::vector<test::ListedTransfer> list;
  for (int s = 0; s < 3; ++s) {
    list.push_back({s, 0, 2, 6'000'000});
    list.push_back({s, 1, 2, 6'000'000});
  }
  for (Semantics sem : {Semantics::mpi, Semantics::gpu}) {
    const auto end = run(sem, {100 * kGBps, 100 * kGBps, 12 * kGBps}, list);
    for (int s = 0; s < 3; ++s) {
      CHECK(end.at({0, s}) == (s + 1) * kMs);
      CHECK(end.at({1, s}) == (s + 1) * kMs);
      CHECK(end.at({2, s}) == (s + 1) * kMs);
    }
  }
}

// Step 0: g0 -> g2 and g1 -> g2, 6 MB each, share g2's 12 GB/s (1 ms); g3 -> g4, 12 MB alone at 12 GB/s
// (1 ms). Step 1 at 1 ms: g0 -> g2, g1 -> g2 again (the channels step 0 left) and g3 -> g2, whose own link is
// not one of them: three flows on g2's link, 4 GB/s each, 4 MB each: 1 ms, the step ends at 2 ms.
// Sharing g2's link between the two repeated flows only would give them 6 GB/s (ending at 1.67 ms).
TEST_CASE("flow ghost: a flow from outside joining the last step's channels shares them with the repeated flows") {
  const std::vector<Bandwidth> bw(5, 12 * kGBps);
  const auto end = run(Semantics::mpi, bw,
                       {{0, 0, 2, 6'000'000}, {0, 1, 2, 6'000'000}, {0, 3, 4, 12'000'000},
                        {1, 0, 2, 4'000'000}, {1, 1, 2, 4'000'000}, {1, 3, 2, 4'000'000}});
  for (int g : {0, 1, 2, 3}) CHECK(end.at({g, 0}) == kMs);
  CHECK(end.at({4, 0}) == kMs);
  for (int g : {0, 1, 2, 3}) CHECK(end.at({g, 1}) == 2 * kMs);
}

// Steps 0 and 1: g0 -> g2 and g1 -> g2, 6 MB each over g2's 12 GB/s link (1 ms each). Step 2: only
// g0 -> g2 (3 MB) repeats, alone on those channels: 12 GB/s, 0.25 ms, ending at 2.25 ms. Reusing the rate
// the same route had in the step before (6 GB/s) would end it at 2.5 ms.
TEST_CASE("flow ghost: one flow repeating where two were gets the whole link") {
  const auto end = run(Semantics::mpi, {100 * kGBps, 100 * kGBps, 12 * kGBps},
                       {{0, 0, 2, 6'000'000}, {0, 1, 2, 6'000'000}, {1, 0, 2, 6'000'000}, {1, 1, 2, 6'000'000},
                        {2, 0, 2, 3'000'000}});
  CHECK(end.at({0, 1}) == 2 * kMs);
  CHECK(end.at({1, 1}) == 2 * kMs);
  CHECK(end.at({0, 2}) == 2 * kMs + kMs / 4);
  CHECK(end.at({2, 2}) == 2 * kMs + kMs / 4);
}
