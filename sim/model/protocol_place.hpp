// Where a protocol's fitted bandwidth factor applies: on the links inside a node (NVLink, PCIe, xGMI) or
// on the network (NIC and fabric links). NCCL's tuning model gives each protocol one figure for both, but
// its network transport runs LL and LL128 differently from the kernels' direct stores: every LL/LL128 step
// that crosses a node goes through the CPU proxy, which polls the step's flags in a staging buffer (LL's
// always in host memory) before posting the send (NVIDIA/nccl src/transport/net.cc, sendProxyProgress and
// the buffer map of sendProxyConnect). What the protocol loses there is no property of NVLink, so a fit
// names the place: "LL128" on intra-node links, "net:LL128" on the network transport's links: the network
// links and the NIC's own link into its node (PCIe, which only network traffic crosses and which NCCL often
// sees slower than the NIC: Gen3 x16 12 GB/s against 100G's 12.5, Gen5 48 against 400G's 50).
#pragma once
#include <string>
#include <string_view>

#include "sim/model/params.hpp"

namespace ccsim::model {

inline constexpr std::string_view kNetProtocolPrefix = "net:";

// A protocol factor's key read: "net:LL128" -> {true, "LL128"}, "LL128" -> {false, "LL128"}.
struct ProtocolKey {
  bool network = false;
  std::string_view proto;
};
ProtocolKey split_protocol_key(std::string_view key);

// "LL", "LL128", "Simple", or one of them behind "net:".
bool is_protocol_key(std::string_view key);

// The factor of `proto` on a network link ("net:<proto>", else "<proto>": a set fitted without places
// applies one value everywhere, as before) or on an intra-node link ("<proto>"); 1 when the set has none.
double proto_efficiency_on(const ParamSet& p, std::string_view proto, bool network);

// The collective libraries whose replays base a protocol's bandwidth differently, and so whose protocol factors
// are not one quantity (issue 14). NCCL's replay gives a protocol NCCL's own busBw of it over ring/Simple's
// (builder.cpp Builder::view): ring LL min(llMaxBw, busBw x 0.5) (NVIDIA/nccl v2.26.2-1 src/graph/tuning.cc,
// llMaxBws per architecture: 87.7 GB/s on one Ampere node, 141 on Hopper, so LL gets 0.3-0.5 of Simple's figure
// and less the faster the node), tree LL busBw / 3.8. RCCL's replay gives a protocol the data share of its line
// (rccl.hpp protocol_data_share: LL 0.5 uncapped, LL128 7/8), because RCCL multiplies its bwRatio into the figure
// its tuner weighs (ROCm/rccl src/graph/tuning.cc ncclTopoTuneModel) and that steers the choice only. A fitted LL
// factor is the measured LL rate over that base: the NVIDIA classes vote 0.55-1.18 over NCCL's capped figure, the
// AMD ones 0.09-0.54 over RCCL's data share, and their median over both (0.55) was neither.
inline constexpr const char* kProtocolLibraries = "nccl, rccl";
bool is_protocol_library(std::string_view name);

// `p` with the protocol factors of `library`'s section (ParamSet::protocol_by_library) added for every key
// protocol_efficiency lacks (a factor a set gives for every machine stays: a set fitted on one machine, or a
// calibrate fit starting from a class-level set, names its own); unchanged without such a section.
ParamSet for_library(ParamSet p, std::string_view library);

// Whether `l` belongs to the network place: a network link, or a link with a NIC at one end.
bool on_network_path(const topology::Topology& t, const topology::Link& l);

} // namespace ccsim::model
