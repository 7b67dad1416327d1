// compare over many files (a cluster's runs): the health of a run and the verdict and exit status of the summary
// (sim/model/compare_bounds.cpp health_of, sim/report/compare_report.cpp verdict_of / summary_status). Expected
// values worked by hand from the rule as `ccsim compare --help` states it: a run is healthy when its measured busbw
// is at least --healthy percent of the prediction, the median over the bandwidth-bound rows (predicted busbw at
// least half the run's peak) of 1 MiB and more; exit 2 when a file could not be compared, else 1 when a run is
// below, else 0. Written for a mutation pass (scripts/MUTANTS.md): each check fails on one plausible slip.
#include <doctest/doctest.h>

#include <vector>

#include "sim/model/compare.hpp"
#include "sim/report/compare_report.hpp"

using namespace ccsim;
using report::Verdict;

namespace {

model::CompareRow summary_row(Bytes size, double predicted_busbw, double measured_busbw) {
  model::CompareRow r;
  r.size = size;
  r.predicted_busbw = predicted_busbw;
  r.measured_busbw = measured_busbw;
  return r;
}

report::SummaryEntry summary_entry(double ratio, int rows = 3, const std::string& error = "") {
  report::SummaryEntry e;
  e.file = "run.txt";
  e.run = e.runs = 1;
  e.error = error;
  e.health.rows = rows;
  e.health.ratio = ratio;
  return e;
}

} // namespace

TEST_CASE("compare summary: a run's health is the median measured/predicted over bandwidth-bound rows of 1 MiB and more") {
  model::CompareResult r;
  constexpr Bytes MiB = Bytes{1} << 20;
  r.rows = {
      summary_row(MiB / 2, 100, 10), // below 1 MiB: out, however slow
      summary_row(MiB, 100, 90),     // exactly 1 MiB: in (0.9)
      summary_row(2 * MiB, 40, 4),   // predicted 40 < half the peak 100: the latency band, out
      summary_row(4 * MiB, 100, 70), // 0.7
      summary_row(8 * MiB, 100, 80), // 0.8
  };
  const auto h = model::health_of(r);
  CHECK(h.rows == 3);
  CHECK(h.lo == MiB);
  CHECK(h.hi == 8 * MiB);
  CHECK(h.ratio == doctest::Approx(0.8)); // median of 0.9, 0.7, 0.8
  model::CompareResult small;
  small.rows = {summary_row(MiB / 4, 50, 50), summary_row(MiB / 2, 100, 100)};
  CHECK(model::health_of(small).rows == 0); // no row of 1 MiB: no verdict
}

TEST_CASE("compare summary: at exactly --healthy percent a run is healthy, below it is not") {
  CHECK(report::verdict_of(summary_entry(0.5), 50) == Verdict::Ok); // "at least this percentage"
  CHECK(report::verdict_of(summary_entry(0.25), 50) == Verdict::Below);
  CHECK(report::verdict_of(summary_entry(0.25, 0), 50) == Verdict::NoVerdict);
  CHECK(report::verdict_of(summary_entry(1.0, 3, "cannot read"), 50) == Verdict::Error);
}

TEST_CASE("compare summary: exit status 2 when a file was not compared, whatever the runs around it") {
  const auto ok = summary_entry(1.0), below = summary_entry(0.25), failed = summary_entry(0, 0, "run.txt: no result rows");
  CHECK(report::summary_status({ok}, 50) == 0);
  CHECK(report::summary_status({ok, below}, 50) == 1);
  CHECK(report::summary_status({below, failed}, 50) == 2);
  CHECK(report::summary_status({failed, below}, 50) == 2); // a run below after the failed file does not lower it
  CHECK(report::summary_status({summary_entry(0.25, 0)}, 50) == 0); // no verdict is no failure
}
