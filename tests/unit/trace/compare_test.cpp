// compare: measured busbw recomputed from size/time with the nccl-tests factors (so the 2019
// algbw = busbw files line up), signed errors, medians, and the JSON keys scripts rely on.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "sim/core/data_dir.hpp"
#include "sim/model/compare.hpp"
#include "sim/report/compare_report.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

namespace {

// The median by its definition, written independently of model::median (no sort): the lower and upper
// middle elements are the values with at most (n-1)/2, resp. n/2, elements strictly below them and more
// than that at or below them.
double median_by_counting(const std::vector<double>& v) {
  const std::size_t n = v.size();
  auto middle = [&](std::size_t k) {
    for (double x : v) {
      std::size_t below = 0, at_or_below = 0;
      for (double y : v) below += y < x, at_or_below += y <= x;
      if (below <= k && k < at_or_below) return x;
    }
    return std::nan("");
  };
  return (middle((n - 1) / 2) + middle(n / 2)) / 2;
}

} // namespace

TEST_CASE("model::median of hand-checked lists") {
  CHECK(model::median({7.0}) == 7.0);
  CHECK(model::median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(model::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(model::median({5.0, 5.0, 1.0, 9.0}) == 5.0);
  CHECK(std::isnan(model::median({})));
  CHECK(median_by_counting({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(median_by_counting({5.0, 5.0, 1.0, 9.0, 9.0}) == 5.0);
}

TEST_CASE("compare on the konnase DGX-1V trace: rows, errors, medians, JSON keys") {
  const auto topo = topology::resolve_topology("dgx1-v100");
  const auto tr = trace::load_trace(ccsim::data_dir() + "/models/traces/dgx1-v100-8gpu-allreduce-konnase.txt");
  metrics::RunConfig cfg;
  cfg.placements = topology::pack_rings(topo, {}).rings;
  model::Predictor p(topo, cfg, "nccl", {});
  const auto r = model::compare(tr, p, false);
  REQUIRE(r.rows.size() == 25);
  std::vector<double> all, ge;
  for (const auto& x : r.rows) {
    // measured busbw = size/time * 2(n-1)/n, matching the printed column to its 2 decimals
    CHECK(x.measured_busbw == doctest::Approx(static_cast<double>(x.size) / 1e3 / x.measured_time_us * 1.75));
    CHECK(x.err_pct == doctest::Approx((x.predicted_busbw - x.measured_busbw) / x.measured_busbw * 100));
    all.push_back(std::abs(x.err_pct));
    if (x.size >= (1u << 20)) ge.push_back(std::abs(x.err_pct));
  }
  CHECK(r.rows.back().measured_busbw == doctest::Approx(129.14).epsilon(0.001));
  CHECK(r.median_abs_err_all == doctest::Approx(median_by_counting(all)));
  CHECK(r.median_abs_err_ge_1MiB == doctest::Approx(median_by_counting(ge)));
  CHECK(r.n_ge_1MiB == 8);
  CHECK(r.rows[17].pred.proto == "LL128"); // 1 MiB, as in reference 3.7
  model::CompareMeta m;
  m.op = "allreduce";
  const auto j = report::compare_json(r, m);
  for (const char* k : {"size", "measured_busbw", "predicted_busbw", "err_pct", "proto", "channels"}) CHECK(j["rows"][0].contains(k));
  CHECK(j["summary"]["median_abs_err_pct_ge_1MiB"].get<double>() == doctest::Approx(r.median_abs_err_ge_1MiB));
  CHECK(j["summary"]["median_abs_err_pct_all"].get<double>() == doctest::Approx(r.median_abs_err_all));
}

TEST_CASE("2019 allgather convention: measured busbw equals the printed busbw column") {
  const auto tr = trace::load_trace(ccsim::data_dir() + "/models/traces/dgx2-v100-12of16gpu-allgather-dgx2fork.txt");
  const auto topo = topology::make_crossbar(12, 150'000'000'000, 600'000);
  metrics::RunConfig cfg;
  cfg.op = schedule::Op::AllGather;
  cfg.placements = {{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}};
  model::Predictor p(topo, cfg, "fifo", {});
  const auto r = model::compare(tr, p, true);
  CHECK(r.skipped == 3); // the three size-0 rows
  for (const auto& x : r.rows) {
    const auto& row = *std::find_if(tr.rows.begin(), tr.rows.end(), [&](const auto& m) { return m.size == x.size; });
    if (row.in_place->busbw >= 1.0) CHECK(x.measured_busbw == doctest::Approx(row.in_place->busbw).epsilon(0.01));
  }
}
