#include "sim/topology/sharp.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::topology {

void set_sharp(Topology& t, const std::string& value, const std::string& where) {
  if (value == "0" || value == "off") return t.sharp.clear();
  const bool any = value == "1" || value == "on";
  if (!any && value != "v2" && value != "v3" && value != "v4")
    fail("{}: sharp '{}' is not 0, 1, off, on, v2, v3 or v4", where, value);
  const bool has_switch = std::any_of(t.nodes.begin(), t.nodes.end(), [](const Node& n) { return n.kind == NodeKind::NetSwitch; });
  Bandwidth fastest = 0;
  for (const auto& l : t.links) {
    if (!is_network(l.type)) continue;
    // SHARP runs in InfiniBand switches (Quantum); RoCE, EFA and Ethernet fabrics have no such switch.
    if (l.type != LinkType::Ib) fail("{}: sharp needs an InfiniBand fabric (kind=ib), this one has {} links", where, to_string(l.type));
    fastest = std::max(fastest, l.bw);
  }
  if (!has_switch || fastest == 0) fail("{}: sharp needs a network switch (a cluster of several nodes on InfiniBand)", where);
  // A port's line rate names the switch generation: HDR 200 Gb/s = 25 GB/s, NDR 400 Gb/s = 50 GB/s.
  t.sharp = !any ? value : fastest <= 25'000'000'000 ? "v2" : fastest <= 50'000'000'000 ? "v3" : "v4";
  if (t.description.find("SHARP") == std::string::npos) t.description += fmt::format("; SHARP {} (in-network reduction) in the fabric's switches", t.sharp);
}

} // namespace ccsim::topology
