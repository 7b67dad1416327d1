#include "sim/trace/busbw_summary.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/ascii.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/trace/line_text.hpp"

namespace ccsim::trace {
using text::trim;
namespace {


std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 1; i < line.size(); ++i) { // past the leading '|'
    if (line[i] == '|') out.push_back(trim(cur)), cur.clear();
    else cur += line[i];
  }
  return out;
}

// The value after `flag` in any command line ("-b 16G"), every occurrence.
std::vector<std::string> flag_values(const std::vector<std::string>& lines, std::string_view flag) {
  std::vector<std::string> out;
  for (const auto& l : lines) {
    std::istringstream in(l);
    std::string tok, prev;
    while (in >> tok) {
      if (prev == flag) out.push_back(tok);
      prev = tok;
    }
  }
  return out;
}

// One value all command lines agree on, or nullopt when none gives it.
std::optional<std::string> agreed(const std::vector<std::string>& lines, std::string_view flag, const std::string& origin) {
  const auto v = flag_values(lines, flag);
  if (v.empty()) return std::nullopt;
  for (const auto& x : v)
    if (x != v.front()) fail("{}: busbw summary: the commands give {} {} and {}; one size and GPU count per table", origin, flag, v.front(), x);
  return v.front();
}

// "480.0GBps", "480 GB/s" -> 480.
double busbw_of(const std::string& cell, const std::string& where) {
  double v = 0;
  const auto r = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  const std::string unit = ascii_lower(trim(std::string_view(r.ptr, static_cast<std::size_t>(cell.data() + cell.size() - r.ptr))));
  if (r.ec != std::errc() || !(v > 0) || v > 1e6 || (unit != "gbps" && unit != "gb/s" && !unit.empty()))
    fail("{}: busbw '{}' is not a bandwidth in GB/s", where, cell);
  return v;
}

// NCCL_X=Y settings written in a cell (backticks and commas around them dropped).
std::map<std::string, std::string> env_of(const std::string& cell) {
  std::map<std::string, std::string> env;
  std::string t;
  for (char c : cell) t += (c == '`' || c == ',') ? ' ' : c;
  std::istringstream in(t);
  std::string tok;
  while (in >> tok)
    if (tok.rfind("NCCL_", 0) == 0 && tok.find('=') != std::string::npos) env[tok.substr(0, tok.find('='))] = tok.substr(tok.find('=') + 1);
  return env;
}

} // namespace

std::optional<std::vector<Trace>> parse_busbw_summary(std::string_view text, const std::string& origin, const Hints& hints) {
  std::vector<std::string> comments, table;
  std::vector<int> table_lines;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto t = trim(line);
    if (t.empty()) continue;
    if (t[0] == '#') comments.push_back(trim(std::string_view(t).substr(1)));
    else if (t[0] == '|') table.push_back(t), table_lines.push_back(n);
    else return std::nullopt; // nccl-tests rows or anything else: not a summary
  }
  if (table.size() < 3) return std::nullopt;
  const auto head = cells(table[0]);
  int col_op = -1, col_bw = -1, col_algo = -1;
  for (std::size_t i = 0; i < head.size(); ++i) {
    const auto h = ascii_lower(head[i]);
    if (h == "collective" || h == "op") col_op = static_cast<int>(i);
    if (h == "busbw") col_bw = static_cast<int>(i);
    if (h == "algo" || h == "algorithm") col_algo = static_cast<int>(i);
  }
  if (col_op < 0 || col_bw < 0) return std::nullopt;
  const auto size_text = agreed(comments, "-b", origin);
  if (!size_text || agreed(comments, "-e", origin).value_or(*size_text) != *size_text)
    fail("{}: busbw summary: the commands must name one size (-b X -e X)", origin);
  const Bytes size = parse_size(*size_text, origin + ": -b");
  int ranks = hints.ranks;
  if (const auto g = agreed(comments, "-g", origin)) ranks = static_cast<int>(parse_whole(*g, origin + ": -g", 1, 1 << 20));
  if (ranks < 2) fail("{}: busbw summary: the GPU count is not in the commands (-g N); give --ranks", origin);
  // Each row is a run with its own copy of the '#' lines: 480 KB of them over 20,000 rows (a 1.2 MB file) made 9.6 GB
  // (out of memory). Past 256 MiB in all, refused, as a trace's runs are (trace_runs.cpp).
  std::size_t comment_bytes = 0;
  for (const auto& c : comments) comment_bytes += c.size() + sizeof(std::string);
  if (comment_bytes * (table.size() - 2) > (std::size_t{256} << 20))
    fail("{}: busbw summary: {} table rows, each a run carrying the file's {} '#' lines: more than 256 MiB; cut the '#' "
         "lines or split the table", origin, table.size() - 2, comments.size());
  std::vector<Trace> runs;
  for (std::size_t r = 2; r < table.size(); ++r) {
    const auto c = cells(table[r]);
    const std::string where = fmt::format("{}:{}", origin, table_lines[r]);
    if (c.size() <= static_cast<std::size_t>(std::max({col_op, col_bw, col_algo}))) fail("{}: table row has too few cells", where);
    Trace t;
    t.origin = fmt::format("{} (row {} of {})", origin, r - 1, table.size() - 2);
    t.provenance = comments;
    for (const auto& l : comments)
      if (l.rfind("hardware:", 0) == 0 && t.hardware.empty()) t.hardware = trim(std::string_view(l).substr(9));
    const auto op_cell = c[static_cast<std::size_t>(col_op)];
    t.op = schedule::op_from(trim(op_cell.substr(0, op_cell.find_first_of(",(`"))));
    if (!t.op) fail("{}: collective '{}' is not one ccsim knows", where, op_cell);
    t.op_from = "summary table row";
    t.ranks = ranks, t.ranks_from = "-g in the commands";
    t.env = env_of(op_cell);
    const bool ar = *t.op == schedule::Op::AllReduce;
    const double factor = ar ? 2.0 * (ranks - 1) / ranks : static_cast<double>(ranks - 1) / ranks;
    MeasuredRow m;
    m.line = table_lines[r];
    m.size = size;
    m.type = "float", m.redop = "sum";
    const bool per_rank = *t.op == schedule::Op::AllGather || *t.op == schedule::Op::ReduceScatter;
    m.count = size / 4 / (per_rank ? static_cast<Bytes>(ranks) : 1);
    Half h;
    h.busbw = busbw_of(c[static_cast<std::size_t>(col_bw)], where);
    h.algbw = h.busbw / factor;
    h.time_us = static_cast<double>(size) / (h.algbw * 1e3);
    m.out_of_place = h;
    t.rows.push_back(m);
    t.notes.push_back(fmt::format("busbw-only summary row: time and algbw derived from busbw {} GB/s (busbw = algbw x {:.4g})", h.busbw, factor));
    if (col_algo >= 0 && !c[static_cast<std::size_t>(col_algo)].empty())
      t.notes.push_back(fmt::format("the table says NCCL ran {}", c[static_cast<std::size_t>(col_algo)]));
    runs.push_back(std::move(t));
  }
  return runs;
}

} // namespace ccsim::trace
