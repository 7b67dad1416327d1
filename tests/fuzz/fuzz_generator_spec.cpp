// --topo generator specs (crossbar:, torus:, cluster:, machine:), then a route between two GPUs.
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  // Valid huge machines (up to 2^20 GPUs) are slow to build, not bugs: keep every number small.
  if (input.size() > 200 || !fuzz::numbers_at_most(input, 4096)) return 0;
  const std::string spec(input);
  if (spec.find(':') == std::string::npos) return 0;
  const auto t = topology::generate_from_spec(spec);
  if (t.num_gpus() > 512) return 0;
  topology::Router r(t);
  (void)r.route(t.gpu_node(0), t.gpu_node(t.num_gpus() - 1));
})
