// `ccsim sweep`'s table rendering: expected lines written by hand from the column list and RFC 4180 /
// JSON rules, never produced by the code under test.
#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/report/sweep_table.hpp"

using namespace ccsim;
using report::SweepFormat;

namespace {
// A run of one 1 MiB row: 8 ranks, 2 rings, 100 us (time is in picoseconds).
report::SweepCells one_row() {
  report::RunHeader h;
  h.topology = "dgx1-v100";
  h.algo = "ring";
  h.redop = "sum";
  h.dtype = "float";
  h.op = schedule::Op::AllReduce;
  h.ranks = 8;
  h.placements = {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 7, 6, 5, 4, 3, 2, 1}};
  metrics::Row r;
  r.plan.size = 1048576;
  r.plan.count = 262144;
  r.time = 100'000'000;
  r.bw.algbw_GBps = 10.48576;
  r.bw.busbw_GBps = 18.35008;
  return report::sweep_cells(h, {r});
}
} // namespace

TEST_CASE("sweep table CSV: parameters, every output column, fields with commas quoted") {
  const auto cells = one_row();
  REQUIRE(cells.size() == 1);
  CHECK(report::sweep_header(SweepFormat::Csv, {"topo", "ring"}) ==
        "point,topo,ring,topology,ranks,rank_order,size,count,type,reduction,root_rank,time_us,time_ps,algbw_GBps,"
        "busbw_GBps,algorithm,protocol,channels,loops,simulated,checked,strategy,step_ms,compute_ms,comm_ms,exposed_ms,samples_per_s,"
        "speedup,efficiency,error\n");
  CHECK(report::sweep_lines(SweepFormat::Csv, 4, {"topo", "ring"}, {"dgx1", "0,1,2"}, cells) ==
        "4,dgx1,\"0,1,2\",dgx1-v100,8,0 1 2 3 4 5 6 7|0 7 6 5 4 3 2 1,1048576,262144,float,sum,-1,100.000000,100000000,"
        "10.485760,18.350080,ring,,,,,,,,,,,,,,\n");
}

TEST_CASE("sweep table: a failed point is one row with only its error, quotes doubled in CSV") {
  const auto cells = report::sweep_error_cells("--ring: GPU 9 does not exist, \"dgx1\"");
  // 27 output columns: 26 empty ones and the error, each after a comma.
  CHECK(report::sweep_lines(SweepFormat::Csv, 0, {"ring"}, {"9"}, cells) ==
        "0,9" + std::string(27, ',') + "\"--ring: GPU 9 does not exist, \"\"dgx1\"\"\"\n");
}

TEST_CASE("sweep table JSON lines: numbers bare, empty outputs null, no header") {
  CHECK(report::sweep_header(SweepFormat::Jsonl, {"topo"}).empty());
  CHECK(report::sweep_lines(SweepFormat::Jsonl, 2, {"topo"}, {"dgx1"}, one_row()) ==
        "{\"point\":2,\"topo\":\"dgx1\",\"topology\":\"dgx1-v100\",\"ranks\":8,\"rank_order\":\"0 1 2 3 4 5 6 7|0 7 6 5 4 3 2 1\","
        "\"size\":1048576,\"count\":262144,\"type\":\"float\",\"reduction\":\"sum\",\"root_rank\":-1,\"time_us\":100.0,"
        "\"time_ps\":100000000,\"algbw_GBps\":10.48576,\"busbw_GBps\":18.35008,\"algorithm\":\"ring\",\"protocol\":\"\","
        "\"channels\":null,\"loops\":null,\"simulated\":null,\"checked\":null,\"strategy\":\"\",\"step_ms\":null,\"compute_ms\":null,"
        "\"comm_ms\":null,\"exposed_ms\":null,\"samples_per_s\":null,\"speedup\":null,\"efficiency\":null,\"error\":\"\"}\n");
}

TEST_CASE("sweep table: the run's checked line, its words in CSV and its JSON object in JSON lines") {
  // A header as the main command builds it under --model nccl (RunHeader::checked), with a line holding commas.
  report::RunHeader h;
  h.topology = "h100";
  h.algo = "auto";
  h.redop = "sum";
  h.dtype = "float";
  h.ranks = 16;
  h.placements = {{0, 1}};
  model::Checked c;
  c.cls = {"h100", 2, "ib", "allreduce", 16};
  c.checked = true;
  c.runs = 3;
  c.median_ge_1MiB = 7.5;
  c.tables = {"wild table"};
  c.line = "checked: 3 measured runs of this class (H100, 2-4 nodes over IB, allreduce): median |err| 7.5 % >= 1 MiB (wild table)";
  h.checked = c;
  metrics::Row r;
  r.plan.size = 1024;
  r.plan.count = 256;
  r.time = 1'000'000;
  const auto cells = report::sweep_cells(h, {r});
  // CSV: the line, quoted for its commas, between `simulated` (empty: no choice) and the 9 empty scenario columns + error.
  const std::string csv = report::sweep_lines(SweepFormat::Csv, 0, {}, {}, cells);
  CHECK(csv.find(",\"checked: 3 measured runs of this class (H100, 2-4 nodes over IB, allreduce): median |err| 7.5 % >= 1 MiB "
                 "(wild table)\"" + std::string(9, ',') + "\n") != std::string::npos);
  // JSON lines: the object the main command's --format json writes under "checked" (README "Output for scripts").
  const std::string jsonl = report::sweep_lines(SweepFormat::Jsonl, 0, {}, {}, cells);
  CHECK(jsonl.find("\"simulated\":null,\"checked\":{\"checked\":true,\"line\":\"checked: 3 measured runs of this class (H100, 2-4 "
                   "nodes over IB, allreduce): median |err| 7.5 % >= 1 MiB (wild table)\",\"runs\":3,"
                   "\"median_abs_err_pct_ge_1MiB\":7.5,\"tables\":[\"wild table\"],\"nearest\":\"\",\"class\":{\"gpu\":\"h100\","
                   "\"hosts\":2,\"network\":\"ib\",\"op\":\"allreduce\",\"ranks\":16}},\"strategy\"") != std::string::npos);
  // A row read back from a CSV table (resuming) holds the words alone: CSV prints them, JSON lines a string.
  auto resumed = cells;
  resumed[0][17] = c.line; // the checked column, 18th output column
  CHECK(report::sweep_lines(SweepFormat::Csv, 0, {}, {}, resumed) == csv);
  CHECK(report::sweep_lines(SweepFormat::Jsonl, 0, {}, {}, resumed).find("\"checked\":\"checked: 3 measured") != std::string::npos);
}

TEST_CASE("sweep table: unknown format named with its flag") {
  CHECK_THROWS_WITH_AS(report::sweep_format_from("parquet"), "--format: unknown format 'parquet' (csv, jsonl)", Error);
}

TEST_CASE("sweep table: a row read back (resuming) is printable only with a number or nothing in each number column") {
  const auto row = one_row().front(); // columns: ... 8 time_us ... 17 checked (sweep_table.cpp)
  CHECK(report::sweep_row_readable(row));
  auto word = row;
  word[8] = "abc"; // a hand-edited table: the JSON lines writer parsed it as a number and threw
  CHECK_FALSE(report::sweep_row_readable(word));
  auto boolean = row;
  boolean[8] = "true";
  CHECK_FALSE(report::sweep_row_readable(boolean));
  auto short_row = row;
  short_row.pop_back();
  CHECK_FALSE(report::sweep_row_readable(short_row));
  auto broken = row;
  broken[17] = "{x";
  CHECK_FALSE(report::sweep_row_readable(broken));
  auto line = row; // a CSV table's checked cell is the object's line
  line[17] = "checked: 3 measured runs of this class";
  CHECK(report::sweep_row_readable(line));
  auto object = row;
  object[17] = R"({"checked":true,"line":"checked: 3 runs"})";
  CHECK(report::sweep_row_readable(object));
}
