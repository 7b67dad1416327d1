// In-network reduction on the fabric: a topology whose network switches reduce (InfiniBand SHARP in
// NVIDIA Quantum switches), the network counterpart of NVLink SHARP in an NVSwitch. The topology only
// says which SHARP generation its switches run; what a generation can do (aggregation bandwidth per
// port, concurrent streaming trees, latency) is a model parameter (models/sharp.json).
#pragma once
#include <string>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

// value: "0"/"off" (none), "1"/"on" (the generation of the fabric's link speed: up to 200 Gb/s
// Quantum HDR = v2, 400 Gb/s Quantum-2 NDR = v3, faster Quantum-3 XDR = v4), or "v2", "v3", "v4".
// Throws Error naming `where` when the value is unknown or the fabric is not InfiniBand with a switch.
void set_sharp(Topology& t, const std::string& value, const std::string& where);

} // namespace ccsim::topology
