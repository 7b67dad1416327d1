// The quick route from a topology file's text to a Topology: nlohmann's SAX parser feeding a small state
// machine, with no JSON tree built, walked and freed (that was ~89% of a small run's instructions).
// It only ever says "here is the topology" or "not me": on anything it does not accept (every error, and a few
// rare but valid shapes) it returns nothing and the caller reads the file the careful way (topology_from_json),
// whose one-line messages name the element. So messages cannot differ, and the quick route is at least as
// strict as the careful one: whatever it accepts, the careful route accepts and reads the same.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

// A topology read from JSON text, as topology_from_json's walk reads it, before validate() and set_sharp.
struct FastTopology {
  Topology topo;
  std::optional<std::string> sharp; // the file's "sharp" value, applied after validation
};

// nullopt: malformed or unusual input; read it with topology_from_json(parse_json_text(...)) instead.
std::optional<FastTopology> read_topology_fast(std::string_view text, const std::string& origin);

// The topology in `text`, a ccsim JSON file named `origin`, validated: read_topology_fast's, or when it refuses,
// topology_from_json(parse_json_text(text, origin), origin)'s, with its messages.
Topology topology_from_json_text(std::string_view text, const std::string& origin);
// The same when the quick route reads the document: validate() and "sharp" (nullopt when it did not).
std::optional<Topology> finish_fast(std::optional<FastTopology> fast, const std::string& origin);

} // namespace ccsim::topology
