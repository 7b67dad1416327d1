// Rings over GPUs for ring algorithms, found on the topology the way NCCL's search does it:
// Hamiltonian cycles over direct GPU-GPU links, each directed ring taking one lane of every hop
// it uses, repeated while lanes remain (so a DGX-1V's 24 NVLinks give 6 directed rings). When no
// such ring exists (PCIe servers, NVSwitch boxes, clusters) the GPUs' own order is the one ring.
#pragma once
#include <vector>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

struct RingSet {
  std::vector<std::vector<int>> rings; // GPU indices in ring order, each a permutation of the input
  bool over_direct_links = false;      // false: the fallback single ring (routes decide the hops)
};

// `gpus`: the GPU indices to connect (all of them when empty). `max_rings` caps the search.
RingSet pack_rings(const Topology& t, std::vector<int> gpus, int max_rings = 16);

} // namespace ccsim::topology
