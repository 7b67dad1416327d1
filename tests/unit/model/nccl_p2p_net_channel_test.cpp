// A P2P channel across the network, by NCCL release, worked by hand from NVIDIA/nccl's source: v2.29.7-1 and
// v2.30.3-1 src/graph/paths.cc (ncclTopoGetNchannels, ncclTopoComputeP2pChannels, NCCL_P2P_PER_CHANNEL_NET_BW 14),
// src/graph/connect.cc ncclTopoPostset, and NVIDIA/nccl-tests src/sendrecv.cu (maxP2pPeers = 2 on NCCL >= 2.30).
#include <doctest/doctest.h>

#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/p2p_plan.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/topology_json.hpp"
#include "nccl_run_config.hpp"

using namespace ccsim;
using namespace ccsim::model::nccl;

namespace {

metrics::Row net_sendrecv(int nodes, const std::string& version, Bytes size) {
  return test::bare_sendrecv(topology::resolve_topology("machine:gpu=b200,nodes=" + std::to_string(nodes) + ",nics=8x400G,kind=ib"),
                             version, size);
}

} // namespace

TEST_CASE("P2P maxP2pPeers by release: nccl-tests' sendrecv counts 2 peers only from NCCL 2.30") {
  CHECK_FALSE(p2p_max_peers_in_release(NcclVersion{2, 29, 7}));
  CHECK(p2p_max_peers_in_release(NcclVersion{2, 30, 3}));
  CHECK(p2p_max_peers_in_release(std::nullopt)); // the tables' release, 2.30.7
}

TEST_CASE("P2P network chunk on Grace-Blackwell hosts: 128 KiB through NCCL 2.28, doubled from 2.29.2") {
  // src/init.cc computeBuffSizes: the ARM x sm100 ratio of 2 appears in v2.29.2-1 (v2.28.9-1 has none).
  CHECK_FALSE(p2p_net_chunk_doubled_on_gbx_in_release(NcclVersion{2, 28, 7}));
  CHECK_FALSE(p2p_net_chunk_doubled_on_gbx_in_release(NcclVersion{2, 28, 9}));
  CHECK(p2p_net_chunk_doubled_on_gbx_in_release(NcclVersion{2, 29, 2}));
  CHECK(p2p_net_chunk_doubled_on_gbx_in_release(std::nullopt)); // the tables' release, 2.30.7
}

TEST_CASE("P2P per-peer network channels fall with the node count when every rank counts as a peer") {
  // 8 x B200 per node over 8 x 400G: ring search 8 channels, doubled (connect.cc) to 16 p2p channels; a 400 Gb/s
  // NIC gives ceil(50 / 14) = 4 per peer. Halved while 4 x ceil(ranks / 8) > 16: 2 nodes 4 x 2 = 8 -> 4;
  // 4 nodes 4 x 4 = 16 -> 4; 8 nodes 4 x 8 = 32 -> 2 (2 x 8 = 16); 16 nodes 4 x 16 -> 2 x 16 -> 1.
  CHECK(p2p_comm(16, 2, 16, 4, 131072).per_peer == 4);
  CHECK(p2p_comm(32, 4, 16, 4, 131072).per_peer == 4);
  CHECK(p2p_comm(64, 8, 16, 4, 131072).per_peer == 2);
  CHECK(p2p_comm(128, 16, 16, 4, 131072).per_peer == 1);
  CHECK(p2p_comm(512, 64, 16, 4, 131072).per_peer == 1);
  // maxP2pPeers 2: 4 x ceil(2 / 8) = 4 <= 16 at any node count.
  CHECK(p2p_comm(512, 64, 16, 4, 131072, 2).per_peer == 4);
}

TEST_CASE("P2P sendrecv across 8 B200 nodes: 2 network channels at 14 GB/s in NCCL 2.29, the NIC in 2.30") {
  // 2.29.7: 64 ranks -> 2 channels per peer (above); 256 MiB is far above maxPart (one 128 KiB chunk), so the
  // send takes both; each carries NCCL_P2P_PER_CHANNEL_NET_BW = 14 GB/s: busbw (= algbw) at most 28 GB/s,
  // 268435456 B / 28e9 B/s = 9587 us plus tens of us of latency.
  const auto old = net_sendrecv(8, "2.29.7", Bytes{256} << 20);
  CHECK(old.choice.channels == 2);
  CHECK(old.bw.busbw_GBps <= 28.0);
  CHECK(old.bw.busbw_GBps > 27.0);
  // 2.30.7 (nccl-tests sets maxP2pPeers = 2): 4 channels, 4 x 14 = 56 GB/s > the 400G NIC (50 GB/s): the NIC binds.
  const auto now = net_sendrecv(8, "2.30.7", Bytes{256} << 20);
  CHECK(now.choice.channels == 4);
  CHECK(now.bw.busbw_GBps > 40.0);
  CHECK(now.bw.busbw_GBps <= 50.0);
}

TEST_CASE("P2P channels of a peer on another node by NCCL release") {
  CHECK(p2p_net_channel_rule(NcclVersion{2, 11, 4}) == P2pNetChannelRule::One);
  CHECK(p2p_net_channel_rule(NcclVersion{2, 12, 10}) == P2pNetChannelRule::Two);
  CHECK(p2p_net_channel_rule(NcclVersion{2, 19, 3}) == P2pNetChannelRule::Two);
  CHECK(p2p_net_channel_rule(NcclVersion{2, 20, 3}) == P2pNetChannelRule::ScaledTwo);
  CHECK(p2p_net_channel_rule(NcclVersion{2, 28, 9}) == P2pNetChannelRule::ScaledTwo);
  CHECK(p2p_net_channel_rule(NcclVersion{2, 29, 2}) == P2pNetChannelRule::ByNicBandwidth);
  CHECK(p2p_net_channel_rule(std::nullopt) == P2pNetChannelRule::ByNicBandwidth);
  // v2.20.3-2.28: 2 halved while 2 x ranks > p2pnChannels x 4: 16 ranks on 16 channels 32 <= 64 -> 2;
  // 64 ranks 128 > 64 -> 1. The v2.29 figure (4 here) is not used.
  CHECK(net_peer_channels_in(P2pNetChannelRule::ScaledTwo, 4, 16, 16) == 2);
  CHECK(net_peer_channels_in(P2pNetChannelRule::ScaledTwo, 4, 64, 16) == 1);
  CHECK(net_peer_channels_in(P2pNetChannelRule::Two, 4, 512, 16) == 2);
  CHECK(net_peer_channels_in(P2pNetChannelRule::One, 4, 16, 16) == 1);
  CHECK(net_peer_channels_in(P2pNetChannelRule::ByNicBandwidth, 4, 512, 16) == 4);
}

TEST_CASE("P2P sendrecv across 2 B200 nodes under NCCL 2.26: 2 network channels, 28 GB/s, not the NIC") {
  // 16 ranks, 16 p2p channels: 2 per network peer (2 x 16 = 32 <= 64), no halving for peers before 2.29.2;
  // 256 MiB on both: 2 x 14 GB/s = 28 GB/s, under the 400G NIC's 50.
  const auto r = net_sendrecv(2, "2.26.2", Bytes{256} << 20);
  CHECK(r.choice.channels == 2);
  CHECK(r.bw.busbw_GBps <= 28.0);
  CHECK(r.bw.busbw_GBps > 27.0);
  // NCCL 2.11.4: one channel a network peer, 14 GB/s.
  const auto old = net_sendrecv(2, "2.11.4", Bytes{256} << 20);
  CHECK(old.choice.channels == 1);
  CHECK(old.bw.busbw_GBps <= 14.0);
  CHECK(old.bw.busbw_GBps > 13.5);
}
