// A `ccsim sweep` plan: parsing, grid expansion and every point's argument vector (running the points is
// the main command's own code, fuzzed through its parsers).
#include <nlohmann/json.hpp>

#include "sim/cli/sweep_plan.hpp"
#include "sim/core/json_io.hpp"
#include "fuzz_common.hpp"

namespace {

// Grids multiply: a few hundred bytes can ask for millions of valid points, which measures memory, not
// robustness. Inputs whose grid would expand past 4096 combinations are skipped (the parser's own limit
// is 10 million points).
bool small_grid(std::string_view input) {
  const auto j = ccsim::json_parse_or_discarded(input);
  if (!j.is_object() || !j.contains("grid") || !j["grid"].is_object()) return true;
  std::uint64_t n = 1;
  for (const auto& v : j["grid"])
    if (v.is_array() && (n *= std::max<std::uint64_t>(1, v.size())) > 4096) return false;
  return true;
}

} // namespace

CCSIM_FUZZ_TARGET({
  if (!small_grid(input)) return 0;
  const auto plan = ccsim::cli::sweep_plan_from_text(std::string(input), "fuzz.json");
  for (std::size_t i = 0; i < plan.points.size() && i < 4096; ++i) {
    const auto args = ccsim::cli::point_arguments(plan, i);
    (void)ccsim::cli::point_key(plan, plan.points[i]);
    (void)args;
  }
})
