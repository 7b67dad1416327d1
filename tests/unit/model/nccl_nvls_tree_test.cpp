// NVLS-tree (NCCL_ALGO_NVLS_TREE) in --model nccl, against NCCL 2.30.7's search.cc and tuning.cc worked
// by hand. HGX H100 with 8 x 400G NICs, one beside each GPU: NCCL sees GPU->NIC at min(PCIe Gen5 48,
// 400G line rate 50) = 48 GB/s, so the inter-node NVLS search starts at the sm90 inter speed 48; a GPU's
// switch links carry (channels + 1) x speed <= 18 x 20.6 = 370.8: 48 -> 6 channels, 45 and 42 -> 7, 40 -> 8
// (kept: more channels); pass 2 raises bwInter 40 -> 42 -> 45 -> 48 (the NIC path's limit).
// busBw per channel = min(40 x 0.85 x 7/8 x 2 = 59.5, 2 x 48 on 2 nodes, perChMaxNVLSTreeBw 57.7 (Hopper N2))
//   -> 8 x 57.7 = 461.6 GB/s; on 4 nodes min(59.5, 48, 45.5 (Hopper N4)) -> 364.
// HGX B200 (18 x 40.1 = 721.8 into the switch), same NICs: sm100 inter speeds <= 48 start at 48, 8 channels
// fit (9 x 48 = 432); bwInter stays 48 (the next speed, 80, is above the NIC path):
//   min(48 x 0.74 x 7/8 x 2 = 62.16, 96, 96 (Blackwell N2)) -> 8 x 62.16 = 497.28.
// Latency: hwLatencies NVLINK NVLSTree 25 + 2 x log2i(nodes) x NET NVLSTree 20.9 = 66.8 us on 2 nodes.
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
metrics::Row run(const topology::Topology& t, Bytes size, const std::string& nvls) {
  nccl::Options o;
  o.nvls = nccl::nvls_mode_from(nvls);
  nccl::Builder b(t, o);
  const auto cfg = test::packed_rings_config(t, Op::AllReduce);
  return metrics::run(b, cfg, metrics::plan_size(Op::AllReduce, t.num_gpus(), size, 4));
}
} // namespace

TEST_CASE("NVLS-tree graph on two HGX H100 nodes follows NCCL's inter-node NVLS search") {
  const auto t = topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib");
  const auto g = graph_of(t);
  CHECK(g.nvls.tree);
  CHECK(g.nvls.channels == 8);
  CHECK(g.nvls.bw_intra == doctest::Approx(40.0));
  CHECK(g.nvls.bw_inter == doctest::Approx(48.0));
  const auto& tab = nccl::load_tables();
  CHECK(nccl::nvls_bus_bandwidth(tab, g, Op::AllReduce, 16) == doctest::Approx(461.6));
  // NVLS allgather/reducescatter across nodes need CollNet: no NVLS candidate.
  CHECK(nccl::nvls_bus_bandwidth(tab, g, Op::AllGather, 16) == 0.0);
  CHECK(nccl::nvls_bus_bandwidth(tab, g, Op::ReduceScatter, 16) == 0.0);
}

TEST_CASE("NVLS-tree bandwidth on four H100 nodes and on two B200 nodes") {
  const auto& tab = nccl::load_tables();
  const auto h4 = topology::resolve_topology("cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib");
  CHECK(nccl::nvls_bus_bandwidth(tab, graph_of(h4), Op::AllReduce, 32) == doctest::Approx(364.0));
  const auto b2 = topology::resolve_topology("machine:gpu=b200,nodes=2,nics=8x400G,kind=roce");
  const auto g = graph_of(b2);
  CHECK(g.nvls.bw_intra == doctest::Approx(48.0));
  CHECK(g.nvls.bw_inter == doctest::Approx(48.0));
  CHECK(nccl::nvls_bus_bandwidth(tab, g, Op::AllReduce, 16) == doctest::Approx(497.28));
}

TEST_CASE("NVLS-tree is NCCL's pick for large allreduces across H100 nodes and leaves with --nvls off") {
  const auto t = topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib");
  const auto big = run(t, Bytes{4} << 30, "auto");
  CHECK(big.choice.algo == "nvls_tree");
  // NCCL's closed form plus the pipeline fill (nccl_nvls_tree_fill_test.cpp: 110.01 us at 4 GiB).
  const double expect_us = 66.8 + (4.0 * (1 << 30)) / (1000.0 * 461.6 * 16.0 / 30.0) + 110.01;
  const double expect_busbw = 4.0 * (1 << 30) / (expect_us * 1e3) * 30.0 / 16.0;
  CHECK(big.bw.busbw_GBps == doctest::Approx(expect_busbw).epsilon(0.01));
  const auto off = run(t, Bytes{4} << 30, "off");
  CHECK(off.choice.algo != "nvls_tree");
  CHECK(off.bw.busbw_GBps < big.bw.busbw_GBps);
}

TEST_CASE("NVLS-tree needs two heads per node: one NIC per node leaves NCCL's ring and tree") {
  const auto t = topology::resolve_topology("machine:gpu=h100,nodes=2,nics=1x400G,kind=ib");
  const auto g = graph_of(t);
  CHECK(nccl::nvls_bus_bandwidth(nccl::load_tables(), g, Op::AllReduce, 16) == 0.0);
  CHECK(run(t, Bytes{1} << 30, "auto").choice.algo != "nvls_tree");
}
