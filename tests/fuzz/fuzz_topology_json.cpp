// A topology file: the quick reader (topology_from_json_text) and the walk over the JSON tree must agree,
// the same topology or the same message; then route every GPU pair (small machines only).
#include <cstdlib>
#include <optional>

#include "sim/core/json_file.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/topology/topology_json_fast.hpp"
#include "fuzz_common.hpp"

namespace {
template <typename Read>
std::optional<ccsim::topology::Topology> attempt(Read read, std::string& error) {
  try {
    return read();
  } catch (const ccsim::Error& e) {
    error = e.what();
    return std::nullopt;
  }
}
} // namespace

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  std::string walk_error, quick_error;
  const auto walked = attempt([&] { return topology::topology_from_json(parse_json_text(input, "fuzz.json"), "fuzz.json"); }, walk_error);
  const auto quick = attempt([&] { return topology::topology_from_json_text(input, "fuzz.json"); }, quick_error);
  if (walk_error != quick_error || walked.has_value() != quick.has_value() ||
      (walked && topology::topology_to_text(*walked) != topology::topology_to_text(*quick)))
    std::abort(); // the two readers disagree
  if (!walked) return 0;
  const auto& t = *walked;
  if (t.num_gpus() > 64 || t.nodes.size() > 256) return 0;
  topology::Router r(t);
  for (int a = 0; a < t.num_gpus(); ++a)
    for (int b = 0; b < t.num_gpus(); ++b)
      if (a != b) (void)r.route(t.gpu_node(a), t.gpu_node(b));
})
