#include "sim/report/sweep_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"

namespace ccsim::report {
namespace {

// Output columns whose cells are numbers (written bare in JSON lines; null when empty).
const std::vector<bool>& numeric_columns() {
  static const std::vector<bool> numeric = {false, true, false, true, true, false, false, true,
                                            true,  true, true,  true, false, false, true, true, true, false};
  return numeric;
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

} // namespace

SweepFormat sweep_format_from(const std::string& s) {
  if (s == "csv") return SweepFormat::Csv;
  if (s == "jsonl") return SweepFormat::Jsonl;
  fail("--format: unknown format '{}' (csv, jsonl)", s);
}

const std::vector<std::string>& sweep_output_columns() {
  static const std::vector<std::string> cols = {
      "topology",   "ranks",      "rank_order", "size",     "count",    "type",     "reduction", "root_rank", "time_us",
      "time_ps",    "algbw_GBps", "busbw_GBps", "algorithm", "protocol", "channels", "loops", "simulated", "error"};
  return cols;
}

SweepCells sweep_cells(const RunHeader& h, const std::vector<metrics::Row>& rows) {
  SweepCells out;
  const std::string redop = schedule::reduces(h.op) ? h.redop : "none";
  const int root = schedule::has_root(h.op) ? h.root : -1;
  for (const auto& r : rows) {
    const bool chose = !r.choice.proto.empty();
    out.push_back({h.topology, std::to_string(h.ranks), rank_orders(h.placements), std::to_string(r.plan.size),
                   std::to_string(r.plan.count), h.dtype, redop, std::to_string(root), fmt::format("{:.6f}", to_us(r.time)),
                   std::to_string(r.time), fmt::format("{:.6f}", r.bw.algbw_GBps), fmt::format("{:.6f}", r.bw.busbw_GBps),
                   chose ? r.choice.algo : h.algo, r.choice.proto, chose ? std::to_string(r.choice.channels) : "",
                   chose ? std::to_string(r.choice.loops) : "", chose ? std::to_string(r.choice.simulated ? 1 : 0) : "", ""});
  }
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
      for (const auto& c : row) line += "," + csv_field(c);
      out += line + "\n";
      continue;
    }
    nlohmann::ordered_json j;
    j["point"] = point;
    for (std::size_t i = 0; i < params.size(); ++i) j[params[i]] = values[i];
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (!numeric_columns()[i]) j[cols[i]] = row[i];
      else if (row[i].empty()) j[cols[i]] = nullptr;
      else j[cols[i]] = nlohmann::ordered_json::parse(row[i]); // our own number text
    }
    out += safe_dump(j) + "\n";
  }
  return out;
}

} // namespace ccsim::report
