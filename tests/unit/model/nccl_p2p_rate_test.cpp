// The rate of one NCCL P2P channel over NVLink and the channels a batch of sends runs on
// (sim/model/nccl/p2p_plan.hpp), worked by hand from NVIDIA/nccl's source:
//  * src/graph/paths.cc ncclTopoGetNchannels (v2.26.2-1, v2.30.7-1): a peer over NVLink gets 2 channels per
//    NVLink lane's worth of path bandwidth (2 x path bw / ncclTopoNVLinkBw), so one channel is planned at half
//    a lane: SM100_NVLINK_BW 40.1 (src/graph/topo.h v2.30.7-1; models/nccl.json link_lane_GBps nvlink5) / 2 =
//    20.05 GB/s on B200;
//  * src/include/channel.h ncclP2pChannelBaseForRound and src/include/device.h ncclP2pChannelForPart
//    (v2.30.7-1): round k starts at reverseBits(k, log2 p2pnChannels) on one node; across nodes the rounds of a
//    p2pSchedGroupSize group share base (k / group) x ceil(group / 8) + (k % group) / 8, reversed; a send's
//    parts take the channels after its base.
//  * src/enqueue.cc (v2.26.2-1): a P2P plan launches NCCL_MAX_NTHREADS 640 threads per block, and
//    src/device/sendrecv.h splits them 10 send / 9 receive warps for one peer: on sm90 and newer (P2P write) a
//    channel carries the block's kP2pWriteBlockGBps 20.05, on Hopper twice NCCL's half of a 20.6 GB/s lane.
// Each case fails on 9f86cce, where the replay had no channel rate and sends ignored NCCL's default P2P level;
// the Hopper cases fail on 23a6c60 too, where a Hopper channel ran at 10.3 GB/s.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/p2p_plan.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::model::nccl;

namespace {

metrics::Row p2p_rate_run(const topology::Topology& t, schedule::Op op, Bytes size, std::vector<int> gpus = {}) {
  auto b = model::make_model("nccl", t, {}); // the bare model: NCCL's figures, no fitted efficiencies or launch
  metrics::RunConfig c;
  c.op = op;
  c.model_name = "nccl";
  c.placements = gpus.empty() ? topology::pack_rings(t, {}).rings : std::vector<std::vector<int>>{gpus};
  return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4));
}

double p2p_rate_us(Time t) { return static_cast<double>(t) / 1e6; }

// As p2p_rate_run, for the NCCL release `version` (--nccl-version).
metrics::Row p2p_rate_run_in(const topology::Topology& t, schedule::Op op, Bytes size, const std::string& version) {
  model::ModelOptions o;
  o.nccl_version = version;
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c;
  c.op = op;
  c.model_name = "nccl";
  c.placements = topology::pack_rings(t, {}).rings;
  return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4));
}

} // namespace

TEST_CASE("P2P channel rate: the write block's on Hopper and Blackwell, half of NCCL's lane before") {
  CHECK(p2p_channel_GBps(40.1, Arch::Blackwell) == doctest::Approx(20.05)); // SM100: NCCL's plan, 40.1 / 2
  CHECK(p2p_channel_GBps(20.6, Arch::Hopper) == doctest::Approx(20.05));    // SM90: the same block, not 20.6 / 2
  CHECK(p2p_channel_GBps(20.0, Arch::Ampere) == doctest::Approx(10.0));     // SM80 (P2P read): NCCL's 20 / 2
  CHECK(p2p_channel_GBps(20.0, Arch::Volta) == doctest::Approx(10.0));      // SM70
}

TEST_CASE("P2P LL channel: the block's bytes are LL lines, half of them flags, by hand") {
  // union ncclLLFifoLine (src/include/device.h): 16 bytes, data1 flag1 data2 flag2 (4 bytes each). A block that
  // moves 20.05 GB/s of lines moves 10.025 GB/s of data.
  CHECK(p2p_channel_GBps(20.6, Arch::Hopper, true) == doctest::Approx(10.025));
  CHECK(p2p_channel_GBps(40.1, Arch::Blackwell, true) == doctest::Approx(10.025));
  CHECK(p2p_channel_GBps(20.0, Arch::Ampere, true) == doctest::Approx(5.0));
  CHECK(p2p_channel_GBps(20.6, Arch::Hopper, false) == doctest::Approx(20.05));
  // 8 H100, NCCL 2.26.2 (LL up to p2pnChannelsPerPeer 32 x 16 KiB): a 512 KiB sendrecv runs LL on min(4, 512 KiB /
  // 8 KiB) = 4 channels: 4 x 10.025 = 40.1 GB/s, under the LL view's port (370.8 / 2 = 185.4). Ring LL base
  // 6.6 us + one NVLink LL hop 0.6 us + 524288 B / 40.1 GB/s = 20.27 us (at the Simple block's 80.2 GB/s:
  // 13.74 us). The B200 sendrecv paste (tests/data/wild_traces/b200-vultr-8gpu-sendrecv-..., release not stated)
  // adds ~20 GB/s from 256 to 512 KiB on what would be these 4 LL channels: a check, not a fit.
  const auto t = topology::resolve_topology("machine:gpu=h100,gpus=8");
  const auto r = p2p_rate_run_in(t, schedule::Op::SendRecv, 524288, "2.26.2");
  REQUIRE(r.choice.proto == "LL");
  CHECK(r.choice.channels == 4);
  CHECK(p2p_rate_us(r.time) == doctest::Approx(6.6 + 0.6 + 524288.0 / 40.1e3).epsilon(1e-3));
}

TEST_CASE("P2P sendrecv on 8 H100: 4 channels at the write block's 20.05 GB/s, 32 bind at the port, by hand") {
  const auto t = topology::resolve_topology("machine:gpu=h100,gpus=8");
  // 32 p2p channels, 8 ranks: nChannelsMin 4; 64 MiB on 4 channels of 16 MiB (= maxPart): 4 thread blocks at
  // kP2pWriteBlockGBps 20.05 = 80.2 GB/s (23a6c60 planned half a 20.6 GB/s lane per block: 41.2 GB/s, 1640.6 us).
  // Ring Simple base 8.4 us + one NVLink hop 3.4 us + 64 MiB / 80.2 GB/s = 848.6 us. Measured on such a node
  // (tests/data/wild_traces/h100-8gpu-sendrecv-..., NCCL 2.29.2): 820.2 us, 20.5 GB/s per channel.
  const auto r = p2p_rate_run(t, schedule::Op::SendRecv, Bytes{64} << 20);
  CHECK(r.choice.channels == 4);
  CHECK(p2p_rate_us(r.time) == doctest::Approx(8.4 + 3.4 + 67108864.0 / 80.2e3).epsilon(1e-3));
  // 512 MiB: 32 channels, 641.6 GB/s of blocks, above the GPU's 18 x 20.6 = 370.8 GB/s switch port: the port binds.
  const auto big = p2p_rate_run(t, schedule::Op::SendRecv, Bytes{512} << 20);
  CHECK(big.choice.channels == 32);
  CHECK(p2p_rate_us(big.time) == doctest::Approx(8.4 + 3.4 + 536870912.0 / 370.8e3).epsilon(1e-3));
}

TEST_CASE("P2P channels of a batch: NCCL's bit-reversed round bases, by hand") {
  // 8 ranks on one node, 32 p2p channels: rounds 1..7 start at reverseBits(k, 5) = 16, 8, 24, 4, 20, 12, 28.
  const P2pComm one = p2p_comm(8, 1, 32, 64, 524288);
  CHECK(one.channels == 32);
  CHECK(p2p_channel_base(one, 1, 8) == 16);
  CHECK(p2p_channel_base(one, 3, 8) == 24);
  CHECK(p2p_channel_base(one, 7, 8) == 28);
  // 4 channels per send: 16-19, 8-11, 24-27, 4-7, 20-23, 12-15, 28-31, all apart: 28 thread blocks.
  CHECK(p2p_batch_channels(one, 4, 1, 7, 8) == 28);
  // 8 per send: 16-23, 8-15, 24-31, 4-11, ... cover all 32.
  CHECK(p2p_batch_channels(one, 8, 1, 7, 8) == 32);
  // One send (sendrecv's one peer): its own channels.
  CHECK(p2p_batch_channels(one, 4, 1, 1, 8) == 4);
  // 16 ranks on 2 nodes, groups of 8: rounds 0..7 share base 0 (channels 0-3), rounds 8..15 base
  // reverseBits(1, 5) = 16 (channels 16-19): the whole batch on 8 thread blocks.
  const P2pComm two = p2p_comm(16, 2, 32, 4, 131072);
  CHECK(p2p_channel_base(two, 5, 8) == 0);
  CHECK(p2p_channel_base(two, 9, 8) == 16);
  CHECK(p2p_batch_channels(two, 4, 1, 15, 8) == 8);
}

TEST_CASE("P2P sendrecv on 8 B200: 4 channels at 20.05 GB/s bind at 64 MiB, by hand") {
  const auto t = topology::resolve_topology("machine:gpu=b200,gpus=8");
  // 32 p2p channels, 8 ranks: nChannelsMin 4; 64 MiB on 4 channels of 16 MiB (= maxPart, 32 x 512 KiB): 4.
  // The send moves at 4 x 20.05 = 80.2 GB/s, far below the GPU's 18 x 40.1 = 721.8 GB/s switch port: NCCL's
  // ring Simple base latency 8.4 us + one NVLink hop 3.4 us + 64 MiB / 80.2 GB/s = 848.6 us (the run in
  // tests/data/wild_traces/b200-vultr-8gpu-sendrecv-... measures 793 us; 9f86cce predicted 104.8).
  const auto r = p2p_rate_run(t, schedule::Op::SendRecv, Bytes{64} << 20);
  CHECK(r.choice.channels == 4);
  CHECK(r.choice.proto == "Simple");
  CHECK(p2p_rate_us(r.time) == doctest::Approx(8.4 + 3.4 + 67108864.0 / 80.2e3).epsilon(1e-3));
  // 512 MiB: 32 channels, 641.6 GB/s, still under the port.
  const auto big = p2p_rate_run(t, schedule::Op::SendRecv, Bytes{512} << 20);
  CHECK(big.choice.channels == 32);
  CHECK(p2p_rate_us(big.time) == doctest::Approx(8.4 + 3.4 + 536870912.0 / 641.6e3).epsilon(1e-3));
}

TEST_CASE("P2P alltoall on 8 B200: 7 peers x 4 channels = 28 thread blocks at 20.05 GB/s, by hand") {
  const auto t = topology::resolve_topology("machine:gpu=b200,gpus=8");
  // 512 MiB: 64 MiB per peer on 4 channels; 32 / 4 x 8 = 64 peers at once, so all 7 sends share the GPU's
  // 28 channels: 561.4 GB/s (the port carries 721.8). 8.4 + 3.4 + 7 x 64 MiB / 561.4 GB/s.
  const auto r = p2p_rate_run(t, schedule::Op::AllToAll, Bytes{512} << 20);
  CHECK(r.choice.channels == 4);
  CHECK(p2p_rate_us(r.time) == doctest::Approx(8.4 + 3.4 + 7.0 * 67108864.0 / 561.4e3).epsilon(1e-3));
}

TEST_CASE("P2P sendrecv at NCCL's default P2P level: pairs beyond PXB stage through host memory as ring hops do") {
  // 8 L40S on 2 AMD sockets (nccl_p2p_level_test.cpp): NCCL 2.23.4 on, 8 GPUs, level PXB. sendrecv's shift
  // pairs 1->2 (PHB), 3->4 and 7->0 (SYS) run SHM; 3->4 and 7->0 cross the sockets through host memory at
  // NCCL's AMD_BW 16 GB/s: busbw 16.0 at 1 GiB. At SYS every pair is P2P and the GPU's Gen4 port binds at
  // NCCL's 24 GB/s (9f86cce gave 24 at both).
  auto t = topology::resolve_topology("machine:gpu=l40s,gpus=8,cpu=amd");
  const std::vector<int> order{0, 1, 2, 3, 4, 5, 6, 7};
  const auto dflt = p2p_rate_run(t, schedule::Op::SendRecv, Bytes{1} << 30, order);
  CHECK(dflt.bw.busbw_GBps == doctest::Approx(16.0).epsilon(0.01));
  t.p2p_level = static_cast<int>(topology::PathClass::Sys);
  const auto sys = p2p_rate_run(t, schedule::Op::SendRecv, Bytes{1} << 30, order);
  CHECK(sys.bw.busbw_GBps == doctest::Approx(24.0).epsilon(0.01));
}
