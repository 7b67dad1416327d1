// A `ccsim sweep` plan (docs/sweep.md): the main command's flags as parameters, every combination of a
// "grid" and a list of explicit "points", each on top of "defaults". A point becomes the argument vector
// the main command would be given, so each runs through exactly the code `ccsim --topo ...` runs.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace ccsim::cli {

struct SweepPlan {
  std::string file;
  std::vector<std::string> params; // column names, in order of first appearance in the file
  std::vector<bool> is_flag;       // per param: a flag (true/false) rather than a value
  // Per param, the main command's options it sets ("b" and "minbytes" both set minbytes; "bytes" sets
  // minbytes and maxbytes): a value given later for any of them replaces the earlier one.
  std::vector<std::vector<std::string>> sets;
  // Per point, the value of each param ("" = not set; flags "true"/"false"), in table order.
  std::vector<std::vector<std::string>> points;
};

// Reads and expands the plan; bad input throws Error naming the file and the element ("grid.topo[2]").
SweepPlan load_sweep_plan(const std::string& path);
// The same for a plan's text; `path` names it in errors (the fuzz harness parses from memory).
SweepPlan sweep_plan_from_text(const std::string& text, const std::string& path);
// The point's arguments after "ccsim": {"--topo=dgx1", "-b", "1M", ...}.
std::vector<std::string> point_arguments(const SweepPlan& plan, std::size_t point);
// One string that identifies a point by what it runs (its arguments), for resuming.
std::string point_key(const SweepPlan& plan, const std::vector<std::string>& values);

} // namespace ccsim::cli
