// Max-min fair shares by progressive filling (sim/engine/max_min_share.cpp) on channels of unequal
// capacity, through the flow model: three flows over two contended links, rates worked out by hand; and the
// share memo, on flows and channels set by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>

#include "listed_transfers.hpp"
#include "sim/engine/max_min_share.hpp"

using namespace ccsim;
using namespace ccsim::engine;

namespace {

constexpr Bandwidth kGBps = 1'000'000'000;
constexpr Time kLat = kPsPerUs; // per link; every route here is two links

// GPUs 0..3 on one switch. The links' capacities per direction: g0 100 GB/s, g1 6 GB/s (link B),
// g2 10 GB/s (link A), g3 100 GB/s.
std::map<int, Time> run(const std::vector<test::ListedTransfer>& list, Semantics semantics) {
  ModelParams mp;
  mp.semantics = semantics;
  std::map<int, Time> end;
  for (const auto& [rank_step, e] : test::run_on_switch({100 * kGBps, 6 * kGBps, 10 * kGBps, 100 * kGBps}, kLat, mp, list))
    end[rank_step.first] = e; // one step
  return end;
}

constexpr Time kMs = 1'000'000'000; // ps

} // namespace

// f1: g0 -> g2 (crosses A), f2: g1 -> g2 (crosses B and A), f3: g1 -> g3 (crosses B).
// Filling: A's share 10/2 = 5, B's 6/2 = 3 GB/s: B is the bottleneck, f2 and f3 get 3; A has 10 - 3 = 7
// left for f1 alone. f2 (3 MB) is through after 1 ms; f1 (14 MB) has 7 MB left and now gets all of A,
// 10 GB/s: 0.7 ms more; f3 (6 MB) has 3 MB left and gets all of B, 6 GB/s: 0.5 ms more. Bytes move after
// the route's 2 us latency (mpi: latency first); a sender is done when its last message is in.
TEST_CASE("max-min: three flows on two links of unequal capacity, bottleneck B first, then A") {
  const std::vector<test::ListedTransfer> list = {{0, 0, 2, 14'000'000}, {0, 1, 2, 3'000'000}, {0, 1, 3, 6'000'000}};
  const auto end = run(list, Semantics::mpi);
  CHECK(end.at(0) == 2 * kLat + 17 * kMs / 10); // f1
  CHECK(end.at(1) == 2 * kLat + 15 * kMs / 10); // f2 (1 ms) and f3 (1.5 ms)
  CHECK(end.at(2) == 2 * kLat + 17 * kMs / 10); // f2, then f1
  CHECK(end.at(3) == 2 * kLat + 15 * kMs / 10); // f3
}

// The same shares whatever order the transfers are posted in, and with the latency last (gpu semantics:
// the bytes move at once, a sender is done when they have left, a receiver 2 us later).
TEST_CASE("max-min: the hand-computed shares do not depend on posting order or on where the latency goes") {
  std::vector<test::ListedTransfer> list = {{0, 1, 3, 6'000'000}, {0, 0, 2, 14'000'000}, {0, 1, 2, 3'000'000}};
  for (int rotation = 0; rotation < 3; ++rotation) {
    std::rotate(list.begin(), list.begin() + 1, list.end());
    const auto mpi = run(list, Semantics::mpi);
    CHECK(mpi.at(0) == 2 * kLat + 17 * kMs / 10);
    CHECK(mpi.at(3) == 2 * kLat + 15 * kMs / 10);
    const auto gpu = run(list, Semantics::gpu);
    CHECK(gpu.at(0) == 17 * kMs / 10);
    CHECK(gpu.at(1) == 15 * kMs / 10);
    CHECK(gpu.at(2) == 2 * kLat + 17 * kMs / 10);
    CHECK(gpu.at(3) == 2 * kLat + 15 * kMs / 10);
  }
}

// A's 10 GB/s three ways (g0, g1, g3 -> g2; B carries only g1's flow, share 6): floor(10e9 / 3) =
// 3,333,333,333 B/s each. 1 MB takes 1e18 ps-bytes / 3,333,333,333 = 300,000,000.03 ps, rounded up:
// 300,000,001 ps (3,333,333,333 x 300,000,000 falls 1e8 short of 1e18).
TEST_CASE("max-min: a three-way share rounds down to whole bytes per second, the finish up to the next ps") {
  const std::vector<test::ListedTransfer> list = {{0, 0, 2, 1'000'000}, {0, 1, 2, 1'000'000}, {0, 3, 2, 1'000'000}};
  const auto end = run(list, Semantics::mpi);
  for (int r : {0, 1, 2, 3}) CHECK(end.at(r) == 2 * kLat + 300'000'001);
}

// Add g1 -> g3: B (6 GB/s) now has two flows, share 3, below A's 10/3: B first, g1 -> g2 and g1 -> g3
// get 3 GB/s; A has 10 - 3 = 7 left for g0 -> g2 and g3 -> g2, 3.5 GB/s each. Sized to end together
// after 1 ms (3.5 MB, 3 MB, 3.5 MB, 3 MB); filling A first (3.33 each) would not.
TEST_CASE("max-min: the second bottleneck splits what the first one left") {
  const std::vector<test::ListedTransfer> list = {{0, 0, 2, 3'500'000}, {0, 1, 2, 3'000'000}, {0, 3, 2, 3'500'000}, {0, 1, 3, 3'000'000}};
  const auto end = run(list, Semantics::mpi);
  for (int r : {0, 1, 2, 3}) CHECK(end.at(r) == 2 * kLat + kMs);
}

namespace {

// The sharing itself, on channels and flows set by hand: 0 = A (10 GB/s), 1 = B (6), 2 = P and 3 = Q (100
// each). f0 crosses P and A, f1 B and A, f2 B and Q (the first case above without latency).
struct HandShare : MaxMinShare {
  using MaxMinShare::chans_;
  using MaxMinShare::check_share_memo;
  HandShare() {
    for (Bandwidth cap : {10 * kGBps, 6 * kGBps, 100 * kGBps, 100 * kGBps}) {
      Chan c;
      c.capacity = cap;
      chans_.push_back(c);
    }
    flows_.resize(3);
    flow_route_.resize(3);
    routes({{2, 0}, {1, 0}, {1, 3}});
    comp_chans_ = {0, 1, 2, 3};
    check_share_memo(); // as FlowNetwork::reset does
  }
  void routes(const std::vector<std::vector<ChannelId>>& r) {
    for (Chan& c : chans_) c.flows.clear();
    for (std::uint32_t f = 0; f < 3; ++f) {
      flows_[f].route = r[f];
      flow_route_[f] = kNoRoute; // as FlowNetwork::post does
      for (ChannelId c : r[f]) chans_[c].flows.push_back(f);
    }
  }
  // Shares the three flows as one component, listed in `order`; their rates in GB/s, by flow.
  std::vector<Bandwidth> share_in(const std::vector<std::uint32_t>& order) {
    comp_flows_ = order;
    for (Flow& f : flows_) f.rate = 0;
    share(Comp{0, comp_chans_.size(), 0, comp_flows_.size()});
    std::vector<Bandwidth> gbps;
    for (const Flow& f : flows_) gbps.push_back(f.rate / kGBps);
    return gbps;
  }
};

} // namespace

// B (6 / 2 = 3) before A (10 / 2 = 5): f1 and f2 get 3, A has 7 left for f0 (P, 100, is wider). The
// component met again in another order is recalled from the share memo: each flow must get its own rate
// back (7 for f0, not whichever flow comes first). Routes changed with the flow count unchanged: f2 on P and
// Q, so B carries f1 alone (6 / 1) and A (5) is first: f0 = f1 = 5, P has 95 left for f2 (Q: 100). A's
// capacity lowered to 4 (as another topology would be): A (2) before B (3): f0 = f1 = 2, B has 4 left for
// f2. A memo keyed by the flow count, or kept across a change of capacities, gives 7, 3, 3 in both.
TEST_CASE("max-min: the share memo hands each flow its own rate back, and forgets rates of other routes or capacities") {
  HandShare s;
  CHECK(s.share_in({0, 1, 2}) == std::vector<Bandwidth>{7, 3, 3});
  CHECK(s.share_in({2, 0, 1}) == std::vector<Bandwidth>{7, 3, 3});
  CHECK(s.share_in({1, 2, 0}) == std::vector<Bandwidth>{7, 3, 3});
  s.routes({{2, 0}, {1, 0}, {2, 3}});
  CHECK(s.share_in({0, 1, 2}) == std::vector<Bandwidth>{5, 5, 95});
  CHECK(s.share_in({2, 1, 0}) == std::vector<Bandwidth>{5, 5, 95});
  s.routes({{2, 0}, {1, 0}, {1, 3}});
  CHECK(s.share_in({1, 0, 2}) == std::vector<Bandwidth>{7, 3, 3});
  s.chans_[0].capacity = 4 * kGBps;
  s.check_share_memo();
  CHECK(s.share_in({0, 1, 2}) == std::vector<Bandwidth>{2, 2, 4});
  CHECK(s.share_in({2, 1, 0}) == std::vector<Bandwidth>{2, 2, 4});
}
