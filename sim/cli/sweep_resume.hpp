// Resuming a sweep: the points already finished, read back from the journal an interrupted run left
// beside its output (one JSON line per finished point, appended as points finish) and from a finished
// output file itself. Rows are keyed by what the point runs (point_key), so a point keeps its rows
// even when the plan around it changed.
#pragma once
#include <map>
#include <mutex>
#include <string>

#include "sim/cli/sweep_plan.hpp"
#include "sim/report/sweep_table.hpp"

namespace ccsim::cli {

using FinishedPoints = std::map<std::string, report::SweepCells>;

// "<output>.ccsim-journal"
std::string journal_path(const std::string& output);
// Rows found in the journal and in an existing output file (CSV or JSON lines as `ccsim sweep` writes
// them; anything else, and a torn last line, is ignored).
FinishedPoints read_finished(const SweepPlan& plan, const std::string& output);

// Appends one line per finished point, each with a single write(), so an interruption leaves whole
// lines plus at most one torn line (which read_finished skips).
class Journal {
 public:
  explicit Journal(const std::string& path); // "" = no journal (output to stdout)
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  void append(const std::string& key, const report::SweepCells& cells);
  void remove(); // after the output file was published

 private:
  std::string path_;
  int fd_ = -1;
  std::mutex mutex_;
};

} // namespace ccsim::cli
