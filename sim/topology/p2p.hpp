// NCCL_P2P_DISABLE=1 as a property of the machine a run sees (`--p2p off`): GPUs no longer reach each
// other directly (no NVLink, NVLink bridge, NVSwitch or xGMI path, no PCIe peer-to-peer); every copy is
// staged through host memory, at the host-staged speed of the GPU's PCIe generation (models/gpus.json
// nop2p_bw, measured on Gen3/Gen4 boxes), as NCCL's SHM transport does.
#pragma once
#include <string>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

// The topology with every GPU-GPU direct path removed and each GPU's PCIe link capped at the host-staged
// copy speed of its generation. Throws Error naming `who` when a GPU has no PCIe link to stage through.
Topology without_p2p(const Topology& t, const std::string& who);

// `--p2p on|off`: resolve_topology applies without_p2p to every machine it returns while "off".
void set_p2p_mode(const std::string& mode);
bool p2p_disabled();

} // namespace ccsim::topology
