// NVLS-tree's chunking and pipeline fill (tuning.hpp), worked by hand from NCCL 2.30's enqueue.cc
// calcCollChunking and nvls.cc ncclNvlsTuning, and the NIC heads shared by NVLS-tree and CollNet.
// Two HGX H100 nodes with 8 x 400G NICs: 8 heads (one NIC beside each GPU), 16 CUDA channels (SM90), so
// 16 x 8 = 128 concurrent ops; NCCL sees a head's path to the network at 48 GB/s (PCIe Gen5) and a GPU's
// NVLink into the switches at 18 x 20.6 = 370.8 GB/s. The tree's max chunk is the NVLS chunk, 128 KiB, on
// 2-3 nodes and 64 KiB from 4 nodes; it halves to 64 KiB below 4 x 128 x 128 KiB = 64 MiB and to 32 KiB
// below 1 x 128 x 64 KiB = 8 MiB.
// Fill = 16 channels x chunk x (2 log2i(nodes) / 48 + 2 (log2i(nodes) + 1) / 370.8) us per KB:
//   2 nodes, 4 GiB: 2 MiB x (2/48 + 4/370.8) = 2097.152 x 0.0524542 = 110.01 us;
//   2 nodes, 1 MiB: 64 KiB per channel = 8 KiB per head, under the 32 KiB chunk: 128 KiB x 0.0524542 = 6.875 us;
//   4 nodes, 64 MiB: 64 KiB chunks, 1 MiB x (4/48 + 6/370.8) = 1048.576 x 0.0995145 = 104.35 us.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/model/nccl/builder.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

namespace {
nccl::Graph graph_of(const topology::Topology& t) { return test::packed_graph(t); }
constexpr Bytes MiB = Bytes{1} << 20;
} // namespace

TEST_CASE("NVLS-tree chunk follows NCCL's halving rule on H100 and the Blackwell tuning") {
  const auto& tab = nccl::load_tables();
  const auto h2 = graph_of(topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib"));
  REQUIRE(h2.nvls.channels == 8);
  CHECK(h2.nvls.nic_GBps == doctest::Approx(48.0));
  CHECK(h2.nvls.switch_GBps == doctest::Approx(370.8));
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 4096 * MiB) == 131072.0);
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 64 * MiB) == 131072.0); // not under 64 MiB
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 32 * MiB) == 65536.0);
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 8 * MiB) == 65536.0); // not under 8 MiB
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 4 * MiB) == 32768.0);
  const auto h4 = graph_of(topology::resolve_topology("cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib"));
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h4, 16, 4096 * MiB) == 65536.0);
  // Two B200 nodes, 8 GPUs each, NIC path 48 GB/s (< 96): ncclNvlsTreeSm100Tuning's 64 KiB.
  const auto b2 = graph_of(topology::resolve_topology("machine:gpu=b200,nodes=2,nics=8x400G,kind=roce"));
  CHECK(b2.nvls.ppn == 8);
  CHECK(nccl::nvls_tree_chunk_bytes(tab, b2, 24, 4096 * MiB) == 65536.0);
}

TEST_CASE("NVLS-tree pipeline fill: the first chunk of every channel crosses the tree of nodes") {
  const auto& tab = nccl::load_tables();
  const auto h2 = graph_of(topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib"));
  CHECK(nccl::nvls_tree_fill_us(tab, h2, 16, 4096 * MiB) == doctest::Approx(110.01).epsilon(0.001));
  CHECK(nccl::nvls_tree_fill_us(tab, h2, 16, 1 * MiB) == doctest::Approx(6.875).epsilon(0.001));
  const auto h4 = graph_of(topology::resolve_topology("cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib"));
  CHECK(nccl::nvls_tree_fill_us(tab, h4, 16, 64 * MiB) == doctest::Approx(104.35).epsilon(0.001));
  // One node runs NVLS, not NVLS-tree: no fill term (the replay's segments pipeline it).
  const auto one = graph_of(topology::resolve_topology("machine:gpu=h100,gpus=8"));
  CHECK(nccl::nvls_tree_fill_us(tab, one, 16, 4096 * MiB) == 0.0);
}

TEST_CASE("NVLS-tree prediction adds the fill to NCCL's closed form") {
  const auto t = topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib");
  nccl::Builder b(t, nccl::Options{});
  const auto cfg = test::packed_rings_config(t, Op::AllReduce);
  const auto row = metrics::run(b, cfg, metrics::plan_size(Op::AllReduce, t.num_gpus(), 4096 * MiB, 4));
  REQUIRE(row.choice.algo == "nvls_tree");
  // 66.8 us latency + 4 GiB at algbw 461.6 x 16/30 + 110.01 us fill.
  const double expect_us = 66.8 + 4096.0 * MiB / (1000.0 * 461.6 * 16.0 / 30.0) + 110.01;
  CHECK(to_us(row.time) == doctest::Approx(expect_us).epsilon(0.002));
}

TEST_CASE("NIC heads: the nearest GPU, an equally near one without a NIC first") {
  const auto& tab = nccl::load_tables();
  std::vector<int> gpus{0, 1, 2, 3, 4, 5, 6, 7};
  // 8 H100 with 6 NICs on 4 PCIe switches of two GPUs each: the generator puts NICs 0-3 on switches 0-3
  // and NICs 4-5 on switches 0-1 again. NCCL gives each GPU on such a switch its own NIC (its device
  // index modulo the switch's GPUs), so GPUs 0, 1, 2, 3 and the first GPU of switches 2-3 head one each.
  const auto six = topology::resolve_topology("machine:gpu=h100,nodes=2,nics=6x400G,kind=ib");
  topology::Router r6(six);
  std::vector<int> nics;
  const auto heads = nccl::nic_heads(six, tab, r6, gpus, &nics);
  REQUIRE(heads.size() == 6);
  const int expect[] = {0, 1, 2, 3, 4, 6};
  for (std::size_t i = 0; i < heads.size(); ++i) CHECK(heads[i].gpu == expect[i]);
  CHECK(nics.size() == 6);
  // 8 H100 with 4 NICs, one on each PCIe switch of two GPUs: the first GPU of each switch heads it.
  const auto h100 = topology::resolve_topology("machine:gpu=h100,nodes=2,nics=4x400G,kind=ib");
  topology::Router rh(h100);
  const auto four = nccl::nic_heads(h100, tab, rh, gpus);
  REQUIRE(four.size() == 4);
  for (std::size_t i = 0; i < four.size(); ++i) CHECK(four[i].gpu == static_cast<int>(2 * i));
}
