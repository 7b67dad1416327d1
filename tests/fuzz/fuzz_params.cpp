// A --params file (ccsim calibrate's output), applied to a shipped-like machine.
#include "sim/core/json_file.hpp"
#include "sim/model/params.hpp"
#include "sim/topology/generators.hpp"
#include "fuzz_common.hpp"

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  const auto p = model::params_from_json(parse_json_text(input, "fuzz.json"), "fuzz.json");
  static const topology::Topology base = topology::make_crossbar(4, 25'000'000'000, 2'000'000);
  const auto scaled = model::scaled_topology(base, p);
  scaled.validate();
})
