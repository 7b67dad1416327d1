// Busbw-only markdown summaries (issue 14): one run per table row, time and algbw derived by nccl-tests'
// definitions, NCCL_* settings in a cell kept as facts of the run.
#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/trace/busbw_summary.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

using namespace ccsim;

namespace {
const std::string kCommands =
    "# hardware: 1 node, 8x H200\n"
    "#   NCCL_NVLS_ENABLE=1 ./build/all_reduce_perf -b 16G -e 16G -g 8 -z 1  # 480.0 - NVLS\n"
    "#   ./build/all_gather_perf -b 16G -e 16G -g 8 -z 1\n";
const std::string kTable =
    "| collective                       | algo | busbw     |\n"
    "| :------------------------------- | :--- | --------: |\n"
    "| all-reduce, `NCCL_NVLS_ENABLE=0` | Ring | 367.2GBps |\n"
    "| all-gather                       | Ring | 361.4GBps |\n";
} // namespace

TEST_CASE("a busbw-only summary table gives one run per row with derived time and the cell's NCCL settings") {
  const auto runs = trace::parse_busbw_summary(kCommands + kTable, "s.txt");
  REQUIRE(runs);
  REQUIRE(runs->size() == 2);
  const auto& ar = (*runs)[0];
  CHECK(ar.op == schedule::Op::AllReduce);
  CHECK(ar.ranks == 8);
  CHECK(ar.hardware == "1 node, 8x H200");
  CHECK(ar.env.at("NCCL_NVLS_ENABLE") == "0");
  REQUIRE(ar.rows.size() == 1);
  CHECK(ar.rows[0].size == (Bytes{16} << 30));
  // busbw 367.2 = algbw x 2 x 7/8: algbw 209.829; time = 16 GiB / algbw = 81875.7 us.
  CHECK(ar.rows[0].out_of_place->algbw == doctest::Approx(209.829).epsilon(1e-5));
  CHECK(ar.rows[0].out_of_place->time_us == doctest::Approx(81875.7).epsilon(1e-5));
  const auto& ag = (*runs)[1];
  CHECK(ag.op == schedule::Op::AllGather);
  CHECK(ag.env.empty());
  // allgather: busbw = algbw x 7/8; count is per rank (16 GiB / 4 B / 8).
  CHECK(ag.rows[0].out_of_place->algbw == doctest::Approx(361.4 * 8.0 / 7.0));
  CHECK(ag.rows[0].count == (Bytes{16} << 30) / 32);
}

TEST_CASE("nccl-tests output is not a summary, and a summary without one size is refused") {
  CHECK_FALSE(trace::parse_busbw_summary("# nThread 1\n    8  2  float sum -1 10 0 0 0 10 0 0 0\n", "t.txt"));
  const std::string two_sizes = "#   all_reduce_perf -b 1G -e 16G -g 8\n" + kTable;
  CHECK_THROWS_AS(trace::parse_busbw_summary(two_sizes, "s.txt"), Error);
  const std::string no_gpus = "#   all_reduce_perf -b 16G -e 16G\n" + kTable;
  CHECK_THROWS_AS(trace::parse_busbw_summary(no_gpus, "s.txt"), Error);
  const std::string bad_bw = "#   all_reduce_perf -b 16G -e 16G -g 8\n| collective | busbw |\n| :-- | --: |\n| all-reduce | fast |\n";
  CHECK_THROWS_AS(trace::parse_busbw_summary(bad_bw, "s.txt"), Error);
}

TEST_CASE("NCCL INFO lines are read as facts of the run: channel counts and the network") {
  const std::string text =
      "# command: all_reduce_perf -b 128M -e 128M -g 2\n"
      "host:880:887 [0] NCCL INFO Using network Socket\n"
      "host:880:887 [0] NCCL INFO 24 coll channels, 0 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "   134217728      33554432     float     sum      -1    857.6  156.51  156.51      0    819.6  163.76  163.76      0\n";
  const auto t = trace::parse_trace(text, "info.txt");
  CHECK(t.info.coll_channels == 24);
  CHECK(t.info.collnet_channels == 0);
  CHECK(t.info.nvls_channels == 0);
  CHECK(t.info.network == "Socket");
  const auto none = trace::parse_trace("    134217728  33554432  float  sum  -1  857.6  156.51  156.51  0  819.6  163.76  163.76  0\n", "n.txt",
                                       trace::Hints{schedule::Op::AllReduce, 2, false});
  CHECK(none.info.coll_channels == -1);
  CHECK(none.info.network.empty());
}

TEST_CASE("RCCL's INFO line names the release as NCCL's does") {
  // rccl-tests with NCCL_DEBUG=INFO (issue 14's MI355X all_gather log, Ahalperin/amd-dev): RCCL's VERSION_STRING
  // "RCCL version : X.Y.Z<suffix>" (ROCm/rccl src/init.cc) behind the INFO prefix, HIP and ROCm on the next lines.
  const std::string text =
      "# nThread 1 nGpus 2 minBytes 1048576 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
      "e60afd6ad9c7:357:357 [0] NCCL INFO RCCL version : 2.26.6-HEAD:64f48b6\n"
      "HIP version  : 7.0.51831-7c9236b16\n"
      "ROCm version : 7.0.2.0-56-9428210\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1    42.26   24.81   24.81      0    42.37   24.75   24.75      0\n";
  const auto t = trace::parse_trace(text, "rccl-info.txt");
  CHECK(t.info.release == "2.26.6-HEAD:64f48b6");
  CHECK(t.info.other_release.empty());
  // Two RCCL releases in one file are two runs: the second is named, as for NCCL's line.
  const auto two = trace::parse_trace(text + "h:1:1 [1] NCCL INFO RCCL version : 2.27.7-HEAD:0d2c4fd\n", "two.txt");
  CHECK(two.info.release == "2.26.6-HEAD:64f48b6");
  CHECK(two.info.other_release == "2.27.7-HEAD:0d2c4fd");
}
