// A parameter set applied on top of a topology: per-link-type bandwidth efficiency, a per-message
// (per-step) software overhead and a per-collective launch overhead. `ccsim calibrate` fits them
// and writes models/<name>.json (with the exact command); `--params FILE` applies them.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/topology/topology.hpp"

namespace ccsim::model {

// The launch terms of one launch kind (launch_kind.hpp: runtime x GPUs per launching thread).
struct LaunchTerms {
  double launch_us = 0;
  double launch_per_gpu_us = 0;
};

struct ParamSet {
  double launch_us = 0; // added once per collective
  double launch_per_gpu_us = 0; // added once per collective per GPU the launching thread drives
                                // (nccl-tests -g N issues N kernel launches per iteration)
  double step_us = 0;   // added to every message (on top of link latency / NCCL per-hop latency)
  // Link type ("nvlink2") or link family ("nvlink", link_family) -> bandwidth multiplier; a link takes its
  // type's value, else its family's, else 1 (class-level sets carry a family value where fewer than three
  // machine classes identified the generation itself).
  std::map<std::string, double> link_efficiency;
  // --model nccl only: protocol name (LL, LL128, Simple) -> bandwidth multiplier on top of NCCL's
  // protocol efficiency. NCCL still chooses with its own tables; the replay runs at the fitted speed.
  std::map<std::string, double> protocol_efficiency;
  // --model nccl only: collective library ("nccl", "rccl": whose tables the replay follows, RCCL's on AMD GPU kinds)
  // -> protocol factors (keys as above) a machine replayed with that library takes for the keys protocol_efficiency
  // lacks (protocol_place.hpp for_library). A factor is measured over the replay's own base for the protocol, and
  // the two libraries' replays base LL differently (protocol_place.hpp), so a class-level set carries them apart.
  std::map<std::string, std::map<std::string, double>> protocol_by_library;
  // --model nccl only: protocol name (LL, LL128, Simple) -> multiplier on NCCL's own latency figures for that
  // protocol on rings and trees (baseLat once per collective, hwLat per hop inside a node and NCCL's network
  // hop across nodes; models/nccl.json, NVIDIA/nccl src/graph/tuning.cc). The rows a protocol runs at small
  // sizes take their time from these figures, so a machine whose LL steps are slower than NCCL's figures say
  // is a latency correction, not a slower protocol bandwidth. NCCL still chooses with its own figures.
  std::map<std::string, double> protocol_latency;
  // --model nccl only: launch kind ("cuda/g1", "cuda/gN", "hip/g1", "hip/gN"; launch_kind.hpp) -> the launch
  // terms a machine of that kind takes instead of launch_us / launch_per_gpu_us above (the class-level
  // default carries one per kind: a kernel launch costs differently under CUDA and HIP, and is hidden behind
  // the previous kernel with one GPU per process but serial over the GPUs one thread drives).
  std::map<std::string, LaunchTerms> launch_by_kind;
  std::string model = "fifo"; // the model the set was fitted for
  std::string origin;         // file it came from ("" = defaults)
  std::string command;        // command that produced it
  double efficiency(topology::LinkType t) const;
  double proto_efficiency(const std::string& proto) const;
  double proto_latency(std::string_view proto) const; // protocol_latency's value, 1 when absent
};

// The family a link type's efficiency falls back to: "nvlink" (every NVLink generation: ring throughput as a
// fraction of the raw lane rate), "pcie" (PCIe generations, P2P and host-staged alike: the link type does
// not tell them apart) and "rdma" (InfiniBand, RoCE, EFA NICs). xGMI, TCP Ethernet, QPI/UPI and ideal links
// have no family (their type is their own family). Names never collide with link type names.
std::optional<std::string_view> link_family(topology::LinkType t);
bool is_link_family(std::string_view name);

ParamSet load_params(const std::string& path); // throws Error naming the file
ParamSet params_from_json(const nlohmann::json& j, const std::string& origin); // throws Error naming `origin`
nlohmann::ordered_json params_json(const ParamSet& p);

// Copy of `t` with each link's bandwidth multiplied by the set's efficiency for its type.
topology::Topology scaled_topology(const topology::Topology& t, const ParamSet& p);

} // namespace ccsim::model
