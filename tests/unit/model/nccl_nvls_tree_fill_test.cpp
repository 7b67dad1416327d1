// NVLS-tree's chunking and pipeline fill (tuning.hpp), worked by hand from NCCL's enqueue.cc
// calcCollChunking, nvls.cc ncclNvlsTuning, device/all_reduce.h (NVLS_TREE) and graph/connect.cc (even
// channels on tree 0, odd on tree 1), and the NIC heads shared by NVLS-tree and CollNet.
// Two HGX H100 nodes with 8 x 400G NICs: 8 heads (one NIC beside each GPU), 16 CUDA channels (SM90), so
// 16 x 8 = 128 concurrent ops; NCCL sees a head's path to the network at 48 GB/s (PCIe Gen5). The tree's max
// chunk is the NVLS chunk, 128 KiB, on 2-3 nodes and 64 KiB from 4 nodes; it halves to 64 KiB below
// 4 x 128 x 128 KiB = 64 MiB and to 32 KiB below 1 x 128 x 64 KiB = 8 MiB.
// The switch pass: NCCL's NVLS figure on one node's 8 H100 (8 channels x 40 GB/s, nvlsEfficiency 0.85):
// 2 x 40 x 0.85 x 7 = 476 GB/s bus, at nRanks/nsteps 16/30 = 253.867 GB/s (32 ranks: 32/62, 245.677).
// Fill = W x (passes / A + log2i(nodes) / (8 heads x 48)), W one loop's bytes on a node (16 x 8 x chunk, or
// the whole buffer when a channel's share fits one loop), passes log2i(nodes) (log2i(nodes) - 1/2 for one loop):
//   2 nodes, 4 GiB: 128 KiB chunks, 32 loops: 16 MiB x (1/253.867 + 1/384) = 16777.216 x 0.0065433 = 109.78 us;
//   2 nodes, 8 MiB: 64 KiB chunks, 512 KiB per channel = one loop: 8 MiB x (0.5/253.867 + 1/384) = 38.37 us;
//   2 nodes, 1 MiB: one loop: 1 MiB x (0.5/253.867 + 1/384) = 4.796 us;
//   4 nodes, 64 MiB: 64 KiB chunks, 8 loops: 8 MiB x (2/245.677 + 2/384) = 8388.608 x 0.0133491 = 111.98 us.
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

TEST_CASE("NVLS-tree pipeline fill: one loop's network hops and the switch passes beyond the steady one") {
  const auto& tab = nccl::load_tables();
  const auto h2 = graph_of(topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib"));
  REQUIRE(h2.nvls.domain_channels == 8);
  REQUIRE(h2.nvls.domain_bw == doctest::Approx(40.0));
  CHECK(nccl::nvls_tree_fill_us(tab, h2, 16, 4096 * MiB, 16) == doctest::Approx(109.78).epsilon(0.001));
  CHECK(nccl::nvls_tree_fill_us(tab, h2, 16, 8 * MiB, 16) == doctest::Approx(38.37).epsilon(0.001));
  CHECK(nccl::nvls_tree_fill_us(tab, h2, 16, 1 * MiB, 16) == doctest::Approx(4.796).epsilon(0.001));
  const auto h4 = graph_of(topology::resolve_topology("cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib"));
  CHECK(nccl::nvls_tree_fill_us(tab, h4, 16, 64 * MiB, 32) == doctest::Approx(111.98).epsilon(0.001));
  // One node runs NVLS, not NVLS-tree: no fill term (the replay's segments pipeline it).
  const auto one = graph_of(topology::resolve_topology("machine:gpu=h100,gpus=8"));
  CHECK(nccl::nvls_tree_fill_us(tab, one, 16, 4096 * MiB, 8) == 0.0);
}

TEST_CASE("NVLS-tree prediction adds the fill to NCCL's closed form") {
  const auto t = topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib");
  nccl::Builder b(t, nccl::Options{});
  const auto cfg = test::packed_rings_config(t, Op::AllReduce);
  const auto row = metrics::run(b, cfg, metrics::plan_size(Op::AllReduce, t.num_gpus(), 4096 * MiB, 4));
  REQUIRE(row.choice.algo == "nvls_tree");
  // 66.8 us latency + 4 GiB at algbw 461.6 x 16/30 + 109.78 us fill.
  const double expect_us = 66.8 + 4096.0 * MiB / (1000.0 * 461.6 * 16.0 / 30.0) + 109.78;
  CHECK(to_us(row.time) == doctest::Approx(expect_us).epsilon(0.002));
}

TEST_CASE("NVLS-tree at a mid size on 2 x 8 H100: one loop, its stages in turn") {
  const auto t = topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib");
  nccl::Builder b(t, nccl::Options{});
  const auto cfg = test::packed_rings_config(t, Op::AllReduce);
  const auto row = metrics::run(b, cfg, metrics::plan_size(Op::AllReduce, t.num_gpus(), 8 * MiB, 4));
  REQUIRE(row.choice.algo == "nvls_tree");
  // 8 MiB: NCCL 2.30's latency 25 + 2 x 20.9 = 66.8 us, the bytes at NCCL's NVLS-tree algbw 461.6 x 16/30 =
  // 246.19 GB/s (34.07 us), and one loop's stages beyond that pass: half a switch pass of 8 MiB at 253.867
  // GB/s (16.52 us) and the two half-loaded network hops, 8 MiB / (8 x 48) (21.85 us): 139.24 us; and the step
  // handoff of one 64 KiB loop, 3 steps x 3.4 x (1 - 64/128) = 5.1 us: 144.34 us.
  CHECK(to_us(row.time) == doctest::Approx(144.34).epsilon(0.002));
}

// NCCL_NVLS_CHUNKSIZE / NCCL_NVLSTREE_MAX_CHUNKSIZE as a run states them (aws-ofi-nccl sets both to 512 KiB on p5):
// calcCollChunking starts from min(512 KiB, 512 KiB) and halves below 32 x 128 x 512 KiB = 2 GiB (to 256 KiB), below
// 16 x 128 x 256 KiB = 512 MiB (128 KiB), below 64 MiB (64 KiB), below 8 MiB (32 KiB). The chunk alone on 2 nodes
// sets the tree's max too (maxChunkSize = chunkSize when the parameter is -2); from 4 nodes the max stays 64 KiB.
// The fill at 4 GiB: 512 KiB chunks, W = 16 x 8 x 512 KiB = 64 MiB, 4 x the 128 KiB figure above = 439.12 us.
TEST_CASE("NVLS-tree chunk from a stated NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE") {
  const auto& tab = nccl::load_tables();
  auto h2 = graph_of(topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib"));
  h2.nvls.chunk_bytes = 524288;
  h2.nvls.tree_max_chunk_bytes = 524288;
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 16384 * MiB) == 524288.0);
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 2048 * MiB) == 524288.0); // not under 2 GiB
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 1024 * MiB) == 262144.0);
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 512 * MiB) == 262144.0); // not under 512 MiB
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 256 * MiB) == 131072.0);
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 32 * MiB) == 65536.0);
  CHECK(nccl::nvls_tree_fill_us(tab, h2, 16, 4096 * MiB, 16) == doctest::Approx(439.12).epsilon(0.001));
  // The tree's max alone: min(128 KiB, 512 KiB) = 128 KiB, NCCL's default chunk.
  h2.nvls.chunk_bytes = 0;
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 16384 * MiB) == 131072.0);
  // The chunk alone: the 2-node max follows it.
  h2.nvls.chunk_bytes = 524288;
  h2.nvls.tree_max_chunk_bytes = 0;
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h2, 16, 16384 * MiB) == 524288.0);
  auto h4 = graph_of(topology::resolve_topology("cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib"));
  h4.nvls.chunk_bytes = 524288;
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h4, 16, 16384 * MiB) == 65536.0);
  h4.nvls.tree_max_chunk_bytes = 524288;
  CHECK(nccl::nvls_tree_chunk_bytes(tab, h4, 16, 16384 * MiB) == 524288.0);
  // Blackwell's tuning (2 x 8 B200, 48 GB/s heads: max 64 KiB) gives way to a stated max.
  auto b2 = graph_of(topology::resolve_topology("machine:gpu=b200,nodes=2,nics=8x400G,kind=roce"));
  CHECK(nccl::nvls_tree_chunk_bytes(tab, b2, 32, 16384 * MiB) == 65536.0);
  b2.nvls.tree_max_chunk_bytes = 131072;
  CHECK(nccl::nvls_tree_chunk_bytes(tab, b2, 32, 16384 * MiB) == 131072.0);
}

// The step handoff, (loops + 2) x NCCL's 3.4 us NVLink Simple step x (1 - chunk / 128 KiB), on 2 x 8 H100 (16 channels x
// 8 heads): 32 MiB runs 64 KiB chunks, 2 MiB a channel in 512 KiB loops, 4 loops: 6 x 3.4 x 0.5 = 10.2 us; 4 MiB one
// 32 KiB loop: 3 x 3.4 x 0.75 = 7.65 us; 4 GiB on 128 KiB: 0; 16 GiB on a stated 512 KiB: 1 GiB a channel in 4 MiB
// loops, 256 loops: 258 x 3.4 x (1 - 4) = -2631.6 us. 4 nodes at 4 GiB: the 64 KiB max, 256 MiB a channel in 512 KiB
// loops, 512 loops: 514 x 1.7 = 873.8 us.
TEST_CASE("NVLS-tree step handoff: NCCL's Simple step against the default chunk, by hand") {
  const auto& tab = nccl::load_tables();
  auto h2 = graph_of(topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib"));
  CHECK(nccl::nvls_tree_step_handoff_us(tab, h2, 16, 32 * MiB) == doctest::Approx(10.2));
  CHECK(nccl::nvls_tree_step_handoff_us(tab, h2, 16, 4 * MiB) == doctest::Approx(7.65));
  CHECK(nccl::nvls_tree_step_handoff_us(tab, h2, 16, 4096 * MiB) == doctest::Approx(0.0));
  h2.nvls.chunk_bytes = h2.nvls.tree_max_chunk_bytes = 524288;
  CHECK(nccl::nvls_tree_step_handoff_us(tab, h2, 16, 16384 * MiB) == doctest::Approx(-2631.6));
  const auto h4 = graph_of(topology::resolve_topology("cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib"));
  CHECK(nccl::nvls_tree_step_handoff_us(tab, h4, 16, 4096 * MiB) == doctest::Approx(873.8));
  // One node runs NVLS, not NVLS-tree: its own rule (nvls_step_handoff_us), not this one.
  const auto one = graph_of(topology::resolve_topology("machine:gpu=h100,gpus=8"));
  CHECK(nccl::nvls_tree_step_handoff_us(tab, one, 16, 32 * MiB) == 0.0);
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
