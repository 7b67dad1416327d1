// NCCL_P2P_DISABLE=1 as a property of the machine a run sees (`--p2p off`): GPUs no longer reach each
// other directly (no NVLink, NVLink bridge, NVSwitch or xGMI path, no PCIe peer-to-peer); every copy is
// staged through host memory, at the host-staged speed of the GPU's PCIe generation (models/gpus.json
// nop2p_bw, measured on Gen3/Gen4 boxes), as NCCL's SHM transport does.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

// The topology with every GPU-GPU direct path removed and each GPU's PCIe link capped at the host-staged
// copy speed of its generation and marked Link::host_staged. Throws Error naming `who` when a GPU has no
// PCIe link to stage through.
Topology without_p2p(const Topology& t, const std::string& who);

// What PCIe link `l` (a GPU's, of a PCIe link type) carries when copies are staged through host memory: its
// generation's nop2p_bw over its lanes. Throws Error naming `who` for a generation models/gpus.json lacks.
Bandwidth host_staged_bw(const Link& l, const std::string& who);

// `--p2p on|off`: resolve_topology applies without_p2p to every machine it returns while "off".
void set_p2p_mode(const std::string& mode);
bool p2p_disabled();

// NCCL's path types between two GPUs, as far as P2P goes (src/graph/topo.h, paths.cc): LOC the same GPU,
// NVL a direct NVLink/xGMI link or a shared NVSwitch, PIX one PCIe switch, PXB several PCIe switches
// without the CPU, PHB through a CPU's host bridge, SYS across the CPU sockets' link. NVB (NVLink through
// a GPU), C2C, P2C and PXN are NCCL's classes in between (v2.29.7-1 topo.h PATH_*, in that order):
// path_class never answers them, but NCCL_P2P_LEVEL may name them.
enum class PathClass { Loc, Nvl, Nvb, C2c, Pix, Pxb, P2c, Pxn, Phb, Sys };
std::string_view name(PathClass c);
// The class of the path P2P between GPUs a and b would take (PCIe links only, unless NVL joins them).
PathClass path_class(const Topology& t, int gpu_a, int gpu_b);
// The same for many pairs of one topology: each node's links listed once (`t` must outlive it).
// Pairs from one GPU are answered from one search from it, kept until a pair from another GPU comes: an
// alltoall's shm_pairs asks all p^2 pairs, source by source, and a search per pair made a 1,024-GPU crossbar
// cost 1 M searches of the whole machine (scripts/BENCHMARKS.md, "CI time, eighteenth session").
class PathClassifier {
 public:
  explicit PathClassifier(const Topology& t);
  PathClass operator()(int gpu_a, int gpu_b) const;

 private:
  NodeKind kind(int n) const;
  void search_from(int a) const;
  const Topology& t_;
  std::vector<std::vector<int>> incident_; // link ids at each node
  mutable int from_ = -1;                  // the node the two searches below started at
  mutable std::vector<char> nvl_;          // per node: NVL from from_ (the link, or NVLink through NVSwitches only)
  mutable std::vector<int> prev_;          // per node: its predecessor on from_'s fewest-hop PCIe path (-2 none)
  mutable std::vector<char> seen_;         // per node: walked by from_'s NVL search
  // The nodes whose entries above the last search set: the next search clears only those. Clearing the
  // node-sized arrays per source GPU made a cluster's ring neighbours cost GPUs x nodes (8,192 H100 hosts).
  mutable std::vector<int> touched_;
};
// What NCCL's paths.cc makes of a GPU-NIC path, by release (nccl_version.hpp nic_path_rules): `pxn` a GPU whose
// own NIC path is farther than PXB reaches a NIC through an NVLink peer that has it within PXB (PATH_PXN, from
// v2.12.7-1); `p2c` a Grace superchip's GPU reaches its Grace's NICs over C2C as PATH_P2C (from v2.27.3-1;
// before it the same path is PHB); `pxn_c2c` a peer's P2C NIC counts for PXN too (NCCL_PXN_C2C, default on
// from v2.28.3-1).
struct NicPathRules {
  bool pxn = true;
  bool p2c = true;
  bool pxn_c2c = true;
};
// Per GPU: the class of its closest NIC with those rules (nullopt: its host has no NIC). A Grace superchip
// (GPU kind gh*/gb*) reaches its NICs through its Grace: models/gpus.json draws that host link as PCIe, standing
// for NVLink-C2C and Grace's lanes to the NICs (NVIDIA/nccl v2.27.3-1 release notes: on "platforms with C2C
// connectivity (e.g., GB200)" the NICs hang off the CPU), so any nearer class than SYS reads P2C (PHB without
// `p2c`).
std::vector<std::optional<PathClass>> gpu_nic_classes(const Topology& t, const NicPathRules& rules);
// NCCL's graph typeInter as ccsim approximates it: per host, the closest class any of `gpus`' GPUs on it has
// to a NIC (search.cc starts its search at ncclTopoGetGpuMinPath(NET) and a channel's ring or tree needs only
// the GPUs at its ends near the NIC); the farthest of those over the hosts. nullopt when a host has no NIC.
std::optional<PathClass> type_inter(const Topology& t, const std::vector<int>& gpus, const NicPathRules& rules);

// NCCL_P2P_LEVEL as NCCL reads it (paths.cc ncclGetLevel): a class name LOC .. SYS (NODE taken as PHB,
// nvidia-smi's name for it), or the old numbers, a digit string: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and above SYS.
// Throws Error naming `who` (NCCL ignores what it cannot read; ccsim refuses it).
PathClass p2p_level_from(const std::string& text, const std::string& who);
// NCCL_P2P_LEVEL=level: GPUs with a peer farther than `level` copy to it through host memory (SHM); as
// NCCL picks per pair but ccsim's links are per GPU, such a GPU's PCIe link runs at its generation's
// host-staged speed for all its traffic, marked Link::host_staged. LOC is --p2p off (without_p2p).
Topology with_p2p_level(const Topology& t, PathClass level, const std::string& who);
// `--p2p-level LEVEL`: resolve_topology records it in Topology::p2p_level while set (LOC: without_p2p), for
// --model nccl to apply per GPU pair.
void set_p2p_level(const std::string& text);
std::optional<PathClass> p2p_level();
// Back to NCCL's own level (no --p2p-level): what each sweep point and each Python call starts from.
void clear_p2p_level();

} // namespace ccsim::topology
