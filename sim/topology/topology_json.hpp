// Topology files (topologies/*.json): reading, writing, and finding shipped presets by name.
// The schema is documented in topologies/README.md.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/topology/topology.hpp"

namespace ccsim::topology {

Topology load_topology_file(const std::string& path);
// Why `path` is no topology file to read, in the words of its one-line refusal: missing, a directory, or a
// device or pipe (/dev/null, a FIFO); empty when it is a regular file.
std::string not_a_topology_file(const std::string& path);
Topology topology_from_json(const nlohmann::json& j, const std::string& origin);
// A file's second link of one type between the same two nodes: the router takes one link per pair, so the second
// would be dropped silently; refused naming both ("links[i]" is the file's i-th link), with "lanes" to say instead.
void refuse_parallel_links(const Topology& t, const std::string& origin);
nlohmann::json topology_to_json(const Topology& t);
// The same document as text, one node/link per line, without building the whole tree (for `topo gen`).
std::string topology_to_text(const Topology& t);

// `spec` is a file path, a shipped preset name ("dgx1", "hgx-a100"), or a generator
// spec understood by generators.hpp ("crossbar:ranks=8,bw=25GB/s,alpha=1us"). Throws Error.
Topology resolve_topology(const std::string& spec);
std::vector<std::string> shipped_topologies(); // preset names, aliases included
std::string topologies_dir();

} // namespace ccsim::topology
