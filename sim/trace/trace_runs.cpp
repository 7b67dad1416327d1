#include "sim/trace/trace_runs.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/output_files.hpp"
#include "sim/trace/busbw_summary.hpp"
#include "sim/trace/ccsim_output.hpp"
#include "sim/trace/line_text.hpp"
#include "sim/trace/nccl_tests_json.hpp"
#include "sim/trace/paste_shapes.hpp"
#include "sim/trace/rccl_tests_report.hpp"

namespace ccsim::trace {
using text::trimmed;
using text::starts_with;
namespace {

// Drops Ray's "(head, rank=0, pid=3808) ", then an mpirun --tag-output ("[1,0]<stdout>:") or srun ("0: ") prefix.
std::string_view unprefixed(std::string_view s) {
  s = trimmed(without_ray_prefix(s));
  if (starts_with(s, "[")) {
    const auto close = s.find("]<std");
    const auto colon = close == std::string_view::npos ? close : s.find(">:", close);
    if (colon != std::string_view::npos) s = trimmed(s.substr(colon + 2));
  }
  const auto sp = s.find_first_of(" \t");
  if (sp != std::string_view::npos && sp >= 2 && s[sp - 1] == ':') {
    bool digits = true;
    for (std::size_t i = 0; i + 1 < sp; ++i) digits = digits && std::isdigit(static_cast<unsigned char>(s[i]));
    if (digits) s = trimmed(s.substr(sp));
  }
  return s;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A command line quoted without '#' ("root@host:~# ./build/all_gather_perf -b 8 ...", "$ mpirun ... alltoall_perf"):
// a word ending in "_perf". Blog copies of several tests put one before each output.
bool quotes_a_test(std::string_view l) {
  for (auto pos = l.find("_perf"); pos != std::string_view::npos; pos = l.find("_perf", pos + 1)) {
    const auto end = pos + 5;
    if (pos > 0 && ident_char(l[pos - 1]) && (end == l.size() || !ident_char(l[end]))) return true;
  }
  return false;
}

// A line that opens a run: an echo marker "====== ... ======", a collector's "# === RUN" note, a quoted
// command naming a test, or the first lines nccl-tests prints ("# Collective test starting", "# nThread ...",
// "# Using devices").
bool opens_run(std::string_view l) {
  if (starts_with(l, "======")) return true;
  if (!starts_with(l, "#") && quotes_a_test(l)) return true;
  if (!starts_with(l, "#")) return false;
  const auto body = trimmed(l.substr(1));
  return starts_with(body, "=== RUN") || starts_with(body, "Collective test starting") || starts_with(body, "nThread ") ||
         starts_with(body, "Using devices");
}

// A table row opens with its size, a word of digits: OpenMPI's warning lines "1st MCA variable: ..." and "2nd MCA
// variable: ..." (a job log's preamble) open with a digit too, and counted as rows they split one run in two.
bool is_row(std::string_view l) {
  const auto sp = l.find_first_of(" \t");
  if (l.empty() || sp == std::string_view::npos) return false;
  for (std::size_t i = 0; i < sp; ++i)
    if (!std::isdigit(static_cast<unsigned char>(l[i]))) return false;
  return true;
}

} // namespace

std::vector<std::string> split_runs(std::string_view text) {
  std::vector<std::string> out;
  for (auto& r : split_runs_at(text)) out.push_back(std::move(r.text));
  return out;
}

std::vector<RunText> split_runs_at(std::string_view text, const std::string& origin) {
  std::string preamble, current;
  std::vector<RunText> runs;
  int file_line = 0, preamble_lines = 0, current_first = 1;
  // Each run carries its own copy of the preamble, read again with it: a 1.6 MB file of a 480 KB preamble and 20,000
  // two-line runs made 9.6 GB of run texts (out of memory). Past 256 MiB in all, refused: nccl-tests prints NCCL's INFO
  // lines after its banner, inside a run, so a real job's preamble is a prompt or a few '# ' notes.
  constexpr std::size_t kMaxRunTexts = std::size_t{256} << 20;
  std::size_t total = 0;
  auto add_run = [&] {
    total += preamble.size() + current.size();
    if (total > kMaxRunTexts)
      fail("{}: more than {} runs, each read with the file's {}-byte preamble (the lines before the first run): more than "
           "256 MiB of text; cut the preamble or split the file",
           origin, runs.size(), preamble.size());
    runs.push_back({preamble + current, preamble_lines, current_first});
  };
  // failed: the run printed nccl-tests' failure report (a job's test that died before its first row is complete
  // too: the next test's banner starts a run of its own, not more of the dead one's). concluded: its closing lines
  // came, so a failure report after them is another test's (one that died before printing its banner).
  bool in_run = false, rows_seen = false, failed = false, concluded = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view raw = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++file_line;
    const auto l = unprefixed(raw);
    const bool failure = !starts_with(l, "#") && is_test_failure(l); // a '#' note may quote one (a copy's caveat)
    const bool opener = opens_run(l) || (failure && concluded), row = is_row(l);
    if (!in_run && (opener || row)) {
      in_run = true;
      current_first = file_line;
    } else if (in_run && opener && (rows_seen || failed || concluded)) { // the previous run is complete: a new one starts here
      add_run();
      current.clear();
      current_first = file_line;
      rows_seen = failed = concluded = false;
    }
    // The file's own line end, none after a last line that has none (parse_trace tells a row cut short by it).
    (in_run ? current : preamble).append(raw).append(nl < text.size() ? "\n" : "");
    if (!in_run) ++preamble_lines;
    rows_seen = rows_seen || row;
    failed = failed || (in_run && failure);
    concluded = concluded || (rows_seen && is_closing_line(l) && l.find("Collective test concluded") != std::string_view::npos);
    if (nl == text.size()) break;
  }
  if (in_run) add_run();
  if (runs.empty()) runs.push_back({std::string(text), 0, 1});
  // A file whose "runs" hold no rows but the last (one output with a repeated banner) is one run; a run that died
  // (nccl-tests' failure report) counts as one, so a job's failed test is not folded into the test before it.
  if (runs.size() > 1) {
    int with_rows = 0;
    for (const auto& r : runs) {
      std::istringstream in(r.text);
      std::string line;
      bool rows = false;
      while (std::getline(in, line)) {
        const auto u = unprefixed(line);
        rows = rows || is_row(u) || (!starts_with(u, "#") && is_test_failure(u));
      }
      with_rows += rows;
    }
    if (with_rows < 2) return {{std::string(text), 0, 1}};
  }
  return runs;
}

std::vector<Trace> split_sweeps(Trace t) {
  if (t.sweeps <= 1) return {std::move(t)};
  std::vector<Trace> out;
  for (int k = 0; k < t.sweeps; ++k) {
    Trace one = t;
    one.rows.clear();
    for (const auto& r : t.rows)
      if (r.sweep == k) one.rows.push_back(r);
    if (one.rows.empty()) continue; // every row of it left out (a count that contradicts its size)
    one.sweeps = 1;
    const auto& r = one.rows.front();
    one.notes.push_back(fmt::format("size sweep {} of {} in one table (type {}, redop {}, root {}; nccl-tests -d all, -o all, "
                                    "-r -1 or -N, rccl-tests -s print one after another): read as a run of its own",
                                    k + 1, t.sweeps, r.type, r.redop.empty() ? "-" : r.redop, r.root ? std::to_string(*r.root) : "-"));
    out.push_back(std::move(one));
  }
  return out;
}

std::vector<Trace> load_trace_runs(const std::string& path, const Hints& hints, int only) {
  if (std::error_code ec; std::filesystem::is_directory(path, ec)) fail("--trace {}: is a directory, not a trace file", path);
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("--trace {}: cannot open", path);
  note_input(path); // never an output of this run (output_files.hpp)
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  text::normalise_pasted_text(text); // a BOM, no-break spaces: a Windows editor's or a chat tool's copy
  auto pick = [&](std::vector<Trace> runs) {
    if (only > static_cast<int>(runs.size()))
      fail("--run: {} is not a run of {} (it holds {}: --run {})", only, path, runs.size(),
           runs.size() == 1 ? std::string("1") : fmt::format("1..{}", runs.size()));
    if (only > 0) runs = {std::move(runs[static_cast<std::size_t>(only - 1)])};
    return runs;
  };
  if (text.find('\0') == std::string::npos) { // binary data goes to parse_trace, which names it
    if (auto t = parse_ccsim_output(text, path, hints)) return pick({std::move(*t)});
    if (auto runs = parse_rccl_tests_report(text, path, hints)) return pick(std::move(*runs));
    if (auto runs = parse_busbw_summary(text, path, hints)) return pick(std::move(*runs));
    if (auto table = nccl_tests_json_as_table(text, path)) text = std::move(*table); // nccl-tests -J: read as its table
  }
  const auto parts = split_runs_at(text, path);
  auto origin = [&](std::size_t i) { return parts.size() == 1 ? path : fmt::format("{} (run {} of {})", path, i + 1, parts.size()); };
  // A table of several size sweeps (split_sweeps) counts one run per sweep.
  std::vector<Trace> out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (only > 0 && static_cast<int>(out.size()) >= only) break;
    try {
      Hints at = hints; // a message names the file's line, not the run's
      if (parts.size() > 1) at.preamble_lines = parts[i].preamble_lines, at.first_line = parts[i].first_line;
      for (auto& s : split_sweeps(parse_trace(parts[i].text, origin(i), at))) {
        // Each run carries the file's preamble: a command there (-g 4) may be another run's (a scaling study's
        // single-host run beside its mpirun -g 1 runs), so a run's GPUs per thread come from its own nThread line.
        if (parts.size() > 1) s.command_ngpus = 0;
        out.push_back(std::move(s));
      }
    } catch (const Error& e) {
      // With --run the chosen run alone counts: the hints are for it, and another run's problem is not its.
      if (static_cast<int>(out.size()) + 1 == only || (only <= 0 && parts.size() == 1)) throw;
      out.emplace_back(); // a run that is not the chosen one: counted, not read
      // Every run of a file of several (a job's tests one after another): this one kept with its one-line reason, so
      // the others are still compared and the caller names it (Trace::unreadable).
      if (only <= 0) out.back().origin = origin(i), out.back().unreadable = e.what();
    }
  }
  if (only > 0) return pick(std::move(out));
  if (out.size() > parts.size()) // sweeps made runs: number them as compare shows them
    for (std::size_t i = 0; i < out.size(); ++i) out[i].origin = fmt::format("{} (run {} of {})", path, i + 1, out.size());
  return out;
}

Trace load_one_trace(const std::string& path, const Hints& hints) {
  auto runs = load_trace_runs(path, hints);
  if (runs.size() > 1)
    fail("{}: holds {} runs (outputs one after another, several size sweeps in one table from -d all, -o all, -r -1 or -N, "
         "or rccl-tests -N cycles): pick one with --run N",
         path, runs.size());
  return std::move(runs.front());
}

} // namespace ccsim::trace
