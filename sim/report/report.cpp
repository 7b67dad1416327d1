#include "sim/report/report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"

namespace ccsim::report {
using schedule::Op;

Format format_from(const std::string& s) {
  if (s == "table") return Format::Table;
  if (s == "csv") return Format::Csv;
  if (s == "json") return Format::Json;
  if (s == "markdown" || s == "md") return Format::Markdown;
  fail("--format: unknown format '{}' (table, csv, json, markdown)", s);
}

std::string redop_of(const RunHeader& h) { return schedule::prints_redop(h.op) ? h.redop : "none"; }
int root_of(const RunHeader& h) { return schedule::has_root(h.op) ? h.root : -1; }

namespace {

// The plain models run the one --algo; a choice column appears when the model chooses per size.
bool has_choice(const std::vector<metrics::Row>& rows) {
  for (const auto& r : rows)
    if (!r.choice.proto.empty()) return true;
  return false;
}

// The pairs any row weighed, in first-seen order: the columns of the --why table.
std::vector<std::string> weighed_pairs(const std::vector<metrics::Row>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows)
    for (const auto& w : r.choice.weighed)
      if (const auto k = w.algo + "/" + w.proto; std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  return out;
}

// One --why cell: the row's estimate for `pair` ("-" where it was not weighed), '*' on the pick.
std::string weighed_cell(const metrics::Row& r, const std::string& pair) {
  for (const auto& w : r.choice.weighed)
    if (w.algo + "/" + w.proto == pair)
      return fmt::format("{:.2f}{}", w.time_us, w.algo == r.choice.algo && w.proto == r.choice.proto ? "*" : "");
  return "-";
}

constexpr const char* kWhyCaption =
    "the tuner's own estimate of each algorithm/protocol it weighs (us; NCCL's tuning model, RCCL's on AMD; not the time above), "
    "* on the pick";

void write_weighed_table(std::ostream& out, const std::vector<metrics::Row>& rows) {
  const auto pairs = weighed_pairs(rows);
  if (pairs.empty()) return;
  fmt::print(out, "#\n# why (--why): {}\n#{:>11}", kWhyCaption, "size");
  for (const auto& k : pairs) fmt::print(out, "  {:>14}", k);
  fmt::print(out, "\n");
  for (const auto& r : rows) {
    fmt::print(out, "{:>12}", r.plan.size);
    for (const auto& k : pairs) fmt::print(out, "  {:>14}", weighed_cell(r, k));
    // A size no tuner weighed says what chose it instead of a row of dashes.
    if (r.choice.weighed.empty() && !r.choice.outside_tuner.empty()) fmt::print(out, "  not weighed: {}", r.choice.outside_tuner);
    fmt::print(out, "\n");
  }
}

void write_weighed_markdown(std::ostream& out, const std::vector<metrics::Row>& rows) {
  const auto pairs = weighed_pairs(rows);
  if (pairs.empty()) return;
  fmt::print(out, "\n**why** (--why): {}\n\n| size (B) |", kWhyCaption);
  for (const auto& k : pairs) fmt::print(out, " {} (us) |", k);
  fmt::print(out, "\n|---:|");
  for (std::size_t i = 0; i < pairs.size(); ++i) fmt::print(out, "---:|");
  fmt::print(out, "\n");
  for (const auto& r : rows) {
    fmt::print(out, "| {} |", r.plan.size);
    for (const auto& k : pairs) fmt::print(out, " {} |", markdown_cell(weighed_cell(r, k)));
    if (r.choice.weighed.empty() && !r.choice.outside_tuner.empty()) fmt::print(out, " not weighed: {}", markdown_cell(r.choice.outside_tuner));
    fmt::print(out, "\n");
  }
}

void write_table(std::ostream& out, const RunHeader& h, const std::vector<metrics::Row>& rows) {
  fmt::print(out, "# ccsim prediction: {} ({} equivalent), algorithm {}, model {}\n", schedule::to_string(h.op),
             schedule::nccl_test_name(h.op), h.algo, h.model);
  fmt::print(out, "# topology {} ({}), {} ranks\n", h.topology, h.topology_origin, h.ranks);
  if (!h.model_detail.empty()) fmt::print(out, "# model sees: {}\n", h.model_detail);
  if (h.checked) fmt::print(out, "# {}\n", h.checked->line);
  for (std::size_t i = 0; i < h.placements.size(); ++i)
    fmt::print(out, "# {} {}: GPUs {}\n", h.placements.size() > 1 ? "ring" : "rank order", i, gpu_order_text(h.placements[i]));
  if (h.op == schedule::Op::HyperCube) // hypercube.cu counts the bytes a rank receives
    fmt::print(out, "# algbw = size * (n-1)/n / time (GB = 1e9 B), as hypercube_perf; busbw = algbw * 1\n");
  else
    fmt::print(out, "# algbw = size / time (GB = 1e9 B); busbw = algbw * {}\n", metrics::busbw_factor_text(h.op));
  fmt::print(out, "#\n");
  const bool choice = has_choice(rows);
  fmt::print(out, "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9}  {:>7}  {:>7}{}\n", "size", "count", "type", "redop", "root",
             "time", "algbw", "busbw", choice ? "  choice" : "");
  fmt::print(out, "#{:>11}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9}  {:>7}  {:>7}\n", "(B)", "(elements)", "", "", "", "(us)",
             "(GB/s)", "(GB/s)");
  for (const auto& r : rows)
    fmt::print(out, "{:>12}  {:>12}  {:>8}  {:>6}  {:>6}  {:>9.2f}  {:>7.2f}  {:>7.2f}{}\n", r.plan.size, r.plan.count,
               h.dtype, redop_of(h), root_of(h), to_us(r.time), r.bw.algbw_GBps, r.bw.busbw_GBps,
               choice ? "  " + choice_text(r.choice) : "");
  if (h.weighed) write_weighed_table(out, rows);
}

void write_csv(std::ostream& out, const RunHeader& h, const std::vector<metrics::Row>& rows) {
  const bool choice = has_choice(rows);
  // op and ranks close every row so that the file alone says what ran (ccsim compare reads it back).
  fmt::print(out, "size,count,type,redop,root,time_us,algbw_GBps,busbw_GBps{},op,ranks\n",
             choice ? ",algo,proto,channels,loops,simulated" : "");
  for (const auto& r : rows)
    fmt::print(out, "{},{},{},{},{},{:.6f},{:.6f},{:.6f}{},{},{}\n", r.plan.size, r.plan.count, h.dtype, redop_of(h), root_of(h),
               to_us(r.time), r.bw.algbw_GBps, r.bw.busbw_GBps,
               choice ? fmt::format(",{},{},{},{},{}", r.choice.algo, r.choice.proto, r.choice.channels, r.choice.loops,
                                    r.choice.simulated ? 1 : 0)
                      : "",
               schedule::to_string(h.op), h.ranks);
}

// The table's columns and numbers (two decimals, as the table) under a one-line caption, to paste into a ticket.
void write_markdown(std::ostream& out, const RunHeader& h, const std::vector<metrics::Row>& rows) {
  fmt::print(out, "**ccsim prediction** (no GPU ran): {} ({} equivalent) on {} ({}), {} ranks, algorithm {}, model {}\n\n",
             schedule::to_string(h.op), schedule::nccl_test_name(h.op), markdown_cell(h.topology), markdown_cell(h.topology_origin),
             h.ranks, markdown_cell(h.algo), markdown_cell(h.model));
  if (h.checked) fmt::print(out, "{}\n\n", markdown_cell(h.checked->line));
  const bool choice = has_choice(rows);
  fmt::print(out, "| size (B) | count (elements) | type | redop | root | time (us) | algbw (GB/s) | busbw (GB/s) |{}\n",
             choice ? " choice |" : "");
  fmt::print(out, "|---:|---:|:---|:---|---:|---:|---:|---:|{}\n", choice ? ":---|" : "");
  for (const auto& r : rows)
    fmt::print(out, "| {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:.2f} |{}\n", r.plan.size, r.plan.count, h.dtype, redop_of(h),
               root_of(h), to_us(r.time), r.bw.algbw_GBps, r.bw.busbw_GBps,
               choice ? " " + markdown_cell(choice_text(r.choice)) + " |" : "");
  fmt::print(out, "\nalgbw = size / time (GB = 1e9 B); busbw = algbw * {}\n", metrics::busbw_factor_text(h.op));
  if (h.weighed) write_weighed_markdown(out, rows);
}

void write_json(std::ostream& out, const RunHeader& h, const std::vector<metrics::Row>& rows) {
  nlohmann::ordered_json j;
  j["tool"] = "ccsim";
  j["op"] = schedule::to_string(h.op);
  j["algo"] = h.algo;
  j["model"] = h.model;
  j["topology"] = h.topology;
  j["topology_origin"] = h.topology_origin;
  j["ranks"] = h.ranks;
  j["placements"] = h.placements;
  j["datatype"] = h.dtype;
  j["redop"] = redop_of(h);
  j["root"] = root_of(h);
  j["minbytes"] = h.min_bytes;
  j["maxbytes"] = h.max_bytes;
  j["stepfactor"] = h.factor;
  j["busbw_factor"] = metrics::busbw_factor_text(h.op);
  if (!h.model_detail.empty()) j["model_detail"] = h.model_detail;
  if (h.checked) j["checked"] = checked_json(*h.checked);
  j["rows"] = nlohmann::ordered_json::array();
  const bool choice = has_choice(rows);
  for (const auto& r : rows) {
    nlohmann::ordered_json row{{"size", r.plan.size},         {"count", r.plan.count},           {"time_us", to_us(r.time)},
                               {"time_ps", r.time},           {"algbw_GBps", r.bw.algbw_GBps}, {"busbw_GBps", r.bw.busbw_GBps}};
    if (choice)
      row["choice"] = {{"algo", r.choice.algo},         {"proto", r.choice.proto},          {"channels", r.choice.channels},
                       {"loops", r.choice.loops},       {"simulated", r.choice.simulated}, {"note", r.choice.note}};
    if (choice && h.weighed) {
      if (!r.choice.outside_tuner.empty()) row["choice"]["outside_tuner"] = r.choice.outside_tuner;
      row["choice"]["weighed"] = nlohmann::ordered_json::array();
      for (const auto& w : r.choice.weighed)
        row["choice"]["weighed"].push_back({{"algo", w.algo}, {"proto", w.proto}, {"time_us", w.time_us}});
    }
    j["rows"].push_back(row);
  }
  out << safe_dump(j, 2) << "\n";
}

} // namespace

namespace {

// Runs of consecutive GPUs collapsed: 0 1 2 3 5 4 -> "0-3 5 4" (a run of two stays two numbers).
std::string collapsed_runs(const std::vector<int>& g, std::size_t from, std::size_t to, std::string_view sep) {
  std::string out;
  for (std::size_t i = from; i < to;) {
    std::size_t j = i;
    while (j + 1 < to && g[j + 1] == g[j] + 1) ++j;
    if (!out.empty()) out += sep;
    if (j - i >= 2) out += fmt::format("{}-{}", g[i], g[j]), i = j + 1;
    else out += std::to_string(g[i]), ++i;
  }
  return out;
}

} // namespace

std::string gpu_order_text(const std::vector<int>& g, std::string_view sep) {
  const std::size_t n = g.size();
  if (n <= 32) return fmt::format("{}", fmt::join(g, sep));
  bool in_order = true;
  for (std::size_t i = 0; i < n; ++i) in_order = in_order && g[i] == static_cast<int>(i);
  if (in_order) return fmt::format("0..{} in order ({} ranks)", n - 1, n);
  // The first block of k GPUs, and every later block the same shifted by k per block (a ring that runs
  // the same path inside each node of k GPUs and visits the nodes in order).
  for (std::size_t k = 2; k <= n / 2; ++k) {
    if (n % k != 0) continue;
    bool repeats = true;
    for (std::size_t i = k; i < n && repeats; ++i) repeats = g[i] == g[i % k] + static_cast<int>(i / k * k);
    if (repeats)
      return fmt::format("{}, then the same +{} per block of {} for {} more block(s) (last: {}; {} ranks)", collapsed_runs(g, 0, k, sep), k,
                         k, n / k - 1, collapsed_runs(g, n - k, n, sep), n);
  }
  return collapsed_runs(g, 0, n, sep) + fmt::format(" ({} ranks)", n);
}

std::string choice_text(const engine::Choice& p) {
  if (p.proto.empty()) return p.algo;
  const char* loops = p.algo == "tree" ? " segments=" : " loops=";
  return fmt::format("{}/{} ch={}{}{}{}", p.algo, p.proto, p.channels, p.loops > 1 ? fmt::format("{}{}", loops, p.loops) : "",
                     p.simulated ? "" : " (analytic)", p.note.empty() ? "" : " (" + p.note + ")");
}

std::string markdown_cell(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

void write(std::ostream& out, Format f, const RunHeader& h, const std::vector<metrics::Row>& rows) {
  switch (f) {
    case Format::Markdown: write_markdown(out, h, rows); break;
    case Format::Table: write_table(out, h, rows); break;
    case Format::Csv: write_csv(out, h, rows); break;
    case Format::Json: write_json(out, h, rows); break;
  }
}

nlohmann::ordered_json checked_json(const model::Checked& c) {
  nlohmann::ordered_json j;
  j["checked"] = c.checked;
  j["line"] = c.line;
  j["runs"] = c.runs;
  j["median_abs_err_pct_ge_1MiB"] = c.median_ge_1MiB ? nlohmann::ordered_json(*c.median_ge_1MiB) : nlohmann::ordered_json();
  j["tables"] = c.tables;
  j["nearest"] = c.nearest;
  j["class"] = {{"gpu", c.cls.gpu}, {"hosts", c.cls.hosts}, {"network", c.cls.network}, {"op", c.cls.op}, {"ranks", c.cls.ranks}};
  return j;
}

} // namespace ccsim::report
