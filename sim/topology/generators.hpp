// Machines built from a few parameters instead of a file: the ideal crossbar of the textbook
// (every GPU a private full-duplex link to one non-blocking switch), tori of any dimension, and
// multi-node clusters. Each can be written out as JSON by `ccsim topo gen`.
#pragma once
#include <string>
#include <vector>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

// `alpha` is the end-to-end latency of one GPU-to-GPU message: each of the two links gets half.
Topology make_crossbar(int ranks, Bandwidth bw, Time alpha);
// Wraparound links in every dimension of extent > 2 (extent 2 gets one link, extent 1 none);
// `alpha` is the latency of one hop.
Topology make_torus(const std::vector<int>& dims, Bandwidth bw, Time alpha);

// "crossbar:ranks=8,bw=25GB/s,alpha=1us", "torus:dims=4x4x4,bw=100GB/s,alpha=1us", "cluster:..."
Topology generate_from_spec(const std::string& spec);

std::vector<int> parse_dims(const std::string& text, const std::string& what); // "4x4x4"

} // namespace ccsim::topology
