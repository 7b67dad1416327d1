// Issue 14, 4 and 6 GPUs of an xGMI full mesh (ring_search.cpp pack_rings, graph.cpp rings_per_lane): the complete
// directed graph on 4 or 6 vertices has no split into directed Hamiltonian cycles (Tillson, 1980), so rings of a
// full lane each leave a link of every GPU idle; NCCL's search, which RCCL keeps (ROCm/rccl src/graph/search.cc
// ncclTopoCompute, speedArrayIntra 48, 24, ...), lowers its speed to half a link and runs two channels per directed
// link over all six directed 4-cycles (RCCL's own 4-GPU mesh model lists them: rome_models.cc). Expected values by
// hand from the catalogue's figures.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "sim/core/data_dir.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"
#include "nccl_run_config.hpp"

using namespace ccsim;

namespace {
// How many rings use each directed GPU pair.
std::map<std::pair<int, int>, int> pair_uses(const std::vector<std::vector<int>>& rings) {
  std::map<std::pair<int, int>, int> n;
  for (const auto& r : rings)
    for (std::size_t i = 0; i < r.size(); ++i) ++n[{r[i], r[(i + 1) % r.size()]}];
  return n;
}
} // namespace

TEST_CASE("4 GPUs of an xGMI mesh: six rings at half a link, every directed link used by two") {
  const auto t = topology::resolve_topology("machine:gpu=mi355x,gpus=4");
  const auto set = topology::pack_rings(t, {});
  CHECK(set.over_direct_links);
  REQUIRE(set.rings.size() == 6); // 4 x 3 directed pairs x 2 rings each / 4 hops per ring
  const auto uses = pair_uses(set.rings);
  CHECK(uses.size() == 12);
  for (const auto& [pair, n] : uses) CHECK(n == 2);
  // The search's figure: 6 channels at half RCCL's per-link speed, 3 links' worth per GPU (link-disjoint rings gave 2).
  const auto& tab = model::nccl::load_tables(data_dir() + "/models/rccl.json");
  double lane = 0;
  for (const auto& l : t.links)
    if (l.type == topology::LinkType::Xgmi) lane = tab.lane_GBps(t, l);
  REQUIRE(lane > 0);
  const auto ga = model::nccl::make_graph(t, tab, set.rings, "");
  CHECK(ga.channels * ga.bw == doctest::Approx(3 * lane));
}

TEST_CASE("8 GPUs of an xGMI mesh keep seven link-disjoint rings at a full link") {
  const auto t = topology::resolve_topology("machine:gpu=mi355x");
  const auto set = topology::pack_rings(t, {});
  REQUIRE(set.rings.size() == 7); // K8 splits into 7 directed Hamiltonian cycles: each directed pair once
  for (const auto& [pair, n] : pair_uses(set.rings)) CHECK(n == 1);
}

TEST_CASE("4 and 6 MI300X of a mesh: a large allreduce runs on every link of each GPU") {
  // rccl.json's per-link figure for gfx942: 304 / 7 GB/s (AMD's 8-GPU acceptance busbw over 7 links). A ring
  // allreduce's busbw is what each GPU sends per unit time over its links: 3 links on 4 GPUs, 5 on 6 (was 2 and 4).
  // Each link carries at most its thread blocks x 304 / 56 GB/s (rccl.json ring_block_GBps_by_sm): RCCL runs 24
  // channels on 4 MI300X (4 on each of the 6 rings, 2 rings a link: 8 blocks, the link's own figure) and NCCL's
  // doubling, 20, on 6 (2 on each of the 10 rings, 2 rings a link: 4 blocks, half the link).
  const double link = 304.0 / 7.0, block = 304.0 / 56.0;
  // A tuple, not a structured binding: clang before 16 cannot capture a binding in CAPTURE's lambda.
  for (const auto& mesh : {std::tuple{"machine:gpu=mi300x,gpus=4", 3, 8}, std::tuple{"machine:gpu=mi300x,gpus=6", 5, 4}}) {
    const char* spec = std::get<0>(mesh);
    const int links = std::get<1>(mesh), blocks = std::get<2>(mesh);
    CAPTURE(spec);
    const auto t = topology::resolve_topology(spec);
    const int p = t.num_gpus();
    const Bytes size = Bytes{1} << 30;
    const double us = test::predict_allreduce_us(t, {}, 1, size);
    const double busbw = static_cast<double>(size) / (us * 1e3) * 2.0 * (p - 1) / p;
    CHECK(busbw == doctest::Approx(links * std::min(link, blocks * block)).epsilon(0.01));
  }
}
