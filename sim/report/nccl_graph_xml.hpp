// Ring orders as NCCL's graph XML, the file NCCL_GRAPH_FILE names (NCCL 2.6.4 and later): NCCL then takes its
// ring graph (id 0) from the file instead of searching one. Elements and attributes are those NCCL's
// ncclTopoGetGraphFromXmlSub and ncclTopoGetChannelFromXml read (src/graph/search.cc, NVIDIA/nccl v2.29.2-1;
// the same names since v2.6.4-1), and NCCL_GRAPH_DUMP_FILE writes.
#pragma once
#include <string>
#include <vector>

namespace ccsim::report {

struct NcclRingGraph {
  std::vector<std::vector<int>> rings; // one per channel: GPUs by their NVML index (nvidia-smi's number)
  double speed_GBps = 0;               // per channel, NCCL's bwIntra: what its tuner takes one channel to carry
  std::string type_intra;              // NCCL's path type of the farthest hop: NVL, NVB, PIX, PXB, PHB, SYS
  std::string comment;                 // what made the file (an XML comment; NCCL's parser skips comments)
};

std::string nccl_graph_xml(const NcclRingGraph& g);

// The same rings as NCCL_RINGS (NCCL 2.4.8 and older): ranks, each ring's separated by spaces, rings by '|'.
std::string nccl_rings_env(const std::vector<std::vector<int>>& rank_rings);

} // namespace ccsim::report
