// nccl-tests / rccl-tests options that change what the output looks like (sim/trace/README.md, "Every option"):
// the synthetic files of tests/data/option_traces (printed with the sources' printf formats by
// make_option_traces.py) and small tables written here. Expected values are the generator's inputs (sizes, types,
// ranks, sweeps) and hand arithmetic, not the parser's output.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/trace/nccl_tests_json.hpp"
#include "sim/trace/nccl_tests_trace.hpp"
#include "sim/trace/trace_runs.hpp"

using namespace ccsim;
using schedule::Op;

namespace {
std::string option_file(const char* f) { return ccsim::data_dir() + "/tests/data/option_traces/" + f; }
bool has_note(const trace::Trace& t, const char* part) {
  for (const auto& n : t.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}
} // namespace

TEST_CASE("element sizes of every type name nccl-tests and rccl-tests print: fp8, bf16, NCCL 1's int") {
  // all_gather on 8 ranks prints count = size / (eltsize x 8): 8192 B is 1024 one-byte, 512 two-byte, 256 four-byte elements.
  const struct {
    const char* type;
    int count;
  } cases[] = {{"f8e4m3", 1024}, {"f8e5m2", 1024}, {"fp8_e4m3", 1024}, {"fp8_e5m2", 1024}, {"bf16", 512}, {"int", 256}};
  for (const auto& c : cases) {
    CAPTURE(c.type);
    const std::string text = std::string("# Collective test starting: all_gather_perf\n") +
                             "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n" +
                             "8192 " + std::to_string(c.count) + " " + c.type + " none -1 10.0 0.82 0.72 0 10.0 0.82 0.72 0\n";
    const auto t = trace::parse_trace(text, "types");
    CHECK(t.ranks == 8); // size / (count x eltsize)
    CHECK(t.ranks_from == "size/count ratio");
  }
}

TEST_CASE("-d all, -o all, -r -1, -N and rccl-tests -s: one table of several size sweeps is one run per sweep") {
  const auto types = trace::load_trace_runs(option_file("nv-d-all-allreduce.txt"));
  const char* want_types[] = {"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16"};
  REQUIRE(types.size() == 10);
  for (std::size_t i = 0; i < 10; ++i) {
    CAPTURE(i);
    REQUIRE(types[i].rows.size() == 2);
    CHECK(types[i].rows[0].type == want_types[i]);
    CHECK(types[i].rows[0].size == 1048576);
    CHECK(types[i].rows[1].size == 4194304);
    CHECK(types[i].ranks == 8);
    CHECK(has_note(types[i], fmt::format("size sweep {} of 10", i + 1).c_str()));
  }
  const auto ops = trace::load_trace_runs(option_file("nv-o-all-allreduce.txt"));
  REQUIRE(ops.size() == 6);
  CHECK(ops[4].rows[0].redop == "avg");
  CHECK(ops[5].rows[0].redop == "mulsum");
  const auto roots = trace::load_trace_runs(option_file("nv-r-all-broadcast.txt"));
  REQUIRE(roots.size() == 4);
  for (int r = 0; r < 4; ++r) {
    CHECK(roots[static_cast<std::size_t>(r)].rows.size() == 3);
    CHECK(roots[static_cast<std::size_t>(r)].rows[0].root == r);
    CHECK(*roots[static_cast<std::size_t>(r)].op == Op::Broadcast);
  }
  CHECK(trace::load_trace_runs(option_file("nv-N3-cycles-allreduce.txt")).size() == 3);
  const auto cycles = trace::load_trace_runs(option_file("rccl-s2-stress-cycles-allreduce.txt"));
  REQUIRE(cycles.size() == 2);
  CHECK(cycles[1].rows.size() == 3);
  // --run N counts sweeps: run 3 of -d all is int32
  const auto third = trace::load_trace_runs(option_file("nv-d-all-allreduce.txt"), {}, 3);
  REQUIRE(third.size() == 1);
  CHECK(third[0].rows[0].type == "int32");
  CHECK(third[0].rows[0].count == 262144); // 1 MiB / 4 B
}

TEST_CASE("a size that drops mid-sweep without starting over is still an error") {
  const std::string text = "# Collective test starting: all_reduce_perf\n"
                           "#  size count type redop root time algbw busbw #wrong\n"
                           "1024 256 float sum -1 10.0 0.10 0.18 0\n"
                           "4096 1024 float sum -1 10.0 0.41 0.72 0\n"
                           "2048 512 float sum -1 10.0 0.20 0.36 0\n";
  CHECK_THROWS_WITH_AS(trace::parse_trace(text, "drop"), doctest::Contains("sizes must not decrease"), Error);
}

TEST_CASE("-C 1: cputime is refused unless the collectives were blocking (-z)") {
  CHECK_THROWS_WITH_AS(trace::load_trace(option_file("nv-C1-cputime-allreduce.txt")),
                       doctest::Contains("'cputime' (nccl-tests -C 1 without -z)"), Error);
  const auto t = trace::load_trace(option_file("nv-C1-z3-cputime-blocking-allreduce.txt"));
  CHECK(t.rows.size() == 9);
  CHECK(has_note(t, "cputime"));
}

TEST_CASE("-S 1 timestamps and -I 1 per-iteration columns: the halves' time, algbw, busbw are read") {
  for (const char* f : {"nv-S1-timestamps-allreduce.txt", "nv-I1-periter-allreduce.txt", "nv-I1-S1-periter-timestamps-allreduce.txt"}) {
    CAPTURE(f);
    const auto t = trace::load_trace(option_file(f));
    REQUIRE(t.rows.size() == 9);
    // 1 KiB: 20 + 1024 / 150e3 = 20.0068 us out of place, x 0.99 = 19.8068 in place (printed %.2f)
    CHECK(t.rows[0].out_of_place->time_us == doctest::Approx(20.01));
    CHECK(t.rows[0].in_place->time_us == doctest::Approx(19.81));
    // 64 MiB in place: 0.99 x (20 + 67108864 / 150e3) = 462.72 us, algbw 145.03, busbw x 2 x 7/8 = 253.81
    CHECK(t.rows[8].in_place->time_us == doctest::Approx(462.72));
    CHECK(t.rows[8].in_place->busbw == doctest::Approx(253.81));
    CHECK(t.ranks == 8);
  }
}

TEST_CASE("rccl-tests -O 0: the one half printed is the in-place one") {
  const auto t = trace::load_trace(option_file("rccl-O0-inplace-only-allreduce.txt"));
  REQUIRE(t.rows.size() == 9);
  CHECK_FALSE(t.rows[0].out_of_place);
  REQUIRE(t.rows[0].in_place);
  CHECK(t.rows[0].in_place->time_us == doctest::Approx(19.81));
}

TEST_CASE("the 2017 tables printed ms: with their 'bytes N' header and without it") {
  const auto t = trace::load_trace(option_file("nv2017-ms-allreduce-8gpu.txt"));
  REQUIRE(t.rows.size() == 4);
  // 1 MiB at 40 GB/s: 20 + 1048576 / 40e3 = 46.2 us, printed 0.046 ms
  CHECK(t.rows[0].out_of_place->time_us == doctest::Approx(46.0));
  CHECK(t.rows[0].count == 262144);
  CHECK(*t.op == Op::AllReduce);
  const auto b = trace::load_trace(option_file("nv2017-ms-broadcast-8gpu.txt"));
  CHECK(b.rows[3].out_of_place->time_us == doctest::Approx(1698.0)); // 20 + 64 MiB / 40e3 = 1697.7 us, 1.698 ms
  CHECK(b.rows[3].root == 0);
  // the rows alone: time x algbw = size / 1e6 B names the unit
  const std::string rows = "# op: all_reduce_perf -g 8\n"
                           "     4194304       1048576   float     sum    0.125  33.59  58.79    0e+00    0.125  33.59  58.79    0e+00\n"
                           "    16777216       4194304   float     sum    0.439  38.18  66.81    0e+00    0.439  38.18  66.81    0e+00\n";
  const auto r = trace::parse_trace(rows, "2017 rows");
  CHECK(r.rows[1].in_place->time_us == doctest::Approx(439.0));
  CHECK(has_note(r, "times read as ms"));
}

// The unit is ms only when every row that can say (algbw >= 1 GB/s) says so: time x algbw = size / 1e6 B. A row of
// 4 MiB at 0.125 and 33.59 GB/s reads as ms (33.59 x 0.125 x 1e3 / 4194304 = 1.001e-3), one of 16 MiB at 439.4 us and
// 38.18 GB/s as us (38.18 x 439.4 x 1e3 / 16777216 = 0.99996): the table does not agree, and no time is scaled.
TEST_CASE("headerless rows: one row that reads as us keeps the table in us, though another reads as ms") {
  const std::string rows = "# op: all_reduce_perf -g 8\n"
                           "     4194304       1048576   float     sum    0.125  33.59  58.79    0e+00    0.125  33.59  58.79    0e+00\n"
                           "    16777216       4194304   float     sum    439.4  38.18  66.81    0e+00    439.4  38.18  66.81    0e+00\n";
  const auto r = trace::parse_trace(rows, "mixed rows");
  REQUIRE(r.rows.size() == 2);
  CHECK(r.rows[1].in_place->time_us == doctest::Approx(439.4));
  CHECK(r.rows[0].in_place->time_us == doctest::Approx(0.125));
  CHECK_FALSE(has_note(r, "times read as ms"));
}

TEST_CASE("-T: rows before 'Test timeout' stand, and -k 1 copybw and alltoallv_perf are refused in one line") {
  const auto t = trace::load_trace(option_file("nv-T5-timeout-allreduce.txt"));
  CHECK(t.rows.size() == 5);
  CHECK(has_note(t, "the run stopped at line"));
  CHECK_THROWS_WITH_AS(trace::load_trace(option_file("nv-k1-copybw-allreduce.txt")), doctest::Contains("column 'copybw' (nccl-tests -k 1)"), Error);
  CHECK_THROWS_WITH_AS(trace::load_trace(option_file("nv-alltoallv-8gpu.txt")), doctest::Contains("ccsim models no alltoallv"), Error);
}

TEST_CASE("nccl-tests -J JSON report: read as the table it stands for") {
  const auto runs = trace::load_trace_runs(option_file("nv-J-report-allreduce-8gpu.json"));
  REQUIRE(runs.size() == 1);
  const auto& t = runs[0];
  REQUIRE(t.op);
  CHECK(*t.op == Op::AllReduce);
  CHECK(t.op_from == "nccl-tests banner");
  CHECK(t.ranks == 8); // one process, nThread 1 x nGpus 8: its one "devices" entry stands for ranks 0-7
  REQUIRE(t.rows.size() == 9);
  CHECK(t.rows[0].out_of_place->time_us == doctest::Approx(20.006827)); // 20 + 1024 / 150e3, unrounded
  CHECK(t.rows[8].count == 16777216);
  CHECK(t.env.at("NCCL_PROTO") == "Simple");
  bool version = false;
  for (const auto& p : t.provenance) version = version || p.find("NCCL version 2.27.3") != std::string::npos;
  CHECK(version);
  // util.cu prints a NaN double as the string "nan": no time to compare, one line naming the element
  const std::string nan_time = R"({"config":{"nthreads":1,"ngpus":2},"results":[{"size":8,"count":2,"type":"float","redop":"sum",)"
                               R"("root":"    -1","out_of_place":{"time":"nan","alg_bw":0,"bus_bw":0,"nwrong":0}}]})";
  CHECK_THROWS_WITH_AS(trace::nccl_tests_json_as_table(nan_time, "nan.json"), doctest::Contains("out_of_place.time"), Error);
  CHECK_FALSE(trace::nccl_tests_json_as_table(R"({"tool":"ccsim","rows":[]})", "ccsim.json"));
}

// Found by the input audit of the fuzz3 session: each "devices" entry is written as nthreads x ngpus device lines, so
// a 270-byte report claiming 2^24 threads made a GB of text (a minute, then out of memory under a 4 GB limit).
TEST_CASE("nccl-tests -J JSON report: more device lines than 131072 ranks is refused in one line") {
  auto report = [](const char* threads, const char* gpus, int entries) {
    std::string devices;
    for (int i = 0; i < entries; ++i)
      devices += fmt::format(R"({}{{"rank":{},"device":0,"group":0,"pid":1,"hostname":"h","device_hex":"x","device_info":"y"}})",
                             i ? "," : "", i);
    return fmt::format(R"({{"config":{{"nthreads":{},"ngpus":{},"devices":[{}]}},"results":[{{"size":8,"count":2,"type":"float",)"
                       R"("redop":"sum","root":-1,"in_place":{{"time":1,"alg_bw":1,"bus_bw":1}}}}]}})",
                       threads, gpus, devices);
  };
  // 65536 x 2 = 131072 device lines, the most: read (one line per rank, as nccl-tests prints them).
  const auto table = trace::nccl_tests_json_as_table(report("65536", "2", 1), "ok.json");
  REQUIRE(table);
  CHECK(std::count(table->begin(), table->end(), '\n') > 131072);
  CHECK_THROWS_WITH_AS(trace::nccl_tests_json_as_table(report("16777216", "1", 1), "big.json"),
                       doctest::Contains("big.json: \"config.devices\": nthreads 16777216 x ngpus 1 for each of 1 entries: more than 131072 ranks"), Error);
  CHECK_THROWS_WITH_AS(trace::nccl_tests_json_as_table(report("65536", "1", 3), "three.json"), doctest::Contains("more than 131072 ranks"), Error);
}
