// Named to sort last in tests/unit/model: a new file earlier would move the unity units of the files after it.
// The checked line (issue 14, "A user can check every number"): which measured runs ccsim ships for a machine's
// class, their count and median, or "not checked" and the nearest run. Hand-made evidence; medians worked by hand.
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/model/evidence.hpp"

using namespace ccsim;

namespace {

// Three B200 runs across 2-16 nodes over IB (allreduce), one B200 one-node run, two GB200 runs on 2-3 racks.
const char* kEvidenceRunsJson = R"({"runs": [
 {"table": "models/VALIDATION.md", "file": "b200-a.txt", "gpu": "b200", "hosts": 2, "network": "ib", "op": "allreduce", "ranks": 16,
  "median_abs_err_pct_ge_1MiB": 4.0, "median_abs_err_pct_all": 9.0},
 {"table": "wild table", "file": "b200-b.txt", "gpu": "b200", "hosts": 16, "network": "ib", "op": "allreduce", "ranks": 128,
  "median_abs_err_pct_ge_1MiB": 9.0, "median_abs_err_pct_all": 9.0},
 {"table": "wild table", "file": "b200-c.txt", "gpu": "b200", "hosts": 4, "network": "ib", "op": "allreduce", "ranks": 32,
  "median_abs_err_pct_ge_1MiB": 6.0, "median_abs_err_pct_all": null},
 {"table": "models/HOLDOUT.md", "file": "b200-one.txt", "gpu": "b200", "hosts": 1, "network": "", "op": "allreduce", "ranks": 8,
  "median_abs_err_pct_ge_1MiB": 2.0, "median_abs_err_pct_all": 3.0},
 {"table": "models/VALIDATION.md", "file": "gb200.txt [run 3]", "gpu": "gb200", "hosts": 2, "network": "roce", "op": "allreduce", "ranks": 128,
  "median_abs_err_pct_ge_1MiB": 14.0, "median_abs_err_pct_all": 14.0},
 {"table": "models/VALIDATION.md", "file": "gb200.txt [run 4]", "gpu": "gb200", "hosts": 3, "network": "roce", "op": "allreduce", "ranks": 192,
  "median_abs_err_pct_ge_1MiB": 29.0, "median_abs_err_pct_all": 29.0}
]})";

model::EvidenceClass ev_cls(std::string gpu, int hosts, std::string net, std::string op, int ranks) {
  return {std::move(gpu), hosts, std::move(net), std::move(op), ranks};
}

} // namespace

TEST_CASE("checked line: a class with runs names their count, median and tables") {
  const auto runs = model::parse_evidence(kEvidenceRunsJson, "test");
  // B200 on 8 nodes over IB: inside the measured 2-16 nodes; the three runs' medians 4, 9, 6 -> 6.
  const auto k = model::check(ev_cls("b200", 8, "ib", "allreduce", 64), runs);
  CHECK(k.checked);
  CHECK(k.runs == 3);
  REQUIRE(k.median_ge_1MiB);
  CHECK(*k.median_ge_1MiB == doctest::Approx(6.0));
  CHECK(k.line == "checked: 3 measured runs of this class (B200, 2-16 nodes over IB, allreduce): median |err| 6.0 % >= 1 MiB "
                  "(models/VALIDATION.md, wild table)");
}

TEST_CASE("checked line: 4 GB200 racks, past the 2-3 measured, is not checked and names the nearest") {
  const auto runs = model::parse_evidence(kEvidenceRunsJson, "test");
  const auto k = model::check(ev_cls("gb200", 4, "roce", "allreduce", 288), runs);
  CHECK_FALSE(k.checked);
  // Nearest: the 3-rack run (log2(4/3) x 4 + log2(288/192) = 2.25 against the 2-rack run's 4 + 1.17).
  CHECK(k.line == "not checked: no measured GB200 allreduce run across nodes over RoCE at 4 nodes (measured: 2-3); nearest: GB200 "
                  "allreduce, 3 nodes over RoCE, 192 ranks: |err| 29.0 % (models/VALIDATION.md)");
  CHECK(k.nearest.rfind("gb200.txt [run 4]: ", 0) == 0);
  CHECK(k.line.size() < 200);
}

TEST_CASE("checked line: an unseen class says not checked, and another network is another class") {
  const auto runs = model::parse_evidence(kEvidenceRunsJson, "test");
  const auto a2a = model::check(ev_cls("b200", 2, "ib", "alltoall", 16), runs);
  CHECK_FALSE(a2a.checked);
  CHECK(a2a.line == "not checked: no measured B200 alltoall run across nodes over IB; nearest: B200 allreduce, 2 nodes over IB, 16 ranks: "
                    "|err| 4.0 % (models/VALIDATION.md)");
  const auto roce = model::check(ev_cls("b200", 2, "roce", "allreduce", 16), runs);
  CHECK_FALSE(roce.checked);
  CHECK(roce.nearest.rfind("b200-a.txt: B200 allreduce, 2 nodes over IB", 0) == 0);
  const auto mi = model::check(ev_cls("mi300x", 1, "", "allreduce", 8), runs);
  CHECK_FALSE(mi.checked);
  CHECK(mi.line.rfind("not checked: no measured MI300X allreduce run on one node; nearest: B200 allreduce, one node, 8 ranks", 0) == 0);
  // One node is its own regime: the one-node B200 run, at its 8 ranks.
  const auto one = model::check(ev_cls("b200", 1, "", "allreduce", 8), runs);
  CHECK(one.checked);
  CHECK(one.runs == 1);
  CHECK(one.line == "checked: 1 measured run of this class (B200, one node, allreduce, 8 ranks): median |err| 2.0 % >= 1 MiB "
                    "(models/HOLDOUT.md)");
}

TEST_CASE("checked line: a malformed evidence file is one error naming it") {
  CHECK_THROWS_WITH_AS(model::parse_evidence(R"({"runs": [{"table": 1}]})", "models/evidence.json"),
                       doctest::Contains("models/evidence.json: not ccsim's evidence file"), Error);
}

// Found by the fuzz4 session's audit (tests/fuzz/fuzz_evidence.cpp): hosts and ranks were read with get<int>, which
// converts 1e30 with undefined behaviour, truncates 2.5 to 2 and wraps 2^32 + 8 to 8.
TEST_CASE("checked line: an evidence run whose hosts or ranks is no whole count is one error naming the file") {
  const auto run = [](const char* hosts, const char* ranks) {
    return fmt::format(R"({{"runs": [{{"table": "t", "file": "f", "gpu": "h100", "hosts": {}, "network": "", "op": "allreduce", )"
                       R"("ranks": {}, "median_abs_err_pct_ge_1MiB": 1.0, "median_abs_err_pct_all": null}}]}})",
                       hosts, ranks);
  };
  CHECK(model::parse_evidence(run("2", "16"), "e.json").front().cls.hosts == 2); // the form the file has
  for (const auto& [hosts, ranks] : {std::pair{"1e30", "8"}, std::pair{"2.5", "8"}, std::pair{"4294967304", "8"},
                                     std::pair{"-1", "8"}, std::pair{"1", "1e300"}, std::pair{"1", "\"8\""}})
    CHECK_THROWS_WITH_AS(model::parse_evidence(run(hosts, ranks), "models/evidence.json"),
                         doctest::Contains("models/evidence.json: not ccsim's evidence file"), Error);
}

// An even count of runs: the median is the mean of the middle two (GB200 over RoCE at 2 racks: the 2- and 3-rack runs,
// 14 and 29 % -> 21.5 %, not either one).
TEST_CASE("checked line: an even count of runs takes the mean of the middle two medians") {
  const auto runs = model::parse_evidence(kEvidenceRunsJson, "test");
  const auto k = model::check(ev_cls("gb200", 2, "roce", "allreduce", 128), runs);
  CHECK(k.checked);
  CHECK(k.runs == 2);
  REQUIRE(k.median_ge_1MiB);
  CHECK(*k.median_ge_1MiB == doctest::Approx(21.5));
}
