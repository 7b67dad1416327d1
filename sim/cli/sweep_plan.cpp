#include "sim/cli/sweep_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/cli/run_options.hpp"
#include "sim/cli/scenario_command.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/core/json_io.hpp"
#include "sim/core/output_files.hpp"
#include "sim/core/printable.hpp"

namespace ccsim::cli {
namespace {

using Json = nlohmann::ordered_json; // keeps the file's key order: the grid's first key varies slowest
constexpr std::size_t kMaxPoints = 10'000'000;

[[noreturn]] void bad(const SweepPlan& p, const std::string& where, const std::string& what) {
  fail("{}: \"{}\": {}", printable(p.file), printable(where), what);
}

// The main command's flag for a plan parameter name ("topo" -> --topo, "b" -> -b), or "" when unknown.
std::string flag_of(const std::string& name) { return name.size() == 1 ? "-" + name : "--" + name; }

// What a parameter name means: checked against the main command's own options.
struct ParamInfo {
  bool known = false, flag = false, forbidden = false;
  std::vector<std::string> sets;
};

ParamInfo param_info(const std::string& name) {
  if (name == "bytes") return {true, false, false, {"--minbytes", "--maxbytes"}}; // -b and -e at once
  if (name == "scenario") return {true, false, false, {"scenario"}};            // a training-scenario file
  if (name.empty() || name.front() == '-') return {};
  // `ccsim scenario`'s own flags (topo is the main command's too).
  CLI::App scenario_app;
  ScenarioOptions so;
  add_scenario_run_options(scenario_app, so);
  if (name != "topo" && name != "t")
    if (const CLI::Option* opt = scenario_app.get_option_no_throw(flag_of(name)))
      return {true, opt->get_expected_min() == 0, false, {"scenario " + opt->get_name()}};
  CLI::App app;
  RunOptions o;
  add_run_options(app, o);
  const CLI::Option* opt = app.get_option_no_throw(flag_of(name));
  if (!opt) return {};
  // Output and inspection flags belong to the sweep as a whole, not to a point.
  for (const char* f : {"--format", "--output", "--timeline", "--timeline-size", "--links", "--why", "--dump-schedule"})
    if (opt == app.get_option_no_throw(f)) return {true, false, true, {}};
  return {true, opt->get_expected_min() == 0, false, {opt->get_name()}};
}

std::string value_text(const SweepPlan& p, const std::string& where, const Json& v, bool flag) {
  if (flag) {
    if (!v.is_boolean()) bad(p, where, "expected true or false for a flag, got " + printable(json_dump(v), 80));
    return v.get<bool>() ? "true" : "false";
  }
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return json_dump(v);
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) bad(p, where, "expected a finite number");
    return fmt::format("{}", d);
  }
  bad(p, where, "expected a string or a number, got " + printable(json_dump(v), 80));
}

std::size_t column(SweepPlan& p, const std::string& where, const std::string& name) {
  const auto it = std::find(p.params.begin(), p.params.end(), name);
  if (it != p.params.end()) return static_cast<std::size_t>(it - p.params.begin());
  const auto info = param_info(name);
  if (!info.known) bad(p, where, fmt::format("unknown parameter '{}' (the main command's flags without dashes: topo, op, algo, "
                                             "model, ring, gpus, b, e, f, bytes, semantics, nvls, ..., or scenario, bucket-size, no-overlap)", printable(name, 60)));
  if (info.forbidden) bad(p, where, fmt::format("'{}' is not a point parameter (the sweep has its own -o and --format)", name));
  p.params.push_back(name);
  p.is_flag.push_back(info.flag);
  p.sets.push_back(info.sets);
  return p.params.size() - 1;
}

// Setting param c drops any earlier value of a param that sets one of the same options.
void clear_overlapping(const SweepPlan& p, std::size_t c, std::vector<std::string>& values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    for (const auto& opt : p.sets[i])
      if (i != c && std::find(p.sets[c].begin(), p.sets[c].end(), opt) != p.sets[c].end()) values[i].clear();
}

// One object of parameter values laid over `base`.
std::vector<std::string> overlay(SweepPlan& p, const std::string& where, const Json& obj, std::vector<std::string> base) {
  if (!obj.is_object()) bad(p, where, "expected an object of parameters, got " + printable(json_dump(obj), 80));
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string at = where + "." + it.key();
    const std::size_t c = column(p, at, it.key());
    base.resize(p.params.size());
    clear_overlapping(p, c, base);
    base[c] = value_text(p, at, it.value(), p.is_flag[c]);
  }
  return base;
}

void expand_grid(SweepPlan& p, const Json& grid, const std::vector<std::string>& base) {
  if (!grid.is_object()) bad(p, "grid", "expected an object {\"param\": [values]}, got " + printable(json_dump(grid), 80));
  std::vector<std::size_t> cols;
  std::vector<std::vector<std::string>> values;
  std::size_t total = 1;
  for (auto it = grid.begin(); it != grid.end(); ++it) {
    const std::string at = "grid." + it.key();
    cols.push_back(column(p, at, it.key()));
    if (!it.value().is_array() || it.value().empty()) bad(p, at, "expected a non-empty list of values");
    values.emplace_back();
    for (std::size_t i = 0; i < it.value().size(); ++i)
      values.back().push_back(value_text(p, fmt::format("{}[{}]", at, i), it.value()[i], p.is_flag[cols.back()]));
    if (total > kMaxPoints / values.back().size()) bad(p, "grid", fmt::format("more than {} points", kMaxPoints));
    total *= values.back().size();
  }
  // Odometer order: the last key varies fastest.
  std::vector<std::size_t> digit(cols.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    auto pt = base;
    pt.resize(p.params.size());
    for (std::size_t k = 0; k < cols.size(); ++k) {
      clear_overlapping(p, cols[k], pt);
      pt[cols[k]] = values[k][digit[k]];
    }
    p.points.push_back(std::move(pt));
    for (std::size_t k = cols.size(); k-- > 0;) {
      if (++digit[k] < values[k].size()) break;
      digit[k] = 0;
    }
  }
}

} // namespace

SweepPlan load_sweep_plan(const std::string& path) {
  if (std::error_code ec; std::filesystem::is_directory(path, ec)) fail("{}: is a directory, not a sweep plan", printable(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open the sweep plan", printable(path));
  note_input(path); // never an output of this run (output_files.hpp)
  std::stringstream ss;
  ss << in.rdbuf();
  return sweep_plan_from_text(ss.str(), path);
}

SweepPlan sweep_plan_from_text(const std::string& text, const std::string& path) {
  SweepPlan p;
  p.file = path;
  parse_json_text(text, printable(path)); // one-line message for malformed JSON
  const Json root = ordered_json_parse(text);
  if (!root.is_object()) bad(p, "", "expected an object with \"grid\" and/or \"points\"");
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it.key() != "defaults" && it.key() != "grid" && it.key() != "points")
      bad(p, it.key(), "unknown key (known: defaults, grid, points)");
  if (!root.contains("grid") && !root.contains("points")) bad(p, "", "needs \"grid\" or \"points\"");
  std::vector<std::string> base;
  if (root.contains("defaults")) base = overlay(p, "defaults", root["defaults"], {});
  if (root.contains("grid")) expand_grid(p, root["grid"], base);
  if (root.contains("points")) {
    const Json& pts = root["points"];
    if (!pts.is_array()) bad(p, "points", "expected a list of objects");
    if (p.points.size() + pts.size() > kMaxPoints) bad(p, "points", fmt::format("more than {} points", kMaxPoints));
    for (std::size_t i = 0; i < pts.size(); ++i) p.points.push_back(overlay(p, fmt::format("points[{}]", i), pts[i], base));
  }
  if (p.points.empty()) bad(p, "", "the plan has no points");
  for (auto& pt : p.points) pt.resize(p.params.size());
  return p;
}

std::vector<std::string> point_arguments(const SweepPlan& plan, std::size_t point) {
  std::vector<std::string> args;
  const auto& values = plan.points[point];
  for (std::size_t i = 0; i < plan.params.size(); ++i) {
    const std::string& v = values[i];
    if (v.empty() || (plan.is_flag[i] && v == "false")) continue;
    const std::string& name = plan.params[i];
    if (plan.is_flag[i]) args.push_back(flag_of(name));
    else if (name == "scenario") args.insert(args.begin(), {"scenario", v}); // `ccsim scenario FILE ...`
    else if (name == "bytes") args.insert(args.end(), {"-b", v, "-e", v});
    else if (name.size() == 1) args.insert(args.end(), {flag_of(name), v});
    else args.push_back(flag_of(name) + "=" + v);
  }
  return args;
}

std::string point_key(const SweepPlan& plan, const std::vector<std::string>& values) {
  SweepPlan one{plan.file, plan.params, plan.is_flag, plan.sets, {values}};
  std::string key;
  for (const auto& a : point_arguments(one, 0)) key += a + '\x1f';
  return key;
}

} // namespace ccsim::cli
