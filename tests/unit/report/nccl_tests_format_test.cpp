// nccl-tests' output shape: every expected line below is copied from a real all_reduce_perf log
// (../shared/traces/hgx-h100-8gpu-allreduce-128M-4G-nvls-nccltests290.txt) or worked out by hand from
// nccl-tests' printf formats (src/common.cu), never from the code under test.
#include <doctest/doctest.h>

#include <sstream>

#include "sim/report/nccl_tests_format.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

using namespace ccsim;

namespace {
std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) {
    while (!l.empty() && l.back() == ' ') l.pop_back(); // the log's copy lost its trailing blanks
    out.push_back(l);
  }
  return out;
}
} // namespace

TEST_CASE("nccl-tests time precision: 2 decimals below 100 us, 1 below 10 ms, none above") {
  CHECK(report::nccl_time_text(48.456) == "  48.46");
  CHECK(report::nccl_time_text(99.994) == "  99.99");
  CHECK(report::nccl_time_text(100.0) == "  100.0");
  CHECK(report::nccl_time_text(1818.84) == " 1818.8");
  CHECK(report::nccl_time_text(9999.94) == " 9999.9");
  CHECK(report::nccl_time_text(10000.0) == "  10000");
  CHECK(report::nccl_time_text(15870.4) == "  15870");
}

TEST_CASE("a row prints as in a real all_reduce_perf log, 13 fields") {
  report::PerfRow r{134217728, 33554432, "float", "sum", -1, {613.3, 218.85, 382.99}, {614.3, 218.48, 382.34}};
  std::ostringstream out;
  report::write_perf_row(out, r, true);
  CHECK(out.str() ==
        "   134217728      33554432     float     sum      -1    613.3  218.85  382.99      0    614.3  218.48  382.34      0\n");
  std::ostringstream unchecked;
  report::write_perf_row(unchecked, r, false); // -c 0
  std::istringstream in(unchecked.str());
  std::vector<std::string> f;
  for (std::string w; in >> w;) f.push_back(w);
  REQUIRE(f.size() == 13);
  CHECK(f[8] == "N/A");
  CHECK(f[12] == "N/A");
}

TEST_CASE("a sendrecv_perf row: #wrong 0 out of place, N/A in place (sendrecv.cu checks no in-place run)") {
  report::PerfRow r{1048576, 262144, "float", "sum", -1, {46.94, 22.34, 22.34}, {46.94, 22.34, 22.34}};
  std::ostringstream out;
  report::write_perf_row(out, r, true, false);
  CHECK(out.str() ==
        "     1048576        262144     float     sum      -1    46.94   22.34   22.34      0    46.94   22.34   22.34    N/A\n");
}

TEST_CASE("header and footer lines match nccl-tests") {
  report::PerfHeader h;
  h.program = "all_reduce_perf";
  h.gpus = 8;
  h.min_bytes = 134217728, h.max_bytes = 4294967296;
  h.step = 2, h.step_is_factor = true;
  h.warmup = 5, h.iters = 2;
  h.devices = {{0, "node005", 0, "NVIDIA H100 80GB HBM3"}};
  std::ostringstream out;
  report::write_perf_header(out, h);
  const auto l = lines_of(out.str());
  REQUIRE(l.size() == 9);
  CHECK(l[0] == "# Collective test starting: all_reduce_perf");
  CHECK(l[1] == "# nThread 1 nGpus 8 minBytes 134217728 maxBytes 4294967296 step: 2(factor) warmup iters: 5 iters: 2 agg iters: 1 "
                "validation: 1 graph: 0");
  CHECK(l[3] == "# Using devices");
  // Pid and PCI bus are placeholders (0): no process ran on a real device.
  CHECK(l[4] == "#  Rank  0 Group  0 Pid      0 on    node005 device  0 [0x00] NVIDIA H100 80GB HBM3");
  CHECK(l[6] == "#                                                              out-of-place                       in-place");
  CHECK(l[7] == "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong");
  CHECK(l[8] == "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)");

  // Average over both halves of every row: (1 + 2 + 3 + 4) / 4 = 2.5, printed with %g.
  std::vector<report::PerfRow> rows{{8, 2, "float", "sum", -1, {1, 1, 1}, {1, 1, 2}}, {16, 4, "float", "sum", -1, {1, 1, 3}, {1, 1, 4}}};
  CHECK(report::avg_bus_bandwidth(rows) == doctest::Approx(2.5));
  std::ostringstream foot;
  report::write_perf_footer(foot, rows, "all_reduce_perf");
  const auto f = lines_of(foot.str());
  REQUIRE(f.size() >= 4);
  CHECK(f[0] == "# Out of bounds values : 0 OK");
  CHECK(f[1] == "# Avg bus bandwidth    : 2.5");
  CHECK(f[2] == "#");
  CHECK(f.back() == "#");
}

// rccl-tests without out-of-place runs (enable_out_of_place == 0): BenchTime adds each run's busBw to bw[0] and 1 to
// bw_count[0] (ROCm/rccl-tests src/common.cu), so the average is over the in-place runs alone: (2 + 4) / 2 = 3, the
// out-of-place figures (left at 1 and 3 here) not read. Halving it by two halves a row would give 1.5.
TEST_CASE("Avg bus bandwidth without out-of-place runs: the in-place busbw over the rows, not over twice the rows") {
  std::vector<report::PerfRow> rows{{8, 2, "float", "sum", -1, {1, 1, 1}, {1, 1, 2}}, {16, 4, "float", "sum", -1, {1, 1, 3}, {1, 1, 4}}};
  CHECK(report::avg_bus_bandwidth(rows, false) == doctest::Approx(3.0));
  CHECK(report::avg_bus_bandwidth(rows, true) == doctest::Approx(2.5));
  std::ostringstream foot;
  report::write_perf_footer(foot, rows, "all_reduce_perf", false);
  CHECK(foot.str().find("# Avg bus bandwidth    : 3 \n") != std::string::npos);
}

TEST_CASE("a ccsim note of 12 or 13 fields gets two words more, never read as a row") {
  report::PerfHeader h;
  h.program = "all_reduce_perf";
  // 13 and 12 fields with the '#', then 4
  h.notes = {"ccsim: ring 0: GPUs 0 1 2 3 4 5 6 7", "ccsim: ring 0: GPUs 0 1 2 3 4 5 6", "ccsim: short note"};
  std::ostringstream out;
  report::write_perf_header(out, h);
  const auto l = lines_of(out.str());
  REQUIRE(l.size() >= 5);
  CHECK(l[2] == "# ccsim: ring 0: GPUs 0 1 2 3 4 5 6 7 [ccsim note]");
  CHECK(l[3] == "# ccsim: ring 0: GPUs 0 1 2 3 4 5 6 [ccsim note]");
  CHECK(l[4] == "# ccsim: short note");
}

TEST_CASE("nccl-tests' Avg bus bandwidth of the H100 log from its printed busbw") {
  // The log prints 439.369 from unrounded values; the printed (2-decimal) ones give the same to 0.01.
  const double out[] = {382.99, 412.35, 431.81, 465.25, 468.57, 473.60};
  const double in[] = {382.34, 413.97, 430.69, 464.70, 469.64, 476.53};
  std::vector<report::PerfRow> rows;
  for (int i = 0; i < 6; ++i) rows.push_back({0, 0, "float", "sum", -1, {1, 1, out[i]}, {1, 1, in[i]}});
  CHECK(report::avg_bus_bandwidth(rows) == doctest::Approx(439.369).epsilon(0.01 / 439.369));
}

TEST_CASE("ccsim's trace parser reads the nccl-tests shape back: op, ranks from the device list, both halves") {
  report::PerfHeader h;
  h.program = "all_gather_perf";
  h.gpus = 4;
  h.min_bytes = h.max_bytes = 1048576;
  h.notes = {"ccsim prediction, no GPU ran"};
  for (int k = 0; k < 4; ++k) h.devices.push_back({k, "box", k, "simulated GPU"});
  std::vector<report::PerfRow> rows{{1048576, 65536, "float", "none", -1, {20.5, 51.15, 38.36}, {20.5, 51.15, 38.36}}};
  std::ostringstream out;
  report::write_perf_header(out, h);
  report::write_perf_row(out, rows[0], true);
  report::write_perf_footer(out, rows, h.program);
  const auto t = trace::parse_trace(out.str(), "perf");
  REQUIRE(t.op.has_value());
  CHECK(*t.op == schedule::Op::AllGather);
  CHECK(t.ranks == 4);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].size == 1048576);
  CHECK(t.rows[0].count == 65536);
  REQUIRE(t.rows[0].in_place.has_value());
  CHECK(t.rows[0].in_place->time_us == doctest::Approx(20.5));
}
