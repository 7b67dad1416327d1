// NCCL 2.29+'s mid-size factor on NVLS-tree allreduce (tuning.cc ncclTopoGetAlgoTime): on Blackwell with x86
// hosts the bandwidth is scaled by treeCorrectionFactor[Simple][log2i(nBytes >> 6)] while that index is < 24.
// The Simple row, by index: 17 (8 MiB) 0.8, 18 (16 MiB) 0.7, 19 (32 MiB) 0.7, 20 (64 MiB) 0.8,
// 21-23 (128-512 MiB) 0.9; from 1 GiB (index 24) no factor. Grace hosts (GB200/GB300) and Hopper: none.
// Two B200 nodes (8 GPUs, 8 x 400G RoCE): NVLS-tree at min(829, 8 x 48 x 2 x 15/16 = 720, 8 x 96) = 720 GB/s
// busbw (algbw at most the 8 heads' NICs, 8 x 48 = 384 = 720 x 16/30); 32 CUDA channels, 64 KiB chunks (ncclNvlsTreeSm100Tuning, ppn 8, NIC 48 < 96).
//   64 MiB: 66.8 us latency (25 + 2 x 20.9) + 67108864 B / (384 x 0.8 GB/s) = 218.453 us
//           + fill of one loop's 32 x 8 x 64 KiB = 16 MiB (tuning.cpp nvls_tree_fill_us, several loops):
//             16777216 B x (1 / (828.8 x 16/30) + 1 / (8 x 48)) = 16777216 x 0.00486652 = 81.647 us -> 366.900 us;
//   1 GiB:  66.8 + 1073741824 / 384e3 = 2796.203 + 81.647 -> 2944.650 us (no factor).
// Plus the step handoff of the 64 KiB chunk (tuning.cpp nvls_tree_step_handoff_us: (loops + 2) x 3.4 x (1 - 64/128)):
// 64 MiB is 2 MiB a channel in 512 KiB loops, 4 loops: 6 x 1.7 = 10.2 us -> 377.100 us; 1 GiB 64 loops: 66 x 1.7 =
// 112.2 us -> 3056.850 us.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

namespace {
nccl::Graph graph_of(const topology::Topology& t) { return test::packed_graph(t); }
constexpr Bytes MiB = Bytes{1} << 20;
const char* const kB200Two = "machine:gpu=b200,nodes=2,nics=8x400G,kind=roce";
} // namespace

TEST_CASE("NVLS-tree size factor: NCCL's Simple tree row on Blackwell x86 hosts, up to 512 MiB") {
  const auto& tab = nccl::load_tables();
  const auto b2 = graph_of(topology::resolve_topology(kB200Two));
  REQUIRE(b2.nvls.tree);
  CHECK_FALSE(b2.arm_cpu);
  CHECK(nccl::nvls_tree_size_factor(tab, b2, 8 * MiB) == doctest::Approx(0.8));
  CHECK(nccl::nvls_tree_size_factor(tab, b2, 16 * MiB) == doctest::Approx(0.7));
  CHECK(nccl::nvls_tree_size_factor(tab, b2, 64 * MiB) == doctest::Approx(0.8));
  CHECK(nccl::nvls_tree_size_factor(tab, b2, 100 * MiB) == doctest::Approx(0.8)); // log2i(1638400) = 20
  CHECK(nccl::nvls_tree_size_factor(tab, b2, 128 * MiB) == doctest::Approx(0.9));
  CHECK(nccl::nvls_tree_size_factor(tab, b2, 512 * MiB) == doctest::Approx(0.9));
  CHECK(nccl::nvls_tree_size_factor(tab, b2, 1024 * MiB) == 1.0);
  CHECK(nccl::nvls_tree_size_factor(tab, b2, 32) == 1.0); // nBytes >> 6 = 0: log2i is -1
  // GB200 racks (Grace hosts), two H100 nodes (Hopper), one B200 node (NVLS, no tree): no factor.
  const auto racks = graph_of(topology::resolve_topology("machine:gpu=gb200,gpus=64,nodes=2,nics=64x400G,kind=roce"));
  REQUIRE(racks.nvls.tree);
  CHECK(racks.arm_cpu);
  CHECK(nccl::nvls_tree_size_factor(tab, racks, 64 * MiB) == 1.0);
  const auto h2 = graph_of(topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib"));
  CHECK(nccl::nvls_tree_size_factor(tab, h2, 64 * MiB) == 1.0);
  const auto one = graph_of(topology::resolve_topology("machine:gpu=b200"));
  CHECK(nccl::nvls_tree_size_factor(tab, one, 64 * MiB) == 1.0);
}

TEST_CASE("Two B200 nodes: NVLS-tree prediction carries the size factor at 64 MiB, none at 1 GiB") {
  const auto t = topology::resolve_topology(kB200Two);
  nccl::Builder b(t, nccl::Options{});
  const auto cfg = test::packed_rings_config(t, Op::AllReduce);
  nccl::Options forced;
  forced.mode = nccl::algo_mode_from("nvls");
  nccl::Builder bf(t, forced);
  const auto at64 = metrics::run(bf, cfg, metrics::plan_size(Op::AllReduce, t.num_gpus(), 64 * MiB, 4));
  REQUIRE(at64.choice.algo == "nvls_tree");
  CHECK(to_us(at64.time) == doctest::Approx(377.100).epsilon(0.002));
  const auto at1g = metrics::run(b, cfg, metrics::plan_size(Op::AllReduce, t.num_gpus(), 1024 * MiB, 4));
  REQUIRE(at1g.choice.algo == "nvls_tree");
  CHECK(to_us(at1g.time) == doctest::Approx(3056.850).epsilon(0.002));
}

TEST_CASE("Two B200 nodes: busbw never falls as the size doubles for one algorithm and protocol") {
  const auto t = topology::resolve_topology(kB200Two);
  nccl::Builder b(t, nccl::Options{});
  const auto cfg = test::packed_rings_config(t, Op::AllReduce);
  test::check_busbw_never_falls(b, cfg, t.num_gpus(), Bytes{1} << 20, Bytes{16} << 30);
}
