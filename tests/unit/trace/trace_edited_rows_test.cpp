// Hand-copied tables (issue 14): a mistyped count is left out with a note when the row's own time and
// algbw confirm its size; and a shared header's -g does not override a run's own busbw/algbw ratio.
#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

using namespace ccsim;

namespace {
const char* kHeader =
    "# command: all_reduce_perf -b 4G -e 8G -f 2 -g 4\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
} // namespace

TEST_CASE("a row whose count contradicts a size its own time and algbw confirm is left out with a note") {
  // 4294967296 B / 9801.3 us = 438.20 GB/s: the size stands, the count (107374124) is the typo.
  const std::string text = std::string(kHeader) +
                           "4294967296  107374124   float   sum     -1  9801.3  438.20  657.31  0   9809.9  437.82  656.73  0\n"
                           "8589934592  2147483648  float   sum     -1  19424   442.22  663.34  0   19465   441.30  661.95  0\n";
  const auto t = trace::parse_trace(text, "typo.txt");
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].size == 8589934592ULL);
  REQUIRE(t.notes.size() == 1);
  CHECK(t.notes[0].find("line 3 skipped") != std::string::npos);
  CHECK(t.ranks == 4); // -g 4 and busbw/algbw = 1.5 = 2 x 3/4 agree
}

TEST_CASE("a count that contradicts the size with no confirming algbw is still refused") {
  // algbw 100 x 9801.3 us = 0.98 GB, not 4 GiB: nothing says which column is wrong.
  const std::string text = std::string(kHeader) +
                           "4294967296  107374124   float   sum     -1  9801.3  100.00  150.00  0   9809.9  100.00  150.00  0\n"
                           "8589934592  2147483648  float   sum     -1  19424   442.22  663.34  0   19465   441.30  661.95  0\n";
  CHECK_THROWS_AS(trace::parse_trace(text, "bad.txt"), Error);
  const std::string only_typo = std::string(kHeader) +
                                "4294967296  107374124   float   sum     -1  9801.3  438.20  657.31  0   9809.9  437.82  656.73  0\n";
  CHECK_THROWS_AS(trace::parse_trace(only_typo, "only.txt"), Error);
}

TEST_CASE("a run's busbw over algbw wins over a header's -g that belongs to another run") {
  // 891.64 / 452.90 = 1.96874 = 2 x 63/64: 64 ranks (the header's -g 4 is another run's).
  const std::string text = std::string(kHeader) +
                           "8589934592  2147483648  float   sum     -1  18967   452.90  891.64  0   18884   454.88  895.54  0\n";
  const auto t = trace::parse_trace(text, "run.txt");
  CHECK(t.ranks == 64);
  CHECK(t.ranks_from == "busbw/algbw ratio");
  // 192 ranks: 748.93 / 376.43 gives n = 191.57 because of the 0.01 GB/s print rounding; still 192.
  const std::string big = std::string(kHeader) +
                          "8589934592  2147483648  float   sum     -1  22820   376.43  748.93  0   22859   375.77  747.63  0\n";
  CHECK(trace::parse_trace(big, "big.txt").ranks == 192);
}

TEST_CASE("a device list with elided lines gives way to the rows' busbw over algbw") {
  // 5 ranks listed, then "..."; busbw 110.73 / algbw 57.15 = 1.9375 = 2 x 31/32: 32 ranks.
  const std::string text =
      "#   Rank  0 Pid 33 on w0 device  0 [0x27] NVIDIA A100-SXM4-80GB\n"
      "#   Rank  1 Pid 34 on w0 device  1 [0x2a] NVIDIA A100-SXM4-80GB\n"
      "#   Rank  2 Pid 35 on w0 device  2 [0x51] NVIDIA A100-SXM4-80GB\n"
      "#   Rank  3 Pid 36 on w0 device  3 [0x57] NVIDIA A100-SXM4-80GB\n"
      "#   Rank  4 Pid 37 on w0 device  4 [0x9e] NVIDIA A100-SXM4-80GB\n"
      "# ...\n"
      "# command: all_reduce_perf -b 512M -e 512M\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "   536870912     134217728     float     sum      -1   9393.7   57.15  110.73      0   9318.5   57.61  111.63      0\n";
  const auto t = trace::parse_trace(text, "elided.txt");
  CHECK(t.ranks == 32);
  CHECK(t.ranks_from.find("device list shows 5") != std::string::npos);
}

TEST_CASE("an alltoall row whose count says size = count x 4 B is read by its size when time and algbw confirm it") {
  // nccl-tests' alltoall on 8 ranks prints count = size / (4 B x 8): 8589934592 / 32 = 268435456. The first
  // row says 2147483648 (size / 4, an allreduce's count); 8589934592 B / 11426 us = 751.78 GB/s, as printed.
  const std::string text =
      "# command: alltoall_perf -b 8G -e 16G -f 2 -g 8\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "8589934592  2147483648  float   none    -1  11426   751.78  657.81  0   11418   752.32  658.30  N/A\n"
      "17179869184 536870912   float   none    -1  22698   756.88  662.27  0   22741   755.47  661.03  N/A\n";
  const auto t = trace::parse_trace(text, "edited.txt");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.ranks == 8);
  CHECK(t.rows[0].count == 268435456ULL);
  CHECK(t.rows[1].count == 536870912ULL); // already nccl-tests' count
  REQUIRE(t.notes.size() == 1);
  CHECK(t.notes[0].find("line(s) 3 read by size") != std::string::npos);
}

TEST_CASE("an alltoall count that contradicts the definition with no confirming algbw is still refused") {
  // 500 GB/s x 11426 us = 5.7 GB, not the 8.6 GB size: nothing says which column is wrong.
  const std::string text =
      "# command: alltoall_perf -b 8G -e 8G -g 8\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "8589934592  2147483648  float   none    -1  11426   500.00  437.50  0   11418   500.00  437.50  N/A\n";
  CHECK_THROWS_WITH_AS(trace::parse_trace(text, "bad.txt"), doctest::Contains("needs 8x"), Error);
}

TEST_CASE("rank counts the busbw print leaves open: the one that divides the size, else the caller's --ranks") {
  const std::string hdr =
      "# command: alltoall_perf -b 4G -e 8G -f 2 -g 1\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
  // 89.70 / 90.40 gives n = 129.1; 128 and 129 both agree with every half to the print, and only 128
  // divides 8 GiB / 4 B.
  const std::string two_racks = hdr + "8589934592  2147483648  float   none    -1  95018   90.40   89.70   0   95119   90.31   89.60   N/A\n";
  const auto a = trace::parse_trace(two_racks, "d.txt");
  CHECK(a.ranks == 128);
  CHECK(a.rows[0].count == 16777216ULL); // 8 GiB / (4 B x 128)
  // 192 ranks (a hand-edited size no multiple of 3 divides): 191-193 all agree with the print; --ranks 192,
  // the machine the user describes, is one of them and is taken; count = floor(8 GiB / (4 B x 192)).
  const std::string three_racks = hdr + "8589934592  2147483648  float   none    -1  136749  62.82   62.49   0   137392  62.52   62.20   N/A\n";
  trace::Hints h;
  h.ranks = 192;
  const auto b = trace::parse_trace(three_racks, "e.txt", h);
  CHECK(b.ranks == 192);
  CHECK(b.rows[0].count == 11184810ULL);
  // A --ranks the print rules out does not win: 64 ranks would print busbw 89.99, not 89.70.
  h.ranks = 64;
  CHECK(trace::parse_trace(two_racks, "d.txt", h).ranks == 128);
}
