// How a send on one node splits over P2P channels, by NCCL release, worked by hand from NVIDIA/nccl's source:
// v2.7.8-1 src/group.cc (p2pnChannelsPerPeer parts rounded up to 4 x 512 KiB), v2.8.3-1 to v2.12.12-1 group.cc
// getP2pChunkSize (parts of 512 KiB to SENDRECV_SLICEFACTOR 4 x 512 KiB), v2.13.4-1 to v2.19.4-1 enqueue.cc
// calcP2pChunkSize (parts of chunk / 8 to 32 chunks), and the nChannelsMax halving of v2.8.3-1 to v2.19.4-1
// ("Avoid overloading channels with 8+ operations": while nChannelsMax x nRanks > p2pnChannels x 4), gone on
// one node from v2.20.3-1.
#include <doctest/doctest.h>

#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/p2p_plan.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/topology_json.hpp"
#include "nccl_run_config.hpp"

using namespace ccsim;
using namespace ccsim::model::nccl;

namespace {

// 8 A100 on one NVSwitch board, sendrecv (rank r to r + 1), the bare model under `version` ("" = the tables').
metrics::Row a100_sendrecv(const std::string& version, Bytes size) {
  return test::bare_sendrecv(topology::resolve_topology("hgx-a100"), version, size);
}

} // namespace

TEST_CASE("P2P split rule on one node by NCCL release") {
  CHECK(p2p_split_rule(NcclVersion{2, 7, 8}) == P2pSplitRule::PerPeer);
  CHECK(p2p_split_rule(NcclVersion{2, 8, 3}) == P2pSplitRule::Group);
  CHECK(p2p_split_rule(NcclVersion{2, 12, 12}) == P2pSplitRule::Group);
  CHECK(p2p_split_rule(NcclVersion{2, 13, 4}) == P2pSplitRule::Halved);
  CHECK(p2p_split_rule(NcclVersion{2, 19, 4}) == P2pSplitRule::Halved);
  CHECK(p2p_split_rule(NcclVersion{2, 20, 3}) == P2pSplitRule::Current);
  CHECK(p2p_split_rule(std::nullopt) == P2pSplitRule::Current); // the tables' release, 2.30.7
}

TEST_CASE("P2P before NCCL 2.20 on 8 ranks: one send spreads over at most 16 of 32 channels") {
  // 8 A100: 24 comm channels -> p2pnChannels 32; per peer 2 x 240 / 20 = 24 -> pow2 32; nChannelsMin 32 halved
  // while x 8 > 32 -> 4; nChannelsMax 32 x 8 = 256 > 32 x 4 = 128 -> 16 (16 x 8 = 128, not above).
  const P2pComm now = p2p_comm(8, 1, 24, 24, 524288);
  CHECK(now.per_peer == 32);
  CHECK(now.min_per_op == 4);
  const P2pComm halved = p2p_comm(8, 1, 24, 24, 524288, 0, true, P2pSplitRule::Halved);
  CHECK(halved.per_peer == 16);
  CHECK(halved.min_per_op == 4);
  CHECK(p2p_comm(8, 1, 24, 24, 524288, 0, true, P2pSplitRule::Group).per_peer == 16);
  CHECK(p2p_comm(8, 1, 24, 24, 524288, 0, true, P2pSplitRule::PerPeer).per_peer == 32); // 2.7: no halving
  // 4 ranks: 32 x 4 = 128, not above 128: no halving.
  CHECK(p2p_comm(4, 1, 24, 24, 524288, 0, true, P2pSplitRule::Halved).per_peer == 32);
  // 1 GiB: 4 channels of 256 MiB > 16 MiB, doubled 8, 16, 32 (32 MiB, the per-peer cap) today; 16 before 2.20.
  const Bytes gib = Bytes{1} << 30;
  CHECK(p2p_op(now, gib, false).channels == 32);
  CHECK(p2p_op(halved, gib, false).channels == 16);
}

TEST_CASE("P2P parts before NCCL 2.13: 512 KiB to 2 MiB, aligned to 512 KiB") {
  const P2pComm group = p2p_comm(8, 1, 24, 24, 524288, 0, true, P2pSplitRule::Group);
  const P2pComm now = p2p_comm(8, 1, 24, 24, 524288);
  // 16 MiB: 4 x 4 MiB > 2 MiB -> 8 x 2 MiB; today 4 x 4 MiB (<= 16 MiB).
  CHECK(p2p_op(group, Bytes{16} << 20, false).channels == 8);
  CHECK(p2p_op(now, Bytes{16} << 20, false).channels == 4);
  // 8 MiB: 4 x 2 MiB, not above 2 MiB: 4.
  CHECK(p2p_op(group, Bytes{8} << 20, false).channels == 4);
  // 3 MiB: max(512 KiB, 768 KiB) aligned up to 1 MiB -> 3 parts; today min(4, 3 MiB / 64 KiB) = 4.
  CHECK(p2p_op(group, Bytes{3} << 20, false).channels == 3);
  CHECK(p2p_op(now, Bytes{3} << 20, false).channels == 4);
  // 256 KiB: one part of 512 KiB.
  CHECK(p2p_op(group, Bytes{256} << 10, false).channels == 1);
  // 2.7: 32 parts each rounded up to 2 MiB: 16 MiB -> ceil(512 KiB / 2 MiB) x 2 MiB = 2 MiB parts, 8 channels;
  // 1 GiB -> 32 MiB parts, 32 channels.
  const P2pComm v27 = p2p_comm(8, 1, 24, 24, 524288, 0, true, P2pSplitRule::PerPeer);
  CHECK(p2p_op(v27, Bytes{16} << 20, false).channels == 8);
  CHECK(p2p_op(v27, Bytes{1} << 30, false).channels == 32);
}

TEST_CASE("8 A100 sendrecv by release: 16 channels at 10 GB/s before 2.20, the 240 GB/s port after") {
  // The bare model: base 8.4 us + one NVLink hop 3.4 us + bytes over the rate. sm80 channels carry half an NVLink
  // lane, 10 GB/s (p2p_channel_GBps); the port is 12 lanes x 20 = 240 GB/s.
  const Bytes gib = Bytes{1} << 30;
  const auto now = a100_sendrecv("", gib);
  CHECK(now.choice.channels == 32); // 32 x 10 = 320 > 240: the port binds
  CHECK(static_cast<double>(now.time) / 1e6 == doctest::Approx(8.4 + 3.4 + 1073741824.0 / 240e3).epsilon(2e-3));
  const auto v218 = a100_sendrecv("2.18.6", gib);
  CHECK(v218.choice.channels == 16); // 16 x 10 = 160 GB/s
  CHECK(static_cast<double>(v218.time) / 1e6 == doctest::Approx(8.4 + 3.4 + 1073741824.0 / 160e3).epsilon(2e-3));
  // 16 MiB under 2.10.3: 8 parts of 2 MiB, 80 GB/s; under 2.18.6 4 parts of 4 MiB, 40 GB/s.
  const Bytes mib16 = Bytes{16} << 20;
  const auto v210 = a100_sendrecv("2.10.3", mib16);
  CHECK(v210.choice.channels == 8);
  CHECK(static_cast<double>(v210.time) / 1e6 == doctest::Approx(8.4 + 3.4 + 16777216.0 / 80e3).epsilon(2e-3));
  CHECK(a100_sendrecv("2.18.6", mib16).choice.channels == 4);
}

TEST_CASE("P2P split before NCCL 2.20: the nChannelsMax halving is a one-node rule here") {
  // enqueue.cc v2.18.3-1 to v2.19.4-1 halves nChannelsMax inside `if (comm->nNodes == 1)`; ccsim keeps today's split
  // across nodes for every release (p2p_plan.hpp). 16 ranks on 2 nodes, 24 comm channels -> p2pnChannels 32, 24 per
  // peer -> 32 (per-peer halving for peers off: halve_for_peers false): 32 x 16 = 512 > 32 x 4 would halve on one
  // node, so across nodes per_peer stays 32.
  CHECK(p2p_comm(16, 2, 24, 24, 131072, 0, false, P2pSplitRule::Halved).per_peer == 32);
  CHECK(p2p_comm(16, 2, 24, 24, 131072, 0, false, P2pSplitRule::Group).per_peer == 32);
  CHECK(p2p_comm(16, 1, 24, 24, 131072, 0, false, P2pSplitRule::Halved).per_peer == 8); // one node: 32 -> 16 -> 8 (8 x 16 = 128)
}
