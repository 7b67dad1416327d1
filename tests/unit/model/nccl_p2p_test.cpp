// Alltoall on NCCL's P2P path (sim/model/nccl/p2p_plan.hpp): NCCL's channel and chunk arithmetic
// (paths.cc, init.cc, enqueue.cc, v2.30.7-1) worked by hand, and whole predictions against hand
// computations on NVSwitch, the DGX-1 hybrid cube mesh and two InfiniBand nodes.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>

#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/p2p_plan.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::model::nccl;

namespace {

metrics::Row predict_alltoall(const topology::Topology& t, Bytes size, schedule::Op op = schedule::Op::AllToAll, int root = 0) {
  auto b = model::make_model("nccl", t, {}); // the bare model: no fitted efficiencies or launch costs
  metrics::RunConfig c;
  c.op = op;
  c.root = root;
  c.model_name = "nccl";
  c.placements = topology::pack_rings(t, {}).rings;
  return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4));
}

// As predict_alltoall, for the NCCL release `version` (--nccl-version).
metrics::Row predict_alltoall_in(const topology::Topology& t, Bytes size, const std::string& version) {
  model::ModelOptions o;
  o.nccl_version = version;
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c;
  c.op = schedule::Op::AllToAll;
  c.model_name = "nccl";
  c.placements = topology::pack_rings(t, {}).rings;
  return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4));
}

double us(Time t) { return static_cast<double>(t) / 1e6; }

} // namespace

TEST_CASE("P2P channels per peer and chunk sizes as NCCL computes them") {
  // NVSwitch H100: the path is 18 lanes x 20.6 GB/s, one NVLink 20.6: 2 x 18 channels.
  CHECK(nvlink_peer_channels(18 * 20.6, 20.6) == 36);
  // DGX-1: a pair relayed through a GPU is one lane wide: 2; a doubled link: 4.
  CHECK(nvlink_peer_channels(20.0, 20.0) == 2);
  CHECK(nvlink_peer_channels(40.0, 20.0) == 4);
  // A 400 Gb/s NIC (50 GB/s): ceil(50 / 14) = 4 channels; 100 Gb/s: ceil(12.5 / 14) = 1.
  CHECK(net_peer_channels(1, 50.0) == 4);
  CHECK(net_peer_channels(1, 12.5) == 1);
  // NCCL (paths.cc@v2.29.2-1 ncclTopoGetNchannels): nNetChannels = 2 when getLocalNetCountByBw counts no NIC;
  // and divUp((int)netBw, 14): 14.5 GB/s is 14 whole GB/s, one channel (not ceil(14.5 / 14) = 2); two NICs at
  // 12.5 GB/s in all (25): max(2, divUp(25, 14) = 2) = 2.
  CHECK(net_peer_channels(0, 50.0) == 2);
  CHECK(net_peer_channels(0, 0.0) == 2);
  CHECK(net_peer_channels(1, 14.5) == 1);
  CHECK(net_peer_channels(2, 25.0) == 2);
  CHECK(p2p_chunk_bytes(1, true, false) == 524288);
  CHECK(p2p_chunk_bytes(1, false, false) == 131072);
  CHECK(p2p_chunk_bytes(2, true, false) == 131072);
  CHECK(p2p_chunk_bytes(2, true, true) == 262144);
  CHECK(pow2_up(24) == 32);
  CHECK(pow2_up(32) == 32);
  CHECK(pow2_up(1) == 1);
}

TEST_CASE("P2P split of one send: 8 ranks on one NVSwitch node, by hand") {
  // 24 ring channels -> p2pnChannels pow2Up(24) = 32; per peer pow2Up(36) = 64, capped at 32;
  // nChannelsMin halves while x 8 ranks > 32: 32, 16, 8, 4.
  const P2pComm c = p2p_comm(8, 1, 24, 36, 524288);
  CHECK(c.channels == 32);
  CHECK(c.per_peer == 32);
  CHECK(c.min_per_op == 4);
  // 128 MiB per peer: min(4, 2048) = 4 channels of 32 MiB > maxPart 16 MiB -> 8 channels of 16 MiB;
  // 32 Simple steps of 512 KiB; 32 / 8 x 8 = 32 peers at once.
  const P2pOp big = p2p_op(c, Bytes{128} << 20, true);
  CHECK(big.channels == 8);
  CHECK_FALSE(big.ll);
  CHECK(big.steps == 32);
  CHECK(big.concurrent == 32);
  // 128 B: ceil(128 / 64 KiB) = 1 channel, LL (128 <= 1 x 16 KiB).
  const P2pOp tiny = p2p_op(c, 128, true);
  CHECK(tiny.channels == 1);
  CHECK(tiny.ll);
  // 1 MiB: 4 channels of 256 KiB, Simple (1 MiB > 4 x 16 KiB); 16 KiB: LL on 1 channel.
  CHECK(p2p_op(c, Bytes{1} << 20, true).channels == 4);
  CHECK_FALSE(p2p_op(c, Bytes{1} << 20, true).ll);
  CHECK(p2p_op(c, 16384, true).ll);
  CHECK_FALSE(p2p_op(c, 16384, false).ll); // network connections: no LL buffers
}

TEST_CASE("P2P on several nodes: per-peer channels halve to fit the peers in one round") {
  // 16 ranks, 2 nodes, 4 per peer (400G NIC): 4 x ceil(16 / 8) = 8 <= 32 stays 4; min 4 -> 2 (2 x 16 = 32).
  const P2pComm c = p2p_comm(16, 2, 32, 4, 131072);
  CHECK(c.per_peer == 4);
  CHECK(c.min_per_op == 2);
  // 64 ranks on 8 channels with 8 per peer: 8 x 8 batches > 8 -> 4, 2, 1.
  CHECK(p2p_comm(64, 8, 8, 8, 131072).per_peer == 1);
  // 64 MiB per peer: min part 64 KiB, max 128 KiB: 2 channels, doubled once to per_peer 4.
  CHECK(p2p_op(c, Bytes{64} << 20, false).channels == 4);
}

TEST_CASE("P2P alltoall on 8 H100 NVSwitch: each GPU's 7 sends on 32 channels bind at its port, by hand") {
  const auto t = topology::resolve_topology("hgx-h100");
  // 1 GiB: 128 MiB per peer, Simple, 8 channels each; the 7 sends' channels (bases 16, 8, 24, 4, 20, 12, 28)
  // cover all 32, each at the write block's 20.05 GB/s (kP2pWriteBlockGBps): 641.6 GB/s, above the GPU's
  // 18 x 20.6 = 370.8 GB/s switch port, which binds; plus NCCL's ring Simple base latency 8.4 us and one NVLink hop 3.4 us.
  const auto r = predict_alltoall(t, Bytes{1} << 30);
  CHECK(r.choice.algo == "p2p");
  CHECK(r.choice.proto == "Simple");
  CHECK(r.choice.channels == 8);
  CHECK(r.choice.simulated);
  const double expect_us = 8.4 + 3.4 + 7.0 * 134217728.0 / 370.8e3;
  CHECK(us(r.time) == doctest::Approx(expect_us).epsilon(1e-3));
  // nccl-tests' alltoall busbw = algbw x (n-1)/n: the port speed, less the latency's share.
  CHECK(r.bw.busbw_GBps == doctest::Approx(1073741824.0 / expect_us / 1e3 * 7.0 / 8.0).epsilon(1e-3));
  CHECK(r.bw.busbw_GBps < 370.8);
  // 8 KiB: 1 KiB per peer, LL on one channel each, 7 channels whose blocks move 20.05 GB/s of 16-byte LL lines,
  // 8 bytes of each data (ncclLLFifoLine): 7 x 10.025 = 70.175 GB/s (LL's half of the port, 185.4, is wider):
  // base 6.6 us + hop 0.6 us + 7 KiB / 70.175 GB/s (at the Simple block's 140.35 GB/s before).
  const auto s = predict_alltoall(t, 8192);
  CHECK(s.choice.proto == "LL");
  CHECK(s.choice.channels == 1);
  CHECK(us(s.time) == doctest::Approx(6.6 + 0.6 + 7.0 * 1024.0 / 70.175e3).epsilon(1e-3));
}

TEST_CASE("P2P sends run Simple before NCCL 2.14.3 whatever their size, by hand") {
  // LL for ncclSend/ncclRecv came with 2.14.3 (its release notes; enqueue.cc addP2pToPlan); 2.7-2.13 ran Simple.
  CHECK_FALSE(p2p_ll_in_release(parse_nccl_version("2.10.3")));
  CHECK_FALSE(p2p_ll_in_release(parse_nccl_version("2.13.4")));
  CHECK(p2p_ll_in_release(parse_nccl_version("2.14.3")));
  CHECK(p2p_ll_in_release(std::nullopt)); // the tables' release, 2.30.7
  const auto t = topology::resolve_topology("hgx-h100");
  // 8 KiB alltoall, 1 KiB per peer, one channel. NCCL 2.10.3: Simple, NCCL's ring Simple base latency 8.4 us,
  // one NVLink hop 3.4 us, 7 KiB on the 7 sends' channels at 20.05 GB/s each (140.35 GB/s, under the port).
  const auto old_release = predict_alltoall_in(t, 8192, "2.10.3");
  CHECK(old_release.choice.proto == "Simple");
  CHECK(old_release.choice.channels == 1);
  CHECK(us(old_release.time) == doctest::Approx(8.4 + 3.4 + 7.0 * 1024.0 / 140.35e3).epsilon(1e-3));
  // 2.14.3: LL as in the release the tables are for (6.6 + 0.6 us, the same 7 channels at LL's half: 70.175 GB/s).
  const auto first_ll = predict_alltoall_in(t, 8192, "2.14.3");
  CHECK(first_ll.choice.proto == "LL");
  CHECK(us(first_ll.time) == doctest::Approx(6.6 + 0.6 + 7.0 * 1024.0 / 70.175e3).epsilon(1e-3));
  // 1 GiB (128 MiB per peer) is Simple in every release: the same time.
  CHECK(predict_alltoall_in(t, Bytes{1} << 30, "2.10.3").time == predict_alltoall_in(t, Bytes{1} << 30, "").time);
}

TEST_CASE("P2P alltoall on the DGX-1 mesh: relayed pairs load two hops, within the mesh's bound") {
  const auto t = topology::resolve_topology("dgx1-v100");
  // Each V100 has 6 NVLink2 lanes (20 GB/s each in NCCL's units) to 4 peers; the 3 others are reached
  // through a GPU, so each GPU's 7 blocks B take 4 + 2 x 3 = 10 lane-hops of B over 6 x 20 GB/s:
  // t >= 10 B / 120 GB/s and busbw = 7 B / t <= 84 GB/s.
  const auto r = predict_alltoall(t, Bytes{1} << 30);
  CHECK(r.choice.algo == "p2p");
  CHECK(r.choice.channels == 2); // per peer pow2Up(min 2 x 1 lane) = 2
  CHECK(r.bw.busbw_GBps <= 84.0 + 1e-6);
  CHECK(r.bw.busbw_GBps > 40.0);
}

TEST_CASE("P2P round order: rank + k on one node, groups of 8 at quadratic deltas across nodes") {
  const auto one = p2p_rounds({0, 0, 0, 0});
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k < 4; ++k) {
      CHECK(one.send[static_cast<std::size_t>(r * 4 + k)] == (r + k) % 4);
      CHECK(one.recv[static_cast<std::size_t>(r * 4 + k)] == (r - k + 4) % 4);
    }
  // 4 nodes of 8: groups 0..3, deltas 0, 1, 3, 6 mod 4 = 2. Rank 0's rounds 8-15 go to group 1 (ranks 8..15),
  // 16-23 to group 3 (24..31), 24-31 to group 2; rank 0 receives in round 9 from group 3's local 7 (rank 31).
  std::vector<int> hosts;
  for (int n = 0; n < 4; ++n)
    for (int l = 0; l < 8; ++l) hosts.push_back(n);
  const auto four = p2p_rounds(hosts);
  CHECK(four.send[8] == 8);
  CHECK(four.send[9] == 9);
  CHECK(four.send[16] == 24);
  CHECK(four.send[24] == 16);
  CHECK(four.recv[9] == 31);
  // Every rank meets every peer once, and round k's receive is the round-k send of the peer it names.
  for (int r = 0; r < 32; ++r) {
    std::vector<int> seen(32, 0);
    for (int k = 0; k < 32; ++k) {
      const int to = four.send[static_cast<std::size_t>(r * 32 + k)], from = four.recv[static_cast<std::size_t>(r * 32 + k)];
      ++seen[static_cast<std::size_t>(to)];
      CHECK(four.send[static_cast<std::size_t>(from * 32 + k)] == r);
    }
    CHECK(std::count(seen.begin(), seen.end(), 1) == 32);
  }
}

TEST_CASE("P2P alltoall on a large crossbar: the replay and, past 1024 ranks, the closed form agree with the hand value") {
  // Ideal crossbar, 25 GB/s per GPU link, PCI-class path (hop 5.7 us, base 8.4 us, NCCL ring Simple rows).
  // NCCL's ring search on the 25 GB/s link (speedArrayIntra {40,30,20,18,15,12,...}): 1 x 20, then 2 x 12 = 24
  // kept (search.cc pass 1 lowers while the next speed is above 0.49 of the best), so 2 search channels and
  // 32 peers at a time. 1024 ranks, 1 GiB: 1023 x 1 MiB / 25 GB/s + 32 batches x 5.7 + 8.4 us (replayed);
  // 2048 ranks: 2047 x 512 KiB / 25 GB/s + 64 x 5.7 + 8.4 us (closed form, not replayed).
  const auto r = predict_alltoall(topology::resolve_topology("crossbar:ranks=1024"), Bytes{1} << 30);
  CHECK(r.choice.simulated);
  CHECK(r.choice.note == "32 peers at a time");
  CHECK(us(r.time) == doctest::Approx(1023.0 * 1048576.0 / 25e3 + 32 * 5.7 + 8.4).epsilon(1e-4));
  const auto s = predict_alltoall(topology::resolve_topology("crossbar:ranks=2048"), Bytes{1} << 30);
  CHECK_FALSE(s.choice.simulated);
  CHECK(us(s.time) == doctest::Approx(2047.0 * 524288.0 / 25e3 + 64 * 5.7 + 8.4).epsilon(1e-4));
}

TEST_CASE("P2P gather and scatter on 8 H100: the root's port carries the 7 blocks, by hand") {
  // nccl-tests' gather/scatter of 1 GiB: 128 MiB blocks, 7 of them on the root's 32 channels at 20.05 GB/s
  // (641.6 GB/s, above its 370.8 GB/s port, which binds), the same time as the alltoall (every GPU moves 7
  // blocks there): 8.4 + 3.4 + 7 x 128 MiB / 370.8 GB/s.
  const auto t = topology::resolve_topology("hgx-h100");
  const double expect_us = 8.4 + 3.4 + 7.0 * 134217728.0 / 370.8e3;
  for (auto op : {schedule::Op::Gather, schedule::Op::Scatter}) {
    const auto r = predict_alltoall(t, Bytes{1} << 30, op, 5);
    CHECK(r.choice.algo == "p2p");
    CHECK(us(r.time) == doctest::Approx(expect_us).epsilon(1e-3));
  }
}

TEST_CASE("P2P gather on the DGX-1 mesh is bound by the root's links, not by every GPU's") {
  // The root's 6 NVLink2 lanes (20 GB/s each) take all 7 blocks, 3 of them relayed: t >= 7 B / 120 GB/s,
  // so busbw = 7 B / t <= 120 GB/s; the alltoall, where every GPU's links carry 10 lane-hops, stays lower.
  const auto t = topology::resolve_topology("dgx1-v100");
  const auto g = predict_alltoall(t, Bytes{1} << 30, schedule::Op::Gather, 0);
  const auto a = predict_alltoall(t, Bytes{1} << 30);
  CHECK(g.bw.busbw_GBps <= 120.0 + 1e-6);
  CHECK(g.bw.busbw_GBps > a.bw.busbw_GBps);
}

TEST_CASE("P2P LL threshold by release: p2pnChannelsPerPeer x 16 KiB in 2.22.3-2.28, the split's channels x 16 KiB after") {
  // enqueue.cc addP2pToPlan: v2.22.3-1 .. v2.28.9-1 "thresholdLL = nChannelsMax*ncclParamP2pLLThreshold()" with
  // nChannelsMax = p2pnChannelsPerPeer; v2.29.2-1 on "bytes[dir] <= nChannels[dir] * ncclParamP2pLLThreshold()".
  CHECK_FALSE(p2p_ll_per_peer_threshold(parse_nccl_version("2.21.5")));
  CHECK(p2p_ll_per_peer_threshold(parse_nccl_version("2.22.3")));
  CHECK(p2p_ll_per_peer_threshold(parse_nccl_version("2.28.9")));
  CHECK_FALSE(p2p_ll_per_peer_threshold(parse_nccl_version("2.29.2")));
  CHECK_FALSE(p2p_ll_per_peer_threshold(std::nullopt)); // the tables' release, 2.30.7
  // 8 ranks on one node, 32 p2p channels, 32 per peer: nChannelsMin 4.
  const P2pComm c = p2p_comm(8, 1, 32, 64, 524288);
  REQUIRE(c.per_peer == 32);
  REQUIRE(c.min_per_op == 4);
  // 512 KiB = 32 x 16 KiB: LL under the per-peer rule, split on LL's 64 KiB step (min part 8 KiB): min(4, 64) = 4
  // channels of 128 KiB, 4 LL steps of 32 KiB data each. Under the split rule: 4 channels (min part 64 KiB),
  // 512 KiB > 4 x 16 KiB: Simple.
  const P2pOp per_peer = p2p_op(c, 524288, true, true);
  CHECK(per_peer.ll);
  CHECK(per_peer.channels == 4);
  CHECK(per_peer.steps == 4);
  const P2pOp split = p2p_op(c, 524288, true, false);
  CHECK_FALSE(split.ll);
  CHECK(split.channels == 4);
  CHECK_FALSE(p2p_op(c, 524289, true, true).ll);
  CHECK_FALSE(p2p_op(c, 524288, false, true).ll); // no LL buffers (network connections)
  // 32 KiB: per-peer rule LL on min(4, 32 KiB / 8 KiB) = 4 channels; split rule one channel (32 KiB / 64 KiB),
  // 32 KiB > 16 KiB: Simple.
  CHECK(p2p_op(c, 32768, true, true).ll);
  CHECK(p2p_op(c, 32768, true, true).channels == 4);
  CHECK_FALSE(p2p_op(c, 32768, true, false).ll);
  CHECK(p2p_op(c, 32768, true, false).channels == 1);
  // End to end on 8 H100: a 256 KiB alltoall sends 32 KiB to each peer: LL on 4 channels under NCCL 2.26.2,
  // Simple on one under 2.29.2 and the tables' release.
  const auto t = topology::resolve_topology("hgx-h100");
  const auto old_rule = predict_alltoall_in(t, 262144, "2.26.2");
  CHECK(old_rule.choice.proto == "LL");
  CHECK(old_rule.choice.channels == 4);
  const auto new_rule = predict_alltoall_in(t, 262144, "2.29.2");
  CHECK(new_rule.choice.proto == "Simple");
  CHECK(new_rule.choice.channels == 1);
}
