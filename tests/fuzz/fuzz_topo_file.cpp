// A topology file of any format as --topo FILE and Python's ccsim.topology(text) read it: through a file,
// the format detected from the content (terminal escapes and reply quote marks dropped first), then a route
// between the first and last GPU.
#include <cstdio>
#include <unistd.h>

#include "sim/topology/import.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  static const std::string path = "/tmp/ccsim-fuzz-topo-" + std::to_string(::getpid()) + ".txt";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(input.data(), 1, input.size(), f);
    std::fclose(f);
  }
  ccsim::fuzz::route_ends(ccsim::topology::import_topology_file(path, {}));
})
