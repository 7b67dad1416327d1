// AMD's topology tools: `rocm-smi --showtopo` and `amd-smi topology` (its text tables and --json), each read as
// it comes and with --gpu given, then a route between the first and last GPU.
#include "sim/topology/import.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  const std::string text(input);
  (void)topology::looks_like_amd_smi_json(input);
  for (const auto import : {topology::import_rocm_smi, topology::import_amd_smi})
    for (const char* gpu : {"", "mi300x"}) {
      try {
        fuzz::route_ends(import(text, "fuzz.txt", {gpu}));
      } catch (const Error&) {
      }
    }
})
