// An `nvidia-smi topo -m` matrix (ccsim topo import FILE, --topo FILE), read once as it comes and once with
// --gpu given (most pastes do not name their GPU), then a route between the first and last GPU.
#include "sim/topology/import.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  const std::string text(input);
  for (const char* gpu : {"", "v100"}) {
    try {
      const auto t = topology::import_topo_m(text, "fuzz.txt", {gpu});
      fuzz::route_ends(t);
    } catch (const Error&) {
    }
  }
})
