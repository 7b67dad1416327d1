// The nccl-tests / NCCL-log parser on every shipped trace (models/traces/, byte copies of
// shared/traces/), old vs new format, and malformed input giving one-line errors.
#include <doctest/doctest.h>

#include <string>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

using namespace ccsim;
using schedule::Op;

namespace {
std::string tp(const char* f) { return ccsim::data_dir() + "/models/traces/" + f; }
const trace::MeasuredRow& row_of(const trace::Trace& t, Bytes size) {
  for (const auto& r : t.rows)
    if (r.size == size) return r;
  FAIL("no row of size " << size);
  return t.rows.front();
}
} // namespace

TEST_CASE("konnase DGX-1V allreduce: old format, op from the command line, ranks from the device list") {
  const auto t = trace::load_trace(tp("dgx1-v100-8gpu-allreduce-konnase.txt"));
  CHECK(t.rows.size() == 25);
  REQUIRE(t.op);
  CHECK(*t.op == Op::AllReduce);
  CHECK(t.op_from == "command: header line");
  CHECK(t.ranks == 8);
  CHECK(t.ranks_from == "device list");
  CHECK_FALSE(t.has_root_column);
  CHECK(t.has_redop_column);
  CHECK_FALSE(t.old_busbw_convention);
  CHECK(t.rows.front().size == 8);
  CHECK(t.rows.front().out_of_place->time_us == doctest::Approx(48.46));
  CHECK(t.rows.front().out_of_place->wrong == "1e-07");
  const auto& last = row_of(t, 134217728);
  CHECK(last.count == 33554432);
  CHECK(last.out_of_place->busbw == doctest::Approx(129.14));
  CHECK(last.in_place->time_us == doctest::Approx(1821.9));
  CHECK(t.header_values.at("nGpus") == "8");
  CHECK(t.hardware.find("8x Tesla V100-SXM2-16GB") != std::string::npos);
  CHECK(t.provenance.front().rfind("# source: GitHub konnase", 0) == 0);
}

TEST_CASE("deepops 2-node allreduce: old format with indentation, ranks only from busbw over algbw") {
  const auto bare = trace::load_trace(tp("dgx1-v100-2node-16gpu-allreduce-roce-deepops.txt"));
  CHECK(bare.rows.size() == 29);
  CHECK(*bare.op == Op::AllReduce);
  CHECK(bare.ranks == 16); // the header's 2 nodes x 8 GPUs; the file prints no count, the bus factor 1.875 says it
  CHECK(bare.ranks_from == "busbw/algbw ratio");
  trace::Hints h;
  h.ranks = 12; // a hint that the measured ratio contradicts loses unless forced
  CHECK(trace::load_trace(tp("dgx1-v100-2node-16gpu-allreduce-roce-deepops.txt"), h).ranks == 16);
  h.force = true;
  CHECK(trace::load_trace(tp("dgx1-v100-2node-16gpu-allreduce-roce-deepops.txt"), h).ranks_from == "--ranks");
  h.ranks = 16;
  const auto t = trace::load_trace(tp("dgx1-v100-2node-16gpu-allreduce-roce-deepops.txt"), h);
  CHECK(t.ranks == 16);
  CHECK(t.rows.front().out_of_place->time_us == doctest::Approx(2193.5));
  CHECK(t.rows.front().in_place->time_us == doctest::Approx(132.2));
  CHECK(row_of(t, 2147483648ULL).out_of_place->busbw == doctest::Approx(22.92));
}

TEST_CASE("p4de: srun task prefixes, new format with root and #wrong") {
  trace::Hints h;
  h.ranks = 16;
  const auto t = trace::load_trace(tp("aws-p4de-a100-80gb-2node-16gpu-allreduce-efa-awsome.txt"), h);
  CHECK(t.rows.size() == 29);
  CHECK(*t.op == Op::AllReduce);
  CHECK(t.has_root_column);
  CHECK(t.rows.front().root == -1);
  CHECK(t.rows.front().out_of_place->time_us == doctest::Approx(164.3));
  CHECK(t.rows.front().out_of_place->wrong == "0");
  CHECK(t.rows.back().size == 2147483648ULL);
  CHECK(t.rows.back().in_place->busbw == doctest::Approx(78.33));
}

TEST_CASE("DGX-2 allgather and reducescatter: 2019 algbw = busbw convention detected, zero-size rows kept") {
  const auto ag = trace::load_trace(tp("dgx2-v100-12of16gpu-allgather-dgx2fork.txt"));
  CHECK(*ag.op == Op::AllGather);
  CHECK(ag.ranks == 12);
  CHECK_FALSE(ag.has_redop_column);
  CHECK(ag.old_busbw_convention);
  CHECK(ag.rows.size() == 31);
  CHECK(ag.rows.front().size == 0);
  CHECK(row_of(ag, 48).count == 1);
  CHECK(row_of(ag, 8589934560ULL).in_place->busbw == doctest::Approx(112.34));
  CHECK(row_of(ag, 8589934560ULL).out_of_place->wrong == "1e+00");
  const auto rs = trace::load_trace(tp("dgx2-v100-12of16gpu-reducescatter-dgx2fork.txt"));
  CHECK(*rs.op == Op::ReduceScatter);
  CHECK(rs.ranks == 12);
  CHECK(rs.old_busbw_convention);
  const auto ar = trace::load_trace(tp("dgx2-v100-12of16gpu-allreduce-dgx2fork.txt"));
  CHECK(*ar.op == Op::AllReduce);
  CHECK(ar.ranks == 12);
  CHECK_FALSE(ar.old_busbw_convention); // allreduce printed algbw = size/time even then
  CHECK(ar.rows.front().out_of_place->time_us == doctest::Approx(61.03));
}

TEST_CASE("A100, H100, RTX 4090 (new format) and RTX 2080 Ti (no header, op line)") {
  const auto a = trace::load_trace(tp("hgx-a100-40gb-8gpu-allreduce-fullsweep-ocitutorials-gpucluster.txt"));
  CHECK(a.rows.size() == 28);
  CHECK(a.ranks == 8);
  CHECK(row_of(a, 8589934592ULL).out_of_place->busbw == doctest::Approx(235.14));
  const auto h = trace::load_trace(tp("hgx-h100-2node-16gpu-allreduce-roce-ocitutorials.txt"));
  CHECK(h.rows.size() == 5);
  CHECK(h.ranks == 16); // device list of 16 processes with nGpus 1 each
  CHECK(*h.op == Op::AllReduce);
  CHECK(h.rows.back().out_of_place->time_us == doctest::Approx(69338));
  const auto r = trace::load_trace(tp("rtx4090-pcie-8gpu-allreduce-p2p-off-blog.txt"));
  CHECK(r.rows.size() == 25);
  CHECK(r.ranks == 8);
  CHECK(row_of(r, 33554432).out_of_place->busbw == doctest::Approx(15.04));
  const auto g = trace::load_trace(tp("rtx2080ti-2gpu-nvlinkbridge-allgather-partial-nccltests44.txt"));
  CHECK(*g.op == Op::AllGather); // from the "op:" line, not the broadcast_perf of the command line
  CHECK(g.op_from == "op: header line");
  CHECK(g.ranks == 2);
  CHECK(g.rows.size() == 13);
  CHECK(g.old_busbw_convention);
  CHECK(g.rows.front().out_of_place->time_us == doctest::Approx(13.39));
}

TEST_CASE("p3dn NCCL INFO ring lines: hops and partial chains") {
  const auto t = trace::load_trace(tp("aws-p3dn-v100-dgx1like-nccl-rings-nccl398.txt"));
  CHECK(t.rows.empty());
  CHECK(t.ring_hops.size() == 17);
  const auto& net = t.ring_hops[11]; // "15 -> 0 [send] via NET/Socket/0"
  CHECK(net.src == 15);
  CHECK(net.dst == 0);
  CHECK(net.transport == "NET/Socket/0");
  CHECK(t.ring_hops[0].src_dev == 3);
  const auto chains = trace::ring_chains(t.ring_hops);
  REQUIRE(chains.size() >= 2);
  CHECK(chains[0].channel == 0);
  bool found = false;
  for (const auto& c : chains)
    if (c.channel == 0 && c.ranks == std::vector<int>{3, 2, 6, 4, 5, 7, 8}) found = true;
  CHECK(found);
  // A complete ring listing closes.
  const auto full = trace::parse_trace("host:1:1 [0] NCCL INFO Channel 00/02 :    0   1   2   3\n", "x");
  const auto fc = trace::ring_chains(full.ring_hops);
  REQUIRE(fc.size() == 1);
  CHECK(fc[0].closed);
  CHECK(fc[0].ranks == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("old and new formats of the same measurement parse to the same values") {
  const std::string old_fmt =
      "# command: ./build/all_reduce_perf -b 8 -e 16 -f 2 -g 4\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "            8             2   float     sum    10.00    0.00    0.00  1e-07    11.00    0.00    0.00  1e-07\n"
      "     1048576        262144   float     sum    100.0   10.49   15.73  1e-07    101.0   10.38   15.57  1e-07\n";
  const std::string new_fmt =
      "# nThread 1 nGpus 4 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
      "            8             2     float     sum      -1    10.00    0.00    0.00      0    11.00    0.00    0.00      0\n"
      "      1048576        262144     float     sum      -1    100.0   10.49   15.73      0    101.0   10.38   15.57      0\n";
  trace::Hints h;
  h.op = Op::AllReduce;
  const auto a = trace::parse_trace(old_fmt, "old");
  const auto b = trace::parse_trace(new_fmt, "new", h);
  REQUIRE(a.rows.size() == 2);
  REQUIRE(b.rows.size() == 2);
  CHECK(a.ranks == 4);
  CHECK(b.ranks == 4);
  CHECK(b.ranks_from == "nThread*nGpus (single process)");
  CHECK(*a.op == *b.op);
  CHECK_FALSE(a.has_root_column);
  CHECK(b.has_root_column);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(a.rows[i].size == b.rows[i].size);
    CHECK(a.rows[i].count == b.rows[i].count);
    CHECK(a.rows[i].out_of_place->time_us == b.rows[i].out_of_place->time_us);
    CHECK(a.rows[i].in_place->busbw == b.rows[i].in_place->busbw);
  }
}

TEST_CASE("malformed traces give one-line errors naming file and line") {
  const std::string hdr = "#       size         count    type   redop     time   algbw   busbw  error\n";
  struct Case {
    std::string text, want;
  } cases[] = {
      {"", "bad: the file is empty"},
      {" \n\t\r\n", "bad: the file is empty"},
      {"just some words\nand more\n", "no nccl-tests rows"},
      {hdr + "     1024   256   float   sum   12.0   0.09   0.15\n", "bad:2: row has 7 columns but the header names 8"},
      {hdr + "     1024   256   float   sum   abc   0.09   0.15  0e+00\n", "bad:2: time 'abc' is not a number"},
      {hdr + "     1024   256   float   sum   -3.0   0.09   0.15  0e+00\n", "must be a finite non-negative"},
      {hdr + "     1024   256   float   sum   3.0   0.09   0.15  0e+00\n  512   128   float   sum   3.0   0.09   0.15  0e+00\n",
       "sizes must not decrease"},
      {hdr + "     1024   256   float   sum   3.0   0.09   0.15  0e+00\nnot a row\n", "bad:3: expected a table row"},
      {hdr + "     1000   256   float   sum   3.0   0.09   0.15  0e+00\n", "is not a multiple of count"},
      {hdr + "     1024   256   float16x sum   3.0   0.09   0.15  0e+00\n", "unknown data type"},
      {"#  size  count  type  redop  flavour  time algbw busbw\n", "unknown column 'flavour'"},
      {"   1024   256   float   sum   3.0\n", "at least size, count, type"},
      {"   1024   256   float   sum   3.0  1.0  2.0  0 1 2 3\n", "cannot tell the columns"},
      {"# command: all_reduce_perf -g 4\n" + hdr + "   4096   256   float   sum   3.0   0.09   0.15  0e+00\n",
       "needs 1x"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.want);
    bool threw = false;
    try {
      trace::parse_trace(c.text, "bad");
    } catch (const Error& e) {
      threw = true;
      const std::string msg = e.what();
      CHECK(msg.find(c.want) != std::string::npos);
      CHECK(msg.find('\n') == std::string::npos);
    }
    CHECK(threw);
  }
}

// Mutation pass (scripts/MUTANTS.md): the 2019 convention is recognised only where algbw / (size/time) is within
// 0.02 of (n-1)/n. By hand, 4 ranks: (n-1)/n = 0.75; size/time = 1048576 B / 100 us = 10.486 GB/s, so a printed
// algbw of 7.86 is 0.7496 of it (the 2019 convention) and one of 8.39 is 0.8001 (0.05 from 0.75, 0.2 from 1): no vote.
TEST_CASE("2019 allgather convention: an algbw 0.05 off (n-1)/n is no vote for it") {
  const auto trace_with = [](const char* algbw) {
    const std::string text = std::string("# command: ./build/all_gather_perf -b 1M -e 2M -f 2 -g 4\n"
                                         "#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error\n"
                                         "     1048576         65536   float    100.0    ") + algbw +
                             "    5.00  0e+00    100.0    " + algbw + "    5.00  0e+00\n"
                             "     2097152        131072   float    200.0    " + algbw + "    5.00  0e+00    200.0    " + algbw +
                             "    5.00  0e+00\n";
    return trace::parse_trace(text, "conv");
  };
  const auto old_conv = trace_with("7.86");
  REQUIRE(old_conv.ranks == 4);
  CHECK(old_conv.old_busbw_convention);
  CHECK_FALSE(trace_with("8.39").old_busbw_convention);
  CHECK_FALSE(trace_with("10.49").old_busbw_convention); // algbw = size/time: today's convention
}

// A SHARP group size too large to be one is refused quoting the number the log holds: the reader took its first 9
// digits and quoted "999999999" for a line that says 99999999999.
TEST_CASE("SHARP log line: an out-of-range group size is quoted whole") {
  trace::Trace t;
  CHECK_THROWS_WITH_AS(trace::parse_collnet_facts("h:1:1 [0] NCCL INFO [group#:1] tree_type:SAT group size:99999999999", t, "f.txt:3"),
                       "f.txt:3: SHARP group size: 99999999999 is out of range (1..16777216)", Error);
  trace::parse_collnet_facts("h:1:1 [0] NCCL INFO [group#:1] tree_type:SAT group size:4", t, "f.txt:4");
  CHECK(t.info.sharp_group_size == 4);
}

// A partial copy without the '#  size  count ...' header: the columns are told by the count. rccl-tests -O 0 (no
// out-of-place runs) prints one half: size count type redop root, then time algbw busbw #wrong: 9 words, 5 after the
// redop, the root among them (as 9 after it means root and two halves). Without a root column it is 8 words, 4 after.
TEST_CASE("a headerless row of one half with a root column: 5 words after the redop are root, time, algbw, busbw, #wrong") {
  const trace::Hints h{schedule::Op::AllReduce, 8, false};
  const auto t = trace::parse_trace("     1048576        262144     float     sum      -1    26.72   39.24   68.67       0\n", "o0.txt", h);
  REQUIRE(t.rows.size() == 1);
  const auto& r = t.rows[0];
  CHECK(r.size == 1048576);
  CHECK(r.count == 262144);
  CHECK(r.root == -1);
  REQUIRE(r.out_of_place);
  CHECK_FALSE(r.in_place);
  CHECK(r.out_of_place->time_us == doctest::Approx(26.72));
  CHECK(r.out_of_place->busbw == doctest::Approx(68.67));
  const auto no_root = trace::parse_trace("     1048576        262144     float     sum    26.72   39.24   68.67       0\n", "o0.txt", h);
  REQUIRE(no_root.rows.size() == 1);
  REQUIRE(no_root.rows[0].out_of_place);
  CHECK(no_root.rows[0].out_of_place->time_us == doctest::Approx(26.72));
}
