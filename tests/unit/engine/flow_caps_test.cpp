// Max-min cases where a GPU's own link (one flow on it) is the binding one: below, at and above the share
// the flow would get on a shared link, and a link that turns from private to shared and back. Written for
// branch flowcap's "private links as per-flow caps" (measured, not kept: scripts/BENCHMARKS.md); they hold
// for any correct max-min filling. Links have no latency, so every time below is bytes / rate, by hand.
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

// GPUs 0..n-1 on one switch, GPU g's link `bw[g]` per direction and no latency; mpi semantics (a sender's
// step waits for its message to arrive) with eager sends (a send starts when posted).
std::map<std::pair<int, int>, Time> run(const std::vector<Bandwidth>& bw, std::vector<test::ListedTransfer> list) {
  ModelParams mp;
  mp.semantics = Semantics::mpi;
  mp.eager = true;
  return test::run_on_switch(bw, 0, mp, std::move(list));
}

} // namespace

// f1: g0 -> g2, f2: g1 -> g2 share g2's link (10 GB/s: 5 each), but g0's own link is 2 GB/s: f1's cap,
// below the share, binds first (f1 = 2), and g2's link has 8 left for f2 (its own link, 100, is wider).
// 2 MB at 2 GB/s and 8 MB at 8 GB/s: both take 1 ms. Sharing equally would give f1 1 ms, f2 1.6 ms.
TEST_CASE("flow caps: a private link narrower than the shared bottleneck binds its flow first") {
  const auto end = run({2 * kGBps, 100 * kGBps, 10 * kGBps}, {{0, 0, 2, 2'000'000}, {0, 1, 2, 8'000'000}});
  CHECK(end.at({0, 0}) == kMs);
  CHECK(end.at({1, 0}) == kMs);
  CHECK(end.at({2, 0}) == kMs);
}

// g0, g1, g2 -> g3 (13 GB/s: 4.33 each). Caps 4, 4 (g0, g1: below the share) and 100 (g2): f1 and f2 are
// fixed at 4 (equal caps, either first), g3's link has 13 - 8 = 5 left for f3. 4, 4 and 5 MB: all 1 ms.
// With g3's link at 12 GB/s the share, 4, ties the caps: every flow gets 4 whichever comes first.
TEST_CASE("flow caps: equal caps below the share, and caps tied with the share") {
  auto end = run({4 * kGBps, 4 * kGBps, 100 * kGBps, 13 * kGBps},
                 {{0, 0, 3, 4'000'000}, {0, 1, 3, 4'000'000}, {0, 2, 3, 5'000'000}});
  for (int g : {0, 1, 2, 3}) CHECK(end.at({g, 0}) == kMs);
  end = run({4 * kGBps, 4 * kGBps, 100 * kGBps, 12 * kGBps},
            {{0, 0, 3, 4'000'000}, {0, 1, 3, 4'000'000}, {0, 2, 3, 4'000'000}});
  for (int g : {0, 1, 2, 3}) CHECK(end.at({g, 0}) == kMs);
}

// Ten flows g_k -> g10 (k = 0..9), g_k's own link (k+1) GB/s, g10's 100 GB/s: every flow is bound by its
// cap, one per round, smallest first (ten rounds: the filling goes on with its heap after eight). Flow k
// sends k+1 MB at k+1 GB/s: all take 1 ms. (The caps sum to 55 GB/s, below g10's 100.)
TEST_CASE("flow caps: ten flows bound by ten different caps, past the scan rounds into the heap") {
  std::vector<Bandwidth> bw;
  std::vector<test::ListedTransfer> list;
  for (int k = 0; k < 10; ++k) {
    bw.push_back(static_cast<Bandwidth>(k + 1) * kGBps);
    list.push_back({0, k, 10, static_cast<Bytes>(k + 1) * 1'000'000});
  }
  bw.push_back(100 * kGBps);
  const auto end = run(bw, list);
  for (int g = 0; g <= 10; ++g) CHECK(end.at({g, 0}) == kMs);
}

// Links: g0 10, g1 3, g2 10, g3 10, g4 10 GB/s. Step 0: f1 g0 -> g1 (3.75 MB), f4 g0 -> g4 (16.25 MB),
// f2 g2 -> g3 (5 MB); step 1: f3 g2 -> g1 (0.75 MB), sent eagerly when g2's step 0 ends.
//  0 - 0.5 ms: g0's link has f1 and f4 (share 5); g1's link is private to f1: cap 3, below 5: f1 = 3,
//    f4 = 10 - 3 = 7. f2 alone at 10: its 5 MB are through at 0.5 ms.
//  0.5 - 1 ms: f3 joins g1's link, now shared (3 / 2 = 1.5 each, below g0's 10 / 2): f1 = f3 = 1.5, f4 =
//    10 - 1.5 = 8.5 (its cap is 10). f3's 0.75 MB take 0.5 ms.
//  1 - 1.5 ms: g1's link is f1's alone again: cap 3, f1 = 3, f4 = 7. f1 has 3.75 - 1.5 - 0.75 = 1.5 MB
//    left: 0.5 ms. Without its cap back, f1 would get g0's share, 5.
//  then f4 alone: it sent 3.5 + 4.25 + 3.5 = 11.25 MB, 5 MB left at 10 GB/s: 0.5 ms, done at 2 ms.
TEST_CASE("flow caps: a link turns from private to shared and back, and the cap comes back with it") {
  const auto end = run({10 * kGBps, 3 * kGBps, 10 * kGBps, 10 * kGBps, 10 * kGBps},
                       {{0, 0, 1, 3'750'000}, {0, 0, 4, 16'250'000}, {0, 2, 3, 5'000'000}, {1, 2, 1, 750'000}});
  CHECK(end.at({2, 0}) == kMs / 2);     // f2 arrived
  CHECK(end.at({3, 0}) == kMs / 2);
  CHECK(end.at({2, 1}) == kMs);         // f3 arrived
  CHECK(end.at({1, 0}) == 3 * kMs / 2); // f1 arrived (f3 was in before: step 1 ends at once)
  CHECK(end.at({1, 1}) == 3 * kMs / 2);
  CHECK(end.at({4, 0}) == 2 * kMs);     // f4
  CHECK(end.at({0, 0}) == 2 * kMs);     // g0 waits for both its sends to arrive
}
