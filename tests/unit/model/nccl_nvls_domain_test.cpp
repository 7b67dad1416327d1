// NVLS on one NVLink domain, against NCCL 2.30.7's search.cc and tuning.cc worked by hand.
// 8 B200 (18 NVLink5 x 40.1 = 721.8 GB/s into the switch): 8 channels, a head GPU carries 9 x speed, so
// bwIntra = 80 (9 x 90 = 810 does not fit, 9 x 80 = 720 does); pass 2 raises bwInter towards 2 x 80 = 160
// but sm100SpeedArrayIntra ends at 90. NCCL's figure: 8 x min(80 x 0.74 x 7/8 x 2 = 103.6, 90) = 720,
// which picks the algorithm; the replay carries the uncapped 8 x 103.6 = 828.8 (bwInter is no link on one
// domain; measured 838-842 on 8 GB300 with NCCL 2.28.7).
// 8 H100 (18 x 20.6 = 370.8): bwIntra 40 (9 x 40 = 360), bwInter 60 (the array's top, below 80):
// min(40 x 0.85 x 7/8 x 2 = 59.5, 60) = 59.5 -> 476 either way.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

namespace {
nccl::Graph graph_of(const topology::Topology& t) { return test::packed_graph(t); }
} // namespace

TEST_CASE("NVLS on 8 B200: NCCL's figure is capped by bwInter, the replay is not") {
  const auto t = topology::resolve_topology("machine:gpu=b200");
  const auto g = graph_of(t);
  const auto& tab = nccl::load_tables();
  REQUIRE(g.nvls.channels == 8);
  CHECK(g.nvls.bw_intra == doctest::Approx(80.0));
  CHECK(g.nvls.bw_inter == doctest::Approx(90.0));
  CHECK(nccl::nvls_bus_bandwidth(tab, g, Op::AllReduce, 8) == doctest::Approx(720.0));
  CHECK(nccl::nvls_replay_bus_bandwidth(tab, g, Op::AllReduce, 8) == doctest::Approx(828.8));
  // A 16 GiB allreduce replayed: 25 us + the pipeline fill 2 x 24 x 8 x 128 KiB / (828.8 x 8/14 GB/s)
  // = 106.3 us (nccl_nvls_pipeline_test) + 16 GiB / (828.8 x 8/14 GB/s), busbw = algbw x 14/8.
  nccl::Builder b(t, {});
  const Bytes size = Bytes{16} << 30;
  const auto row = metrics::run(b, test::packed_rings_config(t), metrics::plan_size(Op::AllReduce, 8, size, 4));
  CHECK(row.choice.algo == "nvls");
  const double us = 25.0 + 50331648.0 / (1000.0 * 828.8 * 8.0 / 14.0) + static_cast<double>(size) / (1000.0 * 828.8 * 8.0 / 14.0);
  CHECK(row.bw.busbw_GBps == doctest::Approx(static_cast<double>(size) / (us * 1000.0) * 14.0 / 8.0).epsilon(0.01));
}

TEST_CASE("NVLS on 8 H100: the cap does not bind, replay and NCCL's figure agree at 476") {
  const auto g = graph_of(topology::resolve_topology("machine:gpu=h100"));
  const auto& tab = nccl::load_tables();
  CHECK(g.nvls.bw_intra == doctest::Approx(40.0));
  CHECK(g.nvls.bw_inter == doctest::Approx(60.0));
  CHECK(nccl::nvls_bus_bandwidth(tab, g, Op::AllReduce, 8) == doctest::Approx(476.0));
  CHECK(nccl::nvls_replay_bus_bandwidth(tab, g, Op::AllReduce, 8) == doctest::Approx(476.0));
}

TEST_CASE("NVLS-tree across nodes keeps NCCL's bwInter cap in the replay figure") {
  // 2 B200 nodes: bwInter is the NIC path (48), a real link: replay = NCCL's 497.28 (nccl_nvls_tree_test).
  const auto g = graph_of(topology::resolve_topology("machine:gpu=b200,nodes=2,nics=8x400G,kind=roce"));
  const auto& tab = nccl::load_tables();
  CHECK(nccl::nvls_replay_bus_bandwidth(tab, g, Op::AllReduce, 16) == doctest::Approx(497.28));
}
