// NCCL 2.4's own rings on one node (sim/model/nccl/rings_v24.hpp), worked by hand from NVIDIA/nccl v2.4.8-1:
// src/include/nvlink.h getNvlinkGpu gives a GPU pair CONNECT_NVLINK x its NVLinks, or CONNECT_NVSWITCH x the
// GPU's NVLinks into NVSwitches; src/transport/p2p.cc p2pGetRings then builds the rings and doubles them.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/rings_v24.hpp"
#include "sim/model/nccl/threshold_choice.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using Kind = nccl::ReleaseRings::Kind;
using Matrix = std::vector<std::vector<int>>;

namespace {
const nccl::Tables::ThresholdRule& rule_248() {
  const auto* r = nccl::threshold_rule(nccl::load_tables(), nccl::parse_nccl_version("2.4.8"));
  REQUIRE(r != nullptr);
  return *r;
}

// DGX-1V from `nvidia-smi topo -m` (NV1 / NV2 per pair): 0-1 1, 0-2 1, 0-3 2, 0-4 2, 1-2 2, 1-3 1, 1-5 2,
// 2-3 2, 2-6 1, 3-7 1, 4-5 1, 4-6 1, 4-7 2, 5-6 2, 5-7 1, 6-7 2: six NVLinks on every V100.
Matrix dgx1v() {
  Matrix m(8, std::vector<int>(8, 0));
  const int pairs[][3] = {{0, 1, 1}, {0, 2, 1}, {0, 3, 2}, {0, 4, 2}, {1, 2, 2}, {1, 3, 1}, {1, 5, 2}, {2, 3, 2},
                          {2, 6, 1}, {3, 7, 1}, {4, 5, 1}, {4, 6, 1}, {4, 7, 2}, {5, 6, 2}, {5, 7, 1}, {6, 7, 2}};
  for (const auto& p : pairs) m[p[0]][p[1]] = m[p[1]][p[0]] = p[2];
  return m;
}

// Do `rings` (rank orders) fit in `lanes`, one lane per hop in its direction, and visit every rank once?
bool fits(Matrix lanes, const std::vector<std::vector<int>>& rings) {
  for (const auto& r : rings) {
    if (r.size() != lanes.size()) return false;
    auto sorted = r;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] != static_cast<int>(i)) return false;
    for (std::size_t i = 0; i < r.size(); ++i)
      if (--lanes[static_cast<std::size_t>(r[i])][static_cast<std::size_t>(r[(i + 1) % r.size()])] < 0) return false;
  }
  return true;
}
} // namespace

TEST_CASE("NCCL 2.4 finds 6 rings on a DGX-1V cube-mesh and runs each twice: 12 channels") {
  // A ring leaves every GPU on one of its 6 NVLinks, so at most 6 rings; these 6 (ccsim's ring packer's
  // for this box, checked here lane by lane: every directed NVLink lane used exactly once) reach it. p2pComputeRingsNvLink asks for MAXCHANNELS 16,
  // finds 6; 8 GPUs > 4, so no second search with lanes counted twice; copyRings(6 x 2) = 12 <= 16.
  const std::vector<std::vector<int>> by_hand = {{0, 1, 2, 3, 7, 5, 6, 4}, {0, 4, 6, 5, 7, 3, 2, 1}, {0, 2, 6, 7, 4, 5, 1, 3},
                                                 {0, 3, 1, 5, 4, 7, 6, 2}, {0, 3, 2, 1, 5, 6, 7, 4}, {0, 4, 7, 6, 5, 1, 2, 3}};
  REQUIRE(fits(dgx1v(), by_hand));
  std::vector<std::vector<int>> found;
  CHECK(nccl::max_ring_packing(dgx1v(), 16, &found) == 6);
  CHECK(fits(dgx1v(), found));
  const auto r = nccl::release_rings(rule_248(), dgx1v(), std::vector<int>(8, 0));
  REQUIRE(r);
  CHECK(r->kind == Kind::NvLink);
  CHECK(r->rings == 6);
  CHECK(r->channels == 12);
  CHECK_FALSE(r->oversubscribed);
  // The shipped topology, read through its links, gives the same.
  const auto t = topology::resolve_topology("dgx1-v100");
  const auto from_topo = nccl::release_rings_for(t, rule_248(), {0, 1, 2, 3, 4, 5, 6, 7});
  REQUIRE(from_topo);
  CHECK(from_topo->rings == 6);
  CHECK(from_topo->channels == 12);
}

TEST_CASE("NCCL 2.4 on 12 GPUs of a DGX-2 runs 6 NVSwitch rings twice: 12 channels") {
  // Every V100 has its 6 NVLinks on the NVSwitch plane, so every pair reads CONNECT_NVSWITCH x 6; no ring is
  // given to connect (one node), so min(nrings 16, 6 switch NVLinks) = 6 rings in rank order, copied to 12.
  const Matrix none(12, std::vector<int>(12, 0));
  const auto r = nccl::release_rings(rule_248(), none, std::vector<int>(12, 6));
  REQUIRE(r);
  CHECK(r->kind == Kind::NvSwitch);
  CHECK(r->rings == 6);
  CHECK(r->channels == 12);
  REQUIRE(r->orders.size() == 6u);
  CHECK(r->orders.front() == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const auto t = topology::resolve_topology("dgx2");
  const auto from_topo = nccl::release_rings_for(t, rule_248(), {1, 2, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  REQUIRE(from_topo);
  CHECK(from_topo->kind == Kind::NvSwitch);
  CHECK(from_topo->channels == 12);
}

TEST_CASE("NCCL 2.4 counts every lane twice on up to 4 GPUs only when that more than doubles the rings") {
  // 4 GPUs, one NVLink per pair: 3 rings would use all 12 directed lanes, a Hamiltonian decomposition of the
  // complete symmetric digraph on 4 vertices, which does not exist (Tillson 1980: none for 4 and 6), so 2
  // (0-1-2-3-0 and 0-3-2-1-0). Counted twice, each of the six directed 4-cycles fits once (each lane lies on
  // two of them): 6 > 2 x 2, kept; x2 = 12 channels.
  const Matrix k4 = {{0, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 0, 1}, {1, 1, 1, 0}};
  CHECK(nccl::max_ring_packing(k4, 16) == 2);
  const auto r = nccl::release_rings(rule_248(), k4, {0, 0, 0, 0});
  REQUIRE(r);
  CHECK(r->oversubscribed);
  CHECK(r->rings == 6);
  CHECK(r->channels == 12);
  // Two GPUs on one NVLink: 1 ring; counted twice 2, not more than 2 x 1: 1 ring, 2 channels.
  const auto pair = nccl::release_rings(rule_248(), {{0, 1}, {1, 0}}, {0, 0});
  REQUIRE(pair);
  CHECK_FALSE(pair->oversubscribed);
  CHECK(pair->rings == 1);
  CHECK(pair->channels == 2);
}

TEST_CASE("NCCL 2.4 without an NVLink ring through every GPU falls back on one ring, one channel") {
  // DGX-1V GPUs 0-4: GPU 4's only NVLink in the set goes to GPU 0, so no ring; ncclGetRings: "falling back
  // on simple ring" in rank order, not duplicated.
  const auto t = topology::resolve_topology("dgx1-v100");
  const auto r = nccl::release_rings_for(t, rule_248(), {0, 1, 2, 3, 4});
  REQUIRE(r);
  CHECK(r->kind == Kind::NoRing);
  CHECK(r->channels == 1);
  // No NVLink at all (PCIe): p2pComputeRingsPci returns 1 ring, not duplicated.
  const auto pci = nccl::release_rings(rule_248(), Matrix(4, std::vector<int>(4, 0)), {0, 0, 0, 0});
  REQUIRE(pci);
  CHECK(pci->kind == Kind::Pci);
  CHECK(pci->channels == 1);
  // 2.4 refuses direct NVLink beyond 8 GPUs ("Recursive P2P computation cannot work for >8 GPUs").
  Matrix ring9(9, std::vector<int>(9, 0));
  for (int i = 0; i < 9; ++i) ring9[i][(i + 1) % 9] = ring9[(i + 1) % 9][i] = 1;
  CHECK_FALSE(nccl::release_rings(rule_248(), ring9, std::vector<int>(9, 0)));
}

TEST_CASE("The NCCL graph header of a 2.4.8 run names 2.4's channels, and 2.30's run does not") {
  const auto t = topology::resolve_topology("dgx1-v100");
  metrics::RunConfig cfg;
  cfg.placements = {{0, 1, 2, 3, 4}};
  nccl::Options o;
  o.nccl_version = "2.4.8";
  nccl::Builder b(t, o);
  const std::string h = b.describe(cfg);
  CHECK(h.find("NCCL 2.4 rings") != std::string::npos);
  CHECK(h.find("= 1 channel") != std::string::npos);
  // 1 MiB on 5 ranks: LL's threshold on the one channel is 1 x 256 x 5 x 64 B = 80 KiB, so Simple on 1 channel
  // (the 2.30 graph's 2 channels before).
  const auto c = metrics::run(b, cfg, metrics::plan_size(schedule::Op::AllReduce, 5, Bytes{1} << 20, 4)).choice;
  CHECK(c.proto == "Simple");
  CHECK(c.channels == 1);
  nccl::Builder latest(t, nccl::Options{});
  CHECK(latest.describe(cfg).find("NCCL 2.4") == std::string::npos);
}

TEST_CASE("A dense NVLink mesh the search cannot settle in its budget gives a flagged lower bound, not a hang") {
  // 8 GPUs, one NVLink per pair and two between GPUs 0 and 1: GPUs 2-7 have 7 lanes out, so at most 7 rings;
  // proving or reaching that takes far longer than the budget, so the answer is a lower bound, said so.
  std::vector<std::vector<int>> m(8, std::vector<int>(8, 1));
  for (int i = 0; i < 8; ++i) m[i][i] = 0;
  m[0][1] = m[1][0] = 2;
  bool complete = true;
  std::vector<std::vector<int>> found;
  const int rings = nccl::max_ring_packing(m, 16, &found, &complete);
  CHECK_FALSE(complete);
  CHECK(rings >= 1);
  CHECK(rings <= 7);
  CHECK(fits(m, found));
  const auto r = nccl::release_rings(rule_248(), m, std::vector<int>(8, 0));
  REQUIRE(r);
  CHECK(nccl::describe(*r).find("at least") != std::string::npos);
}
