#include "sim/model/protocol_place.hpp"

namespace ccsim::model {

ProtocolKey split_protocol_key(std::string_view key) {
  const bool network = key.substr(0, kNetProtocolPrefix.size()) == kNetProtocolPrefix;
  if (network) key.remove_prefix(kNetProtocolPrefix.size());
  return {network, key};
}

bool is_protocol_key(std::string_view key) {
  const auto proto = split_protocol_key(key).proto;
  return proto == "LL" || proto == "LL128" || proto == "Simple";
}

bool on_network_path(const topology::Topology& t, const topology::Link& l) {
  using topology::NodeKind;
  return topology::is_network(l.type) || t.nodes[static_cast<std::size_t>(l.a)].kind == NodeKind::Nic ||
         t.nodes[static_cast<std::size_t>(l.b)].kind == NodeKind::Nic;
}

bool is_protocol_library(std::string_view name) { return name == "nccl" || name == "rccl"; }

ParamSet for_library(ParamSet p, std::string_view library) {
  if (const auto it = p.protocol_by_library.find(std::string(library)); it != p.protocol_by_library.end())
    for (const auto& [k, v] : it->second) p.protocol_efficiency.emplace(k, v); // emplace: a key already there stays
  return p;
}

double proto_efficiency_on(const ParamSet& p, std::string_view proto, bool network) {
  if (network) {
    const auto it = p.protocol_efficiency.find(std::string(kNetProtocolPrefix) + std::string(proto));
    if (it != p.protocol_efficiency.end()) return it->second;
  }
  return p.proto_efficiency(std::string(proto));
}

} // namespace ccsim::model
