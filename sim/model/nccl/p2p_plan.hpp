// NCCL's point-to-point path, the way alltoall runs: nccl-tests' alltoall_perf issues ncclGroupStart,
// one ncclSend and one ncclRecv per peer, ncclGroupEnd, and NCCL runs them on its P2P channels, not on a
// ring (NVIDIA/nccl v2.30.7-1). What is taken from NCCL's code, and where:
//   * src/graph/paths.cc ncclTopoGetNchannels / ncclTopoComputeP2pChannels(PerPeer): channels per peer
//     (NVLink: 2 x max(1, path bw / NVLink lane bw); PCIe: 2; network: max(NICs, ceil(whole NIC GB/s / 14)), 2 with no local NIC,
//     NCCL_P2P_PER_CHANNEL_NET_BW), the minimum over peers rounded up to a power of 2; p2pnChannels =
//     pow2Up(min(comm channels, NCCL_MAX_P2P_NCHANNELS)); on several nodes the per-peer count halves
//     while perPeer x ceil(ranks / 8) > p2pnChannels.
//   * src/init.cc computeBuffSizes: chunk NCCL_P2P_NET_CHUNKSIZE 128 KiB on several nodes (x2 on ARM
//     Blackwell hosts, GB200/GB300, from v2.29.2-1), NCCL_P2P_NVL_CHUNKSIZE 512 KiB when every GPU pair is NVLink,
//     NCCL_P2P_PCI_CHUNKSIZE 128 KiB otherwise.
//   * src/enqueue.cc scheduleP2pTasksToPlan / addP2pToPlan: nChannelsMin halves from perPeer while
//     nChannelsMin x ranks > p2pnChannels; one send uses min(nChannelsMin, ceil(bytes / minPart))
//     channels, doubled while the part exceeds maxPart (minPart = chunk/8, maxPart = 32 chunks on one
//     node; chunk/2 and chunk across nodes); LL when bytes <= channels x NCCL_P2P_LL_THRESHOLD (16 KiB)
//     and the connection has LL buffers (network connections have none by default), from NCCL 2.14.3 on
//     (before it every send ran Simple: nccl_version.hpp kP2pLLFrom); each channel runs
//     up to 8 sends at once (NCCL_MAX_DEV_WORK_P2P_PER_BATCH), so p2pnChannels / channels x 8 peers
//     run concurrently and the others wait for the next batch (`maxConcurrent`).
//   * By release on one node (p2p_split_rule, nccl_version.hpp): before v2.20.3-1 nChannelsMax, the most channels
//     one send takes, is p2pnChannelsPerPeer halved while nChannelsMax x nRanks > p2pnChannels x 4 ("Avoid
//     overloading channels with 8+ operations", enqueue.cc v2.13.4-1 to v2.19.4-1, group.cc from v2.8.3-1): 16 of
//     32 on 8 ranks; before v2.13.4-1 the parts run from 512 KiB (Simple buffer / NCCL_STEPS) to 4 of those
//     (SENDRECV_SLICEFACTOR) instead of chunk / 8 to 32 chunks; v2.7.x splits over p2pnChannelsPerPeer parts
//     rounded up to 2 MiB.
//   * src/graph/search.cc ncclTopoGetNetDev, src/transport/net.cc: PXN (NCCL_P2P_PXN_LEVEL 2 default) -
//     a send to another node leaves through the NIC of the local GPU with the receiver's device index,
//     reached over NVLink; the receiver uses its own NIC.
//   * src/include/channel.h ncclP2pChannelBaseForRound, src/include/device.h ncclP2pChannelForPart (v2.28.3-1
//     on): round k's first channel is reverseBits(k, log2 p2pnChannels) on one node (across nodes k's group
//     of p2pSchedGroupSize rounds, plus one per 8 rounds inside it, then reversed), its parts the channels
//     after it; before v2.28.3-1 the base was k unreversed and the parts bit-reversed offsets from it, which
//     spreads a batch's rounds over the same number of channels in the plans ccsim draws. One channel is one
//     thread block (src/device/sendrecv.h): its warps are split between the sends and receives of its batch.
//   * The rate of one channel over NVLink (modelled, p2p_channel_GBps): one channel is one thread block of
//     NCCL_MAX_NTHREADS 640 threads (enqueue.cc: a P2P plan's threadPerBlock, v2.26.2-1), its 20 warps split
//     between the send and the receive of each work (sendrecv.h: 10 send, 9 receive warps for one peer), so a
//     channel moves what one block's warps copy. ncclTopoGetNchannels plans 2 channels per NVLink lane's worth
//     of path bandwidth (2 x path bw / ncclTopoNVLinkBw: SM80/SM70 20, SM90 20.6, SM100 40.0 in v2.26.2-1, 40.1 in
//     v2.30.7-1, src/graph/topo.h): half a lane per channel, a plan, not the block's rate. On sm90 and newer,
//     where the connection writes (paths.cc: P2P read only between two sm80 GPUs), the block's rate is one
//     figure across generations: kP2pWriteBlockGBps, the 20.05 GB/s of NCCL's Blackwell plan that the GB200
//     alltoall calibration runs bind at; a Hopper channel carries it too, twice NCCL's half of a 20.6 lane
//     (measured: H100 sendrecv on 4 and 8 channels 20.3-20.5 GB/s per channel, wild traces, checks only).
//     sm80 (read) and sm70 keep NCCL's half lane, 10 GB/s: no calibration run gives their block's rate.
//     An LL send's channel carries half of it as data: the block's bytes are 16-byte LL lines, two 4-byte data
//     words each beside their flags (union ncclLLFifoLine, src/include/device.h), as the LL view's links are.
//     So a send over c channels moves at most c x that rate, and a GPU's sends at most its batch's distinct
//     channels x it (p2p_batch_channels). PCIe peers keep the links' own bound, and RCCL's xGMI is not NCCL's kernel.
//   * The rate of one channel over the network (modelled): NCCL_P2P_PER_CHANNEL_NET_BW, 14 GB/s (paths.cc,
//     v2.29.2-1 on), NCCL's own figure for what one channel carries across the network: it plans
//     ceil(NIC GB/s / 14) channels a network peer to cover the NIC. Where the per-peer halving across nodes
//     leaves fewer (perPeer x ceil(peers / 8) > p2pnChannels), a send to another node moves at most its
//     channels x 14 GB/s: each network link is capped at 14 GB/s x the channels of the sends crossing it.
//   * Whose channels (modelled, P2pPlanner::capped): a channel is a thread block at each end, and a GPU's sends in
//     one batch of 8 rounds share the batch's channels (ncclP2pChannelBaseForRound: one base for 8 consecutive
//     rounds of a node or group delta, v2.22.3-1 on; ncclChannelComputeBase's nodeDelta + step / 8 from v2.12.12-1
//     to v2.21: NCCL_MAX_WORK_ELEMENTS_P2P / 2, 16 / 2 from v2.18.3-1, 512 / 32-byte elements / 2 before), so a
//     link's cap counts the distinct (sender, channel) and (receiver, channel) pairs of the sends crossing it, the
//     smaller of the two. On 2 nodes of 8 the 8 remote peers are one batch: with PXN the sends of 8 GPUs meet at a
//     NIC, but its receiver takes them all on its batch's 2 (2.12.10-2.28) or 4 (2.29 on) channels.
// The sends are replayed on the engine's flow network (links shared fairly), so NVSwitch ports, NVLink
// meshes where NCCL relays through a GPU, PCIe and NICs carry what they carry; each NVLink link is capped
// at the channel rate times the channels of the sends crossing it (P2pPlanner::capped). NCCL has no P2P latency
// model; the plan charges its ring base latency and one hop of its protocol once, and one hop more per
// batch of peers.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "sim/engine/run_plan.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/graph.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/params.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::model::nccl {

inline constexpr int kP2pMaxChannels = 64;          // MAXCHANNELS (NCCL_MAX_P2P_NCHANNELS default)
inline constexpr int kP2pOpsPerBatch = 8;           // NCCL_MAX_DEV_WORK_P2P_PER_BATCH
inline constexpr Bytes kP2pLLThreshold = 16384;     // NCCL_P2P_LL_THRESHOLD
inline constexpr double kP2pPerChannelNetGBps = 14; // NCCL_P2P_PER_CHANNEL_NET_BW
// Beyond this many ranks an alltoall (p(p-1) sends) is NCCL's arithmetic with each GPU's links as the
// bound, not a replay (4096 ranks took 30 s and 160 MB to replay).
inline constexpr int kP2pReplayMaxRanks = 1024;
inline constexpr double kP2pChannelsPerNvlinkLane = 2; // ncclTopoGetNchannels: 2 x path bw / NVLink lane bw
// One P2P thread block's copy rate over NVLink where the connection writes (sm90 and newer): NCCL's SM100
// plan, 40.1 / 2 GB/s (topo.h v2.30.7-1), the rate the GB200 alltoall calibration runs bind at (see above).
inline constexpr double kP2pWriteBlockGBps = 20.05;
// The data an LL line carries: union ncclLLFifoLine (src/include/device.h) is 16 bytes, two 4-byte data words each
// followed by its 4-byte flag; a block's LL stores move half their bytes as data.
inline constexpr double kLLDataPerLineByte = 0.5;
inline constexpr Bytes kP2pLLStep = Bytes{1} << 16; // DEFAULT_LL_BUFFSIZE / NCCL_STEPS (init.cc): LL's step
inline constexpr Bytes kP2pNvlChunk = Bytes{1} << 19, kP2pPciChunk = Bytes{1} << 17, kP2pNetChunk = Bytes{1} << 17;

int pow2_up(int v);
// ncclTopoGetNchannels for a peer over NVLink (path_GBps: the path's bottleneck in NCCL's units, lane_GBps:
// one NVLink of the GPU) and over the network (nics local to the GPU, their total GB/s).
int nvlink_peer_channels(double path_GBps, double lane_GBps);
int net_peer_channels(int nics, double nic_GBps);
Bytes p2p_chunk_bytes(int nodes, bool all_nvlink, bool arm_blackwell);
// The data rate of one P2P channel over NVLink for GPUs of `arch` (see above): the write block's rate on Hopper and
// newer, NCCL's planned half of a lane (nvlink_lane_GBps / 2) before; `ll`: an LL send, whose lines carry half
// their bytes as data (kLLDataPerLineByte), so the channel's bytes carry half the data.
double p2p_channel_GBps(double nvlink_lane_GBps, Arch arch, bool ll = false);

// The communicator's channels P2P starts from (comm->nChannels): the ring's CUDA channels, doubled once
// more on Hopper and newer across nodes when the ring's bwIntra exceeds 45 GB/s and fewer than 16 channels
// remain (src/graph/connect.cc ncclTopoPostset: "4 compute channels per search channel to reach peak BW on
// <8 PPN"). `logged`: NCCL printed its channel count (already after that doubling).
int p2p_comm_channels(int ring_cuda_channels, Arch arch, int nodes, double ring_bw_intra, bool logged);

// A communicator's P2P setup.
struct P2pComm {
  int ranks = 1, nodes = 1;
  int channels = 1;   // p2pnChannels
  int per_peer = 1;   // p2pnChannelsPerPeer: the most channels one send spreads over
  int min_per_op = 1; // nChannelsMin of scheduleP2pTasksToPlan
  Bytes chunk = kP2pNvlChunk;
  P2pSplitRule split = P2pSplitRule::Current; // how the release splits a send on one node (p2p_split_rule)
};
// comm_channels: the communicator's channels (ring CUDA channels); peer_channels: the minimum of
// ncclTopoGetNchannels over the peers; max_peers: the communicator's maxP2pPeers (0: the rank count, NCCL's
// default; nccl-tests' sendrecv.cu sets 2 from NCCL 2.30: one peer each way), which the per-peer halving
// across nodes counts instead of the ranks (paths.cc ncclTopoComputeP2pChannels).
// `halve_for_peers`: the release halves the per-peer channels across nodes (v2.29.2-1 on; P2pNetChannelRule).
// `split`: the release's split on one node; before v2.20.3-1 (Group, Halved) per_peer, the most channels one send
// takes, halves while per_peer x ranks > p2pnChannels x 4 (nChannelsMax).
P2pComm p2p_comm(int ranks, int nodes, int comm_channels, int peer_channels, Bytes chunk, int max_peers = 0,
                 bool halve_for_peers = true, P2pSplitRule split = P2pSplitRule::Current);
// p2pnChannels: pow2Up(min(comm channels, NCCL_MAX_P2P_NCHANNELS)), at least 1.
int p2p_channels_of(int comm_channels);
// The channels of a peer on another node by release (P2pNetChannelRule): `by_bw` is the v2.29.2-1 figure
// (net_peer_channels), `ranks` and `p2p_channels` (pow2Up of the comm's) what the v2.20.3-2.28 rule scales by.
int net_peer_channels_in(P2pNetChannelRule rule, int by_bw, int ranks, int p2p_channels);

// One send of `bytes` (addP2pToPlan).
struct P2pOp {
  int channels = 1;   // channels it is split over
  bool ll = false;    // LL protocol (else Simple)
  int steps = 1;      // chunk steps per channel
  int concurrent = 1; // peers a rank serves at once (maxConcurrent)
};
// `ll_per_peer`: the release tests LL against per_peer x 16 KiB and splits an LL send on LL's step
// (p2p_ll_per_peer_threshold, NCCL 2.22.3-2.28); otherwise against the Simple split's channels x 16 KiB.
P2pOp p2p_op(const P2pComm& c, Bytes bytes, bool ll_buffers, bool ll_per_peer = false);

// The first channel of round `round` (ncclP2pChannelBaseForRound, v2.30.7-1); `group_size`: p2pSchedGroupSize.
int p2p_channel_base(const P2pComm& c, int round, int group_size);
// The distinct channels the rounds [first, first + rounds) of one rank run on when each send takes `per_op`
// channels from its round's base (ncclP2pChannelForPart): the thread blocks that carry those sends.
int p2p_batch_channels(const P2pComm& c, int per_op, int first, int rounds, int group_size);

// NCCL's round order (init.cc ncclP2pSchedule): in round k rank r sends to send[r * p + k] and receives
// from recv[r * p + k]. One node: rank + k and rank - k. Several: groups of 8 ranks of a node (fewer
// where a node has fewer), the group in round k/8 at the k/8-th quadratic delta (x^2 + x)/2 of
// pow2Up(groups) that falls inside, the peer inside that group at local offset k % 8. Round 0 is the rank itself.
struct P2pRounds {
  std::vector<int> send, recv;
  int group = 1; // p2pSchedGroupSize
};
P2pRounds p2p_rounds(const std::vector<int>& node_of_rank);

// Builds the alltoall, gather, scatter and sendrecv plans of the NCCL model (RCCL's own direct alltoall on a mesh
// runs before it).
class P2pPlanner {
 public:
  // `ll_in_release`: the NCCL release predicted lets small sends run LL (p2p_ll_in_release); `ll_per_peer`: its
  // LL threshold is p2pnChannelsPerPeer x 16 KiB (p2p_ll_per_peer_threshold).
  // `sendrecv_max_peers`: the release has maxP2pPeers, which nccl-tests' sendrecv sets to 2 (p2p_max_peers_in_release).
  // `gbx_net_chunk_doubled`: the release doubles the network chunk on Grace-Blackwell hosts
  // (p2p_net_chunk_doubled_on_gbx_in_release).
  P2pPlanner(const topology::Topology& t, const Tables& tab, const ParamSet& params, std::vector<int> relay_gpus,
             bool ll_in_release = true, bool ll_per_peer = false, bool sendrecv_max_peers = true,
             P2pNetChannelRule net_rule = P2pNetChannelRule::ByNicBandwidth,
             P2pSplitRule split_rule = P2pSplitRule::Current, bool gbx_net_chunk_doubled = true);
  ~P2pPlanner();
  // NCCL's ring graph for the GPUs of `gpus` (comm->nChannels comes from it): its search does not depend on
  // the rank order, so it is the graph of the rings ccsim packs over those GPUs (as for a ring collective),
  // not of the GPU-order ring an alltoall is placed on (one ring across NVL72 racks: 1 channel, not 16).
  const Graph& ring_graph(const std::vector<std::vector<int>>& placements, const Graph& placed, const std::string& arch_override);
  // `comm_channels`: the communicator's channels; `fixed`: launch overheads the builder charges once.
  // `level`: the P2P level in force (p2p_level.hpp; nullopt: none applies, RCCL without NCCL_P2P_LEVEL): the
  // GPU pairs of one host the op sends between that are farther run NCCL's SHM transport, their ports staged
  // through host memory as a ring's SHM hops are.
  engine::RunPlan plan(const Graph& g, int comm_channels, const metrics::RunConfig& cfg, metrics::SizePlan size,
                       Time fixed, std::optional<topology::PathClass> level = std::nullopt);

 private:
  struct View;
  struct Facts;
  // What a capped view's caps follow from besides the channels per send: the pattern of sends at once
  // (0 sendrecv's shift, 1 hypercube's steps, 2 the first batch of alltoall rounds), the batch and the GPUs'
  // generation (the channel rate).
  struct CapKey {
    int pattern = -1, batch = 0;
    Arch arch = Arch::Volta;
    bool operator==(const CapKey&) const = default;
  };
  // `shm`: the GPU pairs whose ports stage through host memory (shm_pairs).
  View& view(bool ll, const Graph& g, const std::vector<int>& gpus, const std::vector<std::pair<int, int>>& shm);
  // One send of a step: from GPU `a` to GPU `b` on the channels of `mask` (bit c: P2P channel c).
  struct StepSend {
    int a = 0, b = 0;
    std::uint64_t mask = 1;
  };
  // `base` with each NVLink and network link capped at the channel rate x the thread blocks that carry the sends
  // crossing it in any one of `steps` (GPUs sending at once): a send runs on its channels' blocks at both ends, and
  // sends of one GPU in one batch of rounds share their blocks (ncclP2pChannelBaseForRound), so a direction carries
  // at most the smaller of its senders' and its receivers' distinct (GPU, channel) pairs.
  View& capped(View& base, int per_op, const std::vector<std::vector<StepSend>>& steps, CapKey key);
  const Facts& facts(const Graph& g, const std::vector<int>& gpus);

  const topology::Topology& topo_;
  const Tables& tab_;
  ParamSet params_;
  std::vector<int> relay_gpus_;
  bool ll_in_release_;
  bool ll_per_peer_;
  bool sendrecv_max_peers_;
  P2pNetChannelRule net_rule_;
  P2pSplitRule split_rule_;
  bool gbx_net_chunk_doubled_;
  bool has_nvlink_; // the drawing has an NVLink link: P2P channel caps apply (capped)
  bool has_duplex_; // a port held to a both-ways budget (Link::duplex) and no link formula: capped applies it
  std::vector<int> placed_; // the placement views_ and facts_ were made for
  std::vector<std::unique_ptr<View>> views_;
  std::unique_ptr<Facts> facts_;
  std::vector<int> ring_for_; // the GPUs ring_ was searched over
  std::unique_ptr<Graph> ring_;
};

} // namespace ccsim::model::nccl
