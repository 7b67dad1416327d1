// A topology file: parse, validate, then route every GPU pair (small machines only).
#include "sim/core/json_file.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  const auto t = topology::topology_from_json(parse_json_text(input, "fuzz.json"), "fuzz.json");
  if (t.num_gpus() > 64 || t.nodes.size() > 256) return 0;
  topology::Router r(t);
  for (int a = 0; a < t.num_gpus(); ++a)
    for (int b = 0; b < t.num_gpus(); ++b)
      if (a != b) (void)r.route(t.gpu_node(a), t.gpu_node(b));
})
