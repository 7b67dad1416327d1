// What NCCL's topology search would settle on (its "graph"), derived from ccsim's topology and the
// placement's rings: channel count and per-channel speed, intra-node path class, nodes, GPU generation.
#pragma once
#include <string>
#include <vector>

#include "sim/model/nccl/tables.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::model::nccl {

struct Graph {
  std::vector<std::vector<int>> rings; // GPU orders of the search channels' rings
  std::vector<int> host_of_gpu;        // host index of every GPU of the topology
  int channels = 1;                    // search channels
  double bw = 0;                       // GB/s per search channel
  double graph_efficiency = 1;         // channels*bw / what the links carry in NCCL units (speed quantisation)
  Path path = Path::NvLink;            // intra-node path class (NvLink or Pci)
  int nodes = 1;
  Arch arch = Arch::Volta;
  bool amd_cpu = false;
  bool ll128 = false;
  // NCCL's NVLS graph (search.cc, pattern NVLS): one search channel per GPU (up to the NVLS arity) at
  // speed bw_intra on every GPU's switch links, the channel's head GPU carrying twice that; bw_inter
  // raised afterwards to just under 2x bw_intra. channels 0: no NVLS here, for the reason in why_not.
  struct Nvls {
    int channels = 0;
    double bw_intra = 0, bw_inter = 0;
    double switch_GBps = 0;    // a GPU's NVLink bandwidth into the switches, NCCL's units
    std::vector<int> switches; // NVSwitch nodes every GPU of the placement links to
    std::vector<int> weights;  // NVLink lanes from a GPU to each switch (the share of the data it carries)
    std::string why_not;
    bool tree = false; // several nodes: NCCL's NVLS-tree graph (speeds searched with the NIC in the path)
  } nvls;
  std::string describe() const; // one line: channels, speed, path, nodes, arch, LL128
};

// arch_override "" = from the NVLink generation (Volta when there is no NVLink).
Graph make_graph(const topology::Topology& t, const Tables& tab, const std::vector<std::vector<int>>& placements,
                 const std::string& arch_override);

} // namespace ccsim::model::nccl
