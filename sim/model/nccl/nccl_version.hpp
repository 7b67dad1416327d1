// Which NCCL release a prediction is for, where that changes what NCCL does by default. LL128's
// default enable, which NCCL widened release by release (models/nccl.json ll128_by_version: none before
// 2.5.6, compute capability 7.0 only up to 2.6, then 8.0, 9.0, 10.0/12.0, and every GPU from 7.0 on since
// 2.27.3). A 2019 DGX-1 run on NCCL 2.4 has no LL128 at all; two RTX 2080 Ti (7.5) on NCCL 2.6.4 neither.
// And LL for point-to-point sends (alltoall, gather, scatter, sendrecv), which came with 2.14.3.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/nccl/tables.hpp"

namespace ccsim::model::nccl {

using NcclVersion = std::array<int, 3>; // major, minor, patch

// "2.4.8", "2.27.3+cuda12.8", "v2.30.7-1", "2.4" (patch 0); nullopt when `s` does not start with one.
std::optional<NcclVersion> parse_nccl_version(std::string_view s);
// As above for a flag's value; throws Error naming `flag` when it is not a release ("" = nullopt).
std::optional<NcclVersion> nccl_version_from(const std::string& s, const char* flag = "--nccl-version");

// The release a trace says it ran, from its header and log lines: NCCL's own "NCCL version 2.27.3+cuda12.8"
// line, a "# nccl version: 2.6.4 (...)" or "# nccl version: NCCL 2.21.5" header, a "software: NCCL 2.5.6"
// header, nccl-tests' "nccl-library=22903" / rccl-tests' "rccl-library=22707" (2.29.3, 2.27.7: nccl.h's version
// code). Text that only guesses ("not stated", "presumably 2.16.2", "2.4.x most likely") gives nothing.
std::optional<std::string> nccl_version_in(const std::vector<std::string>& lines);

// The compute capability of a topology's GPUs as NCCL compares it (models/gpus.json sm of its GPU kind;
// without a kind, the architecture's first: Volta 70, Ampere 80, ...); 0 for a GPU without one (AMD).
int compute_capability(const topology::Topology& t, Arch arch);

// Does NCCL release `v` enable LL128 by default for GPUs of compute capability `sm`? No version: the
// tables' own release (the last rule). Tables without rules: always (the caller checks arch and path).
bool ll128_in_release(const Tables& tab, const std::optional<NcclVersion>& v, int sm, Arch arch);

// The first release whose ncclSend/ncclRecv may run LL (NVIDIA/nccl v2.14.3-1 release notes: "Add LL protocol
// for intra-node P2P (on by default)"; enqueue.cc addP2pToPlan, NCCL_P2P_LL_THRESHOLD). Up to 2.13 every send
// ran Simple: 2.7.3-2.12 group.cc scheduleSendRecv fed the one SendRecv/RING/SIMPLE kernel (enqueue.cc
// ncclKerns), 2.13.4 addP2pToPlan sets no protocol and its P2P work runs Simple.
inline constexpr NcclVersion kP2pLLFrom = {2, 14, 3};
// The first release that skips a send to oneself in place (NVIDIA/nccl 178b6b75, v2.22.3-1, enqueue.cc: "Skip
// send to self in-place"); before it the P2P kernel copied the buffer onto itself.
inline constexpr NcclVersion kSelfInPlaceSkipFrom = {2, 22, 3};
// The first RCCL release whose MSCCL runs where one process drives several of the communicator's GPUs (rccl-tests
// -g N). ROCm/rccl e3b2342f (2023-03) to the rocm-6.2.2 tag (RCCL 2.20.5, 2024-08) src/misc/msccl/msccl_lifecycle.cc
// mscclCommCompatible returns false when two ranks share a host and a pid, so MSCCL stays off there; 0c36d571 (2024-07,
// "Enable multi-threading for MSCCL") drops that check, e056fe8f brings it back behind RCCL_MSCCL_ENABLE_SINGLE_PROCESS
// (default 0) and 03a3ef3c (2024-09-25) makes the default 1, as 0cbce2a (2.21.5) has it.
inline constexpr NcclVersion kRcclMscclSingleProcessFrom = {2, 21, 0};
// Does release `v` let a small send use LL? No version: the tables' release (2.30.7), yes.
bool p2p_ll_in_release(const std::optional<NcclVersion>& v);
// Which sends run LL (enqueue.cc addP2pToPlan, NCCL_P2P_LL_THRESHOLD 16 KiB): from v2.22.3-1 to v2.28.9-1 a send
// of at most nChannelsMax x 16 KiB, nChannelsMax being the communicator's p2pnChannelsPerPeer ("thresholdLL =
// nChannelsMax*ncclParamP2pLLThreshold()"), its channels then split on LL's 64 KiB step; from v2.29.2-1 at most
// the channels its Simple split gives x 16 KiB ("bytes[dir] <= nChannels[dir] * ncclParamP2pLLThreshold()"), as
// 2.14.3-2.21 tested each channel's part.
inline constexpr NcclVersion kP2pLLPerPeerFrom = {2, 22, 3};
inline constexpr NcclVersion kP2pLLSplitFrom = {2, 29, 2};
// Does release `v` test a send against p2pnChannelsPerPeer x 16 KiB? No version: the tables' release, no.
bool p2p_ll_per_peer_threshold(const std::optional<NcclVersion>& v);

// How release `v` gives a peer on another node its P2P channels (src/graph/paths.cc ncclTopoGetNchannels,
// ncclTopoComputeP2pChannels): before v2.12.10-1 one; v2.12.10-1 to v2.19.x NCCL_NCHANNELS_PER_NET_PEER, default 2;
// v2.20.3-1 to v2.28.9-1 max(NICs, nChannelsMax), nChannelsMax = 2 halved while 2 x nRanks > p2pnChannels x 4;
// from v2.29.2-1 max(NICs, ceil(NIC GB/s / NCCL_P2P_PER_CHANNEL_NET_BW 14)), then on several nodes halved while
// perPeer x ceil(peers / 8) > p2pnChannels. No version: the tables' release (2.30.7), the last.
enum class P2pNetChannelRule { One, Two, ScaledTwo, ByNicBandwidth };
inline constexpr NcclVersion kP2pNetTwoFrom = {2, 12, 10}, kP2pNetScaledFrom = {2, 20, 3}, kP2pNetByBwFrom = {2, 29, 2};
inline P2pNetChannelRule p2p_net_channel_rule(const std::optional<NcclVersion>& v) {
  if (!v || *v >= kP2pNetByBwFrom) return P2pNetChannelRule::ByNicBandwidth;
  if (*v >= kP2pNetScaledFrom) return P2pNetChannelRule::ScaledTwo;
  return *v >= kP2pNetTwoFrom ? P2pNetChannelRule::Two : P2pNetChannelRule::One;
}

// The first release with the communicator's maxP2pPeers (NVIDIA/nccl v2.30.3-1 src/graph/paths.cc
// ncclTopoComputeP2pChannels: across nodes the per-peer channels halve while perPeer x ceil(p2pMaxPeers / 8) >
// p2pnChannels; v2.29.x counts nRanks there). nccl-tests' sendrecv.cu sets maxP2pPeers = 2 only when built on
// NCCL >= 2.30 (SendRecvInitCommConfig); before, a sendrecv across many nodes keeps few channels per peer.
inline constexpr NcclVersion kP2pMaxPeersFrom = {2, 30, 3};
// Does release `v` let sendrecv count 2 peers there? No version: the tables' release (2.30.7), yes.
inline bool p2p_max_peers_in_release(const std::optional<NcclVersion>& v) { return !v || *v >= kP2pMaxPeersFrom; }

// The first release whose Blackwell NVLS-tree across nodes takes its channels and chunk from the NIC speed and
// GPUs per node (NVIDIA/nccl v2.30.3-1 src/transport/nvls.cc ncclNvlsTreeSm100Tuning; absent at v2.29.7-1).
inline constexpr NcclVersion kNvlsSm100TreeTuningFrom = {2, 30, 3};
// Does release `v` run that tuning? No version: the tables' release (2.30.7), yes.
inline bool nvls_sm100_tree_tuning_in_release(const std::optional<NcclVersion>& v) { return !v || *v >= kNvlsSm100TreeTuningFrom; }

// The first release whose default launch is PARALLEL, one cudaLaunchKernel per GPU of a thread (NVIDIA/nccl
// v2.9.6-1 src/init.cc: `comm->launchMode = ncclComm::PARALLEL` unless NCCL_LAUNCH_MODE=GROUP; v2.8.4-1 and
// before GROUP, one cudaLaunchCooperativeKernelMultiDevice for the thread's GPUs, unless one GPU per process).
inline constexpr NcclVersion kParallelLaunchFrom = {2, 9, 6};
// Does release `v` launch in PARALLEL mode by default? No version: not known, no (the CUDA -g N runs that name
// no release rise with the transfer as a sum does: launch_overlap.hpp).
inline bool parallel_launch_in_release(const std::optional<NcclVersion>& v) { return v && *v >= kParallelLaunchFrom; }

// How release `v`'s tuner estimates NVLS-tree (models/nccl.json nvls.tree.tuner_by_release); nullptr when no
// release is given, or it is newer than the spans (the tables' own figures) or older (v2.18.x: not read).
const Tables::Nvls::TreeTunerRule* nvls_tree_tuner_rule(const Tables& tab, const std::optional<NcclVersion>& v);

} // namespace ccsim::model::nccl
