// Which NCCL release a prediction is for, where that changes what NCCL does by default. LL128's
// default enable, which NCCL widened release by release (models/nccl.json ll128_by_version: none before
// 2.5.6, compute capability 7.0 only up to 2.6, then 8.0, 9.0, 10.0/12.0, and every GPU from 7.0 on since
// 2.27.3). A 2019 DGX-1 run on NCCL 2.4 has no LL128 at all; two RTX 2080 Ti (7.5) on NCCL 2.6.4 neither.
// And LL for point-to-point sends (alltoall, gather, scatter, sendrecv), which came with 2.14.3.
#pragma once
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model/nccl/tables.hpp"
#include "sim/topology/p2p.hpp"

namespace ccsim::model::nccl {

using NcclVersion = std::array<int, 3>; // major, minor, patch

// The release models/nccl.json's tables were read at: what "no version" means wherever a rule goes by release.
inline constexpr NcclVersion kTablesRelease = {2, 30, 7};
inline constexpr std::string_view kTablesReleaseName = "NCCL 2.30.7";

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

// LL128 across nodes (tuning.cc, the `pEnable == 2 && p == NCCL_PROTO_LL128` block, read at each tag): NCCL keeps
// it only where the graph's GPU-NIC path class, typeInter, is close enough. v2.5.6-1 to v2.6.4-1 `typeInter <=
// LINK_PCI`, which is PATH_PIX in that topo.h; v2.7.3-1 to v2.16.5-1 `<= PATH_PXB`; v2.17.1-1 on also `minCompCap
// >= 90 && typeInter <= PATH_PXN`; v2.27.3-1 `<= (NCCL_LL128_C2C ? PATH_P2C : PATH_PXN)` on sm90+ (P2C after PXN
// in that topo.h), v2.28.3-1 on `<= PATH_PXN` (P2C now before PXN): either way PXB, PXN and P2C keep it on
// sm90+, PHB and SYS never do. RCCL (ROCm/rccl 0cbce2a tuning.cc): `typeInter <= PATH_PXB`.
inline constexpr NcclVersion kLl128PxbFrom = {2, 7, 3};
inline constexpr NcclVersion kLl128PxnSm90From = {2, 17, 1};
// The farthest typeInter at which release `v` keeps LL128 for GPUs of compute capability `sm` (no version: the
// tables' release, 2.30.7). PathClass is in v2.28's order (p2p.hpp), where the sm90 limit PXN covers P2C.
topology::PathClass ll128_type_inter_limit(const std::optional<NcclVersion>& v, int sm);
// How release `v`'s paths.cc types GPU-NIC paths (p2p.hpp NicPathRules): PXN from v2.12.7-1 (PATH_PXN is absent
// from v2.11.4-1's topo.h), P2C from v2.27.3-1 ("Add support for P2C (PXN over C2C) and the LL128 protocol", its
// release notes), PXN over a peer's P2C NIC by default from v2.28.3-1 ("Enable PxN over C2C by default").
inline constexpr NcclVersion kPxnFrom = {2, 12, 7};
inline constexpr NcclVersion kP2cFrom = {2, 27, 3};
inline constexpr NcclVersion kPxnC2cFrom = {2, 28, 3};
topology::NicPathRules nic_path_rules(const std::optional<NcclVersion>& v);

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

// The P2P chunk across nodes on Grace-Blackwell hosts (NVIDIA/nccl src/init.cc computeBuffSizes): from v2.29.2-1
// NCCL_P2P_NET_CHUNKSIZE (128 KiB) x 2 when the CPU is ARM and every GPU is sm100 or newer ("GBx platforms only have
// 4 GPUs per host, which reduces the aggregation factor. Increase the ratio by a factor of 2 to compensate");
// v2.28.9-1 and older take the 128 KiB as it is. No version: the tables' release (2.30.7), doubled.
inline constexpr NcclVersion kP2pNetChunkGbxFrom = {2, 29, 2};
inline bool p2p_net_chunk_doubled_on_gbx_in_release(const std::optional<NcclVersion>& v) {
  return !v || *v >= kP2pNetChunkGbxFrom;
}

// A multi-node ring's second doubling on Hopper (NVIDIA/nccl src/graph/connect.cc ncclTopoPostset, "Use 4 compute
// channels per search channel to reach peak BW on <8 PPN", the ring graph's bwIntra > 45): v2.18.1-1 to v2.19.x
// doubled while 2 x channels <= MAXCHANNELS (32) on sm90 exactly, so 8 GPUs and 8 NICs a node ran 32 channels, 4
// blocks a NIC; from v2.20.3-1 it doubles only below 16 channels (sm90 and newer from v2.25.1-1), and before v2.18.1-1
// there is no such doubling. No version: the tables' release (2.30.7), not doubled to the maximum.
inline constexpr NcclVersion kRingNetDoubleToMaxFrom = {2, 18, 1}, kRingNetDoubleBelow16From = {2, 20, 3};
inline bool ring_net_doubled_to_max_in_release(const std::optional<NcclVersion>& v, int sm) {
  return v && sm == 90 && *v >= kRingNetDoubleToMaxFrom && *v < kRingNetDoubleBelow16From;
}

// The first release with NCCL's device-side unpack for a net plugin of type NCCL_NET_DEVICE_UNPACK
// (src/device/network/unpack/unpack.h, absent at v2.18.6-1): the receiving block copies the payload out of the
// plugin's bounce buffer (Tables::NetKind::device_unpack). No version: the tables' release (2.30.7), yes.
inline constexpr NcclVersion kDeviceUnpackFrom = {2, 19, 3};
inline bool device_unpack_in_release(const std::optional<NcclVersion>& v) { return !v || *v >= kDeviceUnpackFrom; }

// The first release with the communicator's maxP2pPeers (NVIDIA/nccl v2.30.3-1 src/graph/paths.cc
// ncclTopoComputeP2pChannels: across nodes the per-peer channels halve while perPeer x ceil(p2pMaxPeers / 8) >
// p2pnChannels; v2.29.x counts nRanks there). nccl-tests' sendrecv.cu sets maxP2pPeers = 2 only when built on
// NCCL >= 2.30 (SendRecvInitCommConfig); before, a sendrecv across many nodes keeps few channels per peer.
inline constexpr NcclVersion kP2pMaxPeersFrom = {2, 30, 3};
// Does release `v` let sendrecv count 2 peers there? No version: the tables' release (2.30.7), yes.
inline bool p2p_max_peers_in_release(const std::optional<NcclVersion>& v) { return !v || *v >= kP2pMaxPeersFrom; }

// How a send on one node splits over P2P channels, by release (NVIDIA/nccl, read at each tag):
// * PerPeer, v2.7.3-1 to v2.7.8-1 (src/group.cc): over p2pnChannelsPerPeer parts, each rounded up to a multiple of
//   4 x Simple buffer / NCCL_STEPS (2 MiB): ceil(bytes / that part) channels; no halving.
// * Group, v2.8.3-1 to v2.12.x (group.cc getP2pChunkSize): parts of stepSize = Simple buffer / NCCL_STEPS (512 KiB)
//   to SENDRECV_SLICEFACTOR (4) steps, 2 MiB, starting from nChannelsMin and doubling up to nChannelsMax, which is
//   p2pnChannelsPerPeer halved while nChannelsMax x nRanks > p2pnChannels x 4 ("Avoid overloading channels with 8+
//   operations as we loose the sync warp, hence a bit of bandwidth").
// * Halved, v2.13.4-1 to v2.19.x (enqueue.cc calcP2pChunkSize): parts of chunk / 8 to 32 chunks (today's), the same
//   nChannelsMax halving (inside `if (comm->nNodes == 1)` from v2.18.3-1).
// * Current, from v2.20.3-1: no nChannelsMax halving on one node (it moved to paths.cc, network peers only).
// No version: the tables' release (2.30.7), Current. Several nodes keep Current's split here (not modelled by release:
// up to v2.18.1-1 both halvings applied at any node count, from v2.18.3-1 to v2.19.4-1 only on one node).
enum class P2pSplitRule { PerPeer, Group, Halved, Current };
inline constexpr NcclVersion kP2pSplitGroupFrom = {2, 8, 3}, kP2pSplitHalvedFrom = {2, 13, 4},
                             kP2pSplitCurrentFrom = {2, 20, 3};
inline P2pSplitRule p2p_split_rule(const std::optional<NcclVersion>& v) {
  if (!v || *v >= kP2pSplitCurrentFrom) return P2pSplitRule::Current;
  if (*v >= kP2pSplitHalvedFrom) return P2pSplitRule::Halved;
  return *v >= kP2pSplitGroupFrom ? P2pSplitRule::Group : P2pSplitRule::PerPeer;
}

// The first release whose Blackwell NVLS-tree across nodes takes its channels and chunk from the NIC speed and
// GPUs per node (NVIDIA/nccl v2.30.3-1 src/transport/nvls.cc ncclNvlsTreeSm100Tuning; absent at v2.29.7-1).
inline constexpr NcclVersion kNvlsSm100TreeTuningFrom = {2, 30, 3};
// Does release `v` run that tuning? No version: the tables' release (2.30.7), yes.
inline bool nvls_sm100_tree_tuning_in_release(const std::optional<NcclVersion>& v) { return !v || *v >= kNvlsSm100TreeTuningFrom; }
// The first release whose search skips its second pass (sameChannels = 0: each channel may take its own GPU
// order) on x86 AMD hosts where the graph's typeIntra is SYS ("Try having different channels (except when going
// through AMD CPUs)", NVIDIA/nccl v2.19.1-1 to v2.30.7-1 src/graph/search.cc ncclTopoCompute; absent at
// v2.18.6-1; ROCm/rccl 0cbce2a keeps it). Every channel then replays channel 0's order.
inline constexpr NcclVersion kAmdSysSameChannelsFrom = {2, 19, 1};
// Does release `v` skip it? No version: the tables' release (2.30.7), yes.
inline bool amd_sys_same_channels_in_release(const std::optional<NcclVersion>& v) { return !v || *v >= kAmdSysSameChannelsFrom; }
// Both rules above answer "yes" without a version because the tables' release has them.
static_assert(kTablesRelease >= kP2pMaxPeersFrom && kTablesRelease >= kNvlsSm100TreeTuningFrom && kTablesRelease >= kAmdSysSameChannelsFrom);

// NVLS's CUDA channels on one NVLink domain (one node, or an MNNVL clique) by release, NVIDIA/nccl
// src/transport/nvls.cc ncclNvlsInit: NCCL_NVLS_NCHANNELS defaulted to 16 on every GPU to v2.24.3-1;
// v2.25.1-1 to v2.26.6-1 run NVLS_NCHANNELS_SM100 = 32 on Blackwell (compCap >= 100); from v2.27.3-1 Blackwell
// on one domain runs NVLS_NCHANNELS_SM100_NVL = 24 (32 stays for several nodes: NVLS-tree). Hopper: 16 in all.
inline constexpr NcclVersion kNvlsSm100ChannelsFrom = {2, 25, 1};
inline constexpr NcclVersion kNvlsSm100NvlChannelsFrom = {2, 27, 3};
// Release `v`'s NVLS CUDA channels on one domain for a GPU of `arch`, where the tables' release (2.30.7) gives
// `newest`; no version: `newest`.
inline int nvls_domain_channels_in_release(const std::optional<NcclVersion>& v, Arch arch, int newest) {
  if (!v || arch < Arch::Blackwell || *v >= kNvlsSm100NvlChannelsFrom) return newest;
  return *v >= kNvlsSm100ChannelsFrom ? 32 : 16;
}

// NCCL's MAXCHANNELS (src/include/device.h), the cap on NCCL_MIN/MAX_CTAS (src/init.cc "is larger than #channels
// upper limit"): 32 to v2.24.3-1, 64 from v2.25.1-1. No version: the tables' release, 64.
inline constexpr NcclVersion kMaxChannels64From = {2, 25, 1};
inline int max_channels_in_release(const std::optional<NcclVersion>& v) { return !v || *v >= kMaxChannels64From ? 64 : 32; }

// NCCL_NVLS_NCHANNELS by release (NVIDIA/nccl src/transport/nvls.cc ncclNvlsInit, src/init.cc): to v2.24.3-1 the
// NCCL_PARAM itself (default 16) is the count, whatever its value; v2.25.1-1 to v2.26.6-1 (default -2) a value >= 0
// replaces the GPU's default; from v2.27.3-1 it is config.nvlsCTAs, and a value at or below 0 is "not a valid value,
// NCCL will decide". Then max(minCTAs, min(maxCTAs, count)), minCTAs at least 1: a count below 1 is 1 there. Returns
// the count the release runs before the CTAs bound (at least 1), or 0 where the release keeps its own.
inline constexpr NcclVersion kNvlsNchannelsNonNegativeFrom = {2, 25, 1}, kNvlsNchannelsPositiveFrom = {2, 27, 3};
inline int nvls_nchannels_in_release(const std::optional<NcclVersion>& v, long long stated) {
  const int count = static_cast<int>(std::clamp(stated, 1LL, 1LL << 20));
  if (!v || *v >= kNvlsNchannelsPositiveFrom) return stated > 0 ? count : 0;
  if (*v >= kNvlsNchannelsNonNegativeFrom) return stated >= 0 ? count : 0;
  return count;
}

// The first release whose launches of a thread's GPUs are read as pipelining with the GPU time (CUDA -g N:
// launch_kind.hpp "cuda/gN-parallel", launch_overlap.hpp). NOT v2.9.6-1, where PARALLEL became the default launch
// (src/init.cc: `comm->launchMode = ncclComm::PARALLEL` unless NCCL_LAUNCH_MODE=GROUP; up to v2.8.4-1 GROUP, one
// cudaLaunchCooperativeKernelMultiDevice): the SuperBench A100 -g 8 runs print NCCL's own `Launch mode
// Parallel` (printed only up to v2.12.12-1 src/enqueue.cc ncclLaunchKernel; "Parallel" with 8 GPUs per process
// only from 2.9.6 without the variable) and rise above their floor as a sum, 5 ops alike, as the OCI A100 run
// (CUDA 11.3 container) does; the runs that name a release from 2.18.3 (H800 2.18.3, H100 2.26.2, RTX 5090
// 2.29.7, H200 2.30.4) and thanos's A100 -g 8 (pip nvidia-nccl-cu12: 2.18 or later) stay near max(floor, GPU
// time) up to 2 MiB. v2.13.4-1 is the first release after 2.12 and the one that rewrote the launch (src/group.cc
// doLaunches, src/enqueue.cc ncclLaunchPrepare / ncclLaunchKernel / uploadWork: a plan per kernel, its work in
// the kernel's arguments and a device-visible FIFO). Neither side of that change waits for the GPU in the
// host's launch path (models/README.md "When -g N launches sum"); the boundary is where the measured classes
// change, placed at the only launch rewrite between them; 2.13-2.17 have no measured -g N run.
inline constexpr NcclVersion kPipelinedLaunchFrom = {2, 13, 4};
// Does release `v` pipeline a thread's launches with the GPU time? No version: not known, no (the CUDA -g N runs
// that name no release rise with the transfer as a sum does: launch_overlap.hpp).
inline bool pipelined_launch_in_release(const std::optional<NcclVersion>& v) { return v && *v >= kPipelinedLaunchFrom; }

// How release `v`'s tuner estimates NVLS-tree (models/nccl.json nvls.tree.tuner_by_release); nullptr when no
// release is given, or it is newer than the spans (the tables' own figures) or older (v2.18.x: not read).
const Tables::Nvls::TreeTunerRule* nvls_tree_tuner_rule(const Tables& tab, const std::optional<NcclVersion>& v);
// perChMaxRingLL128Bws as release `v`'s tuner holds it (models/nccl.json caps_GBps
// per_ch_ring_ll128_tuner_by_release); nullptr when no release is given or no rule spans it (the tables' own row).
const Caps* ring_ll128_tuner_caps(const Tables& tab, const std::optional<NcclVersion>& v);

} // namespace ccsim::model::nccl
