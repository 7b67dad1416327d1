// What AMD's two tools share: `rocm-smi --showtopo` and `amd-smi topology` (text or --json) print the same four
// GPU-pair matrices (link type, hops, weight, P2P access) from the same KFD io_links, only laid out differently.
// Each importer reads its layout into AmdTopo; one builder turns that into links, so both read a pair alike.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/topology/import.hpp"
#include "sim/topology/import_build.hpp"

namespace ccsim::topology::import_detail {

// One GPU-pair matrix: cells[i][j] is the value from GPU i to GPU j; line[i] the source line of row i (0: JSON).
struct AmdMatrix {
  std::vector<std::vector<std::string>> cells;
  std::vector<int> line;
  std::size_t size() const { return cells.size(); }
  const std::string& at(int i, int j) const { return cells[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]; }
};

// The table under the first line opening with `title` (after rocm-smi's "===" banner): a header line of column
// labels ("GPU0 GPU1 ..." or BDFs), then one row per label, starting with that label. Ends at a "===" line or
// the next "... TABLE:" title. Missing: nullopt; incomplete or ragged: an Error naming the file and line.
std::optional<AmdMatrix> amd_table(const std::vector<Line>& lines, std::string_view title, const std::string& file);

struct AmdTopo {
  std::string tool;                // "rocm-smi --showtopo", for the description
  AmdMatrix type;                  // XGMI / PCIE per pair
  std::optional<AmdMatrix> hops, weight, access;
  std::map<int, int> numa;         // GPU -> NUMA node, where the tool prints it
  std::optional<std::string> kind; // the GPU kind the file names
  std::string kind_where;
  std::string add_kind_hint;       // what to add to the file so it names the GPU
};

// Checks the matrices agree on the GPU count and builds the machine (see topologies/README.md, "Importing").
Topology build_amd_topology(const std::string& file, const ImportOptions& o, const std::vector<Line>& lines, const AmdTopo& t,
                            const std::string& name);

} // namespace ccsim::topology::import_detail
