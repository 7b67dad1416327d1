#include "sim/report/sweep_table.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/core/json_io.hpp"

namespace ccsim::report {
namespace {

enum class Cell {
  Text,   // a string in JSON lines
  Number, // written bare in JSON lines (null when empty)
  Object, // a JSON object's text: the object in JSON lines, its "line" in CSV (the checked line)
};
struct Column {
  const char* name;
  Cell kind;
};
constexpr Cell T = Cell::Text, N = Cell::Number;

// A collective point fills the first block, a training-scenario point the topology/ranks/type and the
// scenario block, one row per (topology, strategy, dtype, GPU count) the scenario steps through.
const std::vector<Column>& columns() {
  static const std::vector<Column> cols = {
      {"topology", T},     {"ranks", N},         {"rank_order", T},        {"size", N},        {"count", N},
      {"type", T},         {"reduction", T},     {"root_rank", N},         {"time_us", N},     {"time_ps", N},
      {"algbw_GBps", N},   {"busbw_GBps", N},    {"algorithm", T},         {"protocol", T},    {"channels", N},
      {"loops", N},        {"simulated", N},     {"checked", Cell::Object}, {"strategy", T},   {"step_ms", N},
      {"compute_ms", N},   {"comm_ms", N},       {"exposed_ms", N},        {"samples_per_s", N}, {"speedup", N},
      {"efficiency", N},   {"error", T}};
  return cols;
}

std::size_t column_index(std::string_view name) {
  const auto& c = columns();
  return static_cast<std::size_t>(std::find_if(c.begin(), c.end(), [&](const Column& x) { return x.name == name; }) - c.begin());
}

// The checked cell: the object's "line" in CSV; a cell read back from a CSV table (resuming) is that line already.
std::string object_line(const std::string& cell) {
  if (cell.empty() || cell.front() != '{') return cell;
  const auto j = ordered_json_parse_or_discarded(cell);
  return j.is_object() && j.contains("line") && j["line"].is_string() ? j["line"].get<std::string>() : cell;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string rank_orders(const std::vector<std::vector<int>>& placements) {
  std::vector<std::string> rings;
  for (const auto& p : placements) rings.push_back(fmt::format("{}", fmt::join(p, " ")));
  return fmt::format("{}", fmt::join(rings, "|"));
}

// The CSV's rank_order cell: the orders as they are up to kRankOrderCell characters; beyond (32 ranks x 8 rings
// was ~700), one cell a spreadsheet shows: how many rings of how many ranks, ring 0's first 8 ranks and an FNV-1a
// hash of the whole text, equal in two rows exactly when their orders are (JSON lines keep every order).
constexpr std::size_t kRankOrderCell = 100;

std::string csv_rank_order(const std::string& orders) {
  if (orders.size() <= kRankOrderCell) return orders;
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : orders) hash = (hash ^ c) * 16777619u;
  std::size_t rings = 1 + static_cast<std::size_t>(std::count(orders.begin(), orders.end(), '|'));
  const std::string first = orders.substr(0, orders.find('|'));
  const std::size_t ranks = 1 + static_cast<std::size_t>(std::count(first.begin(), first.end(), ' '));
  std::size_t cut = 0;
  for (int k = 0; k < 8 && cut != std::string::npos; ++k) cut = first.find(' ', cut + 1);
  return fmt::format("{}{} ranks: {} ... #{:08x} (every order: --format jsonl)", rings > 1 ? fmt::format("{} rings x ", rings) : "",
                     ranks, first.substr(0, cut), hash);
}

} // namespace

bool sweep_row_readable(const std::vector<std::string>& row) {
  const auto& cols = columns();
  if (row.size() != cols.size()) return false;
  for (std::size_t i = 0; i < row.size(); ++i) {
    const std::string& cell = row[i];
    if (cell.empty() || cols[i].kind == Cell::Text) continue;
    if (cols[i].kind == Cell::Number && !ordered_json_parse_or_discarded(cell).is_number()) return false;
    if (cols[i].kind == Cell::Object && cell.front() == '{' && !ordered_json_parse_or_discarded(cell).is_object()) return false;
  }
  return true;
}

SweepFormat sweep_format_from(const std::string& s) {
  if (s == "csv") return SweepFormat::Csv;
  if (s == "jsonl") return SweepFormat::Jsonl;
  fail("--format: unknown format '{}' (csv, jsonl)", s);
}

const std::vector<std::string>& sweep_output_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& c : columns()) n.push_back(c.name);
    return n;
  }();
  return names;
}

SweepCells sweep_cells(const RunHeader& h, const std::vector<metrics::Row>& rows) {
  SweepCells out;
  const std::string redop = redop_of(h);
  const int root = root_of(h);
  for (const auto& r : rows) {
    const bool chose = !r.choice.proto.empty();
    out.push_back({h.topology, std::to_string(h.ranks), rank_orders(h.placements), std::to_string(r.plan.size),
                   std::to_string(r.plan.count), h.dtype, redop, std::to_string(root), fmt::format("{:.6f}", to_us(r.time)),
                   std::to_string(r.time), fmt::format("{:.6f}", r.bw.algbw_GBps), fmt::format("{:.6f}", r.bw.busbw_GBps),
                   chose ? r.choice.algo : h.algo, r.choice.proto, chose ? std::to_string(r.choice.channels) : "",
                   chose ? std::to_string(r.choice.loops) : "", chose ? std::to_string(r.choice.simulated ? 1 : 0) : "",
                   // The run's checked line (--model nccl), the same object as its --format json `checked`.
                   h.checked ? json_dump(checked_json(*h.checked)) : ""});
    out.back().resize(columns().size()); // no scenario columns, no error
  }
  return out;
}

SweepCells sweep_scenario_cells(const scenario::Report& rep) {
  SweepCells out;
  const auto ms = [](Time t) { return fmt::format("{:.6f}", static_cast<double>(t) / 1e9); };
  for (const auto& s : rep.steps) {
    std::vector<std::string> row(columns().size());
    row[0] = s.topology;
    row[1] = std::to_string(s.gpus);
    row[5] = s.dtype.name;
    const std::size_t first = column_index("strategy");
    const std::vector<std::string> tail = {std::string(scenario::to_string(s.strategy)), ms(s.result.step), ms(s.result.compute),
                                           ms(s.result.comm_busy), ms(s.result.exposed()), fmt::format("{:.6f}", s.samples_per_s),
                                           fmt::format("{:.6f}", s.speedup), fmt::format("{:.6f}", s.efficiency)};
    std::copy(tail.begin(), tail.end(), row.begin() + first);
    out.push_back(std::move(row));
  }
  if (out.empty()) return sweep_error_cells("the scenario has no steps to run");
  return out;
}

SweepCells sweep_error_cells(const std::string& message) {
  std::vector<std::string> row(sweep_output_columns().size());
  row.back() = message;
  return {row};
}

std::string sweep_header(SweepFormat f, const std::vector<std::string>& params) {
  if (f == SweepFormat::Jsonl) return "";
  std::vector<std::string> cols{"point"};
  for (const auto& p : params) cols.push_back(csv_field(p));
  for (const auto& c : sweep_output_columns()) cols.push_back(c);
  return fmt::format("{}\n", fmt::join(cols, ","));
}

std::string sweep_lines(SweepFormat f, std::size_t point, const std::vector<std::string>& params,
                        const std::vector<std::string>& values, const SweepCells& cells) {
  std::string out;
  const auto& cols = sweep_output_columns();
  for (const auto& row : cells) {
    if (f == SweepFormat::Csv) {
      std::string line = std::to_string(point);
      for (const auto& v : values) line += "," + csv_field(v);
      for (std::size_t i = 0; i < row.size(); ++i)
        line += "," + csv_field(cols[i] == "rank_order"           ? csv_rank_order(row[i])
                                : columns()[i].kind == Cell::Object ? object_line(row[i])
                                                                    : row[i]);
      out += line + "\n";
      continue;
    }
    nlohmann::ordered_json j;
    j["point"] = point;
    for (std::size_t i = 0; i < params.size(); ++i) j[params[i]] = values[i];
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (columns()[i].kind == Cell::Text || (columns()[i].kind == Cell::Object && !row[i].empty() && row[i].front() != '{'))
        j[cols[i]] = row[i];
      else if (row[i].empty()) j[cols[i]] = nullptr;
      else j[cols[i]] = ordered_json_parse(row[i]); // our own number or object text
    }
    out += safe_dump(j) + "\n";
  }
  return out;
}

} // namespace ccsim::report
