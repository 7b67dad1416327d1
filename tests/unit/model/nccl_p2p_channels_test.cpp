// NCCL's P2P channel arithmetic across nodes and a sendrecv between two NVSwitch GPUs, worked by hand from
// NCCL v2.30's source (src/graph/connect.cc ncclTopoPostset, src/graph/paths.cc ncclTopoComputeP2pChannels,
// src/enqueue.cc addP2pToPlan): sim/model/nccl/p2p_plan.hpp.
#include <doctest/doctest.h>

#include "sim/model/nccl/p2p_plan.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::model::nccl;

TEST_CASE("P2P communicator channels: Hopper and newer double once more across nodes when the ring runs above 45 GB/s") {
  // connect.cc: minCompCap >= 90, nNodes > 1, ring bwIntra > 45, nChannels < 16 -> 2 x nChannels.
  CHECK(p2p_comm_channels(8, Arch::Hopper, 2, 48.0, false) == 16);
  CHECK(p2p_comm_channels(8, Arch::Blackwell, 3, 45.1, false) == 16);
  CHECK(p2p_comm_channels(8, Arch::Hopper, 2, 45.0, false) == 8);  // not above 45
  CHECK(p2p_comm_channels(16, Arch::Hopper, 2, 48.0, false) == 16); // already 16
  CHECK(p2p_comm_channels(8, Arch::Hopper, 1, 48.0, false) == 8);  // one node
  CHECK(p2p_comm_channels(8, Arch::Ampere, 2, 48.0, false) == 8);  // before Hopper
  CHECK(p2p_comm_channels(8, Arch::Hopper, 2, 48.0, true) == 8);   // NCCL's own log already counts it
}

TEST_CASE("P2P on 128 ranks over 2 NVLink domains: 2 channels per peer and every peer in one round") {
  // 32 p2p channels; a 400 Gb/s NIC gives ceil(50 / 14) = 4 per peer; 4 x ceil(128 / 8) = 64 > 32 -> 2
  // (2 x 16 = 32); nChannelsMin 2 x 128 > 32 -> 1. GB200 hosts (ARM, Blackwell): chunk 2 x 128 KiB.
  const P2pComm c = p2p_comm(128, 2, 32, 4, p2p_chunk_bytes(2, true, true));
  CHECK(c.channels == 32);
  CHECK(c.per_peer == 2);
  CHECK(c.min_per_op == 1);
  // 64 MiB per peer: 1 channel of 64 MiB > maxPart (one 256 KiB chunk across nodes) -> 2 channels, the
  // per-peer cap; 32 / 2 x 8 = 128 peers at once: the whole alltoall is one round.
  const P2pOp op = p2p_op(c, Bytes{64} << 20, false);
  CHECK(op.channels == 2);
  CHECK(op.steps == 128); // 32 MiB per channel / 256 KiB
  CHECK(op.concurrent == 128);
}

TEST_CASE("P2P sendrecv between two H100 on NVSwitch: base + hop + size over the send's channels, by hand") {
  const auto t = topology::resolve_topology("hgx-h100");
  auto b = model::make_model("nccl", t, {}); // bare model: NCCL's figures, no fitted efficiencies
  metrics::RunConfig c;
  c.op = schedule::Op::SendRecv;
  c.model_name = "nccl";
  c.placements = {{0, 1}};
  // 2 ranks: p2pnChannels 32, per peer 32, nChannelsMin 32 x 2 > 32 -> 16. 256 KiB: ceil(256 KiB / 64 KiB)
  // = 4 channels, Simple (256 KiB > 4 x 16 KiB); ring Simple base 8.4 us + one NVLink hop 3.4 us + 262144 B
  // on 4 channels at the write block's 20.05 GB/s each (kP2pWriteBlockGBps; 4 x 20.05 = 80.2 GB/s, under the
  // 18 x 20.6 = 370.8 GB/s port).
  const auto small = metrics::run(*b, c, metrics::plan_size(c.op, 2, 262144, 4));
  CHECK(small.choice.channels == 4);
  CHECK(small.choice.proto == "Simple");
  CHECK(static_cast<double>(small.time) / 1e6 == doctest::Approx(8.4 + 3.4 + 262144.0 / 80.2e3).epsilon(1e-3));
  // 1 GiB: 16 channels of 64 MiB > 16 MiB -> 32 at 20.05 GB/s: 641.6 GB/s, so the 370.8 GB/s port binds;
  // 8.4 + 3.4 + 2895.7 us, busbw = algbw.
  const auto big = metrics::run(*b, c, metrics::plan_size(c.op, 2, Bytes{1} << 30, 4));
  CHECK(big.choice.channels == 32);
  const double expect_us = 8.4 + 3.4 + 1073741824.0 / 370.8e3;
  CHECK(static_cast<double>(big.time) / 1e6 == doctest::Approx(expect_us).epsilon(1e-3));
  CHECK(big.bw.busbw_GBps < 370.8);
}

TEST_CASE("P2P alltoall over 2 GB200 NVL72 racks: comm channels from the packed rings, every peer in one round") {
  // NCCL's ring search ignores the rank order: the job's GPUs as an allreduce packs them give 16 search
  // channels, 32 CUDA channels, p2pnChannels 32; 400 Gb/s NICs: 4 per peer, halved to 2 (2 x 128 / 8 = 32),
  // so 32 / 2 x 8 = 128 peers at once: no batches. The GPU-order ring alone would give 2 search channels.
  const auto t = topology::resolve_topology("machine:gpu=gb200,gpus=64,nodes=2,nics=64x400G,kind=roce");
  auto b = model::make_model("nccl", t, {});
  metrics::RunConfig c;
  c.op = schedule::Op::AllToAll;
  c.model_name = "nccl";
  std::vector<int> all(128);
  for (int i = 0; i < 128; ++i) all[static_cast<std::size_t>(i)] = i;
  c.placements = {all};
  const auto r = metrics::run(*b, c, metrics::plan_size(c.op, 128, Bytes{8} << 30, 4));
  CHECK(r.choice.channels == 2);
  CHECK(r.choice.note.empty()); // no "N peers at a time"
  // Half of each GPU's data leaves the rack through one 400 Gb/s NIC (PXN spreads it over the rack's NICs):
  // algbw <= 2 x 50 GB/s, busbw = algbw x 127/128.
  CHECK(r.bw.busbw_GBps < 100.0 * 127.0 / 128.0);
  CHECK(r.bw.busbw_GBps > 50.0);
}

TEST_CASE("P2P per-peer channels across nodes count maxP2pPeers: nccl-tests' sendrecv sets 2") {
  // 128 ranks on 16 nodes, 32 p2p channels, 4 per peer: with all ranks as peers 4 x ceil(128 / 8) = 64 > 32
  // -> 2; sendrecv's maxP2pPeers 2 gives 4 x ceil(2 / 8) = 4 <= 32: stays 4. nChannelsMin still counts
  // the ranks (enqueue.cc): 4 x 128 > 32 -> 1.
  CHECK(p2p_comm(128, 16, 32, 4, 131072).per_peer == 2);
  const P2pComm sr = p2p_comm(128, 16, 32, 4, 131072, 2);
  CHECK(sr.per_peer == 4);
  CHECK(sr.min_per_op == 1);
  // 64 MiB to the one peer: 1 channel of 64 MiB > one 128 KiB chunk -> doubled to the per-peer 4.
  CHECK(p2p_op(sr, Bytes{64} << 20, false).channels == 4);
}
