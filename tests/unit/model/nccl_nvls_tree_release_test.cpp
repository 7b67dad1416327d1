// NVLS-tree's estimate as NCCL 2.26.2's tuner computes it (NVIDIA/nccl v2.26.2-1 src/graph/tuning.cc), worked by
// hand on 2 and 4 x 8 H100 with 8 x 400G IB (the wild XE9680 and 4-node VM runs of nccl-tests #309, NCCL 2.26.2).
// NVLS-tree graph: 8 channels, bwIntra 40, bwInter 48 (search.cc with speedArrayInter, the checks below).
//   v2.26.2: bw/channel = min(bwIntra, nNodes <= 2 ? bwInter : bwInter / 2), algbw = 8 x bw x 5/6;
//            latency = hwLat NVLINK NVLSTree 25 + 2 log2i(nNodes) x hwLat NET NVLSTree 14 (IB's latencyInter 0).
//   2 nodes: 8 x min(40, 48) x 5/6 = 266.67 GB/s, 25 + 2 x 14 = 53 us;
//            512 KiB: 53 + 524288 / 266667 = 54.97 us; 256 KiB: 53 + 0.98 = 53.98 us.
//   4 nodes: 8 x min(40, 24) x 5/6 = 160 GB/s, 25 + 4 x 14 = 81 us; 1 MiB: 81 + 1048576 / 160000 = 87.55 us.
// The same release's ring and tree (unchanged from the tables: ring 8 x 20.6, Intel host):
//   ring/LL: 6.6 + 28 x max(0.6, netOverhead 1.0) + 2 x 2.7 = 40 us, algbw min(llMaxBw 39, ...) x 16/30 = 20.8;
//            256 KiB: 40 + 12.60 = 52.60 us (the pick there: below NVLS-tree's 53.98); 512 KiB: 65.21 us.
//   tree/LL128: 14 + 2 x (7 x 1.25 + 8.5) = 48.5 us; busBw min(0.92 x 164.8, 8 x 41.4) = 151.6, x 120/128 = 142.1
//            (under 8 x 36.7), x 0.5 x treeCorrectionFactor LL128 0.6 at log2i(512 KiB / 64) = 13: 42.6 GB/s;
//            512 KiB: 48.5 + 12.30 = 60.80 us. So v2.26.2 runs NVLS-tree at 512 KiB where the newest tables
//            (NET NVLSTree 20.9, nvlsEfficiency, x nRanks/nsteps: 66.8 + 2.13 = 68.93 us) keep tree/LL128.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

namespace {
const nccl::Candidate& fastest_of(const std::vector<nccl::Candidate>& cs) {
  const nccl::Candidate* b = &cs.front();
  for (const auto& c : cs)
    if (c.time_us < b->time_us) b = &c;
  return *b;
}
const nccl::Candidate* find_pair(const std::vector<nccl::Candidate>& cs, nccl::Algo a, nccl::Proto p) {
  for (const auto& c : cs)
    if (c.algo == a && c.proto == p) return &c;
  return nullptr;
}
} // namespace

TEST_CASE("NCCL 2.26.2 times NVLS-tree with its own bandwidth and latency and runs it at 512 KiB on 2 x 8 H100") {
  const auto& tab = nccl::load_tables();
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib"));
  REQUIRE(g.nvls.tree);
  CHECK(g.nvls.channels == 8);
  CHECK(g.nvls.bw_intra == doctest::Approx(40.0));
  CHECK(g.nvls.bw_inter == doctest::Approx(48.0));
  const auto* rule = nccl::nvls_tree_tuner_rule(tab, nccl::parse_nccl_version("2.26.2"));
  REQUIRE(rule != nullptr);

  const auto at512 = nccl::candidates(tab, g, Op::AllReduce, 16, Bytes{512} << 10, true, rule);
  const auto* nvls = find_pair(at512, nccl::Algo::NvlsTree, nccl::Proto::Simple);
  REQUIRE(nvls != nullptr);
  CHECK(nvls->time_us == doctest::Approx(53.0 + 524288.0 / (8 * 40.0 * 5 / 6 * 1000)).epsilon(1e-4));
  CHECK(find_pair(at512, nccl::Algo::Tree, nccl::Proto::LL128)->time_us == doctest::Approx(60.80).epsilon(1e-3));
  CHECK(fastest_of(at512).algo == nccl::Algo::NvlsTree);
  // The prediction keeps the newest figures: the candidate's latency is 25 + 2 x 20.9.
  CHECK(nvls->lat_us == doctest::Approx(66.8));

  // 256 KiB: 2.26.2's own ring/LL estimate is below its NVLS-tree one, so ring/LL stays its pick.
  const auto at256 = nccl::candidates(tab, g, Op::AllReduce, 16, Bytes{256} << 10, true, rule);
  CHECK(find_pair(at256, nccl::Algo::NvlsTree, nccl::Proto::Simple)->time_us == doctest::Approx(53.98).epsilon(1e-3));
  CHECK(find_pair(at256, nccl::Algo::Ring, nccl::Proto::LL)->time_us == doctest::Approx(52.60).epsilon(1e-3));
  CHECK(fastest_of(at256).algo == nccl::Algo::Ring);

  // Without a release (the tables' own, 2.30.7) the same size stays on tree/LL128.
  const auto newest = nccl::candidates(tab, g, Op::AllReduce, 16, Bytes{512} << 10);
  CHECK(find_pair(newest, nccl::Algo::NvlsTree, nccl::Proto::Simple)->time_us == doctest::Approx(68.93).epsilon(1e-3));
  CHECK(fastest_of(newest).algo == nccl::Algo::Tree);
}

TEST_CASE("NCCL 2.26.2's NVLS-tree beyond 2 nodes halves bwInter and pays 2 log2i(nodes) network hops of 14 us") {
  const auto& tab = nccl::load_tables();
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=h100,nodes=4,nics=8x400G,kind=ib"));
  REQUIRE(g.nvls.tree);
  REQUIRE(g.nvls.channels == 8);
  const auto* rule = nccl::nvls_tree_tuner_rule(tab, nccl::parse_nccl_version("2.26.2"));
  REQUIRE(rule != nullptr);
  const auto cs = nccl::candidates(tab, g, Op::AllReduce, 32, Bytes{1} << 20, true, rule);
  CHECK(find_pair(cs, nccl::Algo::NvlsTree, nccl::Proto::Simple)->time_us ==
        doctest::Approx(81.0 + 1048576.0 / (8 * 24.0 * 5 / 6 * 1000)).epsilon(1e-4));
}

TEST_CASE("NVLS-tree tuner spans by release: none before 2.19.1 or from 2.29.2, 20.9 us network hops from 2.28.9") {
  const auto& tab = nccl::load_tables();
  const auto rule_of = [&](const char* v) { return nccl::nvls_tree_tuner_rule(tab, nccl::parse_nccl_version(v)); };
  CHECK(rule_of("2.18.6") == nullptr);
  CHECK(rule_of("2.29.2") == nullptr);
  CHECK(nccl::nvls_tree_tuner_rule(tab, std::nullopt) == nullptr);
  REQUIRE(rule_of("2.20.5") != nullptr);
  CHECK(rule_of("2.20.5")->nvlink_latency_us == doctest::Approx(23.0));
  REQUIRE(rule_of("2.27.7") != nullptr);
  CHECK(rule_of("2.27.7")->min_bandwidth);
  REQUIRE(rule_of("2.28.3") != nullptr);
  CHECK_FALSE(rule_of("2.28.3")->min_bandwidth);
  CHECK(rule_of("2.28.3")->net_latency_us == doctest::Approx(14.0));
  REQUIRE(rule_of("2.28.9") != nullptr);
  CHECK(rule_of("2.28.9")->net_latency_us == doctest::Approx(20.9));
  CHECK_FALSE(rule_of("2.28.9")->size_factor);
}

// Blackwell across nodes: ncclNvlsTreeSm100Tuning first appears in v2.30.3-1 (src/transport/nvls.cc; v2.29.7-1 has
// none). Before it NVLS-tree runs NVLS_NCHANNELS_SM100 = 32 CUDA channels and the tree's max chunk is the NVLS chunk,
// 128 KiB, on 2-3 nodes, 64 KiB from 4 (enqueue.cc calcCollChunking, v2.26.2-1).
//   2 x 8 B200, heads at 48 GB/s (PCIe Gen5, < 96), ppn 8: v2.30 takes 64 KiB, v2.26.2 128 KiB. At 4 GiB on 32
//   channels x 8 heads (256 concurrent ops) no halving applies (4 GiB >= 4 x 256 x 128 KiB = 128 MiB).
//   3 GB200 racks with heads at 48: v2.30 24 channels, v2.26.2 32.
TEST_CASE("Blackwell NVLS-tree channels and chunk before NCCL 2.30.3 are the generic 32 and 128 KiB") {
  const auto& tab = nccl::load_tables();
  auto b2 = test::packed_graph(topology::resolve_topology("machine:gpu=b200,nodes=2,nics=8x400G,kind=ib"));
  REQUIRE(b2.nvls.tree);
  CHECK(nccl::nvls_tree_chunk_bytes(tab, b2, 32, Bytes{4} << 30) == 65536.0);
  b2.nvls.sm100_tree_tuning = nccl::nvls_sm100_tree_tuning_in_release(nccl::parse_nccl_version("2.26.2"));
  CHECK_FALSE(b2.nvls.sm100_tree_tuning);
  CHECK(nccl::nvls_tree_chunk_bytes(tab, b2, 32, Bytes{4} << 30) == 131072.0);
  CHECK(nccl::nvls_tree_cuda_channels(tab, b2) == 32);

  auto r3 = test::packed_graph(topology::resolve_topology("machine:gpu=gb200,gpus=64,nodes=3,nics=64x400G,kind=roce"));
  REQUIRE(r3.nvls.tree);
  CHECK(nccl::nvls_tree_cuda_channels(tab, r3) == 24);
  r3.nvls.sm100_tree_tuning = nccl::nvls_sm100_tree_tuning_in_release(nccl::parse_nccl_version("2.29.7"));
  CHECK(nccl::nvls_tree_cuda_channels(tab, r3) == 32);
  CHECK(nccl::nvls_sm100_tree_tuning_in_release(nccl::parse_nccl_version("2.30.3")));
  CHECK(nccl::nvls_sm100_tree_tuning_in_release(std::nullopt));
}

// Through the builder: --nccl-version 2.26.2 on 2 x 8 H100 runs NVLS-tree at 512 KiB (54.97 < tree/LL128's 60.80 us,
// the first test case) on NVLS_NCHANNELS_SM90 = 16 channels; the tables' own release tree/LL128 (68.93 > 60.80).
// metrics::run gives the plan's choice (on 5d108a0 both were tree/LL128).
TEST_CASE("The predicted release reaches NCCL's choice: NVLS-tree at 512 KiB on 2 x 8 H100 under 2.26.2") {
  const auto t = topology::resolve_topology("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib");
  const auto cfg = test::packed_rings_config(t);
  const auto size = metrics::plan_size(Op::AllReduce, 16, Bytes{512} << 10, 4);
  nccl::Options old_release;
  old_release.nccl_version = "2.26.2";
  nccl::Builder b226(t, old_release);
  const auto c226 = metrics::run(b226, cfg, size).choice;
  CHECK(c226.algo == "nvls_tree");
  CHECK(c226.channels == 16);
  nccl::Builder newest(t, nccl::Options{});
  const auto cnew = metrics::run(newest, cfg, size).choice;
  CHECK(cnew.algo == "tree");
  CHECK(cnew.proto == "LL128");
}
