// Files that hold several nccl-tests runs (a scaling study: `====== 2-node ======` echo markers,
// `# === RUN` notes, or one full output after another with its own header). Each run is parsed on its
// own, after the file's common preamble (the `# ` provenance lines before the first run), so its rank
// count comes from its own device list, header or busbw/algbw ratio.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::trace {

// The texts of the runs in `text`, each with the common preamble in front; one element when the file
// holds a single run.
std::vector<std::string> split_runs(std::string_view text);
// The same runs with where each sits in the file: its text's first `preamble_lines` lines are the file's first lines
// (the common preamble), the rest the file's lines from `first_line` on (1-based), so a message names the file's line.
struct RunText {
  std::string text;
  int preamble_lines = 0, first_line = 1;
};
// More than 1 GiB of run texts in all (the preamble copied into every run) is an Error naming `origin`.
std::vector<RunText> split_runs_at(std::string_view text, const std::string& origin = "the trace");

// The size sweeps of one table (Trace::sweeps; nccl-tests -d all / -o all / -r -1 / -N) as traces of their own,
// each with the table's header facts and a note saying which sweep it is; `t` itself when it has one.
std::vector<Trace> split_sweeps(Trace t);

// Every run of the file at `path` (nccl-tests output or a ccsim output), in file order; with `only` > 0
// (1-based) the run of that number alone (one that is not there is an error).
std::vector<Trace> load_trace_runs(const std::string& path, const Hints& hints = {}, int only = 0);

// The one run of the file at `path` (load_trace_runs' readers, same order); a file of several runs is an error
// that says to pick one with --run N.
Trace load_one_trace(const std::string& path, const Hints& hints = {});

} // namespace ccsim::trace
