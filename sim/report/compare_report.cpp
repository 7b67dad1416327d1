#include "sim/report/compare_report.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/report/report.hpp"

namespace ccsim::report {

namespace {
nlohmann::ordered_json num_or_null(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); }
} // namespace

nlohmann::ordered_json compare_json(const model::CompareResult& r, const model::CompareMeta& m) {
  nlohmann::ordered_json j;
  j["tool"] = "ccsim compare";
  j["trace"] = m.trace;
  j["hardware"] = m.hardware;
  j["op"] = m.op;
  j["op_from"] = m.op_from;
  j["ranks"] = m.ranks;
  j["ranks_from"] = m.ranks_from;
  j["gpus_per_thread"] = m.gpus_per_thread;
  j["topology"] = m.topology;
  j["topology_origin"] = m.topology_origin;
  j["model"] = m.model;
  j["params"] = m.params;
  j["placements"] = m.placements;
  if (!m.model_detail.empty()) j["nccl_graph"] = m.model_detail;
  j["measured_column"] = m.in_place ? "in-place" : "out-of-place";
  j["old_busbw_convention"] = m.old_busbw_convention;
  if (!m.notes.empty()) j["notes"] = m.notes;
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& x : r.rows) {
    nlohmann::ordered_json row{{"size", x.size},
                               {"count", x.count},
                               {"line", x.line},
                               {"measured_time_us", x.measured_time_us},
                               {"predicted_time_us", x.predicted_time_us},
                               {"measured_algbw", x.measured_algbw},
                               {"predicted_algbw", x.predicted_algbw},
                               {"measured_busbw", x.measured_busbw},
                               {"predicted_busbw", x.predicted_busbw},
                               {"err_pct", x.err_pct},
                               {"algo", x.pred.algo}};
    if (!x.pred.proto.empty()) {
      row["proto"] = x.pred.proto;
      row["channels"] = x.pred.channels;
      row["loops"] = x.pred.loops;
      row["simulated"] = x.pred.simulated;
      row["faster_than_nccl_pick"] = !x.pred.note.empty();
    }
    j["rows"].push_back(row);
  }
  j["summary"] = {{"median_abs_err_pct_ge_1MiB", num_or_null(r.median_abs_err_ge_1MiB)},
                  {"median_abs_err_pct_all", num_or_null(r.median_abs_err_all)},
                  {"max_abs_err_pct", r.max_abs_err},
                  {"rows", r.rows.size()},
                  {"rows_ge_1MiB", r.n_ge_1MiB},
                  {"rows_skipped", r.skipped}};
  return j;
}

std::string compare_table(const model::CompareResult& r, const model::CompareMeta& m) {
  std::string s = fmt::format("# ccsim compare: {} ({} ranks, op from {}, ranks from {})\n", m.trace, m.ranks, m.op_from, m.ranks_from);
  if (!m.hardware.empty()) s += fmt::format("# hardware: {}\n", m.hardware);
  s += fmt::format("# prediction: {} on topology {} ({}), model {}{}\n", m.op, m.topology, m.topology_origin, m.model,
                   m.params.empty() ? "" : ", params " + m.params);
  if (!m.model_detail.empty()) s += fmt::format("# nccl graph: {}\n", m.model_detail);
  for (const auto& n : m.notes) s += fmt::format("# trace: {}\n", n);
  s += fmt::format("# measured: {} column; busbw recomputed from size/time (nccl-tests definitions){}\n",
                   m.in_place ? "in-place" : "out-of-place",
                   m.old_busbw_convention ? "; this file prints the 2019 algbw = busbw convention" : "");
  s += "# err = (predicted - measured) / measured busbw\n#\n";
  s += fmt::format("#{:>11} {:>11} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8}  {}\n", "size", "count", "meas(us)", "pred(us)",
                   "m_algbw", "p_algbw", "m_busbw", "p_busbw", "err%", "choice");
  for (const auto& x : r.rows)
    s += fmt::format("{:>12} {:>11} {:>10.2f} {:>10.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>+8.1f}  {}\n", x.size, x.count,
                     x.measured_time_us, x.predicted_time_us, x.measured_algbw, x.predicted_algbw, x.measured_busbw,
                     x.predicted_busbw, x.err_pct, choice_text(x.pred));
  s += fmt::format("# median |busbw err|: {:.1f}% for sizes >= 1 MiB ({} rows), {:.1f}% over all {} rows; max {:.1f}%{}\n",
                   r.median_abs_err_ge_1MiB, r.n_ge_1MiB, r.median_abs_err_all, r.rows.size(), r.max_abs_err,
                   r.skipped ? fmt::format(" ({} rows of size 0 or time 0 skipped)", r.skipped) : "");
  return s;
}

std::string compare_csv(const model::CompareResult& r, const model::CompareMeta&) {
  std::string s = "size,count,measured_time_us,predicted_time_us,measured_algbw,predicted_algbw,measured_busbw,predicted_busbw,err_pct,algo,proto,channels\n";
  for (const auto& x : r.rows)
    s += fmt::format("{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.3f},{},{},{}\n", x.size, x.count, x.measured_time_us,
                     x.predicted_time_us, x.measured_algbw, x.predicted_algbw, x.measured_busbw, x.predicted_busbw, x.err_pct,
                     x.pred.algo, x.pred.proto, x.pred.channels);
  return s;
}

// The table's rows under a caption and above the summary, in Markdown, to paste into a ticket.
std::string compare_markdown(const model::CompareResult& r, const model::CompareMeta& m) {
  std::string s = fmt::format("**ccsim compare**: `{}` ({} ranks){}, measured {} column; predicted: {} on {} ({}), model {}{}\n\n",
                              markdown_cell(m.trace), m.ranks, m.hardware.empty() ? "" : ", " + markdown_cell(m.hardware),
                              m.in_place ? "in-place" : "out-of-place", m.op, markdown_cell(m.topology),
                              markdown_cell(m.topology_origin), m.model, m.params.empty() ? "" : ", params " + markdown_cell(m.params));
  s += "| size (B) | count | measured time (us) | predicted time (us) | measured algbw (GB/s) | predicted algbw (GB/s) | "
       "measured busbw (GB/s) | predicted busbw (GB/s) | busbw err % | choice |\n";
  s += "|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|\n";
  for (const auto& x : r.rows)
    s += fmt::format("| {} | {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:+.1f} | {} |\n", x.size, x.count,
                     x.measured_time_us, x.predicted_time_us, x.measured_algbw, x.predicted_algbw, x.measured_busbw,
                     x.predicted_busbw, x.err_pct, markdown_cell(choice_text(x.pred)));
  // A blank line first: a line right after a table would be read as one more row.
  s += fmt::format("\nbusbw err = (predicted - measured) / measured busbw; median of its absolute value {:.1f} % for sizes >= 1 MiB "
                   "({} rows), {:.1f} % over all {} rows; max {:.1f} %{}\n",
                   r.median_abs_err_ge_1MiB, r.n_ge_1MiB, r.median_abs_err_all, r.rows.size(), r.max_abs_err,
                   r.skipped ? fmt::format(" ({} rows of size 0 or time 0 skipped)", r.skipped) : "");
  for (const auto& n : m.notes) s += fmt::format("\n- trace: {}", markdown_cell(n));
  if (!m.notes.empty()) s += "\n";
  return s;
}

} // namespace ccsim::report
