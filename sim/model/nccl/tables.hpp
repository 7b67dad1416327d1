// NCCL's tuning constants (models/nccl.json, each with its source in NCCL's code), parsed once into
// typed tables: enums index them, so nothing is looked up by string while predicting.
#pragma once
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/topology/topology.hpp"

namespace ccsim::model::nccl {

// Nvls: NVLink SHARP, reduction and multicast in the NVSwitch; NvlsTree: NVLS inside each node and a tree
// across nodes over the NICs (NCCL_ALGO_NVLS_TREE, allreduce on several nodes). Direct: RCCL's MSCCL
// all-pairs allreduce (every GPU exchanges its share with every peer over its own link; sim/model/nccl/rccl.hpp).
// CollNetDirect/CollNetChain: in-network reduction across nodes (InfiniBand SHARP; sim/model/nccl/collnet.hpp).
enum class Algo { Ring, Tree, Nvls, NvlsTree, Direct, CollNetDirect, CollNetChain };
enum class Proto { LL, LL128, Simple };
enum class Path { NvLink, Pci, Net }; // NCCL's hwLatencies rows: intra-node NVLink, intra-node PCI, network
enum class Arch { Pascal, Volta, Ampere, Hopper, Blackwell };
inline constexpr std::array kProtos{Proto::LL, Proto::LL128, Proto::Simple};
inline constexpr int kArchs = 5;

std::string_view name(Algo a);
std::string_view name(Proto p);
std::string_view name(Path p);
std::string_view name(Arch a);
std::optional<Arch> arch_from(std::string_view s);
// --gpu-arch's value as an architecture; an unknown name is one line naming the flag.
Arch arch_flag(std::string_view s);
std::optional<Algo> algo_from(std::string_view s);

template <typename T>
using PerProto = std::array<T, 3>;
template <typename T>
using PerAlgo = std::array<T, 2>;
// A cap per node-count column (1 node, 2 nodes, 3 or more), per architecture row.
using Caps = std::array<std::array<double, 3>, kArchs>;

struct Tables {
  std::string path, name;
  PerAlgo<PerProto<double>> base_latency_us{};
  std::array<PerAlgo<PerProto<double>>, 3> hw_latency_us{}; // [Path][Algo][Proto]
  double net_overhead_intel_us = 0, net_overhead_amd_us = 0, net_overhead_simple_factor = 1;
  double plateau_pre_ampere = 1, plateau_ampere_plus = 1, plateau_min_bytes_per_channel_rank = 0;
  double eff_ring_ll = 0, eff_ring_ll128 = 0, eff_tree = 0, tree_ll_divisor = 1, tree_ll128_one_node = 0,
         tree_ll128_multi_node = 0;
  Caps ll_max{}, per_ch_ring_ll128{}, per_ch_tree_ll128{}, per_ch_tree{};
  // perChMaxRingLL128Bws as an older release's tuner holds it, for NCCL's choice only (caps_GBps
  // per_ch_ring_ll128_tuner_by_release): releases [from, until) and their row per architecture.
  struct RingLl128CapRule {
    std::array<int, 3> from{}, until{};
    Caps caps{};
  };
  std::vector<RingLl128CapRule> ring_ll128_tuner_by_release;
  PerProto<std::vector<double>> tree_correction; // by log2(bytes / 64)
  std::map<topology::LinkType, double> link_lane_GBps; // absent = the link's own bandwidth
  std::array<std::optional<Arch>, 5> arch_of_nvlink{};      // by NVLink generation 1..5
  std::map<std::string, Arch> arch_of_nccl_arch;           // GPU families outside NCCL's rows (AMD CDNA) -> row used
  Arch ll128_min_arch = Arch::Volta;
  // LL128's default enable by NCCL release (models/nccl.json ll128_by_version, nccl_version.hpp): the rule
  // of a release is the last whose `from` is not above it; none before the first. Empty: LL128 by arch only.
  struct Ll128Rule {
    std::array<int, 3> from{}; // major, minor, patch
    std::vector<int> sms;      // compute capabilities the release enables it for
    bool any_sm = false;       // every GPU of compute capability >= 7.0
  };
  std::vector<Ll128Rule> ll128_by_version;
  // NCCL before its tuning model (models/nccl.json threshold_choice_by_version, threshold_choice.hpp): LL up
  // to a size worked from threads and channels, the tree up to a latency/bandwidth crossover; releases [from, until).
  struct ThresholdRule {
    std::array<int, 3> from{}, until{};
    int ll_min_threads = 64, ll_max_threads = 256, ll_channel_threshold = 8;
    int thread_threshold = 64, thread_threshold_pre_volta = 32, multi_node_factor = 2, tree_ll_factor = 4;
    int max_channels = 16;
    double ring_bw_per_channel = 5000, ring_lat_us = 6, tree_lat_inter_us = 15, tree_lat_intra_us = 4;
    double tree_bw_nvlink = 0.75, tree_bw_pci = 2.0 / 3.0, two_node_factor = 2;
    // The release's own ring search on one node (rings_v24.hpp; "ring_search"): each ring run ring_dup times
    // (0: not modelled, the graph's channels), direct-NVLink search up to ring_search_max_ranks GPUs, the
    // lanes-counted-twice retry up to oversubscribe_max_ranks.
    int ring_dup = 0, ring_search_max_ranks = 8, oversubscribe_max_ranks = 4;
  };
  std::vector<ThresholdRule> threshold_choice_by_version;
  std::array<std::vector<double>, kArchs> speed_intra;
  int max_search_channels = 32, cuda_channels_per_search_channel = 2;
  double dup_min_bw = 0, dup_newer_than_ampere_min_bw = 0;
  int dup_newer_than_ampere_max_channels = 0;
  struct Threads {
    double threads = 0, threshold = 0;
    bool ring_times_nranks = false;
  };
  PerProto<Threads> threads{};
  double chunk_simple = 0, chunk_simple_one_step = 0, chunk_ll = 0, chunk_ll128 = 0;
  int max_loops_simulated = 64;
  // NVLS (tuning.cc nvlsEfficiency, hwLatencies[..][NVLS], search.cc NVLS pattern, transport/nvls.cc).
  // Absent from a tables file: NVLS is never a candidate.
  struct Nvls {
    std::array<double, kArchs> efficiency{}; // 0 = the architecture has no NVLS
    double nvlink_latency_us = 0;            // the whole NVLS latency on one NVLink domain (base latency 0)
    int max_arity = 32;                      // NCCL_MAX_NVLS_ARITY: search channels = min(this, GPUs)
    std::array<int, kArchs> cuda_channels{}; // NVLS_NCHANNELS_SM90 / SM100_NVL (one domain)
    double chunk_bytes = 131072;             // NCCL_NVLS_CHUNKSIZE default
    // enqueue.cc calcCollChunking (NVLS, NCCL >= 2.20): the chunk halves to `bytes` while a channel's
    // share is below `loops` x heads x the chunk so far; the kernel's scatter, reduce/multicast and
    // gather warps are `pipeline_stages` stages, one loop (heads x chunk per channel) apart.
    struct Shrink {
      double loops = 0, bytes = 0;
    };
    std::vector<Shrink> chunk_shrink;
    int pipeline_stages = 1;
    // The per-step handoff of the kernel's Simple primitives (prims_simple.h: wait for the peers' flags,
    // barriers, a system-scope fence, post), charged per loop on the architectures listed here only
    // (tuning.hpp nvls_step_handoff_us). Its size is NCCL's own NVLink Simple step latency (hwLatencies).
    std::array<bool, kArchs> step_handoff{};
    // NVLS-tree (several nodes): hwLatencies NVLINK and NET rows of NVLSTree (base latency 0), the
    // per-channel cap perChMaxNVLSTreeBws, and the search's inter-node speeds (the NVLS graph on several
    // nodes is searched with speedArrayInter).
    double tree_nvlink_latency_us = 0, tree_net_latency_us = 0;
    bool tree_step_handoff = false; // NVLS-tree pays the step handoff (tuning.hpp nvls_tree_step_handoff_us) on every GPU
    Caps per_ch_tree{};
    // NVLS-tree's estimate as an older release's tuner computes it (tree.tuner_by_release): releases
    // [from, until). min_bandwidth: per channel min(bwIntra, bwInter, halved beyond 2 nodes) and algbw
    // = busBw x 5/6 (to 2.27), else the formula above; size_factor: nvls_tree_size_factor applies (2.29.2 on).
    struct TreeTunerRule {
      std::array<int, 3> from{}, until{};
      bool min_bandwidth = false, size_factor = true;
      double nvlink_latency_us = 0, net_latency_us = 0;
    };
    std::vector<TreeTunerRule> tree_tuner_by_release;
    std::array<std::vector<double>, kArchs> speed_inter;
  };
  std::optional<Nvls> nvls;
  // RCCL (ROCm/rccl src/graph/tuning.cc, topo.h, rome_models.cc, tools/msccl-algorithms): present in
  // models/rccl.json only. RCCL replaces NCCL's protocol caps by one bandwidth ratio per (algo, proto),
  // enables LL128 only where its tables say so, and runs MSCCL all-pairs allreduce on 8-GPU meshes.
  struct Rccl {
    std::array<PerAlgo<PerProto<double>>, 2> bw_ratio{}; // [1-2 nodes | more][algo][proto]
    bool ll128 = false;                   // LL128 enabled by default on this GPU family
    bool tree_simple_one_node = true;     // false: gfx94x drops tree/Simple on a single node
    // ringCorrectionFactor[proto][log2i(nBytes >> 6)] of the tuning model: RCCL's ncclTopoGetAlgoTime (HIP branch)
    // scales a ring's bandwidth by it on 2+ nodes, 27 buckets, the last beyond. Empty: no factor.
    PerProto<std::vector<double>> ring_correction_across_nodes;
    double xgmi_lane_fraction = 1;        // effective share of an xGMI link's data-sheet speed
    std::map<std::string, double> xgmi_lane_fraction_by_sm; // per GPU generation (gfx942, gfx950): overrides it
    // Per product (models/gpus.json kind, e.g. mi355x), where AMD publishes its own figure for one product of a
    // generation (the MI355X runs its links faster than the MI350X's bar): overrides the generation's.
    std::map<std::string, double> xgmi_lane_fraction_by_gpu;
    struct Range {
      double min_bytes = 0, max_bytes = 0;
      Proto proto = Proto::Simple;
      int channels = 1;
      int chunks_per_loop = 1;            // MSCCL runs it only when the element count is a multiple
    };
    int direct_ranks = 0;                 // MSCCL all-pairs runs on exactly this many GPUs (0: never)
    std::vector<Range> direct;            // size ranges of the shipped all-pairs algorithms
    double p2p_ll_threshold = 0;          // send/recv of at most this many bytes per peer use LL (0: never)
    // The collective channels RCCL opens by default on one node of a full xGMI mesh (init.cc's `nc`, applied by
    // connect.cc ncclTopoPostset): max(2 x S, min(max / S, nc) x S), at most `max_channels`, where S is RCCL's
    // search (node model) channel count for that many GPUs and nc the generation's multiplier by ranks (2, NCCL's
    // duplication, where none is set or before `from`). The ring/tree channel count before the thread-threshold
    // shrink, as a logged "N coll channels" is. Ranks without a search count keep ccsim's own. Keyed by "sm".
    struct ChannelMultiplier {
      std::array<int, 3> from{};         // the first release with it
      int nc = 2;                        // ranks not listed
      std::map<int, int> nc_by_ranks;    // ranks -> nc
    };
    struct OneNodeChannels {
      int max_channels = 0;              // 0: no rule
      std::map<int, int> search_by_ranks; // ranks -> S
      std::map<std::string, ChannelMultiplier> by_sm;
    } one_node_channels;
    // What one thread block (one channel) of RCCL's ring moves over an xGMI link under Simple on one node, GB/s,
    // by "sm" (0 or absent: no cap): each xGMI link of the ring's view carries at most its blocks x this.
    std::map<std::string, double> ring_block_GBps_by_sm;
    // The same across nodes, `ranks` GPUs per node (64 on gfx950 until RCCL 2.30.4): releases before `until`, and
    // a run whose release is not known.
    struct NodesChannels {
      int gpus_per_node = 0, channels = 0;
      std::array<int, 3> until{};
    };
    std::map<std::string, NodesChannels> multi_node_channels_by_sm;
    // The protocol RCCL forces across nodes, by the size per rank, over what its tuner picked
    // (rccl_wrap.cc rcclUpdateCollectiveProtocol; rccl.hpp rccl_forced_protocol): one rule per span of releases.
    struct ProtoRange {
      double ll_max = 0;                  // LL for sizes per rank in (0, ll_max]
      double ll128_min = 0, ll128_max = 0; // LL128 for sizes per rank in (ll128_min, ll128_max], over LL
    };
    struct ProtoRangeRule {
      std::array<int, 3> from{}, until{}; // releases [from, until)
      int gpus_per_node = 0, nics_per_node = 0; // the node model the ranges come with (rome_models.cc)
      double allreduce_ll128_scale = 1;   // allreduce's ll128_max times this beyond 2 nodes
      struct Arch {
        bool ll128 = false;                       // the node model sets ll128Enabled
        std::map<std::string, ProtoRange> by_op; // allreduce, allgather, reducescatter
      };
      std::map<std::string, Arch> by_sm;  // gfx942, gfx950
    };
    std::vector<ProtoRangeRule> proto_ranges;
  };
  std::optional<Rccl> rccl;
  // GPU kind -> data-sheet memory GB/s (gpu_memory_GBps): the floor on NCCL's ring last primitive (ring_local.hpp)
  // and one-rank copy, and on MSCCL's local copies for RCCL.
  std::map<std::string, double> hbm_GBps_by_gpu;

  // NCCL's bandwidth of the link between two CPU sockets, whatever its lanes (topo.cc ncclTopoGetInterCpuBw):
  // by the socket link's type (qpi Broadwell, upi Skylake, xgmi AMD), upi next to PCIe Gen5 root ports
  // taken as Sapphire Rapids. Absent: the socket link keeps its per-lane figure.
  std::map<topology::LinkType, double> cpu_link_GBps;
  double cpu_link_upi_pcie5_GBps = 0;

  // NCCL's NVLink lane figure by the GPU's compute capability where it differs from the link type's
  // (ncclTopoNVLinkBw: SM86_NVLINK_BW 12 for the GA102 cards' bridges); keyed by the catalogue's "sm".
  std::map<std::string, double> nvlink_lane_GBps_by_sm;

  double lane_GBps(const topology::Link& l) const; // NCCL's effective GB/s of one lane, at most the link's own
  // As above, and a link between two CPUs carries NCCL's socket-link figure (cpu_link_GBps) over its lanes;
  // an NVLink lane of a GPU kind in nvlink_lane_GBps_by_sm carries that figure.
  double lane_GBps(const topology::Topology& t, const topology::Link& l) const;
  // lane_GBps(t, l) of every link, in link order: one pass to find the sockets with a Gen5 root port, not one
  // per socket link (quadratic in the hosts of a large cluster: 25 s at 8,192 nodes).
  std::vector<double> lane_GBps_all(const topology::Topology& t) const;
  // lane_GBps(t, l) with gen5_at(node): is there a Gen5 root port at that CPU?
  template <class Gen5At>
  double lane_GBps(const topology::Topology& t, const topology::Link& l, Gen5At&& gen5_at) const;
  // Does this link carry NCCL's socket-link figure (two CPUs, a type in cpu_link_GBps)?
  bool socket_figure(const topology::Topology& t, const topology::Link& l) const;

  // The network kinds (models/nccl.json net_kinds): what a NIC of the kind delivers to NCCL's transfers
  // relative to an InfiniBand NIC of the same line rate (an InfiniBand NIC already replays at NCCL's search
  // speed, 48 of 50 GB/s, the maintainers' per-NIC figure), and the network hop latency of the fabric's
  // transport where it exceeds NCCL's NET hwLat (EFA's SRD under aws-ofi-nccl). NCCL's search and tuner
  // keep the line rate and their own latencies; only the replay runs at what the fabric delivers.
  // by_arch: where the fabric's transport differs by GPU generation (EFA: aws-ofi-nccl's SENDRECV protocol
  // on the pre-Hopper instance families, which report a larger latency to NCCL and force NCCL_PROTO=simple).
  // The fabric provider's two-sided message protocols by size (libfabric's EFA provider under aws-ofi-nccl's
  // SENDRECV protocol; net_kinds two_sided): how many round trips a message adds to one eager send before its
  // data lands, each charged as one more operation of the kind's hop_us. NCCL's buffers are in GPU memory with
  // GPUDirect RDMA (device) and in host memory without it (host). All zero: not modelled (every message eager).
  struct TwoSided {
    double device_eager_max_bytes = 0.0; // CUDA memory: eager up to one packet, a read (one more operation) above
    double host_medium_max_bytes = 0.0;  // host memory: eager or medium (packets, no handshake) up to this
    double host_read_min_bytes = 0.0;    // host memory: a read from this size (one more operation)
    double cts_window_bytes = 0.0;       // host memory between the two: long-CTS, one more operation per window
    // The round trips a message of `message_bytes` adds on GPU (`device`) or host memory.
    double extra_ops(bool device, double message_bytes) const;
    bool any() const { return device_eager_max_bytes > 0 || host_medium_max_bytes > 0; }
  };
  struct NetTransport {
    double hop_us = 0.0;      // the network hop the replay charges in place of NCCL's NET hwLat (as hop_us)
    bool simple_only = false; // LL/LL128 off: the transport does not deliver 128-byte lines in order
    // What the plugin reports to NCCL (ncclNetProperties latency; 0: not stated): a figure NCCL's tuner weighs
    // (tuning.cc latencyInter), tuned by AWS to steer the choice, not the wire the replay charges.
    double reported_latency_us = 0.0;
    bool gdr = false; // GPUDirect RDMA: the receiver flushes each message (one more EFA operation per hop)
    // Two-sided sends through the provider (a SENDRECV transport): its protocols by message size, each added
    // round trip one more operation of op_us (the kind's hop_us); buffsize_bytes: the NCCL_BUFFSIZE the plugin
    // sets on the instance (0: NCCL's default), which bounds a network message (a Simple slice).
    TwoSided two_sided;
    double op_us = 0.0;
    double buffsize_bytes = 0.0;
  };
  struct NetKind {
    double rate_vs_ib = 1.0;
    double hop_us = 0.0;
    // rdma_eager_max_bytes (> 0): the plugin's write (RDMA) protocol sends a message above this size only once
    // the receiver's control message (its buffer) has crossed the network: one more hop_us per collective.
    // Not for a by_arch or SENDRECV transport (two-sided sends: libfabric's own eager/read protocols, not modelled).
    double rdma_eager_max_bytes = 0.0;
    // device_unpack: the plugin reports NCCL_NET_DEVICE_UNPACK (GPUDirect-TCPX: google/nccl-plugin-gpudirecttcpx
    // src/net_tcpx.cc `props->netDeviceType = DEV_UNPACK`): the NIC lands the payload in a bounce buffer of 4 KiB
    // pages and the receiving ring block copies every byte into NCCL's buffer before its own copy (NVIDIA/nccl
    // src/device/prims_simple.h genericOp, v2.19.3-1 on): the block's bytes cross it twice.
    bool device_unpack = false;
    TwoSided two_sided; // the provider's two-sided protocols, for the SENDRECV transports (by_arch, instances)
    std::map<Arch, NetTransport> by_arch;
    // instances: the net plugin's own table of machines (EFA: aws-ofi-nccl's platform_data_map), in its order,
    // the first match winning: an entry names one instance type, or a pattern (POSIX extended regex, searched
    // as the plugin does). A write (RDMA) entry runs the kind's hop and rendezvous; any other runs its own
    // transport (SENDRECV: the kind's hop per EFA operation, the GDR flush one more, Simple only). A topology naming an
    // instance (Topology::instance) takes its entry in place of by_arch; a name no entry matches is refused.
    struct CompiledPattern; // a std::regex, kept out of this header (tables.cpp)
    struct Instance {
      std::string name;      // the exact instance type, or the entry's label when `pattern` is set
      std::string pattern;   // regex, empty: exact name
      std::shared_ptr<const CompiledPattern> compiled; // `pattern`, compiled once when the table is read
      bool rdma = false;     // default_protocol RDMA (else SENDRECV)
      double latency_us = 0; // what the plugin reports to NCCL (ncclNetProperties latency)
      NetTransport transport; // SENDRECV's: the kind's hop, twice with GDR (the flush), simple_only
    };
    std::vector<Instance> instances;
    // nccl_env: the NCCL environment the fabric's own setup exports for every job (Google's profiles for its
    // TCPX/TCPXO plugins: models/README.md "Google's GPU networks"), which --model nccl runs where the command
    // line or the trace does not state its own. Empty strings / 0: not set by the profile.
    struct Env {
      std::string algo;          // NCCL_ALGO ("Ring", "Ring,Tree")
      std::string proto;         // NCCL_PROTO ("Simple", "Simple,LL128")
      bool nvls_off = false;     // NCCL_NVLS_ENABLE=0
      int channels = 0;          // NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS
      // The profile holds for NCCL releases before this one (major, minor, patch; all 0: to the newest). A fabric
      // whose vendor changed its profile as it moved to a newer NCCL (Google's TCPXO releases) lists one per span.
      std::array<int, 3> until{0, 0, 0};
    };
    std::vector<Env> env; // oldest span first; empty: no profile
  };
  std::map<topology::LinkType, NetKind> net_kinds;
  // The profile of the first network kind of t that sets one, for NCCL release `release` (major, minor, patch; all
  // 0: unknown, the newest profile): the first span whose `until` is above it (nullptr: none, or no network).
  const NetKind::Env* net_env(const topology::Topology& t, std::array<int, 3> release = {0, 0, 0}) const;
  // lane_GBps(t, l) times the link's kind's rate_vs_ib (network links; 1 elsewhere): the replay's figure. A
  // socket link carries NCCL's figure where GPUs copy through host memory (host_staging: see
  // stages_through_host); GPU peer-to-peer copies across AMD's xGMI socket link run at the link as drawn.
  double replay_lane_GBps(const topology::Topology& t, const topology::Link& l, bool host_staging = true) const;
  // The network hop latency of link l for GPUs of `arch`: NCCL's `nccl_hop_us`, or the kind's hop_us where
  // larger, a by_arch or instance transport's hop replacing the kind's (0 off the network).
  // `instance`: the topology's instance type (Topology::instance), empty: by the GPU generation.
  double net_hop_of(const topology::Link& l, double nccl_hop_us, Arch arch, const std::string& instance = {}) const;
  // The transport a network link of kind `type` runs for GPUs of `arch` on `instance` (empty: none named): the
  // instance's entry where the kind has a table (nullptr for a write/RDMA entry: the kind's own), else the
  // by_arch entry, else nullptr. An instance the table does not hold fails with one line naming it.
  const NetTransport* transport_of(topology::LinkType type, Arch arch, const std::string& instance) const;
  // The instance's table entry (nullptr: the kind has no table or none was named); fails on an unknown name.
  const NetKind::Instance* instance_of(topology::LinkType type, const std::string& instance) const;
  // The rendezvous wait of a fabric's write protocol (net_kinds rdma_eager_max_bytes): the kind's hop_us when a
  // network link of `t` is of such a kind, GPUs of `arch` run that protocol (no by_arch transport) and the
  // largest message a connection sends, `message_bytes`, is above the eager limit; else 0.
  double rendezvous_us(const topology::Topology& t, Arch arch, double message_bytes) const;
  // FabricHops::two_sided_us for the network links of `t` and GPUs of `arch` (the topology's instance, if named).
  double two_sided_us(const topology::Topology& t, Arch arch, double share_bytes, int slice_steps) const;
  // A machine's network links walked once for GPUs of `arch` (the Builder keeps it with its graph, so a plan
  // does not walk every link again): net_hop_of's largest kind figure, and rendezvous_us's kinds.
  struct FabricHops {
    double hop_us = -std::numeric_limits<double>::infinity(); // the largest hop_us of a known network kind
    std::vector<std::pair<double, double>> rendezvous;        // (rdma_eager_max_bytes, hop_us) per such kind
    std::vector<NetTransport> two_sided;                      // the SENDRECV transports with a protocol table
    // max over the links of net_hop_of(l, nccl_hop_us, arch) - nccl_hop_us, and 0.
    double extra_us(double nccl_hop_us) const { return hop_us > nccl_hop_us ? hop_us - nccl_hop_us : 0.0; }
    double rendezvous_us(double message_bytes) const;
    // The provider's added round trips per network hop, in us, for a connection whose share of the buffer is
    // `share_bytes` (on the wire): its messages are that share up to one Simple slice of `slice_steps` steps of
    // the transport's NCCL_BUFFSIZE / NCCL_STEPS (ring 2, tree 1: NCCL's net proxy sends a slice at once).
    double two_sided_us(double share_bytes, int slice_steps) const;
  };
  FabricHops fabric_hops(const topology::Topology& t, Arch arch) const;
  // Does a network link of `t` run a transport that forces NCCL_PROTO=simple on GPUs of `arch`?
  bool simple_only(const topology::Topology& t, Arch arch) const;
};

// Whether any GPU port of the machine copies through host memory (topology::Link::host_staged: NCCL's SHM).
bool stages_through_host(const topology::Topology& t);
std::string default_tables_path(); // <data_dir>/models/nccl.json
std::string default_rccl_tables_path(); // <data_dir>/models/rccl.json: RCCL's tables, the default on AMD GPUs
// Parsed once per path and kept for the process; throws Error naming the file and the entry.
const Tables& load_tables(const std::string& path = "");
// Reads the file every time (no cache): for tests and the fuzz harness.
Tables parse_tables(const std::string& path);

} // namespace ccsim::model::nccl
