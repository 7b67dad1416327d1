// A training scenario file (parsing and its checks; running one needs shipped topologies).
#include "sim/core/json_file.hpp"
#include "sim/scenario/scenario.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  const auto s = ccsim::scenario::scenario_from_json(ccsim::parse_json_text(input, "fuzz.json"), "fuzz.json");
  (void)s.total_params(), (void)s.forward_time(), (void)s.backward_time();
})
