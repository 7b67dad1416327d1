// NCCL's choice between P2P and SHM per GPU pair (NVIDIA/nccl src/graph/paths.cc ncclTopoCheckP2p,
// ncclTopoComputePaths; src/transport/p2p.cc and shm.cc canConnect). A pair of one host runs P2P when its
// path class is within the P2P level, else NCCL diverts it through the receiver's CPU and connects it over
// SHM (host memory); the transport is chosen per connection, so one ring mixes P2P and SHM hops.
//
// The level, when NCCL_P2P_LEVEL is unset, by release (paths.cc / p2p.cc, read at each tag):
//  * 2.23.4 on: PXB ("By default don't use P2P across CPU Host Bridges and further apart"), SYS on an x86
//    AMD host whose communicator has at most 2 GPUs on it ("Allow P2P between pairs of GPUs on AMD systems").
//  * 2.9.6 .. 2.22.3: SYS ("use P2P whenever we can"), PXB on Intel, Arm (and Zhaoxin) hosts.
//  * 2.7.3 .. 2.9.5: SYS, PXB on Arm, PHB on Intel (PXB on Broadwell: ccsim does not know the Intel model).
//  * 2.6.x: SYS, PXB on Arm (and Intel Broadwell).
//  * 2.5.x (p2p.cc p2pCanConnect): PXB on one socket, PHB on several; 2.4.x: PHB.
// NCCL then asks NVML whether the pair can do P2P at all (a GeForce driver that refuses it): ccsim's drawing
// says so with its host-staged ports (machine:...,p2p=off, models/gpus.json p2p_pcie, the importers).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/nccl/graph.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/topology/p2p.hpp"

namespace ccsim::model::nccl {

enum class HostCpu { Intel, Amd, Arm };

// NCCL's default P2P level for release `v` (nullopt: the tables' release, the newest rule) on a host of
// `cpu` with `sockets` CPU sockets, where the communicator has `gpus_on_host` GPUs.
topology::PathClass default_p2p_level(const std::optional<NcclVersion>& v, HostCpu cpu, int gpus_on_host, int sockets);

// The level in force and where it comes from: NCCL_P2P_LEVEL as the user set it (Topology::p2p_level), or
// NCCL's default for the host of the placement's first GPU.
struct P2pLevel {
  topology::PathClass level = topology::PathClass::Sys;
  bool user = false;
};
P2pLevel p2p_level_for(const topology::Topology& t, const Graph& g, const std::vector<int>& placement,
                       const std::optional<NcclVersion>& v);

// The hops of the graph's rings that NCCL runs over SHM at `level`: pairs of one host whose path class is
// farther than the level (never an NVLink pair), each once as (from, to) in ring order.
std::vector<std::pair<int, int>> shm_ring_hops(const topology::Topology& t, const Graph& g, topology::PathClass level);
// The same for any GPU pairs (a P2P op's sends: p2p.cc connects each peer a send or receive names, per pair as
// a ring hop): those of one host farther than `level`, each once, in the order given.
std::vector<std::pair<int, int>> shm_pairs(const topology::Topology& t, const Graph& g, topology::PathClass level,
                                           const std::vector<std::pair<int, int>>& pairs);

// Stages the PCIe ports of the GPUs at either end of `hops` through host memory in `view` (a copy of the
// drawing): each port's rate capped at its generation's host-staged speed and marked Link::host_staged, so
// the replay gives it NCCL's SHM loop share (shm.hpp). Both directions of a staged port are capped, while
// only one carries the SHM hop: on a ring the other direction's P2P hop is then no faster than the SHM hop
// it feeds, which binds the ring anyway.
void stage_shm_ports(topology::Topology& view, const std::vector<std::pair<int, int>>& hops);

// "P2P level PXB (NCCL's default): SHM gpu3->gpu4, gpu7->gpu0, P2P elsewhere" for the model's header line.
std::string describe_p2p(const P2pLevel& level, const std::vector<std::pair<int, int>>& hops);

} // namespace ccsim::model::nccl
