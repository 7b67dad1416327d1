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
