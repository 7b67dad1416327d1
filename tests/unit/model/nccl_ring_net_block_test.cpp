// A ring channel across the network is one thread block: each NIC carries the blocks of the channels whose rings
// cross it, at the block's rate (builder.hpp ring_block_net_GBps). Expected values worked by hand from NVIDIA/nccl
// v2.29.2-1 src/graph/search.cc (sm90/sm100 speedArrayInter, ncclTopoDupChannels) and src/graph/connect.cc
// (ncclTopoPostset: the search channels doubled once), with the P2P block's 20.05 GB/s (p2p_plan.hpp).
#include <doctest/doctest.h>

#include <algorithm>

#include "nccl_run_config.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::model::nccl;

namespace {

metrics::Row ring_row(const std::string& spec, schedule::Op op, Bytes size, const std::string& version = "") {
  const auto t = topology::resolve_topology(spec);
  model::ModelOptions o; // the bare model: NCCL's figures, no fitted efficiencies
  o.nccl_version = version;
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c = test::packed_rings_config(t, op); // the search rings, as the command line runs them
  c.model_name = "nccl";
  return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4));
}

} // namespace

TEST_CASE("Ring block rate across the network: the P2P block's 20.05 GB/s of data on Hopper and Blackwell") {
  CHECK(ring_block_net_GBps(Arch::Blackwell, Proto::Simple) == doctest::Approx(20.05));
  CHECK(ring_block_net_GBps(Arch::Hopper, Proto::Simple) == doctest::Approx(20.05));
  CHECK(ring_block_net_GBps(Arch::Blackwell, Proto::LL) == doctest::Approx(10.025));          // 8 data bytes a 16-byte line
  CHECK(ring_block_net_GBps(Arch::Hopper, Proto::LL128) == doctest::Approx(18.796875));       // 120 of 128 bytes
  CHECK(ring_block_net_GBps(Arch::Ampere, Proto::Simple) == 0.0);                             // no block rate held: no cap
  CHECK(ring_block_net_GBps(Arch::Volta, Proto::Simple) == 0.0);
}

TEST_CASE("2 x 8 B200 over 8 x 400G: a ring allgather's NICs carry 2 blocks each, 8 x 40.1 GB/s busbw") {
  // sm100 speedArrayInter from the NIC's 50 GB/s: 48, one search channel per NIC, 8 channels; bwIntra 48 < 50 with
  // more than 4 channels: no ncclTopoDupChannels; ncclTopoPostset doubles to 16 CUDA channels (16 is not < 16: no
  // second doubling). Channel c runs search ring c % 8, so each NIC's link carries 2 blocks each way: 2 x 20.05 =
  // 40.1 GB/s of the line's 50. A ring allgather's busbw is what each ring's network crossing carries, summed over the
  // 8 NICs: 320.8 GB/s at most (the line alone would allow 400, NCCL's maintainer's 46-48 a NIC 368-384).
  const auto row = ring_row("machine:gpu=b200,nodes=2,nics=8x400G,kind=ib", schedule::Op::AllGather, Bytes{4} << 30);
  CHECK(row.choice.algo == "ring");
  CHECK(row.choice.proto == "Simple");
  CHECK(row.choice.channels == 16);
  CHECK(row.bw.busbw_GBps <= 320.8 * 1.001);
  CHECK(row.bw.busbw_GBps > 320.8 * 0.95);
}

TEST_CASE("2 x 8 H100 over 8 x 400G: a ring reducescatter is held at the same 2 blocks a NIC") {
  // sm90 speedArrayInter starts at 48 as well: 8 x 48, no dup (bwIntra < 50), doubled to 16: 320.8 GB/s busbw.
  const auto row = ring_row("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib", schedule::Op::ReduceScatter, Bytes{4} << 30);
  CHECK(row.choice.algo == "ring");
  CHECK(row.choice.channels == 16);
  CHECK(row.bw.busbw_GBps <= 320.8 * 1.001);
  CHECK(row.bw.busbw_GBps > 320.8 * 0.95);
}

TEST_CASE("Ring block cap: not on one node, not before Hopper") {
  // One B200 node: no network link, the ring stays at its NVLink bound (18 x 40.1 GB/s a GPU's port; over 641.6 GB/s,
  // what 32 blocks x 20.05 would give).
  const auto one = ring_row("machine:gpu=b200,gpus=8", schedule::Op::AllGather, Bytes{4} << 30);
  CHECK(one.bw.busbw_GBps > 660.0);
  // 2 x 8 A100 over 8 x 200G: no block rate on sm80, the NICs bind (8 x 25 GB/s = 200 busbw at most), above
  // the 16 x 10 GB/s = 160 that NCCL's half-lane figure would give.
  const auto a100 = ring_row("machine:gpu=a100,nodes=2,nics=8x200G,kind=ib", schedule::Op::AllGather, Bytes{4} << 30);
  CHECK(a100.choice.algo == "ring");
  CHECK(a100.bw.busbw_GBps > 170.0);
  CHECK(a100.bw.busbw_GBps <= 200.0);
}

TEST_CASE("Ring blocks a NIC by release: NCCL 2.18-2.19 ran 32 channels on Hopper across nodes, 4 blocks a NIC") {
  CHECK_FALSE(ring_net_doubled_to_max_in_release(NcclVersion{2, 17, 1}, 90));
  CHECK(ring_net_doubled_to_max_in_release(NcclVersion{2, 18, 1}, 90));
  CHECK(ring_net_doubled_to_max_in_release(NcclVersion{2, 19, 3}, 90));
  CHECK_FALSE(ring_net_doubled_to_max_in_release(NcclVersion{2, 19, 3}, 100)); // `minCompCap == 90` then
  CHECK_FALSE(ring_net_doubled_to_max_in_release(NcclVersion{2, 20, 3}, 90));  // only below 16 channels from 2.20.3
  CHECK_FALSE(ring_net_doubled_to_max_in_release(std::nullopt, 90));
  // 2 x 8 H100 over 8 x 400G on 2.19.3: the search's 48 GB/s (> 45) and 2 x 16 <= MAXCHANNELS 32: 32 channels, 4
  // blocks a NIC = 80.2 GB/s, above the NIC's 50: the NICs bind again (above the 2-block 320.8 of later releases).
  const auto old = ring_row("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib", schedule::Op::AllGather, Bytes{4} << 30, "2.19.3");
  CHECK(old.bw.busbw_GBps > 340.0);
  const auto later = ring_row("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib", schedule::Op::AllGather, Bytes{4} << 30, "2.20.3");
  CHECK(later.bw.busbw_GBps <= 320.8 * 1.001);
}

TEST_CASE("Ring block cap counts a network link's lanes: 2 lanes of 200G carry what one 400G lane does") {
  // The cap is the blocks' rate over the whole link (Link::capacity() = bw x lanes): drawing each NIC's 400G link
  // as 2 bonded 200G lanes moves no byte, so the 2 x 8 H100 ring allgather keeps 2 blocks a NIC, 320.8 GB/s busbw
  // (the test above), not the 400 the NICs alone allow.
  auto t = topology::resolve_topology("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib");
  int split = 0;
  for (auto& l : t.links)
    if (topology::is_network(l.type)) l.bw /= 2, l.lanes *= 2, ++split;
  REQUIRE(split > 0);
  model::ModelOptions o;
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c = test::packed_rings_config(t, schedule::Op::AllGather);
  c.model_name = "nccl";
  const auto row = metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), Bytes{4} << 30, 4));
  CHECK(row.choice.algo == "ring");
  CHECK(row.choice.channels == 16);
  CHECK(row.bw.busbw_GBps <= 320.8 * 1.001);
  CHECK(row.bw.busbw_GBps > 320.8 * 0.95);
}

TEST_CASE("Ring block cap with one NIC a node: the NIC carries the channels' blocks, not one more") {
  // One 400G NIC (50 GB/s) a node: every ring leaves the node through it. With 2 CUDA channels (as a log that
  // reports 2 sets them) its link carries 2 blocks each way, 2 x 20.05 = 40.1 GB/s of the 50, and a ring
  // allgather's busbw is what that crossing carries: 40.1 at most, whatever the rings' count (2 channels on 1 ring
  // or 1 on each of 2).
  const auto t = topology::resolve_topology("machine:gpu=h100,nodes=2,nics=1x400G,kind=ib");
  model::ModelOptions o;
  o.nccl_channels = 2;
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c = test::packed_rings_config(t, schedule::Op::AllGather);
  c.model_name = "nccl";
  const auto row = metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), Bytes{4} << 30, 4));
  CHECK(row.choice.algo == "ring");
  CHECK(row.choice.channels == 2);
  CHECK(row.bw.busbw_GBps <= 40.1 * 1.001);
  CHECK(row.bw.busbw_GBps > 40.1 * 0.95);
}

// GPUDirect-TCPX (kind tcpx) reports NCCL_NET_DEVICE_UNPACK (google/nccl-plugin-gpudirecttcpx src/net_tcpx.cc): the
// receiving block copies each slice out of the plugin's bounce pages (ncclNetDeviceUnpack) and then runs its own copy
// (NVIDIA/nccl src/device/prims_simple.h genericOp, from v2.19.3-1), so it moves the network's bytes at half its rate.
TEST_CASE("GPUDirect-TCPX's device unpack: the receiving block copies every network byte twice, 2 x 8 H100 at 4 x 20.05 GB/s") {
  // A3 High: 4 x 200G NICs a node (one per 2 GPUs), Google's profile runs ring/Simple on 8 channels: 2 blocks a NIC.
  // NIC: more channels than NICs, so the line's 25 GB/s x 0.9954 (TCP framing, net_kinds.tcpx) = 24.885 GB/s. Blocks:
  // 2 x 20.05 = 40.1 GB/s, halved by the unpack = 20.05, below the NIC: a ring allgather's busbw is 4 NICs x 20.05 =
  // 80.2 GB/s at most (4 x 24.885 = 99.54 without the unpack: the NICs).
  const auto row = ring_row("machine:instance=a3-highgpu-8g,nodes=2", schedule::Op::AllGather, Bytes{4} << 30);
  CHECK(row.choice.algo == "ring");
  CHECK(row.choice.proto == "Simple");
  CHECK(row.choice.channels == 8);
  CHECK(row.bw.busbw_GBps <= 80.2 * 1.001);
  CHECK(row.bw.busbw_GBps > 80.2 * 0.95);
  // Before NCCL 2.19.3 NCCL has no device unpack (src/device/network/unpack/ is absent at v2.18.6-1): the NICs bind.
  const auto old = ring_row("machine:instance=a3-highgpu-8g,nodes=2", schedule::Op::AllGather, Bytes{4} << 30, "2.18.6");
  CHECK(old.bw.busbw_GBps > 80.2 * 1.1);
  CHECK(old.bw.busbw_GBps <= 99.54 * 1.001);
  CHECK_FALSE(device_unpack_in_release(NcclVersion{2, 18, 6}));
  CHECK(device_unpack_in_release(NcclVersion{2, 19, 3}));
  CHECK(device_unpack_in_release(std::nullopt));
}

TEST_CASE("Device unpack is TCPX's alone: the same 4 x 200G drawn as TCPXO or InfiniBand keeps the NICs' rate") {
  // TCPXO's FasTrak plugin reports NCCL_NET_DEVICE_HOST (google/nccl-plugin-gpudirect-tcpxo nccl_shim.cc): no unpack.
  // 8 channels (as the TCPX profile sets them) over 4 x 200G: 2 blocks a NIC = 40.1 GB/s, above the NIC: the NICs bind.
  for (const char* kind : {"tcpxo", "ib"}) {
    CAPTURE(kind);
    const auto t = topology::resolve_topology(std::string("machine:gpu=h100,nodes=2,nics=4x200G,kind=") + kind);
    model::ModelOptions o;
    o.nccl_channels = 8;
    o.nccl_proto = "Simple";
    o.nccl_algo = "ring";
    auto b = model::make_model("nccl", t, o);
    metrics::RunConfig c = test::packed_rings_config(t, schedule::Op::AllGather);
    c.model_name = "nccl";
    const auto row = metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), Bytes{4} << 30, 4));
    CHECK(row.choice.algo == "ring");
    CHECK(row.bw.busbw_GBps > 80.2 * 1.1);
  }
}

// NCCL's topology holds the communicator's GPUs only (ncclTopoGetSystem adds the GPUs of the communicator's ranks), so
// no path of its rings relays through another GPU; `ccsim rings --gpus` sets those GPUs as the only relays. 2 x DGX-1
// with 8 NICs (two on each PCIe switch: a GPU has two equally near NICs, so a ring hop across nodes gets an override
// and the ring a router of its own), GPUs 0 1 2 3 7 of each node: 0 and 7 have no NVLink between them, and the widest
// route relays through GPU 4 (0-4 and 4-7 are doubled links), which is outside. Every ring hop, on the ring's own
// router or the plan's, keeps to the chosen GPUs: through GPU 3 or over PCIe, never GPU 4, 5 or 6.
TEST_CASE("NCCL rings on a GPU subset across nodes: no hop relays through a GPU outside it, on the rings' own routers too") {
  const auto t = topology::resolve_topology("cluster:nodes=2,node=dgx1,nics=8x400G");
  const std::vector<int> gpus{0, 1, 2, 3, 7, 8, 9, 10, 11, 15};
  Options o;
  o.relay_gpus = gpus;
  o.mode = AlgoMode::Ring;
  Builder b(t, o);
  metrics::RunConfig cfg;
  cfg.op = schedule::Op::AllReduce;
  cfg.placements = {{1, 2, 3, 0, 7, 15, 9, 10, 11, 8}, {1, 8, 11, 10, 9, 15, 7, 0, 3, 2}};
  REQUIRE(b.graph(cfg).rings.size() == 2);
  const auto plans = b.plans(cfg, metrics::plan_size(cfg.op, 10, Bytes{64} << 20, 4));
  REQUIRE_FALSE(plans.empty());
  const auto& plan = plans.front();
  REQUIRE(plan.choice.algo == "ring");
  int own_router = 0, hops_0_7 = 0;
  for (const auto& job : plan.jobs) {
    topology::Router& r = job.router ? *job.router : *plan.router;
    own_router += job.router != nullptr;
    const auto& topo = r.topology();
    const auto& nodes = job.node_of_rank;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const int from = nodes[i], to = nodes[(i + 1) % nodes.size()];
      const int gfrom = topo.nodes[static_cast<std::size_t>(from)].gpu, gto = topo.nodes[static_cast<std::size_t>(to)].gpu;
      hops_0_7 += (gfrom == 0 && gto == 7) || (gfrom == 7 && gto == 0);
      for (auto c : r.route(from, to))
        for (int end : {topo.links[c / 2].a, topo.links[c / 2].b}) {
          const int g = topo.nodes[static_cast<std::size_t>(end)].gpu;
          CAPTURE(gfrom);
          CAPTURE(gto);
          CHECK((g < 0 || std::find(gpus.begin(), gpus.end(), g) != gpus.end()));
        }
    }
  }
  CHECK(own_router > 0);
  CHECK(hops_0_7 > 0);
}
