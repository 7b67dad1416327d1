// ccsim's own table, CSV and JSON read back as traces: the op and rank count come from the file.
// The inputs are written out by hand in each format.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/trace/ccsim_output.hpp"

using namespace ccsim;

TEST_CASE("ccsim table output with a choice column reads back") {
  const char* text =
      "# ccsim prediction: allgather (all_gather_perf equivalent), algorithm chosen per size, model nccl\n"
      "# topology dgx1-v100 (shipped preset topologies/dgx1.json), 8 ranks\n"
      "#\n"
      "#        size         count      type   redop    root       time    algbw    busbw  choice\n"
      "#         (B)    (elements)                                 (us)   (GB/s)   (GB/s)\n"
      "      262144          8192     float    none      -1      19.62    13.36    11.69  ring/LL ch=8\n"
      "     2097152         65536     float    none      -1      43.92    47.75    41.78  ring/LL128 ch=12 loops=2 (analytic)\n";
  const auto t = trace::parse_ccsim_output(text, "t.txt");
  REQUIRE(t.has_value());
  REQUIRE(t->op.has_value());
  CHECK(*t->op == schedule::Op::AllGather);
  CHECK(t->ranks == 8);
  REQUIRE(t->rows.size() == 2);
  CHECK(t->rows[1].size == 2097152);
  CHECK(t->rows[1].count == 65536);
  CHECK(t->rows[1].redop == "none");
  CHECK(t->rows[1].out_of_place->time_us == doctest::Approx(43.92));
}

TEST_CASE("ccsim CSV output reads back with op and ranks from its columns") {
  const char* text = "size,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,op,ranks\n"
                     "1024,256,float,none,0,15.250000,0.067148,0.067148,broadcast,4\n";
  const auto t = trace::parse_ccsim_output(text, "t.csv");
  REQUIRE(t.has_value());
  CHECK(*t->op == schedule::Op::Broadcast);
  CHECK(t->ranks == 4);
  REQUIRE(t->rows.size() == 1);
  CHECK(t->rows[0].root == 0);
  CHECK(t->rows[0].out_of_place->time_us == doctest::Approx(15.25));
  CHECK_THROWS_AS(trace::parse_ccsim_output("size,count,type,redop,root,time_us,op,ranks\n1,2,float\n", "bad.csv"), Error);
}

TEST_CASE("ccsim JSON output reads back with exact times") {
  const char* text = R"({"tool": "ccsim", "op": "allreduce", "ranks": 2, "datatype": "float", "redop": "sum", "root": -1,
                        "rows": [{"size": 8, "count": 2, "time_us": 1.5, "time_ps": 1500001}]})";
  const auto t = trace::parse_ccsim_output(text, "t.json");
  REQUIRE(t.has_value());
  CHECK(*t->op == schedule::Op::AllReduce);
  CHECK(t->ranks == 2);
  CHECK(t->rows[0].out_of_place->time_us == doctest::Approx(1.500001));
  CHECK_THROWS_AS(trace::parse_ccsim_output(R"({"tool": "ccsim", "op": "allreduce", "ranks": -2, "datatype": "float",
                                              "redop": "sum", "root": -1, "rows": [{"size": 8, "count": 2, "time_us": 1}]})", "neg.json"),
                  Error);
}

TEST_CASE("hints fill what ccsim output leaves open and force wins") {
  const char* text = "size,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,op,ranks\n8,2,float,sum,-1,1.0,0,0,allreduce,8\n";
  trace::Hints h;
  h.ranks = 4;
  CHECK(trace::parse_ccsim_output(text, "t.csv", h)->ranks == 8);
  h.force = true;
  CHECK(trace::parse_ccsim_output(text, "t.csv", h)->ranks == 4);
}

TEST_CASE("other text is not ccsim output") {
  CHECK_FALSE(trace::parse_ccsim_output("# nThread 1 nGpus 8\n       8  2  float  sum  -1  1 0 0 0  1 0 0 0\n", "x").has_value());
  CHECK_FALSE(trace::parse_ccsim_output(R"({"tool": "other"})", "x").has_value());
  CHECK_FALSE(trace::parse_ccsim_output("", "x").has_value());
}

// Found by the audit for the fuzz harnesses (tests/fuzz/fuzz_trace_runs.cpp reads files as compare does): a "tool" that
// is not a string threw nlohmann's type_error (`ccsim compare` exit 3), a root of 1e20 was converted to an int
// (undefined behaviour), and "ranks": 4294967304 wrapped to 8 ranks.
TEST_CASE("ccsim JSON output with a non-string tool, a huge root or rank count is refused or not ccsim's") {
  CHECK_FALSE(trace::parse_ccsim_output(R"({"tool": 1})", "x.json").has_value());
  CHECK_FALSE(trace::parse_ccsim_output(R"({"tool": {"name": "ccsim"}, "rows": []})", "x.json").has_value());
  auto with = [](const char* root, const char* ranks) {
    return fmt::format(R"({{"tool": "ccsim", "op": "allreduce", "ranks": {}, "datatype": "float", "redop": "sum", "root": {},
                          "rows": [{{"size": 8, "count": 2, "time_us": 1}}]}})", ranks, root);
  };
  CHECK(trace::parse_ccsim_output(with("-1", "8"), "ok.json")->ranks == 8);
  CHECK_THROWS_WITH_AS(trace::parse_ccsim_output(with("1e20", "8"), "root.json"), doctest::Contains("root.json: 'root'"), Error);
  CHECK_THROWS_WITH_AS(trace::parse_ccsim_output(with("2.5", "8"), "root.json"), doctest::Contains("'root' must be a whole number"), Error);
  CHECK_THROWS_WITH_AS(trace::parse_ccsim_output(with("0", "4294967304"), "ranks.json"), doctest::Contains("ranks.json: 'ranks'"), Error);
  CHECK_THROWS_AS(trace::parse_ccsim_output(with("-2", "8"), "root.json"), Error);
}
