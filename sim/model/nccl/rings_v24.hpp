// NCCL 2.4's own ring construction on one node (before src/graph/search.cc arrived in 2.5), read at
// NVIDIA/nccl v2.4.8-1 src/transport/p2p.cc (p2pGetRings, p2pComputeRingsNvLink), src/include/nvlink.h
// (getNvlinkGpu) and src/misc/rings.cc (ncclGetRings); v2.3.x's p2p.cu/rings.cu build one node's rings
// the same way. What it decides is comm->nChannels, which 2.4's LL threshold (threshold_choice.hpp)
// multiplies by, and the rings the channels run on:
//   * every GPU with NVLinks into NVSwitches: min(16, its switch NVLinks) rings, all in rank order,
//     each run twice ("And duplicate them");
//   * direct NVLinks (at most 8 GPUs): as many rings as fit when each ring takes one NVLink lane of every
//     hop it makes in its direction (an exhaustive search, at most MAXCHANNELS 16); with <= 4 GPUs it
//     searches again counting every lane twice and keeps that only if it finds more than twice as many;
//     then every ring runs twice ("Duplicate the rings for direct NVLink"), at most 16 channels;
//     no ring at all: "falling back on simple ring", one ring in rank order, one channel;
//   * no NVLink (PCIe, through host memory): one ring, not duplicated.
// NCCL_MIN_NRINGS defaults to 1 (4 on IBM Power, 2 on Kepler), NCCL_MAX_NRINGS to none: neither adds channels here.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sim/model/nccl/tables.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::model::nccl {

struct ReleaseRings {
  enum class Kind { NvSwitch, NvLink, NoRing, Pci } kind = Kind::Pci;
  int rings = 0;    // rings the search found (NoRing: 0, Pci: 1)
  int channels = 1; // comm->nChannels: the rings after duplication
  bool oversubscribed = false;          // <= 4 GPUs: the second search, every lane counted twice, was kept
  bool search_complete = true;          // false: ccsim's search stopped at its budget, `rings` is a lower bound
  std::vector<std::vector<int>> orders; // ranks of each ring found (NvLink, NvSwitch); empty otherwise
};

// Most directed rings through all ranks 0..n-1 that fit in `lanes` (lanes[i][j]: lanes from i to j, each
// ring taking one lane of every hop), at most `limit`; `orders` (when given) gets one packing of that size,
// each ring starting at rank 0. Exhaustive as NCCL 2.4's recursion, so the count is NCCL's (the orders may
// be another packing of the same size), unless the search meets its budget first: `complete` false, the
// count the most found by then.
int max_ring_packing(const std::vector<std::vector<int>>& lanes, int limit, std::vector<std::vector<int>>* orders = nullptr,
                     bool* complete = nullptr);

// The release's rings for ranks whose NVLink lanes to each other are `lanes` (symmetric) and whose lanes
// into NVSwitches are `switch_lanes`. nullopt: a case 2.4 refuses or ccsim does not model (more than 8
// GPUs on direct NVLink, switch lanes on some GPUs only, a rule without ring_search).
std::optional<ReleaseRings> release_rings(const Tables::ThresholdRule& rule, const std::vector<std::vector<int>>& lanes,
                                          const std::vector<int>& switch_lanes);

// The same for `gpus` (topology GPU indices in rank order) of topology `t`: lanes from its NVLink links
// between GPUs and from GPUs to NVSwitch nodes. nullopt as above, and for GPUs on several hosts (2.4's
// rings across nodes are built from the network first: not modelled).
std::optional<ReleaseRings> release_rings_for(const topology::Topology& t, const Tables::ThresholdRule& rule,
                                              const std::vector<int>& gpus);

// "NCCL 2.4 rings: 6 found (direct NVLink), each run twice = 12 channels".
std::string describe(const ReleaseRings& r);

} // namespace ccsim::model::nccl
