#include "sim/trace/nccl_tests_trace.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <charconv>
#include <climits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/core/output_files.hpp"
#include "sim/trace/nccl_tests_options.hpp"
#include "sim/trace/paste_shapes.hpp"
#include "sim/trace/ring_lines.hpp"
#include "sim/trace/trace_counts.hpp"
#include "sim/trace/line_text.hpp"

namespace ccsim::trace {
using text::trim;
using text::tokens;
using text::is_uint;
using text::is_number;
using text::to_double;
using text::to_u64;
using text::is_grouped_uint;
using text::locale_number_hint;
using text::normalise_pasted_text;
using text::starts_with;
namespace {

// More ranks than any trace has measured (and than ccsim simulates): 16M.
constexpr int kMaxRanks = 1 << 24;

// nccl-tests binary names and bare collective names, longest first so "reduce" never matches inside
// "all_reduce" or "reduce_scatter".
const std::vector<std::pair<std::string, schedule::Op>>& op_words() {
  using schedule::Op;
  static const std::vector<std::pair<std::string, Op>> w{
      {"reduce_scatter", Op::ReduceScatter}, {"all_reduce", Op::AllReduce}, {"all_gather", Op::AllGather},
      {"alltoall", Op::AllToAll},           {"broadcast", Op::Broadcast},  {"reduce", Op::Reduce},
      {"gather", Op::Gather},               {"scatter", Op::Scatter},      {"sendrecv", Op::SendRecv},
      {"hypercube", Op::HyperCube}};
  return w;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `line` with every mpirun --tag-output tag inside it ("[1,0]<stdout>:", "[1,3]<stderr>:") put back as the
// space it stood for: digits, a comma, digits between the brackets, nothing else.
std::string without_inner_tags(const std::string& line) {
  std::string out;
  std::size_t pos = 0;
  while (pos < line.size()) {
    const auto open = line.find('[', pos);
    if (open == std::string::npos) break;
    std::size_t i = open + 1, digits = 0;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i, ++digits;
    bool tag = digits > 0 && i < line.size() && line[i] == ',';
    if (tag) {
      std::size_t rank_digits = 0;
      for (++i; i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])); ++i) ++rank_digits;
      tag = rank_digits > 0 && line.compare(i, 2, "]<") == 0;
    }
    std::size_t end = std::string::npos;
    if (tag)
      for (const char* stream : {"]<stdout>:", "]<stderr>:"})
        if (line.compare(i, std::char_traits<char>::length(stream), stream) == 0) end = i + std::char_traits<char>::length(stream);
    out.append(line, pos, open - pos);
    if (end == std::string::npos) {
      out += '[';
      pos = open + 1;
    } else {
      out += ' ';
      pos = end;
    }
  }
  if (pos < line.size()) out.append(line, pos);
  return out;
}

// The earliest "<name>_perf" in `text`, else the earliest bare collective name standing as a word.
std::optional<schedule::Op> find_op(const std::string& text) {
  std::size_t best = std::string::npos;
  std::optional<schedule::Op> op;
  for (const auto& [w, o] : op_words()) {
    const auto pos = text.find(w + "_perf");
    if (pos != std::string::npos && (pos < best || best == std::string::npos) && (pos == 0 || !word_char(text[pos - 1])))
      best = pos, op = o;
  }
  if (op) return op;
  for (const auto& [w, o] : op_words()) {
    for (std::size_t pos = text.find(w); pos != std::string::npos; pos = text.find(w, pos + 1)) {
      const bool left = pos == 0 || !word_char(text[pos - 1]);
      const bool right = pos + w.size() >= text.size() || !word_char(text[pos + w.size()]);
      if (left && right) {
        if (pos < best || best == std::string::npos) best = pos, op = o;
        break;
      }
    }
  }
  return op;
}

// The processes a launch line starts: mpirun / mpiexec "-np N", "-n N", "--np N", "--n N" (OpenMPI, MPICH) and srun's
// "-n N" / "--ntasks=N"; 0 when the line names no launcher or no count (the last count given wins, as the launchers read
// their options left to right). Each process drives nThread x nGpus GPUs of the run.
int launched_processes(const std::string& text, const std::string& where) {
  const auto tk = tokens(text);
  const bool launcher = std::any_of(tk.begin(), tk.end(), [](const std::string& w) { return text::is_launcher(w); });
  if (!launcher) return 0;
  int n = 0;
  for (std::size_t i = 0; i < tk.size(); ++i) {
    std::string_view value;
    if ((tk[i] == "-np" || tk[i] == "-n" || tk[i] == "--np" || tk[i] == "--n" || tk[i] == "--ntasks") && i + 1 < tk.size()) value = tk[i + 1];
    else if (tk[i].starts_with("--ntasks=")) value = std::string_view(tk[i]).substr(9);
    else continue;
    if (const auto d = digits_at(value, 0); !d.empty() && d.size() == value.size()) n = checked_int(d, "-np", where);
  }
  return n;
}

// The earliest "<collective>_perf" standing as a word in `text`.
std::optional<schedule::Op> find_perf_word(const std::string& text) {
  std::size_t best = std::string::npos;
  std::optional<schedule::Op> op;
  for (const auto& [w, o] : op_words()) {
    const std::string word = w + "_perf";
    for (std::size_t pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
      const bool left = pos == 0 || !word_char(text[pos - 1]);
      const bool right = pos + word.size() >= text.size() || !word_char(text[pos + word.size()]);
      if (left && right) {
        if (pos < best) best = pos, op = o;
        break;
      }
    }
  }
  return op;
}

// The first word of a shell prompt line: "$", or "user@host:dir$" / "root@host:dir#".
bool shell_prompt(const std::string& word) {
  if (word == "$") return true;
  return word.size() > 2 && (word.back() == '$' || word.back() == '#') && word.find('@') != std::string::npos &&
         word.find(':') != std::string::npos;
}

struct Columns {
  std::vector<std::string> names; // header tokens, e.g. size count type redop root time algbw busbw #wrong ...
  bool only_in_place = false;     // one half, and the banner above names it in-place (rccl-tests -O 0)
  double time_scale = 1;          // to us: 1000 for the 2017 table, which printed ms
};

// Words a row has for a header: a timestamp (nccl-tests -S 1, "%Y-%m-%d %H:%M:%S") is two.
std::size_t row_words(const Columns& c) {
  return c.names.size() + static_cast<std::size_t>(std::count(c.names.begin(), c.names.end(), "timestamp"));
}

// A column header line: "size count type ..." (2019 on) or the 2017 one, "bytes N type op|root ...". nccl-tests prints the
// first two names side by side (writeResultHeader, src/util.cu; src/common.cu before): a note's prose that merely starts
// with "size" and says "count" later is not one.
bool is_column_header(const std::vector<std::string>& tk) {
  return tk.size() > 1 && ((tk[0] == "size" && tk[1] == "count") || (tk[0] == "bytes" && tk[1] == "N"));
}

// "Out of bounds values : 12 FAILED" (nccl-tests util.cu writeResultFooter, "# %-20s : %d %s"): the count into
// t.out_of_bounds; the table's other closing lines change nothing.
void read_out_of_bounds(std::string_view body, Trace& t) {
  if (!starts_with(body, "Out of bounds values")) return;
  const auto colon = body.find(':');
  if (colon == std::string_view::npos) return;
  const auto tk = tokens(body.substr(colon + 1));
  if (!tk.empty() && is_number(tk[0])) t.out_of_bounds = std::strtod(tk[0].c_str(), nullptr);
}

// hypercube_perf and old alltoall_perf builds print an empty redop ("%6s" of ""), so their rows have one word
// fewer than the header: read without the redop column, and `short_row` says so (only those tests may).
MeasuredRow row_from_header(const std::vector<std::string>& tk, const Columns& cols, const std::string& where,
                            bool* short_row = nullptr) {
  const auto redop = std::find(cols.names.begin(), cols.names.end(), "redop");
  if (short_row && redop != cols.names.end() && tk.size() + 1 == row_words(cols)) {
    Columns fewer = cols;
    fewer.names.erase(fewer.names.begin() + (redop - cols.names.begin()));
    try {
      auto r = row_from_header(tk, fewer, where);
      *short_row = true;
      return r;
    } catch (const Error&) { // not hypercube's shape either: the column count is the error
    }
  }
  if (tk.size() != row_words(cols))
    fail("{}: row has {} columns but the header names {}", where, tk.size(), row_words(cols));
  MeasuredRow r;
  int half = -1;
  Half cur;
  auto flush = [&] {
    if (half == 0) (cols.only_in_place ? r.in_place : r.out_of_place) = cur;
    if (half == 1) r.in_place = cur;
    cur = Half{};
  };
  for (std::size_t c = 0, i = 0; c < cols.names.size(); ++c, ++i) {
    const auto& n = cols.names[c];
    if (n == "timestamp") ++i; // date and time: two words, nothing to read
    else if (n == "size") r.size = to_u64(tk[i], "size", where);
    else if (n == "count") r.count = to_u64(tk[i], "count", where);
    else if (n == "type") r.type = tk[i];
    else if (n == "redop") r.redop = tk[i];
    else if (n == "root") r.root = checked_int(tk[i], "root", where);
    else if (n == "time") {
      flush();
      ++half;
      if (half > 1) fail("{}: more than two time columns in the header", where);
      cur.time_us = to_double(tk[i], "time", where) * cols.time_scale;
    } else if (n == "algbw") cur.algbw = to_double(tk[i], "algbw", where);
    else if (n == "busbw") cur.busbw = to_double(tk[i], "busbw", where);
    else if (n == "#wrong" || n == "error" || n == "wrong") cur.wrong = tk[i];
  }
  flush();
  return r;
}

// No header seen (partial copies): size count type [redop] [root] time algbw busbw err [time algbw busbw err].
MeasuredRow row_by_shape(const std::vector<std::string>& tk, const std::string& where, bool& redop_col, bool& root_col) {
  if (tk.size() < 6) fail("{}: a row needs at least size, count, type, time, algbw, busbw (got {} columns)", where, tk.size());
  Columns c;
  c.names = {"size", "count", "type"};
  std::size_t i = 3;
  redop_col = !is_number(tk[3]);
  if (redop_col) c.names.push_back("redop"), ++i;
  const std::size_t rest = tk.size() - i;
  root_col = rest == 9 || rest == 5;
  if (root_col) c.names.push_back("root");
  const std::size_t halves = (rest == 8 || rest == 9) ? 2 : (rest == 4 || rest == 5) ? 1 : 0;
  if (halves == 0)
    fail("{}: cannot tell the columns of a {}-column row without a '#  size  count ...' header line", where, tk.size());
  for (std::size_t h = 0; h < halves; ++h)
    for (const char* n : {"time", "algbw", "busbw", "#wrong"}) c.names.push_back(n);
  return row_from_header(tk, c, where);
}

} // namespace

double measured_time_us(const MeasuredRow& r, bool in_place) {
  if (in_place && r.in_place) return r.in_place->time_us;
  if (r.out_of_place) return r.out_of_place->time_us;
  return r.in_place ? r.in_place->time_us : 0.0;
}

Trace parse_trace(std::string_view text, const std::string& origin, const Hints& hints) {
  Trace t;
  t.origin = origin;
  std::optional<Columns> cols;
  std::string op_line, command_line, banner_line, all_header; // banner: nccl-tests' own "Collective test starting: X_perf"
  std::string run_as_line; // a collector's "# run as: mpirun ... all_reduce_perf -g 1": read for GPUs per thread only
  // A command quoted without '#' before the table: a shell prompt ("root@host:~# ./build/all_gather_perf -b 8 ...", "$ mpirun ...
  // all_reduce_perf"), a blog's "> mpirun" quote or a launcher's "+ mpirun" echo. Its "<name>_perf" word is read for the op,
  // its -g for GPUs per thread where the nThread line is missing.
  std::string prompt_line;
  int device_ranks = 0;
  std::set<std::string> device_hosts;
  std::optional<int> g_flag;
  bool table_started = false, shape_redop = false, shape_root = false, shaped = false;
  bool table_done = false; // nccl-tests' closing lines seen: free text after them is not a broken row
  std::optional<std::string> failure; // nccl-tests' "Test NCCL failure" report, where the run died
  std::string half_banner; // the line above the column names: "out-of-place   in-place", or "in-place" alone
  bool cputime = false;     // nccl-tests -C 1 names its time columns "cputime"
  auto read_columns = [&](const std::vector<std::string>& tk, const std::string& where) {
    Columns c;
    c.names = tk;
    const bool v2017 = tk[0] == "bytes"; // nccl-tests 1.x (2017-2019): bytes N type op|root, time in ms (b188a15)
    for (auto& n : c.names) {
      if (v2017 && n == "bytes") n = "size";
      else if (v2017 && n == "N") n = "count";
      else if (v2017 && n == "op") n = "redop";
      else if (v2017 && n == "res") n = "#wrong";
      else if (n == "cputime") n = "time", cputime = true;
      if (n == "copybw") // nccl-tests 2.13.10-2.17 -k 1 (side_work, 7bd5758; removed in d39f59d)
        fail("{}: column 'copybw' (nccl-tests -k 1): copy work ran beside the collective, so its time is not the "
             "collective's alone; compare a run without -k",
             where);
      // i_min i_max i_p99 i_cv%: -I 1's per-iteration statistics of each half (the time column stays the mean);
      // timestamp: -S 1's "%Y-%m-%d %H:%M:%S" at the end of the row (src/util.cu writeResultHeader).
      if (n != "size" && n != "count" && n != "type" && n != "redop" && n != "root" && n != "time" && n != "algbw" &&
          n != "busbw" && n != "#wrong" && n != "error" && n != "wrong" && n != "timestamp" && n != "i_min" && n != "i_max" &&
          n != "i_p99" && n != "i_cv%")
        fail("{}: unknown column '{}' in the table header", where, n);
    }
    const auto times = std::count(c.names.begin(), c.names.end(), "time");
    if (times == 0) fail("{}: table header has no time column", where);
    // rccl-tests -O 0 prints the in-place half alone under an "in-place" banner.
    c.only_in_place = times == 1 && half_banner.find("in-place") != std::string::npos &&
                      half_banner.find("out-of-place") == std::string::npos;
    if (v2017) {
      c.time_scale = 1000;
      t.notes.push_back("the 2017 table (bytes N type ...) prints times in ms: read as us x 1000");
    }
    cols = c;
    t.has_redop_column = std::find(tk.begin(), tk.end(), "redop") != tk.end();
    t.has_root_column = std::find(tk.begin(), tk.end(), "root") != tk.end();
  };
  std::optional<std::string> first_short_row; // the error, unless the test turns out to be hypercube_perf
  bool pipe_table = false, pipe_note = false; // a Markdown copy of the table: its header seen, its note given
  int sweep = 0;              // size sweeps seen in the table, less one
  Bytes sweep_first_size = 0; // the first size of the current sweep
  std::istringstream in{std::string(text)};
  std::string raw;
  int textline = 0, lineno = 0;
  while (std::getline(in, raw)) {
    ++textline; // the file's line number: past a run's preamble its text continues at the file's first_line
    lineno = hints.first_line > 0 && textline > hints.preamble_lines ? textline - hints.preamble_lines + hints.first_line - 1 : textline;
    const std::string where = fmt::format("{}:{}", origin, lineno);
    if (raw.find('\0') != std::string::npos) fail("{}: binary data, not an nccl-tests output", where);
    std::string line = trim(without_ray_prefix(raw));
    if (line.empty()) continue;
    parse_collnet_facts(line, t, where);
    // A Markdown table a chat tool or a notebook made of the output: "| size | count | type | ... |" and its rows. Read
    // as the table's words once its own header, or the '#' column header above it, says which cells are which (a
    // pipe table of other columns, ccsim's own --format markdown, is left alone); the "|---|" rule is no row.
    if (line.size() > 1 && line.front() == '|' && line.back() == '|') {
      std::vector<std::string> cells;
      for (std::size_t at = 1; at < line.size();) {
        const auto bar = line.find('|', at);
        cells.push_back(trim(std::string_view(line).substr(at, bar - at)));
        at = bar + 1;
      }
      const bool rule = std::all_of(line.begin(), line.end(), [](char c) { return c == '|' || c == '-' || c == ':' || c == ' '; });
      if (cells.size() > 1 && cells[0] == "size" && cells[1] == "count") pipe_table = true;
      std::string words;
      for (const auto& c : cells) words += (words.empty() ? "" : " ") + (c.empty() ? std::string("-") : c);
      if (pipe_table && rule) continue;
      if (pipe_table || (cols && cells.size() == row_words(*cols) && !cells.empty() && is_uint(cells[0]))) {
        if (!pipe_note) t.notes.push_back(fmt::format("line {}: a Markdown table ('|' between cells), read as nccl-tests' columns", lineno));
        pipe_note = true;
        line = words;
      }
    }
    // mpirun --tag-output prefix "[1,0]<stdout>:" (before the srun one)
    if (line[0] == '[') {
      const auto close = line.find("]<std");
      const auto colon = close == std::string::npos ? close : line.find(">:", close);
      if (colon != std::string::npos) line = trim(line.substr(colon + 2));
      if (line.empty()) continue;
      // A row nccl-tests printed in three pieces (its size columns, then each time/algbw/busbw set) comes out of
      // mpirun --tag-output with the tag before every piece: "-1[1,0]<stdout>:    85.70 ...". The tag is not data.
      if (colon != std::string::npos && std::isdigit(static_cast<unsigned char>(line[0]))) line = without_inner_tags(line);
    }
    // a bare srun task prefix on an empty line ("0:")
    if (line.size() >= 2 && line.back() == ':' && is_uint(line.substr(0, line.size() - 1))) continue;
    // srun/mpirun task prefix "0: "
    {
      const auto sp = line.find_first_of(" \t");
      if (sp != std::string::npos && sp >= 2 && line[sp - 1] == ':' && is_uint(line.substr(0, sp - 1)))
        line = trim(line.substr(sp));
    }
    if (line[0] == '#' && cols) {
      const auto tk = tokens(std::string_view(line).substr(1));
      if (tk.size() + 1 >= cols->names.size() && tk.size() <= cols->names.size() && is_uint(tk[0]) && is_uint(tk[1])) {
        t.notes.push_back(fmt::format("line {} read as a row: the table row is printed behind '#'", lineno));
        line = trim(std::string_view(line).substr(1));
      }
    }
    if (line[0] == '#') {
      const std::string body = trim(std::string_view(line).substr(1));
      if (!table_started) t.provenance.push_back(line);
      all_header += body + "\n";
      const auto tk = tokens(body);
      if (tk.empty()) continue;
      if (!cols && !is_column_header(tk)) half_banner = body;
      if (starts_with(body, "hardware:") && t.hardware.empty()) t.hardware = trim(body.substr(9));
      else if (starts_with(body, "Collective test starting:") && banner_line.empty()) banner_line = body;
      else if (starts_with(body, "op:") && op_line.empty()) op_line = body;
      else if (starts_with(body, "command:") && command_line.empty()) command_line = body;
      else if (starts_with(body, "run as:") && run_as_line.empty()) run_as_line = body;
      else if (tk[0] == "nThread" && tk.size() > 1 && is_uint(tk[1])) { // nccl-tests' "# nThread <n> nGpus <n> ...", not prose
        for (std::size_t i = 0; i + 1 < tk.size(); i += 2) {
          std::string k = tk[i];
          if (!k.empty() && k.back() == ':') k.pop_back();
          t.header_values[k] = tk[i + 1];
        }
        // Rank counts come from these two (here and in compare's launch overhead): whole and in range.
        for (const char* k : {"nThread", "nGpus"})
          if (t.header_values.count(k)) {
            const int v = checked_int(t.header_values[k], k, where);
            if (v < 1 || v > kMaxRanks) fail("{}: {} {} is not in 1..{}", where, k, v, kMaxRanks);
          }
      } else if (tk[0] == "Rank" && tk.size() > 1 && is_uint(tk[1]) && body.find(" device ") != std::string::npos) {
        const int rank = checked_int(tk[1], "rank", where);
        if (rank >= kMaxRanks) fail("{}: rank {} is more than the {} ranks ccsim handles", where, rank, kMaxRanks);
        device_ranks = std::max(device_ranks, rank + 1);
        if (const auto on = std::find(tk.begin(), tk.end(), "on"); on != tk.end() && on + 1 != tk.end() && device_hosts.size() < 65536)
          device_hosts.insert(*(on + 1));
      } else if (is_column_header(tk)) {
        read_columns(tk, where);
      } else if (table_started && is_closing_line(body)) {
        table_done = true;
        read_out_of_bounds(body, t);
      }
      continue;
    }
    // rccl-tests prints the library's release without '#' ("RCCL version : 2.27.7-HEAD:0d2c4fd"), and so does NCCL at
    // NCCL_DEBUG=VERSION or WARN ("NCCL version 2.28.7+cuda13.0": src/init.cc showVersion, VERSION() not INFO()): kept
    // with the header's lines, where the release is looked for (nccl_version_in); a header's own line comes first.
    if (!table_started && (starts_with(line, "RCCL version") || starts_with(line, "NCCL version "))) t.provenance.push_back(line);
    parse_env_facts(line, t);
    if (line.find("NCCL INFO") != std::string::npos) { // NCCL log lines (commented-out ones are provenance)
      parse_ring_line(line, t.ring_hops, where);
      parse_info_facts(line, t.info, where);
      continue;
    }
    if (line.find("NCCL WARN") != std::string::npos) continue; // a warning printed between rows is not a row
    if (is_mpi_help_notice(line)) continue; // mpirun's "8 more processes have sent help message ..." between rows
    if (is_test_failure(line)) { // the run died here: the rows above (if any) are what it measured
      if (!failure) failure = fmt::format("line {}: '{}'", lineno, line.substr(0, 60));
      if (table_started && !table_done) t.notes.push_back(fmt::format("the run stopped at line {} ({}): the rows above are all it measured", lineno, line.substr(0, 60)));
      table_done = true;
      continue;
    }
    const auto tk = tokens(line);
    if (is_column_header(tk) && !table_started) { // a paste that lost its '#'s
      read_columns(tk, where);
      continue;
    }
    // "1,048,576  262,144  float ...": a row whose size a spreadsheet or a locale grouped by thousands. Refused by its
    // line (it read as free text: no row at all, or "expected a table row" halfway down).
    if (tk.size() >= 6 && is_grouped_uint(tk[0]) && (is_uint(tk[1]) || is_grouped_uint(tk[1])))
      fail("{}: size '{}' is not a whole number{}", where, tk[0], locale_number_hint(tk[0]));
    if (!is_uint(tk[0])) {
      if (is_closing_line(line)) { // "Out of bounds values : 0 OK" without its '#'
        table_done = table_started;
        if (table_started) read_out_of_bounds(line, t);
        continue;
      }
      if (table_started && !table_done && is_elision(line)) { // a page's "..." for rows it left out
        t.notes.push_back(fmt::format("line {}: '{}' stands for rows the copy left out", lineno, line.substr(0, 12)));
        continue;
      }
      // Free text (warnings, banners) is allowed only before the table and after its closing lines; inside it
      // is a broken row. A shell prompt after the output ("$", "root@host:~/nccl-tests#" in a blog copy) ends nothing.
      if (table_started && !table_done && !shell_prompt(tk.front()))
        fail("{}: expected a table row (size count type ...), got '{}'", where, line.substr(0, 40));
      if (prompt_line.empty() && find_perf_word(line)) prompt_line = line;
      if (!cols) half_banner = line;
      continue;
    }
    table_started = true;
    MeasuredRow r;
    try {
      if (cols) {
        bool short_row = false;
        r = row_from_header(tk, *cols, where, &short_row);
        if (short_row && !first_short_row) first_short_row = where + fmt::format(": row has {} columns but the header names {}", tk.size(), cols->names.size());
      } else {
        bool rc = false, ro = false;
        r = row_by_shape(tk, where, rc, ro);
        if (shaped && (rc != shape_redop || ro != shape_root)) fail("{}: row shape differs from the rows above", where);
        shaped = true, shape_redop = rc, shape_root = ro;
        t.has_redop_column = rc, t.has_root_column = ro;
      }
    } catch (const Error& e) {
      // The last line with no line end after it: the file stops inside a row (a job killed mid-write, a copy cut short).
      if (in.eof()) fail("{} (the file ends inside this row, with no line end: cut short?)", e.what());
      throw;
    }
    if (!r.out_of_place && !r.in_place) fail("{}: row has no time column", where);
    r.line = lineno;
    if (!t.rows.empty()) {
      // One table may hold several size sweeps: nccl-tests -d all / -o all / -r -1 loop TimeTest over types,
      // reductions or roots (*RunTest), and -N (rccl-tests -s) prints the sweep again from minBytes.
      const auto& above = t.rows.back();
      const bool other_kind = r.type != above.type || r.redop != above.redop || r.root != above.root;
      const bool again = r.size < above.size && r.size == sweep_first_size;
      if (other_kind || again) ++sweep, sweep_first_size = r.size;
      else if (r.size < above.size)
        fail("{}: size {} is smaller than the row above ({}); sizes must not decrease", where, r.size, above.size);
    } else {
      sweep_first_size = r.size;
    }
    r.sweep = sweep;
    t.rows.push_back(std::move(r));
  }

  t.sweeps = sweep + 1;
  if (cputime) {
    // -C 1 prints the CPU time per call, read before the collectives complete (common.cu BenchTime): with
    // blocking collectives (-z, each call waited for) that is their duration, without it the launch time.
    if (all_header.find("Blocking Enabled") == std::string::npos)
      fail("{}: the time columns are 'cputime' (nccl-tests -C 1 without -z): the CPU time to launch a collective, not "
           "its duration; compare a run without -C 1",
           origin);
    t.notes.push_back("time columns are 'cputime' (-C 1) of blocking collectives (-z): read as their duration");
  }
  if (counts::times_in_ms(t.rows)) { // a 2017 table (ms) pasted without its header: time x algbw says so
    for (auto& r : t.rows)
      for (auto* h : {&r.out_of_place, &r.in_place})
        if (*h) (*h)->time_us *= 1000;
    t.notes.push_back("times read as ms (size = algbw x time x 1e6 on every row where algbw >= 1 GB/s: nccl-tests' 2017 "
                      "tables printed ms)");
  }

  // alltoallv_perf (nccl-tests 2.19, c466505) sends each peer a different amount (distance-weighted, or a matrix
  // file) and prints algbw from the busiest rank's bytes: no collective ccsim models, and not alltoall's numbers.
  if (!(hints.force && hints.op))
    for (const auto* s : {&banner_line, &op_line, &command_line, &prompt_line, &all_header})
      if (const auto at = s->find("alltoallv_perf"); at != std::string::npos && (at == 0 || !word_char((*s)[at - 1])))
        fail("{}: alltoallv_perf (per-peer sizes differ, NCCL_TESTS_ALLTOALLV_*): ccsim models no alltoallv, and its rows are "
             "not alltoall's",
             origin);

  // The collective.
  if (hints.force && hints.op) t.op = hints.op, t.op_from = "--op";
  if (!t.op && !banner_line.empty()) { // what the binary printed beats what a collector wrote about it
    if (auto o = find_op(banner_line)) t.op = o, t.op_from = "nccl-tests banner";
  }
  if (!t.op && !op_line.empty()) {
    if (auto o = find_op(op_line)) t.op = o, t.op_from = "op: header line";
  }
  if (!t.op && !command_line.empty()) {
    if (auto o = find_op(command_line)) t.op = o, t.op_from = "command: header line";
  }
  if (!t.op && !prompt_line.empty()) { // the command the run was started with beats a provenance line mentioning another test
    t.op = find_perf_word(prompt_line), t.op_from = "command line before the table";
  }
  if (!t.op) {
    if (auto o = find_perf_word(all_header)) {
      t.op = o;
      for (const auto& [w, op] : op_words())
        if (op == *o) t.op_from = "header mentions " + w + "_perf";
    }
  }
  if (!t.op && hints.op) t.op = hints.op, t.op_from = "--op";
  if (!t.op) {
    std::string why;
    if (auto o = op_from_columns(t.rows, why)) t.op = o, t.op_from = why;
  }
  // hypercube_perf and old alltoall_perf builds print an empty redop: their rows are one word short.
  if (first_short_row && t.op != schedule::Op::HyperCube && t.op != schedule::Op::AllToAll)
    fail("{}{}", *first_short_row, t.op ? "" : " (an old alltoall_perf prints no redop: pass --op alltoall)");

  // The rank count.
  for (const auto* s : {&op_line, &command_line})
    if (!g_flag)
      if (const auto g = ngpus_option(*s)) {
        if (g->value < 1 || g->value > kMaxRanks) // strtol saturates beyond long: say so rather than print LONG_MAX
          fail("{}: '{}' in the header is not 1..{} GPUs ({})", origin, g->text, kMaxRanks,
               g->value == LLONG_MAX || g->value == LLONG_MIN ? std::string("beyond 64 bits")
                                                              : fmt::format("nccl-tests' strtol reads it as {}", g->value));
        g_flag = static_cast<int>(g->value);
      }
  // size/count ratio of the rows: 1 for allreduce-like tests, n for allgather/reducescatter/alltoall
  int ratio = 0;
  std::optional<std::string> mixed; // the first row whose ratio differs from the rows above
  std::vector<MeasuredRow> kept;
  std::vector<Bytes> elt_of;  // per kept row: element size (0 when size or count is 0)
  std::vector<int> ratio_of; // per kept row: size / (count x elt)
  for (const auto& r : t.rows) {
    if (r.count == 0 || r.size == 0) {
      kept.push_back(r);
      elt_of.push_back(0);
      ratio_of.push_back(0);
      continue;
    }
    const Bytes elt = counts::elt_bytes(r.type);
    if (elt == 0) fail("{}:{}: unknown data type '{}'", origin, r.line, r.type);
    // count x elt may not fit in 64 bits: compare by division first.
    if (r.count > r.size / elt || r.size % (r.count * elt) != 0) {
      // A mistyped count (a hand-copied table): when nccl-tests' own time and algbw columns confirm the
      // size, the count is the bad column; the row is left out with a note, the other rows stand.
      if (!counts::size_confirmed_by_row(r)) fail("{}:{}: size {} is not a multiple of count {} x {} B", origin, r.line, r.size, r.count, elt);
      t.notes.push_back(fmt::format("line {} skipped: count {} does not fit size {} ({} B elements), which the row's own time and algbw confirm",
                                    r.line, r.count, r.size, elt));
      continue;
    }
    kept.push_back(r);
    const Bytes q64 = r.size / (r.count * elt);
    if (q64 > static_cast<Bytes>(kMaxRanks))
      fail("{}:{}: size {} is {} x count x {} B, more than the {} ranks ccsim handles", origin, r.line, r.size, q64, elt, kMaxRanks);
    const int q = static_cast<int>(q64);
    elt_of.push_back(elt);
    ratio_of.push_back(q);
    if (ratio != 0 && q != ratio && !mixed)
      mixed = fmt::format("{}:{}: size/count ratio {} differs from the rows above ({})", origin, r.line, q, ratio);
    if (ratio == 0) ratio = q;
  }
  if (mixed) ratio = 0; // says no rank count; the rows are checked against the op's definition below
  if (kept.empty() && !t.rows.empty()) fail("{}: every row's count contradicts its size ({})", origin, t.notes.front());
  t.rows = std::move(kept);
  t.hosts = static_cast<int>(device_hosts.size());
  // The ranks the launch line before the table starts (mpirun -np 1024 ... -g 1): its processes x GPUs per process. A
  // count the rows' busbw/algbw print leaves open (many ranks, a device list cut short) is taken as this one when the
  // rows agree with it, as with --ranks (which wins when given).
  const int launched = [&] {
    const int procs = launched_processes(prompt_line, origin);
    if (procs <= 0) return 0;
    long per = 1;
    if (t.header_values.count("nGpus") && t.header_values.count("nThread"))
      per = static_cast<long>(checked_int(t.header_values["nGpus"], "nGpus", origin)) * checked_int(t.header_values["nThread"], "nThread", origin);
    else if (const auto g = ngpus_option(prompt_line); g && g->value >= 1 && g->value <= kMaxRanks)
      per = static_cast<long>(g->value);
    return per >= 1 && procs * per <= kMaxRanks ? static_cast<int>(procs * per) : 0;
  }();
  const Hints h = hints.ranks > 0 ? hints : Hints{hints.op, launched, hints.force};
  if (hints.force && hints.ranks > 0) t.ranks = hints.ranks, t.ranks_from = "--ranks";
  // A device list with lines elided ("...") shows fewer ranks than the rows' own busbw/algbw ratio says.
  else if (const int beyond_list = device_ranks > 0 ? counts::ranks_from_busbw(t, h.ranks) : 0; beyond_list > device_ranks)
    t.ranks = beyond_list, t.ranks_from = fmt::format("busbw/algbw ratio (the device list shows {})", device_ranks);
  else if (device_ranks > 0) t.ranks = device_ranks, t.ranks_from = "device list";
  // The run's own busbw/algbw ratio (2(n-1)/n, (n-1)/n) before a header's -g: in a file of several runs
  // the shared header's -g belongs to one run (and under mpirun it counts GPUs per process).
  else if (const int from_bw = counts::ranks_from_busbw(t, h.ranks); g_flag && from_bw > 1 && from_bw != *g_flag) t.ranks = from_bw, t.ranks_from = "busbw/algbw ratio";
  else if (g_flag) t.ranks = *g_flag, t.ranks_from = "-g flag in the header";
  else if (ratio > 1) t.ranks = ratio, t.ranks_from = "size/count ratio";
  else if (t.header_values.count("nGpus") && t.header_values.count("nThread") && command_line.find("mpirun") == std::string::npos &&
           command_line.find("srun") == std::string::npos && hints.ranks <= 0 && launched <= 0) {
    const int gpus = checked_int(t.header_values["nGpus"], "nGpus", origin);
    const int threads = checked_int(t.header_values["nThread"], "nThread", origin);
    if (gpus < 1 || threads < 1 || static_cast<long>(gpus) * threads > kMaxRanks)
      fail("{}: nThread {} x nGpus {} is not in 1..{} ranks", origin, threads, gpus, kMaxRanks);
    t.ranks = gpus * threads;
    t.ranks_from = "nThread*nGpus (single process)";
    // nThread x nGpus counts one process's GPUs: a multi-process run whose mpirun/srun line the paste left out
    // shows its rank count only in the rows (1 rank would print busbw 0).
    if (const int rows_ranks = counts::ranks_from_busbw(t, h.ranks); rows_ranks > 1 && rows_ranks != t.ranks) {
      t.ranks = rows_ranks;
      t.ranks_from = fmt::format("busbw/algbw ratio (nThread {} x nGpus {} counts one process's GPUs; no launch line)", threads, gpus);
    }
  } else if (const int n = counts::ranks_from_busbw(t, h.ranks); n > 1) t.ranks = n, t.ranks_from = "busbw/algbw ratio";
  else if (hints.ranks > 0) t.ranks = hints.ranks, t.ranks_from = "--ranks";
  else if (launched > 0) t.ranks = launched, t.ranks_from = "the launch line (processes x GPUs per process)";

  // GPUs per thread where the nThread line is missing (a paste of the table alone): the -g the command lines set, when
  // they agree and the value divides the rank count (one process drives -g GPUs per thread; several processes under
  // mpirun each drive as many).
  if (!t.header_values.count("nGpus")) {
    std::set<long long> named;
    for (const auto* s : {&command_line, &run_as_line, &prompt_line})
      if (const auto g = ngpus_option(*s)) named.insert(g->value);
    if (named.size() == 1 && *named.begin() >= 1 && *named.begin() <= kMaxRanks && (t.ranks <= 0 || t.ranks % *named.begin() == 0))
      t.command_ngpus = static_cast<int>(*named.begin());
  }

  if (t.op && t.ranks > 0) counts::read_size_where_count_contradicts(t, elt_of, ratio_of, origin);
  else if (mixed) fail("{}", *mixed);
  // 2019 all_gather/reduce_scatter builds printed algbw = size*(n-1)/n/time.
  if (t.ranks > 1 && t.op != schedule::Op::HyperCube) { // hypercube's algbw is (n-1)/n x size / time by definition
    int old_votes = 0, new_votes = 0;
    const double f = static_cast<double>(t.ranks - 1) / t.ranks;
    for (const auto& r : t.rows) {
      if (!r.out_of_place || r.out_of_place->time_us <= 0) continue;
      const double s_over_t = static_cast<double>(r.size) / 1e3 / r.out_of_place->time_us;
      if (s_over_t < 1.0) continue; // printed with 2 decimals: too coarse below 1 GB/s
      const double rel = r.out_of_place->algbw / s_over_t;
      if (std::abs(rel - f) < 0.02 && std::abs(rel - 1.0) >= 0.02) ++old_votes;
      else if (std::abs(rel - 1.0) < 0.02) ++new_votes;
    }
    t.old_busbw_convention = old_votes > 0 && new_votes == 0;
  }
  if (t.rows.empty() && t.ring_hops.empty() && failure) fail("{}: the run failed before its first row ({})", origin, *failure);
  if (t.rows.empty() && t.ring_hops.empty()) {
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) fail("{}: the file is empty", origin);
    fail("{}: no nccl-tests rows and no NCCL ring lines found", origin);
  }
  return t;
}

std::string wrong_results(const Trace& t) {
  int rows = 0;
  double most = 0;
  Bytes lo = 0, hi = 0;
  bool checked = false; // a row's #wrong is a number: nccl-tests checked (-c 1); "N/A" is -c 0
  for (const auto& r : t.rows) {
    double w = 0;
    for (const auto* h : {&r.out_of_place, &r.in_place})
      if (*h && is_number((*h)->wrong)) checked = true, w = std::max(w, std::strtod((*h)->wrong.c_str(), nullptr));
    if (!(w > 0)) continue;
    if (rows++ == 0) lo = r.size;
    hi = r.size, most = std::max(most, w);
  }
  if (rows > 0)
    // The 2019 format (no root column) names the column "error" and prints the largest error, not a count.
    return fmt::format("{} above 0 on {} row{}, {} ({:g} at most)", t.has_root_column ? "#wrong" : "error", rows, rows == 1 ? "" : "s",
                       lo == hi ? format_size(lo) : format_size(lo) + ".." + format_size(hi), most);
  // The closing line counts every row of the table; where the rows say each is right (a table of several sweeps, this
  // run one of them), they are this run's word.
  if (!checked && t.out_of_bounds > 0) return fmt::format("'Out of bounds values : {:g} FAILED'", t.out_of_bounds);
  return "";
}

Trace load_trace(const std::string& path, const Hints& hints) {
  if (std::error_code ec; std::filesystem::is_directory(path, ec)) fail("--trace {}: is a directory, not a trace file", path);
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("--trace {}: cannot open", path);
  note_input(path); // never an output of this run (output_files.hpp)
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string body = ss.str();
  normalise_pasted_text(body); // a BOM, no-break spaces: a Windows editor's or a chat tool's copy
  return parse_trace(body, path, hints);
}

std::vector<RingChain> ring_chains(const std::vector<RingHop>& hops) {
  std::map<int, std::map<int, int>> next; // channel -> src -> dst (duplicates from send/receive lines merge)
  for (const auto& h : hops) next[h.channel][h.src] = h.dst;
  std::vector<RingChain> out;
  for (auto& channel_next : next) { // not a structured binding: `walk` uses both (clang 14)
    const int ch = channel_next.first;
    auto& nx = channel_next.second;
    std::set<int> has_pred;
    for (auto& [s, d] : nx) has_pred.insert(d);
    std::set<int> seen;
    auto walk = [&](int start) {
      RingChain c;
      c.channel = ch;
      int cur = start;
      while (!seen.count(cur)) {
        seen.insert(cur);
        c.ranks.push_back(cur);
        auto it = nx.find(cur);
        if (it == nx.end()) break;
        if (it->second == start) {
          c.closed = true;
          break;
        }
        cur = it->second;
      }
      out.push_back(std::move(c));
    };
    for (auto& [s, d] : nx)
      if (!has_pred.count(s) && !seen.count(s)) walk(s);
    for (auto& [s, d] : nx)
      if (!seen.count(s)) walk(s);
  }
  return out;
}

} // namespace ccsim::trace
