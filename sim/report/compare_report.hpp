// ccsim compare's output: measured beside predicted, per row, as a table, CSV or JSON.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/model/compare.hpp"
#include "sim/report/report.hpp"

namespace ccsim::report {

nlohmann::ordered_json compare_json(const model::CompareResult& r, const model::CompareMeta& m);
std::string compare_table(const model::CompareResult& r, const model::CompareMeta& m);
std::string compare_csv(const model::CompareResult& r, const model::CompareMeta& m);
std::string compare_markdown(const model::CompareResult& r, const model::CompareMeta& m);

// `ccsim compare --trace A B ...` or `--trace DIR`: one line per run of every file, against one machine, with a
// verdict for a script (a cluster's acceptance check).
struct SummaryEntry {
  std::string file;
  int run = 0, runs = 0;  // the run (1-based) and the file's run count; 0 when the file could not be read
  std::string error;      // the one-line refusal where this file (or run) could not be compared
  std::string op;
  int ranks = 0;
  model::Health health;
  std::string why;        // the bandwidth band's line: what bounds the prediction, what to check
  std::string wrong;      // nccl-tests found wrong results (trace::wrong_results): the run fails whatever its bandwidth
};
struct SummaryHead {
  std::string topology, model, params; // as given (--topo), the model and the parameter set's label
  double healthy_pct = 80;             // --healthy
  std::vector<std::string> skipped;     // folders inside a --trace folder, not searched
};
// Failed: nccl-tests' own check found wrong values (#wrong above 0, "Out of bounds values : N FAILED").
enum class Verdict { Ok, Below, NoVerdict, Error, Failed };
Verdict verdict_of(const SummaryEntry& e, double healthy_pct);
// 2 when a file could not be compared, else 1 when a run is below --healthy or failed nccl-tests' check, else 0.
int summary_status(const std::vector<SummaryEntry>& entries, double healthy_pct);
std::string compare_summary(const std::vector<SummaryEntry>& entries, const SummaryHead& head, Format f);

} // namespace ccsim::report
