// Shapes of real nccl-tests/rccl-tests pastes (tests/data/wild_traces/) that the reader once refused or
// misread: "..." elisions, old alltoall rows without a redop word, closing lines and column headers that
// lost their '#', rows printed behind '#', free text after the closing lines, and the collective named only
// by the table's columns. Excerpts are literal lines of those files, cut short.
#include <doctest/doctest.h>

#include <string>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/trace/nccl_tests_trace.hpp"
#include "sim/trace/paste_shapes.hpp"
#include "sim/trace/trace_runs.hpp"

using namespace ccsim;
using schedule::Op;

namespace {
const std::string kNewHeader =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
}

TEST_CASE("a page's '...' between rows stands for rows it left out: the rows around it are read") {
  // awsome-distributed-training's EKS excerpt (2 x p5.48xlarge): the first row, "...", then the large sizes.
  const std::string text =
      "   [1,0]<stdout>:" + kNewHeader +
      "   [1,0]<stdout>:           0             0     float     sum      -1    15.51    0.00    0.00      0    15.52    0.00    0.00      0\n"
      "   ...\n"
      "   [1,0]<stdout>:    67108864      16777216     float     sum      -1    996.0   67.38  126.33      0   1001.7   66.99  125.62      0\n"
      "   [1,0]<stdout>:  2147483648     536870912     float     sum      -1   9197.5  233.49  437.79      0   9195.2  233.54  437.89      0\n"
      "   [1,0]<stdout>:# Out of bounds values : 0 OK\n";
  const auto t = trace::parse_trace(text, "eks", {std::nullopt, 16, false});
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[1].size == 67108864);
  CHECK(t.rows[2].size == 2147483648ULL);
  REQUIRE(t.notes.size() == 1);
  CHECK(t.notes[0].find("line 3") != std::string::npos);
  // other free text inside the table is still a broken row
  const std::string broken = kNewHeader +
                             "    67108864      16777216     float     sum      -1    996.0   67.38  126.33      0   1001.7   66.99  125.62      0\n"
                             "oops\n";
  CHECK_THROWS_AS(trace::parse_trace(broken, "broken"), Error);
}

TEST_CASE("an old alltoall_perf prints no redop word: its rows are read as alltoall, refused without --op") {
  // SuperBench's nccl_alltoall.log (8 x A100-SXM4-40GB, -c 0): header names redop, rows leave it blank.
  const std::string text =
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "           0             0   float             1.63    0.00    0.00    N/A     1.38    0.00    0.00    N/A\n"
      "  8589934592     268435456   float            33508  256.36  224.31    N/A    33234  258.47  226.16    N/A\n";
  const auto t = trace::parse_trace(text, "a2a", {Op::AllToAll, 0, false});
  REQUIRE(t.op);
  CHECK(*t.op == Op::AllToAll);
  CHECK(t.ranks == 8); // size / count / 4 B = 8589934592 / 268435456 / 4
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1].out_of_place->time_us == doctest::Approx(33508));
  try {
    trace::parse_trace(text, "a2a");
    FAIL("an unnamed short-row table was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("pass --op alltoall") != std::string::npos);
  }
}

TEST_CASE("a paste without '#' before its header and closing lines is read (nccl-tests issue 37)") {
  const std::string text =
      "all_gather_perf -g 8 -b 4294967296 -e 4294967296 -n 100\n"
      "                                             out-of-place                       in-place\n"
      "       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "        (B)    (elements)             (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
      "  4294967296     134217728   float    29122  129.05  129.05  1e+00    29169  128.84  128.84  1e+00\n"
      " Out of bounds values : 2 FAILED\n"
      " Avg bus bandwidth    : 128.942\n";
  const auto t = trace::parse_trace(text, "issue37");
  REQUIRE(t.op);
  CHECK(*t.op == Op::AllGather);
  CHECK(t.ranks == 8);                 // 4294967296 / 134217728 / 4 B
  CHECK(t.old_busbw_convention);       // algbw 129.05 = 4 GiB x 7/8 / 29122 us, not 4 GiB / 29122 us = 147.5
  CHECK_FALSE(t.has_redop_column);     // read from the header line, not guessed from the row
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].out_of_place->wrong == "1e+00");
}

TEST_CASE("a row printed behind '#' after the column header is read, with a note") {
  // osrg/optcast docs/eval.md: a modified nccl-tests prints its one row commented out.
  const std::string text =
      "#  Rank  3 Group  0 Pid 710112 on    client2 device  1 [0x89] Tesla V100S-PCIE-32GB\n" + kNewHeader +
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
      "#  536870912     134217728     float     sum      -1    80965    6.63    9.95      0    77677    6.91   10.37      0\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 10.1569\n"
      "#\n"
      "client stats:\n"
      "  e2e  len: 4099, avg: 0.83, sd: 1.22, median: 0.78, min: 0.36, max: 32.97\n";
  const auto t = trace::parse_trace(text, "optcast");
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].size == 536870912);
  CHECK(t.rows[0].out_of_place->time_us == doctest::Approx(80965));
  CHECK(t.ranks == 4);
  REQUIRE(t.op); // redop sum, root -1, count = size / 4 B
  CHECK(*t.op == Op::AllReduce);
  REQUIRE(t.notes.size() == 1);
  CHECK(t.notes[0].find("behind '#'") != std::string::npos);
}

TEST_CASE("the table's columns name allreduce, reducescatter, reduce and broadcast, and nothing else") {
  auto op_of = [](const std::string& header, const std::string& row) {
    return trace::parse_trace(header + row, "cols").op;
  };
  const std::string old_rs = "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n";
  const std::string old_bc = "#       size         count    type    root     time   algbw   busbw  error     time   algbw   busbw  error\n";
  // count = size / 4 B with a reduction and root -1: allreduce
  CHECK(op_of(kNewHeader, "  1048576  262144  float  sum  -1  28.15  37.25  65.19  0  27.52  38.10  66.67  0\n") == Op::AllReduce);
  // count = size / (4 B x 8): reducescatter (SuperBench's nccl_reducescatter.log row)
  CHECK(op_of(old_rs, "  8589934592  268435456  float  sum  32464  264.60  231.52  N/A  32502  264.29  231.25  N/A\n") ==
        Op::ReduceScatter);
  // a reduction to root 0: reduce
  CHECK(op_of(kNewHeader, "  1048576  262144  float  sum  0  28.15  37.25  37.25  0  27.52  38.10  38.10  0\n") == Op::Reduce);
  // a root and no reduction, count = size / 4 B: broadcast (old format without redop)
  CHECK(op_of(old_bc, "  16384  4096  float  0  34.94  0.47  0.47  N/A  34.94  0.47  0.47  N/A\n") == Op::Broadcast);
  // redop none, root -1: allgather, alltoall and sendrecv print alike, so nothing is guessed
  CHECK_FALSE(op_of(kNewHeader, "  1048576  32768  float  none  -1  28.15  37.25  32.59  0  27.52  38.10  33.34  0\n"));
  // gather/scatter (root 0, count = size / (4 B x n)) neither
  CHECK_FALSE(op_of(kNewHeader, "  1048576  32768  float  none  0  28.15  37.25  32.59  0  27.52  38.10  33.34  0\n"));
  // rows that disagree (one allreduce-shaped, one reducescatter-shaped) name nothing
  trace::MeasuredRow ar, rs;
  ar.size = 1048576, ar.count = 262144, ar.type = "float", ar.redop = "sum", ar.root = -1;
  rs.size = 2097152, rs.count = 65536, rs.type = "float", rs.redop = "sum", rs.root = -1;
  std::string why;
  CHECK(trace::op_from_columns({ar}, why) == Op::AllReduce);
  CHECK(why.find("redop sum") != std::string::npos);
  CHECK(trace::op_from_columns({rs}, why) == Op::ReduceScatter);
  CHECK_FALSE(trace::op_from_columns({ar, rs}, why));
  // what the file says (or --op) wins over the columns
  const auto t = trace::parse_trace(kNewHeader + "  1048576  262144  float  sum  -1  28.15  37.25  65.19  0  27.52  38.10  66.67  0\n",
                                    "cols", {Op::Reduce, 0, false});
  CHECK(t.op == Op::Reduce);
  CHECK(t.op_from == "--op");
}

TEST_CASE("elision and closing-line shapes") {
  CHECK(trace::is_elision("..."));
  CHECK(trace::is_elision("        ..."));
  CHECK(trace::is_elision("\xE2\x80\xA6"));
  CHECK(trace::is_elision("<snip>"));
  CHECK_FALSE(trace::is_elision(".."));
  CHECK_FALSE(trace::is_elision("... 3 more"));
  CHECK(trace::is_closing_line("# Avg bus bandwidth    : 92.3318"));
  CHECK(trace::is_closing_line(" Out of bounds values : 2 FAILED"));
  CHECK(trace::is_closing_line("# Errors with asterisks indicate errors that have exceeded the maximum threshold."));
  CHECK_FALSE(trace::is_closing_line("# Using devices"));
}

TEST_CASE("repetitions pasted one after another, each after an echo and X11 noise, are runs of their own") {
  // rtx5090-1gpu-2rank-allgather-1M-128M-3reps-socket.txt, cut to two runs of one row each.
  const std::string run_text =
      "Authorization required, but no authorization protocol specified\n"
      "\n"
      "# nccl-tests version 2.18.0 nccl-headers=22907 nccl-library=22907\n"
      "# Collective test starting: all_gather_perf_mpi\n"
      "#  Rank  0 Group  0 Pid 2989375 on        lab device  0 [0000:02:00] NVIDIA GeForce RTX 5090\n"
      "#  Rank  1 Group  0 Pid 2989376 on        lab device  0 [0000:02:00] NVIDIA GeForce RTX 5090\n" +
      kNewHeader +
      "   134217728      16777216     float    none      -1  64380.9    2.08    1.04       0  61013.2    2.20    1.10       0\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 1.27827\n"
      "#\n"
      "# Collective test concluded: all_gather_perf_mpi\n"
      "#\n"
      "\n";
  const std::string text = "=== AllGather DEFAULT rep 1 ===\n" + run_text + "=== AllGather DEFAULT rep 2 ===\n" + run_text;
  const auto runs = trace::split_runs(text);
  REQUIRE(runs.size() == 2);
  for (const auto& r : runs) {
    const auto t = trace::parse_trace(r, "reps"); // the next run's echo after the closing lines is not a broken row
    REQUIRE(t.op);
    CHECK(*t.op == Op::AllGather);
    CHECK(t.ranks == 2);
    REQUIRE(t.rows.size() == 1);
    CHECK(t.rows[0].size == 134217728);
  }
}

TEST_CASE("a run that died keeps the rows it printed, and one that died before its first row is refused saying so") {
  const std::string died =
      " .. GENOA-06 pid 5068: Test failure common.cu:590\n";
  const std::string head = "#  Rank  0 Group  0 Pid   5068 on   GENOA-06 device  0 [0x21] NVIDIA GeForce RTX 5090\n"
                           "#  Rank  1 Group  0 Pid   5068 on   GENOA-06 device  1 [0x61] NVIDIA GeForce RTX 5090\n" +
                           kNewHeader;
  const std::string failure = "GENOA-06: Test NCCL failure common.cu:392 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '\n";
  // nccl-tests issue 287 (2 x RTX 5090): the failure right after the column header
  try {
    trace::parse_trace("./build/all_reduce_perf -b 8 -e 128M -f 2 -g 2\n" + head + failure + died, "crash");
    FAIL("a run without rows was accepted");
  } catch (const Error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("failed before its first row") != std::string::npos);
    CHECK(msg.find("line 5") != std::string::npos); // the failure's own line
  }
  // the same failure after two rows (a sweep that ran out of memory half-way): the two rows stand, with a note
  const auto t = trace::parse_trace(
      head +
          "     1048576        262144     float     sum      -1    28.15   37.25   37.25      0    27.52   38.10   38.10      0\n"
          "     2097152        524288     float     sum      -1    37.03   56.64   56.64      0    35.22   59.55   59.55      0\n" +
          failure + died,
      "oom", {Op::AllReduce, 0, false});
  CHECK(t.rows.size() == 2);
  REQUIRE(t.notes.size() == 1);
  CHECK(t.notes[0].find("stopped at line 6") != std::string::npos);
  CHECK(trace::is_test_failure("node: Test CUDA failure common.cu:1030 'invalid device ordinal'"));
  CHECK_FALSE(trace::is_test_failure("# Out of bounds values : 0 OK"));
}

TEST_CASE("mpirun's aggregated help notices between rows are not rows (8 x A100 thanos note, mpirun block)") {
  // Literal lines of a100-sxm4-80gb-8gpu-allreduce-8B-4G-mpirun-thanos.txt; the notice's first word is a number.
  const std::string text =
      kNewHeader +
      "8 more processes have sent help message help-mtl-ofi.txt / OFI call fail\n"
      "           8             2     float     sum      -1    20.26    0.00    0.00      0    17.74    0.00    0.00      0\n"
      "[R6KD-CX8aaS-GPU-14:12569] 15 more processes have sent help message help-mca-var.txt / mutually-exclusive-vars\n"
      "[R6KD-CX8aaS-GPU-14:12569] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages\n"
      "  2147483648     536870912     float     sum      -1    16288  131.84  230.72      0    16294  131.79  230.64      0\n"
      "1 more process has sent help message help-mtl-ofi.txt / OFI call fail\n"
      "  4294967296    1073741824     float     sum      -1    32285  133.03  232.81      0    32268  133.10  232.93      0\n"
      "# Out of bounds values : 0 OK\n";
  const auto t = trace::parse_trace(text, "thanos", {std::nullopt, 8, false});
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[0].size == 8);
  CHECK(t.rows[2].size == 4294967296ULL);
  CHECK(trace::is_mpi_help_notice("1 more process has sent help message help-mtl-ofi.txt / OFI call fail"));
  // a row that merely starts like one is still a row: a short row stays an error
  CHECK_THROWS_AS(trace::parse_trace(kNewHeader + "8 more processes\n", "short", {std::nullopt, 8, false}), Error);
}

TEST_CASE("a multi-process run pasted without its launch line takes its rank count from the rows, not nThread x nGpus") {
  // Literal lines of h100-8node-64gpu-allreduce-1M-8G-ib400-nodevices-nccltests309.txt: "nThread 1 nGpus 1" is one
  // process's share of an mpirun over 8 nodes; busbw/algbw = 320.70 / 162.90 = 1.96875 = 2 x 63 / 64.
  const std::string text =
      "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
      "#\n# Using devices\n#\n" +
      kNewHeader +
      "     1048576        262144     float     sum      -1    117.0    8.96   17.64      0    115.7    9.06   17.84      0\n"
      "  8589934592    2147483648     float     sum      -1    52733  162.90  320.70      0    52754  162.83  320.57      0\n";
  const auto t = trace::parse_trace(text, "aion8", {Op::AllReduce, 0, false});
  CHECK(t.ranks == 64);
  CHECK(t.ranks_from.find("busbw/algbw ratio") == 0);
  // one GPU really alone prints busbw 0: nThread x nGpus stands (the A10G single-node check of an AWS Batch workshop)
  const std::string alone =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 \n" + kNewHeader +
      "   134217728      33554432     float     sum      -1    552.1  243.09    0.00      0     0.58  232613.05    0.00      0\n";
  const auto one = trace::parse_trace(alone, "a10g", {Op::AllReduce, 0, false});
  CHECK(one.ranks == 1);
}

TEST_CASE("Ray's worker prefix before mpirun's --tag-output is dropped (SkyPilot's 2 x 8 H200 all_gather)") {
  // Literal lines of h200-gke-a3ultra-2node-16gpu-allgather-1K-8G-rayprefix-tagoutput-skypilot.txt (device list cut
  // to the first and last rank): SkyPilot runs its tasks on Ray, which puts "(<task>, pid=N[, ip=A]) " before
  // each forwarded line.
  const std::string ray = "(head, rank=0, pid=3808) ";
  const std::string tag = ray + "[1,0]<stdout>:";
  const std::string text =
      "$ sky launch -c nccl nccl_rdma_gke_h200.yaml\n...\n" + ray + "All nodes: 10.100.9.12:8,10.100.10.12:8\n" +
      "(worker1, rank=1, pid=2769, ip=10.100.10.12) Worker nodes\n" + tag +
      "# nThread 1 nGpus 1 minBytes 1024 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 100 agg iters: 1 validation: 1 graph: 0\n" +
      tag + "# Using devices\n" + tag +
      "#  Rank  0 Group  0 Pid   7774 on nc-d87e1263-head device  0 [0000:8f:00] NVIDIA H200\n" + tag +
      "#  Rank 15 Group  0 Pid   4940 on nc-d87e1263-worker1 device  7 [0000:cc:00] NVIDIA H200\n" + tag + kNewHeader + tag +
      "        1024            16     float    none      -1    28.39    0.04    0.03      0    28.07    0.04    0.03      0\n" + tag +
      "  8589934592     134217728     float    none      -1    24724  347.44  325.72      0    24214  354.75  332.58      0\n" + tag +
      "# Out of bounds values : 0 OK\n" + tag + "# Avg bus bandwidth    : 122.073\n" + tag + "#\n";
  const auto runs = trace::split_runs(text);
  REQUIRE(runs.size() == 1);
  const auto t = trace::parse_trace(runs[0], "skypilot", {Op::AllGather, 0, false});
  CHECK(t.ranks == 16); // the device list's last rank, 15
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].size == 1024);
  CHECK(t.rows[1].size == 8589934592ULL);
  CHECK(t.rows[1].out_of_place->time_us == doctest::Approx(24724));
  CHECK(t.rows[1].in_place->time_us == doctest::Approx(24214));
  // the prefix is Ray's only when its parenthesis holds a pid field: other text in parentheses is left alone
  CHECK(trace::without_ray_prefix("(head, rank=0, pid=3808) # Using devices") == "# Using devices");
  CHECK(trace::without_ray_prefix("(pid=45601) task") == "task");
  CHECK(trace::without_ray_prefix("(...)") == "(...)");
  CHECK(trace::without_ray_prefix("(rapid=12) x") == "(rapid=12) x");
  CHECK(trace::without_ray_prefix("(pid=x) y") == "(pid=x) y");
}

TEST_CASE("the settings a pasted launch line passes are the run's: mpirun -x, srun --export, mpiexec -genv") {
  // nccl-tests issue 322 (128 x 8 H100): the description's mpirun line, cut short, forces NCCL's ring and LL128 and
  // turns NVLS off; no NCCL INFO line in the paste says so.
  auto env_of = [](std::string_view line) {
    trace::Trace t;
    trace::parse_env_facts(line, t);
    return t.env;
  };
  const auto mpirun = env_of("mpirun --allow-run-as-root --mca plm_rsh_args \"-p 22\"  -c 0 -np 1024 -x NCCL_SOCKET_NTHREADS=2 "
                             "-x NCCL_ALGO=Ring -x NCCL_PROTO=LL128  -x NCCL_NET_GDR_LEVEL=SYS -x NCCL_MIN_NCHANNELS=32 "
                             "-x NCCL_NVLS_ENABLE=0   --prefix  /home/openmpi   /home/nccl-tests/build/all_reduce_perf  -b 1g -e 32g -f 2 -g 1");
  CHECK(mpirun.size() == 4); // NCCL_MIN_NCHANNELS too (apply_trace_channel_bounds), NCCL_SOCKET_NTHREADS not
  CHECK(mpirun.at("NCCL_MIN_NCHANNELS") == "32");
  CHECK(mpirun.at("NCCL_ALGO") == "Ring");
  CHECK(mpirun.at("NCCL_PROTO") == "LL128");
  CHECK(mpirun.at("NCCL_NVLS_ENABLE") == "0");
  // srun's list is comma-separated; -x keeps a protocol list whole; a command split with '\\' keeps its options
  const auto srun = env_of("srun -N 2 --export=ALL,NCCL_ALGO=Tree,NCCL_PROTO=Simple ./build/all_reduce_perf -b 8 -e 8G");
  CHECK(srun.at("NCCL_ALGO") == "Tree");
  CHECK(srun.at("NCCL_PROTO") == "Simple");
  CHECK(env_of("    -x NCCL_PROTO=LL,LL128 \\").at("NCCL_PROTO") == "LL,LL128");
  CHECK(env_of("mpiexec -n 16 -genv NCCL_ALGO ring ./all_gather_perf_mpi -b 8").at("NCCL_ALGO") == "ring");
  CHECK(env_of("root@node:~# CUDA_VISIBLE_DEVICES=0,1 NCCL_NVLS_ENABLE=0 ./build/all_reduce_perf -g 2").at("NCCL_NVLS_ENABLE") == "0");
  // a sentence that names a setting is not a launch line
  CHECK(env_of("then we set NCCL_ALGO=Ring on the 2-node runs").empty());
}

TEST_CASE("the launch line's processes x GPUs per process are the rank count the rows leave open") {
  // nccl-tests issue 322: "mpirun ... -np 1024 ... all_reduce_perf ... -g 1", a device list cut at rank 99, and rows whose
  // busbw/algbw (110.84 / 55.48 ... 367.29 / 183.83) admits about 1011-1033 ranks.
  const auto t = trace::load_trace(ccsim::data_dir() +
                                   "/tests/data/wild_traces/h100-128node-1024gpu-allreduce-ring-ll128-1G-16G-devicelist100-nccltests322.txt");
  CHECK(t.ranks == 1024);
  CHECK(t.env.at("NCCL_ALGO") == "Ring");
  // sendrecv prints count = size and busbw = algbw: only the launch line says how many ranks ran (2 processes x -g 1)
  const std::string sendrecv = "$ mpirun -np 2 -H node1,node2 ./build/sendrecv_perf -b 1G -e 1G -g 1\n"
                               "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
                               "#\n" + kNewHeader +
                               "  1073741824     268435456     float     sum      -1    45000   23.86   23.86      0    45000   23.86   23.86      0\n"
                               "# Out of bounds values : 0 OK\n";
  const auto sr = trace::parse_trace(sendrecv, "sendrecv", {});
  CHECK(sr.ranks == 2);
  // srun's --ntasks=N, and 4 processes each driving -g 2 GPUs
  const std::string srun = "srun --ntasks=4 ./build/sendrecv_perf -b 1G -e 1G -g 2\n" + kNewHeader +
                           "  1073741824     268435456     float     sum      -1    45000   23.86   23.86      0    45000   23.86   23.86      0\n";
  CHECK(trace::parse_trace(srun, "srun", {}).ranks == 8);
  // --ranks given wins over the launch line
  CHECK(trace::parse_trace(sendrecv, "sendrecv", {std::nullopt, 4, false}).ranks == 4);
}

TEST_CASE("NCCL_COLLNET_ENABLE is read where the other settings are and never from a comment") {
  // Issue 14's fourth harvest: a header line quoting another run's script ("# run as: env -u NCCL_ALGO NCCL_NVLS_ENABLE=1
  // NCCL_COLLNET_ENABLE=0 ...") was applied as --collnet off, where the same line's NCCL_NVLS_ENABLE was rightly not read.
  const std::string rows = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
                           "     1048576        262144     float     sum      -1    41.45   25.30   44.27      0    42.10   24.90   43.58      0\n";
  const auto commented = trace::parse_trace("# run as: env -u NCCL_ALGO NCCL_NVLS_ENABLE=1 NCCL_COLLNET_ENABLE=0 ./build/all_reduce_perf -g 8\n" + rows,
                                            "comment", {Op::AllReduce, 8, false});
  CHECK(commented.env.count("NCCL_COLLNET_ENABLE") == 0);
  CHECK(commented.env.count("NCCL_NVLS_ENABLE") == 0);
  // a sentence that names it is not a setting either
  CHECK(trace::parse_trace("then we set NCCL_COLLNET_ENABLE=1 on the 2-node runs\n" + rows, "prose", {Op::AllReduce, 8, false})
            .env.count("NCCL_COLLNET_ENABLE") == 0);
  // a launch line, an env dump and NCCL's own INFO line (ncclLoadParam: "<NAME> set by environment to <v>.") are the run's
  auto env_of = [](std::string_view line) {
    trace::Trace t;
    trace::parse_env_facts(line, t);
    return t.env;
  };
  CHECK(env_of("mpirun -np 16 -x NCCL_COLLNET_ENABLE=1 ./build/all_reduce_perf -g 1").at("NCCL_COLLNET_ENABLE") == "1");
  CHECK(env_of("NCCL_COLLNET_ENABLE=1").at("NCCL_COLLNET_ENABLE") == "1");
  CHECK(env_of("node1:100:100 [0] NCCL INFO NCCL_COLLNET_ENABLE set by environment to 0.").at("NCCL_COLLNET_ENABLE") == "0");
}

TEST_CASE("a '#' line of prose that starts with the word nThread is not the nThread line (OCI H200 slurm.out note)") {
  // nccl-tests prints "# nThread <n> nGpus <n> ..."; a note's own comment may start with the word and no number after it
  // (the header of h200-oci-2node-16gpu-allreduce-1G-16G-roce-slurmout-nccl2275-ocihpc.txt wrapped "(from the\n# nThread line)").
  const std::string prose = "# run as: all_reduce_perf -b 1G -e 16G -f 2 -g 1 (from the\n"
                            "#         nThread line)\n";
  const std::string run =
      "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 17179869184 step: 2(factor) warmup iters: 5 iters: 50 agg iters: 1 validation: 1 graph: 0\n"
      "#\n# Using devices\n#\n" +
      kNewHeader +
      "  1073741824     268435456     float     sum      -1   4396.8  244.21  457.90      0   4382.1  245.03  459.43      0\n"
      "# Out of bounds values : 0 OK\n";
  const auto t = trace::parse_trace(prose + run, "oci-h200", {Op::AllReduce, 0, false});
  CHECK(t.rows.size() == 1);
  CHECK(t.ranks == 16); // busbw / algbw = 457.90 / 244.21 = 1.875 = 2 x 15 / 16 (2 hosts x 8 H200, one process per GPU)
  // nor does it open a run of its own after the table (a note below the closing line)
  CHECK(trace::split_runs(run + "# nThread counts threads per process, -t\n").size() == 1);
  // the real line with a bad count is still refused, naming it
  CHECK_THROWS_AS(trace::parse_trace("# nThread 0 nGpus 2\n" + kNewHeader, "zero", {Op::AllReduce, 0, false}), Error);
}

TEST_CASE("a '#' line of prose that starts with the word size is not the column header (GKE A3 Mega note)") {
  // nccl-tests' header is "size count type ..."; a note's wrapped comment may start with the word and name a count later
  // (a first draft of h100-gke-a3mega-2node-16gpu-allgather-256B-8G-zerorows-tcpxo-clustertoolkit.txt's header was refused
  // as "unknown column '0' in the table header").
  const std::string prose = "# caveat: no test name; five rows of\n"
                            "#         size 0 (8-128 B requested: 16 ranks round a count below 16 floats down to 0) before 256 B.\n";
  const std::string run =
      kNewHeader +
      "           0             0     float    none      -1     0.30    0.00    0.00       0     0.26    0.00    0.00       0\n"
      "  8589934592     134217728     float    none      -1  42668.7  201.32  188.73       0  42630.7  201.50  188.90       0\n"
      "# Out of bounds values : 0 OK\n";
  const auto t = trace::parse_trace(prose + run, "gke-a3mega", {Op::AllGather, 0, false});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1].size == 8589934592ULL);
  CHECK(t.ranks == 16); // size / count / 4 B = 8589934592 / 134217728 / 4
  // a real header with a column ccsim does not know is still refused, naming it
  CHECK_THROWS_AS(trace::parse_trace("#  size  count  type  redop  root  time  algbw  busbw  #wrong  copybw\n", "copybw",
                                     {Op::AllReduce, 0, false}),
                  Error);
}

TEST_CASE("RCCL's MSCCL settings and its load line are read as the run's: RCCL_MSCCL_ENABLE, Using MSCCL files") {
  // RCCL logs its own settings as NCCL does ("RCCL_MSCCL_ENABLE set by environment to 0.", ROCm/rccl 0cbce2a
  // src/include/param.h RCCL_PARAM), and MSCCL's init the directory it loads ("Using MSCCL files from <dir>",
  // src/misc/msccl/msccl_lifecycle.cc). A longer name that starts the same is a different setting.
  auto env_of = [](std::string_view line) {
    trace::Trace t;
    trace::parse_env_facts(line, t);
    return t.env;
  };
  CHECK(env_of("host:1:2 [0] NCCL INFO RCCL_MSCCL_ENABLE set by environment to 0.").at("RCCL_MSCCL_ENABLE") == "0");
  CHECK(env_of("mpirun -np 16 -x RCCL_MSCCL_ENABLE=0 ./all_reduce_perf -g 1").at("RCCL_MSCCL_ENABLE") == "0");
  CHECK(env_of("RCCL_MSCCL_ENABLE=0 \\").at("RCCL_MSCCL_ENABLE") == "0");
  const auto single = env_of("RCCL_MSCCL_ENABLE_SINGLE_PROCESS=0 ./all_reduce_perf -g 8");
  CHECK(single.count("RCCL_MSCCL_ENABLE") == 0);
  CHECK(single.at("RCCL_MSCCL_ENABLE_SINGLE_PROCESS") == "0");
  trace::Trace::NcclInfo info;
  trace::parse_info_facts("host:357:375 [1] NCCL INFO MSCCL: Initialization finished, localSize 400", info, "x");
  CHECK_FALSE(info.msccl_loaded);
  trace::parse_info_facts("host:357:375 [1] NCCL INFO Using MSCCL files from /opt/rocm/lib/../share/rccl/msccl-algorithms", info, "x");
  CHECK(info.msccl_loaded);
}

TEST_CASE("NCCL's own release line, printed without '#', names the run's release (OCI's GB300 alltoall blocks)") {
  // NCCL prints "NCCL version X" bare on stdout at NCCL_DEBUG=VERSION or WARN (NVIDIA/nccl v2.28.7-1 src/init.cc
  // showVersion: VERSION(), not INFO()), between nccl-tests' device list and its column banner. A reader keeps it
  // with the header's lines, where compare looks for the release, as it keeps rccl-tests' "RCCL version :" line.
  const std::string run =
      "# Collective test starting: alltoall_perf\n"
      "# nThread 1 nGpus 1 minBytes 524288 maxBytes 17179869184 step: 2(factor) warmup iters: 1 iters: 50 agg iters: 1 validation: 1 graph: 0\n"
      "#\n"
      "# Using devices\n"
      "#  Rank  0 Group  0 Pid 568623 on   GPU-3882 device  0 [0008:06:00] NVIDIA GB300\n"
      "#  Rank  1 Group  0 Pid 568624 on   GPU-3882 device  1 [0009:06:00] NVIDIA GB300\n"
      "#  Rank  2 Group  0 Pid 568625 on   GPU-3882 device  2 [0018:06:00] NVIDIA GB300\n"
      "#  Rank  3 Group  0 Pid 568628 on   GPU-3882 device  3 [0019:06:00] NVIDIA GB300\n"
      "NCCL version 2.28.7+cuda13.0\n"
      "#\n" +
      kNewHeader +
      "  8589934592     536870912     float    none      -1    10308  833.31  624.98      0   9568.2  897.76  673.32    N/A\n"
      "# Out of bounds values : 0 OK\n";
  const auto t = trace::parse_trace(run, "gb300-a2a");
  REQUIRE(t.rows.size() == 1);
  CHECK(model::nccl::nccl_version_in(t.provenance) == "2.28.7+cuda13.0");
  // a header that states the release first keeps its word
  const auto headed = trace::parse_trace("# nccl version: 2.29.3 (printed)\n" + run, "headed");
  CHECK(model::nccl::nccl_version_in(headed.provenance) == "2.29.3");
  // a sentence that merely mentions a release is not the line (it does not start with it)
  const auto prose = trace::parse_trace("Built against NCCL version 2.18.1 at first\n" + run.substr(0, run.find("NCCL version")) + "#\n" + kNewHeader +
                                            "  8589934592     536870912     float    none      -1    10308  833.31  624.98      0   9568.2  897.76  673.32    N/A\n",
                                        "prose");
  CHECK_FALSE(model::nccl::nccl_version_in(prose.provenance));
}
