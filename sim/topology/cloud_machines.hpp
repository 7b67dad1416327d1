// Google Cloud's GPU machine types as `instance=` words (the AWS EC2 types are models/nccl.json's, the net
// plugin's own table): each names its GPU, its GPU-to-GPU NICs and the fabric they run, from Google's
// "Networking and GPU machines" page (https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth):
//   a3-highgpu-8g   8 x H100 80GB, 4 GPU NICs (gVNIC) of 200 Gb/s (1,000 Gbps with the host NIC), GPUDirect-TCPX
//   a3-megagpu-8g   8 x H100 80GB, 8 GPU NICs of 200 Gb/s (1,800 Gbps with the host NIC), GPUDirect-TCPXO
//   a3-ultragpu-8g  8 x H200, 8 ConnectX-7 of 400 Gb/s ("a total network bandwidth of 3,200 Gbps"), GPUDirect RDMA (gIB)
//   a4-highgpu-8g   8 x B200, the same 8 x 400 Gb/s ConnectX-7, gIB
//   a4x-highgpu-4g  4 x B200 of GB200 Superchips, 4 ConnectX-7 "that provide 1,600 Gbps", gIB
//   a4x-maxgpu-4g-metal  4 x GB300, 4 ConnectX-8 SuperNICs "that provide 3,200 Gbps", gIB
// One NIC per GPU (two GPUs per NIC on A3 High, as its PCIe switches pair them); topologies/README.md lists them.
#pragma once
#include <string_view>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

struct CloudMachine {
  std::string_view name;  // the machine type, lower case
  std::string_view gpu;   // models/gpus.json kind
  int host_gpus;          // GPUs of one VM
  int host_nics;          // its GPU-to-GPU NICs
  double nic_gbps;        // each NIC's line rate, Gb/s
  LinkType kind;          // the fabric: tcpx, tcpxo or gib (Google), efa (AWS)
};

// The machine type named `name` (any case), or nullptr where Google Cloud has no such GPU machine type here.
const CloudMachine* cloud_machine(std::string_view name);

// The AWS EC2 GPU instance type named `name` (any case) whose GPUs and EFA devices are listed above, or nullptr.
const CloudMachine* aws_machine(std::string_view name);

} // namespace ccsim::topology
