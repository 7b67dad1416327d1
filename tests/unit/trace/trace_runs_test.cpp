// Files holding several runs (scaling studies), mpirun --tag-output prefixes, and rank counts read from
// the printed busbw/algbw ratio. Expected counts come from the files' headers (8/16/32/64 and 4/8/64/128
// ranks, stated by their authors), not from the parser.
#include <doctest/doctest.h>

#include <string>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/trace/trace_runs.hpp"

using namespace ccsim;

namespace {
std::string tp(const char* f) { return ccsim::data_dir() + "/models/traces/" + f; }
} // namespace

TEST_CASE("MI325X scaling file: four runs split at the echo markers, ranks from busbw over algbw") {
  const auto runs = trace::load_trace_runs(tp("mi325x-1to8node-8to64gpu-allreduce-ring-4G-16G-scaling-hisohara-aac11.txt"));
  REQUIRE(runs.size() == 4);
  const int want[] = {8, 16, 32, 64};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(runs[i].ranks == want[i]);
    CHECK(runs[i].ranks_from == "busbw/algbw ratio");
    CHECK(runs[i].rows.size() == 3);
    CHECK(runs[i].rows.front().size == 4294967296ULL);
  }
}

TEST_CASE("GB300 NVL72 scaling file: four runs at the RUN notes, ranks from each run's own device list") {
  const auto runs = trace::load_trace_runs(tp("gb300-nvl72-oci-4to128gpu-allreduce-8G-16G-scaling-ociquickstart.txt"));
  REQUIRE(runs.size() == 4);
  const int want[] = {4, 8, 64, 128};
  for (std::size_t i = 0; i < 4; ++i) CHECK(runs[i].ranks == want[i]);
  CHECK(runs[1].rows.back().out_of_place->busbw == doctest::Approx(841.63));
}

TEST_CASE("a file with one run stays one run") {
  const auto runs = trace::load_trace_runs(tp("dgx1-v100-8gpu-allreduce-konnase.txt"));
  REQUIRE(runs.size() == 1);
  CHECK(runs.front().ranks == 8);
  CHECK(trace::split_runs("# a\n# nThread 1\n 8 2 float sum -1 1.0 0.01 0.01 0 1.0 0.01 0.01 0\n").size() == 1);
}

TEST_CASE("mpirun --tag-output prefixes are stripped from header and rows") {
  const std::string text =
      "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20\n"
      "[1,0]<stdout>:#  Rank  0 Group  0 Pid 1 on h device  0 [0x1b] NVIDIA H100 80GB HBM3\n"
      "[1,0]<stdout>:#  Rank  1 Group  0 Pid 2 on h device  1 [0x43] NVIDIA H100 80GB HBM3\n"
      "[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "[1,0]<stdout>:     1048576        262144     float     sum      -1    20.00   52.43   52.43      0    20.00   52.43   52.43      0\n"
      "[1,0]<stdout>:     2097152        524288     float     sum      -1    30.00   69.91   69.91      0    30.00   69.91   69.91      0\n";
  const auto runs = trace::split_runs(text);
  REQUIRE(runs.size() == 1);
  trace::Hints h;
  h.op = schedule::Op::AllReduce;
  const auto t = trace::parse_trace(runs.front(), "tagged", h);
  CHECK(t.ranks == 2);
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1].size == 2097152);
  CHECK(t.rows[1].out_of_place->time_us == doctest::Approx(30.0));
}

TEST_CASE("the nccl-tests banner names the collective over a collector's command line") {
  // The header's command says "-t alltoall" (sic, per the file's own caveat) but the binary printed all_gather_perf.
  const auto runs = trace::load_trace_runs(tp("gb300-a4xmax-2node-8gpu-allgather-4K-16G-gcpdocs.txt"));
  REQUIRE(runs.size() == 1);
  REQUIRE(runs.front().op);
  CHECK(*runs.front().op == schedule::Op::AllGather);
  CHECK(runs.front().op_from == "nccl-tests banner");
}

TEST_CASE("GB200 alltoall scaling file (edited counts): compare --run N reads run N alone, with the caller's --ranks") {
  const std::string f = tp("gb200-nvl72-oci-4to192gpu-alltoall-4G-16G-scaling-ociquickstart-EDITED.txt");
  // Run D: 128 ranks from the busbw print (129 does not divide 8 GiB / 4 B); count = 8 GiB / (4 B x 128).
  const auto d = trace::load_trace_runs(f, {}, 4);
  REQUIRE(d.size() == 1);
  CHECK(d[0].ranks == 128);
  REQUIRE(d[0].rows.size() == 1); // the 4 GiB row's count typo leaves it out
  CHECK(d[0].rows[0].count == 16777216ULL);
  // Run E: the print admits 191-193; --ranks 192 (the machine described) picks it.
  trace::Hints h;
  h.ranks = 192;
  const auto e = trace::load_trace_runs(f, h, 5);
  REQUIRE(e.size() == 1);
  CHECK(e[0].ranks == 192);
  CHECK(e[0].rows[0].count == 11184810ULL); // floor(8 GiB / (4 B x 192))
  // Run B's two rows: one edited count (read by size), one already nccl-tests' (16 GiB / (4 B x 8)).
  const auto b = trace::load_trace_runs(f, {}, 2);
  CHECK(b[0].ranks == 8);
  CHECK(b[0].rows[0].count == 268435456ULL);
  CHECK(b[0].rows[1].count == 536870912ULL);
  CHECK_THROWS_AS(trace::load_trace_runs(f, {}, 6), Error);
}

// A job's output of three tests, the second dead before its first row (lines counted by hand: 1 the note, 2-3 the first
// test, 4-5 the dead one, 6-7 the third).
TEST_CASE("a test that died before its first row is a run of its own, and each run knows its file lines") {
  const std::string text =
      "# job 77; a caveat quotes 'Test NCCL failure' and ends nothing\n"
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "           8             2     float     sum      -1    20.00    0.00    0.00      0    20.00    0.00    0.00      0\n"
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "host: Test NCCL failure common.cu:1279 'unhandled system error'\n"
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
      "           8             2     float     sum      -1    30.00    0.00    0.00      0    30.00    0.00    0.00      0\n";
  const auto runs = trace::split_runs_at(text);
  REQUIRE(runs.size() == 3);
  for (const auto& r : runs) CHECK(r.preamble_lines == 1);
  CHECK(runs[0].first_line == 2);
  CHECK(runs[1].first_line == 4);
  CHECK(runs[2].first_line == 6);
  CHECK(runs[1].text.find("Test NCCL failure") != std::string::npos);
  CHECK(runs[2].text.find("30.00") != std::string::npos);
  CHECK(runs[1].text.find("30.00") == std::string::npos); // the third test's row is not the dead one's
  // The dead run is refused naming the file's line 5, not its own text's line 3.
  trace::Hints h;
  h.op = schedule::Op::AllReduce;
  h.preamble_lines = runs[1].preamble_lines, h.first_line = runs[1].first_line;
  try {
    (void)trace::parse_trace(runs[1].text, "job", h);
    FAIL("a run without rows was read");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("line 5:") != std::string::npos);
  }
}

TEST_CASE("OpenMPI's mutually-exclusive MCA warning before the banner is not a row: one run, not two") {
  // A job log (wild harvest 9, the 6KD report): the command, OpenMPI's warning whose lines "  1st MCA variable: ..." and
  // "  2nd MCA variable: ..." open with a digit, then one whole run. By eye: one run of two rows.
  const std::string text =
      "COMMAND:\n"
      "mpirun -npernode 8 -x NCCL_P2P_LEVEL=PHB /workspace/nccl-tests/build/all_reduce_perf -b 1k -e 8G -f 2 -g 1\n"
      "--------------------------------------------------------------------------\n"
      "Two mutually-exclusive MCA variables were specified.  This can result\n"
      "  1st MCA variable: btl_tcp_if_include\n"
      "    Source of value: environment\n"
      "  2nd MCA variable: btl_tcp_if_exclude\n"
      "    Source of value: file (/opt/hpcx/ompi/etc/openmpi-mca-params.conf:97)\n"
      "--------------------------------------------------------------------------\n"
      "# nccl-tests version 2.18.3 nccl-headers=23003 nccl-library=23003\n"
      "# Collective test starting: all_reduce_perf\n"
      "# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 1 iters: 20\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
      "        1024           256     float     sum      -1    36.95    0.03    0.05       0    34.17    0.03    0.06       0\n"
      "        2048           512     float     sum      -1    36.47    0.06    0.11       0    36.25    0.06    0.11       0\n"
      "# Collective test concluded: all_reduce_perf\n";
  const auto runs = trace::split_runs(text);
  REQUIRE(runs.size() == 1);
  CHECK(runs.front().find("mpirun -npernode 8") != std::string::npos); // the launch line stays with its run
  // a row's first word is a size (digits): "1st" and "2nd" are not
  CHECK(trace::split_runs("  1st MCA variable: a\n# Collective test starting: x\n 8 2 float sum -1 1.0 0.01 0.01 0 1.0 0.01 0.01 0\n").size() == 1);
}

TEST_CASE("mpirun --tag-output tags inside a row (nccl-tests printed it in three pieces) are not data") {
  // Two rows of wild harvest 9's p5 log (KeitaW/p5-nccl-test-2024-07-19), verbatim: rank 0's tag before the row and again
  // before each time/algbw/busbw set. Values by eye: out-of-place 85.70 us at 8 B, 66023 us and 487.90 GB/s at 16 GiB.
  const std::string text =
      "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 100 agg iters: 1 validation: 1 graph: 0\n"
      "[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "[1,0]<stdout>:           8             2     float     sum      -1[1,0]<stdout>:    85.70    0.00    0.00      0[1,0]<stdout>:    74.97    0.00    0.00      0\n"
      "[1,0]<stdout>: 17179869184    4294967296     float     sum      -1[1,0]<stdout>:    66023  260.21  487.90      0[1,0]<stdout>:    65990  260.34  488.14      0\n";
  trace::Hints h;
  h.op = schedule::Op::AllReduce;
  const auto t = trace::parse_trace(text, "midrow", h);
  CHECK(t.ranks == 16); // 487.90 / 260.21 = 1.875 = 2(n-1)/n
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].root == -1);
  CHECK(t.rows[0].out_of_place->time_us == doctest::Approx(85.70));
  CHECK(t.rows[1].size == 17179869184ULL);
  CHECK(t.rows[1].out_of_place->time_us == doctest::Approx(66023.0));
  CHECK(t.rows[1].in_place->busbw == doctest::Approx(488.14));
}
