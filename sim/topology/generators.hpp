// Machines built from a few parameters instead of a file: the ideal crossbar of the textbook
// (every GPU a private full-duplex link to one non-blocking switch), tori of any dimension, and
// multi-node clusters. Each can be written out as JSON by `ccsim topo gen`.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

// `alpha` is the end-to-end latency of one GPU-to-GPU message: each of the two links gets half.
Topology make_crossbar(int ranks, Bandwidth bw, Time alpha);
// Wraparound links in every dimension of extent > 2 (extent 2 gets one link, extent 1 none);
// `alpha` is the latency of one hop.
Topology make_torus(const std::vector<int>& dims, Bandwidth bw, Time alpha);

// Several copies of one machine joined by a network. Node k's nodes are renamed "n<k>.<name>"; its GPUs
// are numbered k*G .. k*G+G-1 in the machine's order. Each machine gets `nics` NICs: its own NIC nodes
// first, then new ones round-robin over its PCIe switches (or one per GPU when it has none), each NIC
// with one network link of `nic_bw` to the fabric.
struct ClusterSpec {
  int nodes = 2;
  int nics = 0;
  Bandwidth nic_bw = 0;
  enum class Fabric { Switch, FatTree } fabric = Fabric::Switch;
  bool rail = false;   // fabric=rail: said so in the header; modelled as the one non-blocking switch
  LinkType kind = LinkType::Ib;
  Time alpha = 0;      // NIC-to-NIC latency across the fabric's longest path (split evenly over its links)
  int leaf_ports = 32; // fat tree: NIC ports per leaf switch
  int oversub = 1;     // fat tree: leaf down:up bandwidth ratio (1 = non-blocking)
  // Where the NICs the generator adds sit (nic_at=): gpu beside each GPU (a link of its own, or its PCIe switch:
  // NCCL's PIX, as on HGX/DGX boards), cpu on a root port of the GPU's own socket (PHB, nvidia-smi's NODE),
  // numa on a NUMA node of their own that holds no GPU (SYS: NCCL draws each NUMA node as a CPU and joins them
  // by SYS links; an EPYC in NPS4 mode has four per socket). NICs a machine file draws itself stay where drawn.
  enum class NicAt { Gpu, Cpu, Numa } nic_at = NicAt::Gpu;
  std::string instance; // instance=: the AWS EC2 (kind efa) or Google Cloud (its own kind) machine type, Topology::instance
  std::string nics_source; // where nics came from when not given (the instance type's table), for the links' source
};
// nic_at's value (gpu, cpu, numa); anything else throws an Error beginning with `who` ("--nic-at:").
ClusterSpec::NicAt nic_at_from(const std::string& text, const std::string& who);
Topology make_cluster(const Topology& node, const ClusterSpec& spec, const std::string& node_label);

// One node described in a few words (sim/topology/machine.cpp): a GPU model from
// models/gpus.json, how many, and how they are joined: nvswitch (all NVLinks into one
// switch plane), cubemesh (the 8-GPU DGX-1 preset), pcie (two GPUs per PCIe switch; p2p=false: every
// GPU on a CPU root port at the staged host-memory speed), bridge (NVLink bridges in pairs).
constexpr int kMaxMachineGpus = 1024;  // GPUs in one machine: spec (make_machine refuses more)
constexpr int kMaxGpusPerSwitch = 16; // GPUs behind one PCIe switch
struct MachineSpec {
  std::string gpu;   // "h100", "a100", "rtx4090", ...
  int gpus = 8;
  std::string intra; // "" = the GPU's own: nvswitch with NVLink, bridge with a bridge, else pcie
  bool p2p = true;
  bool p2p_given = true;    // false: p2p not spelled out, so a PCIe board follows the kind's p2p_pcie (GeForce: off)
  bool pcie_switch = true; // false: every GPU on its own CPU root port (workstations, GPUs without a switch)
  int sockets = 0;          // CPU sockets the GPUs are spread over in order (0 = 2 from 4 GPUs on, else 1)
  int gpus_per_switch = 2;  // GPUs behind each PCIe switch where the board has switches
  std::string cpu = "intel"; // socket link: intel (UPI) or amd (EPYC xGMI), NCCL's socket figure follows it
  std::string bridge;        // NVLink bridge of PCIe cards: "" = the kind's default, else 2way, 4way or none
  Bandwidth pcie_duplex = 0; // both directions of each GPU's PCIe port together (Link::duplex); 0: full duplex
};
Topology make_machine(const MachineSpec& m);

// "crossbar:ranks=8,bw=25GB/s,alpha=1us", "torus:dims=4x4x4,bw=100GB/s,alpha=1us",
// "cluster:nodes=2,node=hgx-h100,nics=8x400G[,fabric=switch|fattree][,kind=ib|roce|efa|slingshot|ethernet|gib|tcpx|tcpxo|spectrumx][,alpha=2.7us]
//  [,leaf_ports=32][,oversub=1][,sharp=0|1|v2|v3|v4][,instance=p5.48xlarge|a3-megagpu-8g (AWS: efa; GCP: its kind, NICs)]", "machine:gpu=h200[,gpus=8][,intra=nvswitch|cubemesh|pcie|bridge][,p2p=off]
//  [,pcie_switch=off][,sockets=1|2][,gpus_per_switch=N][,cpu=intel|amd][,bridge=2way|4way|none][,pcie_duplex=75GB/s]
//  [,nodes=N,nics=8x400G,...cluster keys]"
//  (with nodes or nics: a cluster of that machine)
Topology generate_from_spec(const std::string& spec);

std::vector<int> parse_dims(const std::string& text, const std::string& what); // "4x4x4"
// "8x400G" -> (8, 50 GB/s): a count and a NIC speed; a bare "G"/"M" suffix means bits, as NICs are sold.
std::pair<int, Bandwidth> parse_nics(const std::string& text, const std::string& what);

} // namespace ccsim::topology
