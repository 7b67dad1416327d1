// What NCCL's topology search would settle on (its "graph"), derived from ccsim's topology and the
// placement's rings: channel count and per-channel speed, intra-node path class, nodes, GPU generation.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sim/model/nccl/tables.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::topology {
class Router;
}

namespace ccsim::model::nccl {

struct Graph {
  std::vector<std::vector<int>> rings; // GPU orders of the search channels' rings
  std::vector<int> host_of_gpu;        // host index of every GPU of the topology
  int channels = 1;                    // search channels
  double bw = 0;                       // GB/s per search channel
  double graph_efficiency = 1;         // channels*bw / what the links carry in NCCL units (speed quantisation)
  // GB/s per search channel that NCCL's tuning gives the tree: bw, except on 2 nodes (NCCL's tree graph's
  // bwIntra, raised towards 2x bwInter: the one inter-node hop carries the tree's data both ways at once).
  double tree_bw = 0;
  // Search channels of NCCL's tree graph where ccsim searches it on its own (PCIe-only hosts across nodes:
  // graph.cpp pcie_hosts_ring); 0: the ring graph's `channels`. The tree's figure is tree_channels_of x tree_bw.
  int tree_channels = 0;
  Path path = Path::NvLink;            // intra-node path class (NvLink or Pci)
  int nodes = 1;
  Arch arch = Arch::Volta;
  // The GPU kind's own generation where NCCL's tables have no row of that name ("cdna3", on the row
  // models/nccl.json arch_of_nccl_arch maps it to); "" otherwise. Said in describe(), with xGMI as NVL.
  std::string kind_arch;
  bool amd_gpu = false;
  bool amd_cpu = false;
  bool arm_cpu = false; // Grace hosts (GB200, GB300): NCCL's x86-only corrections do not apply
  // Across nodes on PCIe hosts (graph.cpp pcie_hosts_ring): NCCL's search kept every channel on one GPU order,
  // skipping its sameChannels = 0 pass, because the host's CPUs are x86 AMD and the graph's typeIntra is SYS
  // (search.cc ncclTopoCompute, NCCL 2.19.1 on and RCCL). Said in describe().
  bool same_channels_only = false;
  bool ll128 = false;
  // Across nodes: NCCL's typeInter, the GPU-NIC path class of the graph (p2p.hpp type_inter), and why LL128 is
  // off when that class is farther than the release allows ("" when it is not, or LL128 was off anyway).
  std::optional<topology::PathClass> type_inter;
  std::string ll128_off;
  // NICs of a host NCCL's ring search leaves without a channel, said in describe() ("" when every NIC has one).
  std::string idle_nics;
  // NCCL's NVLS graph (search.cc, pattern NVLS): one search channel per GPU (up to the NVLS arity) at
  // speed bw_intra on every GPU's switch links, the channel's head GPU carrying twice that; bw_inter
  // raised afterwards to just under 2x bw_intra. channels 0: no NVLS here, for the reason in why_not.
  struct Nvls {
    int channels = 0;
    double bw_intra = 0, bw_inter = 0;
    double switch_GBps = 0;    // a GPU's NVLink bandwidth into the switches, NCCL's units
    double nic_GBps = 0;       // NVLS-tree: the slowest head's path to the network, NCCL's units
    int ppn = 0;               // NVLS-tree: GPUs of the placement per node
    std::vector<int> switches; // NVSwitch nodes every GPU of the placement links to
    std::vector<int> weights;  // NVLink lanes from a GPU to each switch (the share of the data it carries)
    std::string why_not;
    bool tree = false; // several nodes: NCCL's NVLS-tree graph (speeds searched with the NIC in the path)
    // NVLS-tree: what NCCL's NVLS search finds on one node's NVLink domain alone (channels, bw_intra), the
    // switch stage's own speed where the tree's bw_intra comes from the NIC speed array (tuning.cpp).
    int domain_channels = 0;
    double domain_bw = 0;
    // Blackwell across nodes: NVLS-tree's channels and chunk from ncclNvlsTreeSm100Tuning (NCCL 2.30.3 on);
    // false for an older release, which runs NVLS_NCHANNELS_SM100 = 32 and the tree's max chunk 128 KiB
    // (64 KiB from 4 nodes) on every GPU (builder.cpp sets it from the predicted release).
    bool sm100_tree_tuning = true;
    // NVLS on one NVLink domain: the release's CUDA channels (nccl_version.hpp nvls_domain_channels_in_release,
    // set by the builder); 0: the table's (NVLS_NCHANNELS_SM90 16, NVLS_NCHANNELS_SM100_NVL 24).
    int domain_cuda_channels = 0;
    // NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE as a run states them (Options, from a log's "set by
    // environment"), in bytes; 0: NCCL's own (tuning.cpp nvls_tree_chunk_bytes). Read by the NVLS-tree chunk only.
    double chunk_bytes = 0, tree_max_chunk_bytes = 0;
    // NCCL_MIN_CTAS / NCCL_MAX_CTAS as a run states them, capped at the release's MAXCHANNELS (0: not stated, NCCL's
    // defaults 1 and MAXCHANNELS, which bound nothing): NCCL's nvlsChannels is max(minCTAs, min(maxCTAs, its own
    // count)) (tuning.cpp nvls_cuda_channels). logged_cuda_channels: a log's "N nvls channels", that count itself.
    int min_ctas = 0, max_ctas = 0, logged_cuda_channels = 0;
    // NCCL_NVLS_NCHANNELS where the release takes it in place of its own count (nccl_version.hpp
    // nvls_nchannels_in_release), before the CTAs bound; 0: not stated, or left to NCCL's own.
    int user_cuda_channels = 0;
  } nvls;
  std::string describe() const; // one line: channels, speed, path, nodes, arch, LL128
  int tree_channels_of() const { return tree_channels > 0 ? tree_channels : channels; }
};

// A GPU that carries NICs to the network for NCCL's NVLS-tree and CollNet graphs (a "head"), with what NCCL
// sees from it to the network: min(its NICs' ports summed (NCCL_IB_MERGE_NICS merges a card's ports), the
// slowest link of its path to them at NCCL's lane speeds).
struct NicHead {
  int gpu = -1;
  double GBps = 0;
};
// Every NIC on the host of gpus.front() goes to the GPU of `gpus` on that host nearest to it (fewest links);
// between equally near GPUs to one without a NIC yet, else to the first in `gpus` (graph.cpp: NCCL's rule).
// Heads in GPU order; `nics` (when given) gets each NIC that found a head, `nic_GBps` what NCCL sees through
// each of them (min(its ports, the path from its head)).
std::vector<NicHead> nic_heads(const topology::Topology& t, const Tables& tab, topology::Router& router,
                               const std::vector<int>& gpus, std::vector<int>* nics = nullptr,
                               std::vector<double>* nic_GBps = nullptr);

// NCCL's ring graph across nodes whose GPUs meet on NVSwitches (graph.cpp: search.cc's ring pattern with a
// network): search channels and GB/s per channel, from a GPU's NVSwitch bandwidth and the NICs of one host
// (NCCL's units). channels 0: no NICs, no switch bandwidth, or no NVLS tables (the speed arrays).
struct InterRing {
  int channels = 0;
  double bw = 0;
};
InterRing inter_ring_search(const Tables& tab, Arch arch, double switch_total, const std::vector<double>& nics);
// Where that search starts: the index in speedArrayInter of the first speed the fastest NIC path (`max_nic_GBps`)
// carries, the last speed when none is (search.cc ncclTopoCompute: system->maxBw).
std::size_t first_inter_speed(const std::vector<double>& speeds, double max_nic_GBps);

// The GPUs of the graph's first ring on that ring's first host, in ring order: the host NCCL's per-node search sees.
std::vector<int> first_host_gpus(const Graph& g);

// arch_override "" = from the NVLink generation (Volta when there is no NVLink). amd_sys_same_channels: the
// release skips the search's sameChannels = 0 pass on x86 AMD hosts where typeIntra is SYS (NCCL 2.19.1 on,
// nccl_version.hpp amd_sys_same_channels_in_release; false for an older release).
Graph make_graph(const topology::Topology& t, const Tables& tab, const std::vector<std::vector<int>>& placements,
                 const std::string& arch_override, bool amd_sys_same_channels = true);

} // namespace ccsim::model::nccl
