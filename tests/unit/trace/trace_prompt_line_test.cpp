// Shapes of public nccl-tests copies (models/holdout/): the command quoted before the table without a '#'
// (a shell prompt, a blog's "> mpirun" quote, a launcher's "+ mpirun" echo) names the collective.
// Excerpts are literal lines of those files, cut to two rows.
#include <doctest/doctest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/trace/nccl_tests_trace.hpp"
#include "sim/trace/trace_runs.hpp"

using namespace ccsim;
using schedule::Op;

TEST_CASE("a blog's quoted mpirun line names the collective when no comment line does") {
  const std::string text =
      "> mpirun -v --mca btl self,tcp --hostfile ~/hostfile \\\n"
      ">    /opt/src/nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1\n"
      "\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
      "#  Rank  0 Group  0 Pid   6899 on ztan-mig-235z device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
      "#  Rank  1 Group  0 Pid   6733 on ztan-mig-gq73 device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1    203.2    5.16    9.68      0    207.2    5.06    9.49      0\n"
      "     2097152        524288     float     sum      -1    254.0    8.26   15.48      0    252.9    8.29   15.55      0\n";
  const auto t = trace::parse_trace(text, "excerpt");
  REQUIRE(t.op);
  CHECK(*t.op == Op::AllReduce);
  CHECK(t.op_from == "command line before the table");
  CHECK(t.ranks == 2);
  CHECK(t.rows.size() == 2);
}

TEST_CASE("a shell prompt's test beats a provenance line that mentions another test first") {
  // size = 2 x count x 4 B: an allgather on 2 ranks (an allreduce reading would be refused by the size/count check).
  const std::string text =
      "# source: blog post, section \"nccl-tests: all_reduce_perf, all_gather_perf, broadcast_perf\"\n"
      "root@autodl-container-xxxxx:~/nccl-tests# ./build/all_gather_perf -b 8 -e 1024M -f 2 -g2\n"
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
      "#  Rank  0 Group  0 Pid  31745 on autodl-container-xxxxx device  0 [0000:b4:00] NVIDIA GeForce RTX 2080 Ti\n"
      "#  Rank  1 Group  0 Pid  31745 on autodl-container-xxxxx device  1 [0000:b5:00] NVIDIA GeForce RTX 2080 Ti\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "     1048576        131072     float    none      -1    181.1    5.79    2.89      0    179.1    5.85    2.93      0\n"
      "     2097152        262144     float    none      -1    338.9    6.19    3.09      0    340.9    6.15    3.08      0\n";
  const auto t = trace::parse_trace(text, "excerpt");
  REQUIRE(t.op);
  CHECK(*t.op == Op::AllGather);
  CHECK(t.op_from == "command line before the table");
  CHECK(t.ranks == 2);
}

TEST_CASE("a _perf name inside a longer word is not a command") {
  const std::string text =
      "running my_all_reduce_perf_wrapper now\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1    203.2    5.16    9.68      0    207.2    5.06    9.49      0\n";
  const auto t = trace::parse_trace(text, "excerpt");
  // not read from the wrapper's name: the op, if any, comes from the table's own columns (a reduction, root -1,
  // count = size / 4 B)
  CHECK(t.op_from.find("command line") == std::string::npos);
  CHECK(t.op_from.rfind("the table's columns", 0) == 0);
}

TEST_CASE("a comment line's op still beats a prompt line") {
  const std::string text =
      "# op: reduce_scatter\n"
      "$ ./build/all_gather_perf -b 1M -e 2M -f 2 -g 2\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "     1048576        131072     float     sum      -1    181.1    5.79    2.89      0    179.1    5.85    2.93      0\n";
  const auto t = trace::parse_trace(text, "excerpt", trace::Hints{std::nullopt, 2, false});
  REQUIRE(t.op);
  CHECK(*t.op == Op::ReduceScatter);
  CHECK(t.op_from == "op: header line");
}

TEST_CASE("a blog copy of two tests, each after its shell prompt, is two runs with their own collective") {
  // Two outputs pasted one after the other, as models/holdout/rtx2080ti-*-autodl.txt's source post has them.
  const std::string text =
      "# source: blog post\n"
      "root@autodl:~/nccl-tests# ./build/all_reduce_perf -b 8 -e 1024M -f 2 -g2\n"
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
      "#  Rank  0 Group  0 Pid  31706 on autodl device  0 [0000:b4:00] NVIDIA GeForce RTX 2080 Ti\n"
      "#  Rank  1 Group  0 Pid  31706 on autodl device  1 [0000:b5:00] NVIDIA GeForce RTX 2080 Ti\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1    279.5    3.75    3.75      0    280.2    3.74    3.74      0\n"
      "# Out of bounds values : 0 OK\n"
      "\n"
      "root@autodl:~/nccl-tests# ./build/all_gather_perf -b 8 -e 1024M -f 2 -g2\n"
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
      "#  Rank  0 Group  0 Pid  31745 on autodl device  0 [0000:b4:00] NVIDIA GeForce RTX 2080 Ti\n"
      "#  Rank  1 Group  0 Pid  31745 on autodl device  1 [0000:b5:00] NVIDIA GeForce RTX 2080 Ti\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "     1048576        131072     float    none      -1    181.1    5.79    2.89      0    179.1    5.85    2.93      0\n";
  const auto parts = trace::split_runs(text);
  REQUIRE(parts.size() == 2);
  const auto a = trace::parse_trace(parts[0], "run 1"), b = trace::parse_trace(parts[1], "run 2");
  REQUIRE(a.op);
  REQUIRE(b.op);
  CHECK(*a.op == Op::AllReduce);
  CHECK(*b.op == Op::AllGather);
  CHECK(a.rows.size() == 1);
  CHECK(b.rows.size() == 1);
  CHECK(b.rows.front().count == 131072);
}

TEST_CASE("an NCCL WARN line printed between rows is skipped, a stray text line still is an error") {
  const std::string head =
      "# op: all_reduce\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1    203.2    5.16    9.68      0    207.2    5.06    9.49      0\n";
  const std::string tail = "     2097152        524288     float     sum      -1    254.0    8.26   15.48      0    252.9    8.29   15.55      0\n";
  const auto t = trace::parse_trace(head + "node1:1234:1250 [0] misc/socket.cc:50 NCCL WARN socket timeout, retrying\n" + tail, "excerpt");
  CHECK(t.rows.size() == 2);
  CHECK_THROWS_WITH_AS(trace::parse_trace(head + "some stray words\n" + tail, "excerpt"),
                       doctest::Contains("expected a table row"), Error);
}

TEST_CASE("a bare shell prompt after the output is not a broken row") {
  // models/holdout/v100-oci-bm-gpu3.8-*: the tutorial's block ends with the next prompt "$".
  const std::string rows =
      "$ ./build/all_reduce_perf -b 1G -e 1G -f 2 -t 1 -g 8\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "  1073741824     268435456     float     sum      -1    13867   77.43  135.50      0    13877   77.38  135.41      0\n"
      "# Avg bus bandwidth    : 135.455 \n";
  for (const char* prompt : {"$\n", "root@4c3719b595b1:~/nccl-tests#\n", "usera@gpu-node:~$ exit\n"}) {
    const auto t = trace::parse_trace(rows + prompt, "excerpt");
    CHECK(t.rows.size() == 1);
    REQUIRE(t.op);
    CHECK(*t.op == Op::AllReduce);
  }
}
