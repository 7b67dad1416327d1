// An NCCL topology XML (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE), read as it comes and with --gpu given, then a
// route between the first and last GPU.
#include "sim/topology/import.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  const std::string text(input);
  for (const char* gpu : {"", "h100"}) {
    try {
      const auto t = topology::import_nccl_xml(text, "fuzz.xml", {gpu});
      fuzz::route_ends(t);
    } catch (const Error&) {
    }
  }
})
