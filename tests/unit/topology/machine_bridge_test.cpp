// machine:...,bridge=2way|4way|none: the NVLink bridge PCIe cards carry, as NVIDIA sells them (models/gpus.json:
// H200 NVL with 2- or 4-way bridges, 18 NVLink4 links per GPU; H100 NVL 2-way only, 12 links; A40 2-way, 4 links).
// Pair counts and lanes below are counted by hand from those figures.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {
// GPU pair -> lanes of the NVLink (bridge) link between them.
std::map<std::pair<int, int>, int> bridged_pairs(const Topology& t) {
  std::map<int, int> gpu_of;
  for (int g = 0; g < t.num_gpus(); ++g) gpu_of[t.gpu_node(g)] = g;
  std::map<std::pair<int, int>, int> out;
  for (const auto& l : t.links)
    if (gpu_of.count(l.a) && gpu_of.count(l.b) && l.type != LinkType::Pcie4 && l.type != LinkType::Pcie5)
      out[{std::min(gpu_of[l.a], gpu_of[l.b]), std::max(gpu_of[l.a], gpu_of[l.b])}] = l.lanes;
  return out;
}
using Pairs = std::map<std::pair<int, int>, int>;
} // namespace

TEST_CASE("machine: bridge=2way gives an 8-card H200 NVL server four pairs of 18 links, the 4-way default two hives of 6") {
  const auto two = resolve_topology("machine:gpu=h200nvl,gpus=8,bridge=2way");
  CHECK(bridged_pairs(two) == Pairs{{{0, 1}, 18}, {{2, 3}, 18}, {{4, 5}, 18}, {{6, 7}, 18}});
  CHECK(two.name.find("2way") != std::string::npos);
  const auto dflt = resolve_topology("machine:gpu=h200nvl,gpus=8");
  CHECK(bridged_pairs(dflt).size() == 12); // 2 hives x 6 pairs
  CHECK(bridged_pairs(dflt).at({0, 3}) == 6);
  CHECK(bridged_pairs(dflt).count({3, 4}) == 0);
  CHECK(bridged_pairs(resolve_topology("machine:gpu=h200nvl,gpus=4,bridge=4way")) == bridged_pairs(resolve_topology("machine:gpu=h200nvl,gpus=4")));
}

TEST_CASE("machine: H100 NVL, A40 and RTX A6000 pairs on 4- and 8-card servers, bridge=none leaves PCIe only") {
  CHECK(bridged_pairs(resolve_topology("machine:gpu=h100nvl,gpus=4,bridge=2way")) == Pairs{{{0, 1}, 12}, {{2, 3}, 12}});
  CHECK(bridged_pairs(resolve_topology("machine:gpu=a40,gpus=8,bridge=2way")) ==
        Pairs{{{0, 1}, 4}, {{2, 3}, 4}, {{4, 5}, 4}, {{6, 7}, 4}});
  CHECK(bridged_pairs(resolve_topology("machine:gpu=rtxa6000,gpus=4,bridge=2way")) == Pairs{{{0, 1}, 4}, {{2, 3}, 4}});
  const auto none = resolve_topology("machine:gpu=a40,gpus=8,bridge=none");
  CHECK(bridged_pairs(none).empty());
  CHECK(none.name == resolve_topology("machine:gpu=a40,gpus=8,intra=pcie").name);
}

TEST_CASE("machine: a bridge the card is not sold with is one error line") {
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h100nvl,gpus=4,bridge=4way"),
                       doctest::Contains("machine: h100nvl comes with 2-way NVLink bridges only (models/gpus.json bridge_group), not bridge=4way"),
                       Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h100,bridge=2way"),
                       doctest::Contains("machine: h100 is not sold with an NVLink bridge"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h200nvl,bridge=3way"),
                       doctest::Contains("machine: bridge '3way' is not 2way, 4way or none"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h200nvl,gpus=6,bridge=4way"),
                       doctest::Contains("gpus must be a multiple of 4, got 6"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=a40,bridge=none,intra=bridge"),
                       doctest::Contains("machine: bridge=none and intra=bridge disagree"), Error);
}
