// --model nccl as a plan builder: NCCL's algorithm/protocol/channel choice for each size (tuning.hpp),
// turned into per-channel schedules with per-hop alphas and per-protocol link speeds, replayed by the
// same engine as every other model, so the topology's routes, shared links and contention still shape
// the answer and --timeline/--links see the channels:
//   * per protocol, every link's bandwidth becomes NCCL's effective per-lane bandwidth times the
//     protocol's efficiency relative to Simple (and the search's speed quantisation), and per-message
//     latency becomes NCCL's per-hop latency for the path, the base latency charged once;
//   * the data is split over the CUDA channels NCCL would use at this size, each on a searched ring;
//   * each channel's share is cut into NCCL loops of nranks x chunk that run as separate jobs on the
//     same links, pipelining the way NCCL's FIFO slots let them.
// Tree allreduce: per channel a chain inside each host and a binary tree across hosts, pipelined in
// chunks. Ops with neither schedule stay NCCL's closed form (Choice::simulated false).
// Uncontended and on uniform rings this reproduces NCCL's closed form lat + bytes/algbw exactly.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/collnet.hpp"
#include "sim/model/nccl/graph.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/p2p_level.hpp"
#include "sim/model/nccl/proto_list.hpp"
#include "sim/model/nccl/rings_v24.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/model/params.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::model::nccl {

class P2pPlanner; // p2p_plan.hpp: alltoall on NCCL's P2P channels

// auto: NCCL's own pick; ring/tree/nvls: only that algorithm (as NCCL_ALGO); fastest: replay NCCL's best ring
// and best tree and keep the faster (NCCL's verdict across nodes rests on search speeds ccsim does not
// reproduce, and versions differ).
enum class AlgoMode { Auto, Ring, Tree, Nvls, Fastest, CollNetDirect, CollNetChain };
AlgoMode algo_mode_from(const std::string& s); // throws Error naming --nccl-algo
// --nvls: auto (NCCL's default: a candidate where the machine has it), on (refused where it has not),
// off (NCCL_NVLS_ENABLE=0).
enum class NvlsMode { Auto, On, Off };
NvlsMode nvls_mode_from(const std::string& s, const char* flag = "--nvls"); // throws Error naming the flag
// --collnet takes the same three values (auto: where the fabric has SHARP; off: NCCL_COLLNET_ENABLE=0).
// --msccl (RCCL only): auto runs MSCCL's algorithms where RCCL ships one for the size (models/rccl.json, rccl.hpp
// direct_allreduce); off is RCCL without MSCCL, RCCL_MSCCL_ENABLE=0 or a build without its kernels (ROCm/rccl 0cbce2a
// install.sh --disable-msccl-kernel, also implied by --fast: CMake ENABLE_MSCCL_KERNEL=OFF, so msccl_lifecycle.cc
// mscclEnabled() is false): RCCL's own tuner then picks every size.
enum class MscclMode { Auto, Off };
MscclMode msccl_mode_from(const std::string& s); // throws Error naming --msccl

struct Options {
  std::string tables;       // "" = models/nccl.json
  std::string gpu_arch;     // "" = from the NVLink generation
  AlgoMode mode = AlgoMode::Auto;
  NvlsMode nvls = NvlsMode::Auto;
  NvlsMode collnet = NvlsMode::Auto; // CollNet (SHARP in the fabric)
  MscclMode msccl = MscclMode::Auto; // RCCL's MSCCL algorithms
  ParamSet params;          // fitted corrections (launch, step, link and protocol efficiency)
  int gpus_per_thread = 1;  // nccl-tests -g: scales the per-GPU launch overhead
  std::vector<int> relay_gpus; // only these GPUs relay routes; empty = any
  int channels = 0;            // ring/tree CUDA channels as NCCL's log reports them (0 = from the graph)
  // NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS (or NCCL_MIN_CTAS / NCCL_MAX_CTAS) a run states, 0 = not stated: bounds on
  // NCCL's own ring/tree count where `channels` is 0 (Builder::coll_channels).
  int min_channels = 0, max_channels = 0;
  // NCCL_MIN_CTAS / NCCL_MAX_CTAS alone (0 = not stated): they bound NVLS's CUDA channels as well (Graph::Nvls).
  int min_ctas = 0, max_ctas = 0;
  int nvls_channels = 0;       // NVLS / NVLS-tree CUDA channels as NCCL's log reports them (0 = NCCL's own)
  std::optional<long long> nvls_nchannels; // NCCL_NVLS_NCHANNELS as a run states it (read by release: nccl_version.hpp)
  ProtoSet protos;             // NCCL_PROTO: the protocols its tuner may pick (--nccl-proto; default all)
  std::string nccl_version;    // NCCL release predicted ("2.4.8"): what it enables by default (nccl_version.hpp); "" = the tables'
  // NCCL_NVLS_CHUNKSIZE / NCCL_NVLSTREE_MAX_CHUNKSIZE a run states, in bytes (0 = NCCL's): the NVLS-tree chunk.
  long long nvls_chunk_bytes = 0, nvls_tree_max_chunk_bytes = 0;
};

// The launch kind (sim/model/launch_kind.hpp) whose terms the nccl model applies on topology `t` with one thread
// driving `gpus_per_thread` GPUs under release `nccl_version` ("" = not known): HIP on AMD GPUs, and CUDA -g N
// pipelining its launches where the release says so (from 2.13.4: nccl_version.hpp pipelined_launch_in_release).
std::string launch_kind_for(const topology::Topology& t, int gpus_per_thread, const std::string& nccl_version);

// The data one ring channel's thread block moves across the network, in GB/s, on GPUs of `arch` under protocol
// `proto`; 0 where ccsim caps nothing (before Hopper, whose block rate no run held gives). A ring channel is one
// thread block (NVIDIA/nccl src/enqueue.cc: one block per channel, NCCL_MAX_NTHREADS), the block P2P's
// kP2pWriteBlockGBps measures (p2p_plan.hpp: 20.05 GB/s on sm90 and newer); LL lines carry half their bytes as
// data (kLLDataPerLineByte), LL128's 120 of 128. Builder::ring_view caps each network link of a multi-node ring at
// this rate x the ring's channels crossing it (models/README.md "A ring channel across the network").
double ring_block_net_GBps(Arch arch, Proto proto);

// NCCL's tree for one channel over the GPUs of a search ring (positions in `ring`; -1 = root): a chain
// inside each host headed by the GPU the ring leaves the host from (the one at the NIC), a binary tree of
// the heads across hosts (`tree` 0, or 1 = its mirror).
std::vector<int> tree_parents(const std::vector<int>& ring, const std::vector<int>& host_of_gpu, int tree);

class Builder final : public metrics::PlanBuilder {
 public:
  Builder(const topology::Topology& t, Options o);
  // The builder keeps a reference to the drawing: a temporary would dangle (ASan found one in a test).
  Builder(topology::Topology&&, Options) = delete;
  ~Builder() override;
  std::vector<engine::RunPlan> plans(const metrics::RunConfig& cfg, metrics::SizePlan size) override;
  std::string describe(const metrics::RunConfig& cfg) override {
    const std::string g = graph(cfg).describe();
    return g + (release_rings_ ? ", " + nccl::describe(*release_rings_) : "") + describe_collnet(collnet_) +
           (opt_.protos.restricted() ? ", NCCL_PROTO=" + opt_.protos.stated + " (" + opt_.protos.allowed_names() + ")" : "") +
           p2p_note(cfg) + what_if_note(cfg);
  }
  const Graph& graph(const metrics::RunConfig& cfg);

 private:
  struct View;
  View& view(Algo algo, Proto proto, const metrics::RunConfig& cfg);
  // The ring view of `proto` with every network link capped at the blocks of the `channels` CUDA channels whose
  // rings cross it (ring_block_net_GBps); the plain view on one node, for RCCL, or where no block rate applies.
  View& ring_view(Proto proto, const metrics::RunConfig& cfg, int channels);
  // Per search ring of graph(cfg): its own routes where it leaves or enters a host through one of several
  // equally near NICs (NCCL's channel-to-NIC spread), else nullptr (the drawn routes).
  const std::vector<topology::Router*>& ring_routers(const metrics::RunConfig& cfg);
  // channels > 0: the CUDA channels the release runs (release_pick), in place of channels_used's.
  engine::RunPlan plan_for(const Candidate& c, const metrics::RunConfig& cfg, metrics::SizePlan size, int channels = 0);
  const Candidate* release_pick(const std::vector<Candidate>& cands, const metrics::RunConfig& cfg, metrics::SizePlan size,
                                std::optional<Algo> only, int& channels);
  // plan with the fabric's extra network hop latency (net_kinds hop_us) over NCCL's, once per network hop of c.
  engine::RunPlan with_fabric_hops(engine::RunPlan plan, const Candidate& c, const metrics::RunConfig& cfg, Bytes nbytes,
                                   int ranks) const;
  std::optional<engine::RunPlan> one_rank_copy(const metrics::RunConfig& cfg, metrics::SizePlan size);
  enum class InPlaceWork { Copy, Launch, Nothing }; // a one-rank call's work: the copy, an empty kernel, none
  InPlaceWork in_place_work(const metrics::RunConfig& cfg) const;
  std::optional<engine::RunPlan> rccl_direct(const metrics::RunConfig& cfg, metrics::SizePlan size);
  engine::RunPlan ring_plan(engine::RunPlan p, Proto proto, const metrics::RunConfig& cfg, metrics::SizePlan size);
  engine::RunPlan nvls_plan(engine::RunPlan p, const Candidate& c, const metrics::RunConfig& cfg, metrics::SizePlan size);
  engine::RunPlan tree_plan(engine::RunPlan p, Proto proto, const metrics::RunConfig& cfg, metrics::SizePlan size);
  // The launch time added to the GPU time (0 where the launches overlap it: launch_overlap.hpp), and the
  // host's serial issue time per iteration that overlaps it instead (0 where it adds).
  Time launch() const;
  Time host_issue() const;
  std::vector<engine::RunPlan> plans_of(const metrics::RunConfig& cfg, metrics::SizePlan size);
  topology::Router& drawn_router();
  bool network_is_infiniband();
  // The P2P level NCCL applies per GPU pair here (p2p_level.hpp): the user's, else NCCL's default; none for
  // RCCL without the user's (RCCL's own default is not modelled: the drawing's transports stand).
  std::optional<P2pLevel> p2p_level_of(const metrics::RunConfig& cfg);
  // ", P2P level PXB (NCCL's default): SHM gpu3->gpu4, ..." where a ring hop runs SHM or the user set a level.
  std::string p2p_note(const metrics::RunConfig& cfg);
  // ", algorithm forced: ring (--nccl-algo ring, as NCCL_ALGO=Ring)", ", NVLS off (...)", ", MSCCL off (...)": the
  // settings that turned NCCL's own pick away from what the graph above offers, so a what-if names itself.
  std::string what_if_note(const metrics::RunConfig& cfg);
  bool simple_only_net(Arch arch);
  double reported_net_latency(Arch arch); // reported_net_latency_us, looked up once per architecture
  int rccl_nics_per_node(const metrics::RunConfig& cfg); // NICs on the host of the first placed GPU, counted once
  // The ring/tree channel count to start from as a log reports it: the trace's logged count, else RCCL's own
  // default on one node or across nodes where rccl.json has one for this generation and GPUs per node; 0: the search's.
  // NCCL_MIN/MAX_NCHANNELS stated: that count (the search's where it is 0) bounded by them.
  int coll_channels(const metrics::RunConfig& cfg);
  int own_coll_channels(const metrics::RunConfig& cfg);

  const topology::Topology& topo_;
  const Tables& tab_;
  Options opt_;
  bool launch_overlaps_ = false; // this machine's launch kind overlaps (launch_overlap.hpp)
  double one_rank_launch_us_ = 0; // a one-rank call's launch (the constructor says why it is the -g N term)
  // How many times a ring block copies the bytes it receives over network link l: 2 on a kind whose plugin
  // has NCCL unpack them on the GPU (Tables::NetKind::device_unpack, from NCCL 2.19.3), else 1.
  double recv_passes(const topology::Link& l) const;
  std::optional<NcclVersion> release_; // --nccl-version, parsed once (empty: the tables' own release)
  double memory_GBps_ = 0;             // the GPU's data-sheet memory figure (gpu_memory_GBps), 0 when unknown
  std::vector<std::vector<int>> graph_for_; // the placements graph_ was made for
  Graph graph_;
  Tables::FabricHops fabric_hops_; // the network links' hop figures for graph_'s GPUs (with_fabric_hops), made with graph_
  CollNetGraph collnet_; // made with graph_ when the fabric has SHARP
  std::optional<ReleaseRings> release_rings_; // NCCL 2.4's own rings on one node (rings_v24.hpp), made with graph_
  std::vector<std::unique_ptr<View>> views_;
  std::unique_ptr<topology::Router> router_;               // every view's routes (drawn_router)
  // ring_routers' answer for graph_ (made with it, cleared with views_): per ring a router (the drawn topology with the
  // ring's own route overrides) or nullptr.
  std::optional<std::vector<topology::Router*>> ring_routers_;
  std::optional<bool> infiniband_;             // network_is_infiniband's answer
  std::vector<std::unique_ptr<topology::Router>> ring_router_store_;
  std::optional<std::pair<Arch, bool>> simple_only_;        // simple_only_net's answer for one architecture
  std::optional<std::pair<Arch, double>> reported_latency_; // reported_net_latency's answer for one architecture
  std::unique_ptr<P2pPlanner> p2p_; // made on the first alltoall
  std::string rccl_sm_;                      // the AMD GPU's generation (gfx942, ...); "" elsewhere
  std::optional<int> rccl_nics_per_node_;    // rccl_nics_per_node's answer
  std::optional<topology::Topology> p2p_topo_; // what p2p_ sees under the user's level (per GPU port)
};

} // namespace ccsim::model::nccl
