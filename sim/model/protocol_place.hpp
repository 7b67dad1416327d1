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

// Whether `l` belongs to the network place: a network link, or a link with a NIC at one end.
bool on_network_path(const topology::Topology& t, const topology::Link& l);

} // namespace ccsim::model
