// Google Cloud's GPU machine types as `instance=` words (the AWS EC2 types' transports are models/nccl.json's, the
// net plugin's own table; their GPUs and NICs are below): each names its GPU, its GPU-to-GPU NICs and the fabric they run, from Google's
// "Networking and GPU machines" page (https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth):
//   a3-highgpu-8g   8 x H100 80GB, 4 GPU NICs (gVNIC) of 200 Gb/s (1,000 Gbps with the host NIC), GPUDirect-TCPX
//   a3-megagpu-8g   8 x H100 80GB, 8 GPU NICs of 200 Gb/s (1,800 Gbps with the host NIC), GPUDirect-TCPXO
//   a3-ultragpu-8g  8 x H200, 8 ConnectX-7 of 400 Gb/s ("a total network bandwidth of 3,200 Gbps"), GPUDirect RDMA (gIB)
//   a4-highgpu-8g   8 x B200, the same 8 x 400 Gb/s ConnectX-7, gIB
//   a4x-highgpu-4g  4 x B200 of GB200 Superchips, 4 ConnectX-7 "that provide 1,600 Gbps", gIB
//   a4x-maxgpu-4g-metal  4 x GB300, 4 ConnectX-8 SuperNICs "that provide 3,200 Gbps", gIB
// One NIC per GPU (two GPUs per NIC on A3 High, as its PCIe switches pair them); topologies/README.md lists them.
//
// AWS EC2's GPU instance types of the same shape (aws_machine): the GPUs and the EFA devices of one instance, from
// AWS's instance pages (https://aws.amazon.com/ec2/instance-types/p4/, .../p5/, .../p6/) as meta-pytorch/torchx
// torchx/specs/named_resources_aws.py transcribes them (its EFA_DEVICE counts, AWS's page cited per type):
//   p4d.24xlarge, p4de.24xlarge  8 x A100, 4 EFA of 100 Gb/s (400 Gbps)
//   p5.48xlarge                  8 x H100, 32 EFA of 100 Gb/s (3,200 Gbps)
//   p5e.48xlarge                 8 x H200, 32 EFA of 100 Gb/s (3,200 Gbps)
//   p5en.48xlarge                8 x H200, 16 EFAv3 of 200 Gb/s (3,200 Gbps)
//   p6-b200.48xlarge             8 x B200, "3.2 Tbps EFAv4 networking via 8 network cards (400 Gbps each)"
//   p6-b300.48xlarge             8 x B300, "6.4 Tbps EFAv4 ... NCIs 1-16 are EFA-capable at 400 Gbps each"
// Which transport aws-ofi-nccl runs on each is models/nccl.json's business (net_kinds efa instances), not this table's.
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
