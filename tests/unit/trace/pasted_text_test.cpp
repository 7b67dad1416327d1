// Copies of nccl-tests output that went through a Windows editor, a chat tool or a spreadsheet (the eighteenth user
// trial), and nccl-tests' own check of its results (#wrong, "Out of bounds values : N FAILED"). Expected values are
// the bytes and counts written into each text by hand.
#include <doctest/doctest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/trace/line_text.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

using namespace ccsim;

namespace {
const std::string kPastedHeader =
    "# nThread 1 nGpus 8 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
std::string pasted_row(const std::string& size, const std::string& count, const std::string& wrong_out, const std::string& wrong_in) {
  return "  " + size + "  " + count + "  float  sum  -1  100.0  10.49  18.35  " + wrong_out + "  100.0  10.49  18.35  " + wrong_in + "\n";
}
} // namespace

TEST_CASE("normalise_pasted_text: BOMs dropped, no-break and narrow spaces made spaces, a minus sign made '-'") {
  std::string s = "\xEF\xBB\xBF# a\n1\xC2\xA0" "2\xE2\x80\xAF" "3\xE2\x80\x87" "4\xE2\x80\x89" "5 \xA0" "6\n\xEF\xBB\xBF\xE2\x88\x92" "1\n";
  trace::text::normalise_pasted_text(s);
  CHECK(s == "# a\n1 2 3 4 5  6\n-1\n");
  // UTF-8 letters whose continuation byte is 0xA0 (U+00E0 'a grave' = C3 A0) are kept whole.
  std::string letters = "caf\xC3\xA0 \xE2\x80\x94 x";
  trace::text::normalise_pasted_text(letters);
  CHECK(letters == "caf\xC3\xA0 \xE2\x80\x94 x");
}

TEST_CASE("normalise_pasted_text: UTF-16 behind its byte order mark, either byte order, becomes UTF-8") {
  // "# a\xE9\n1" with U+00E9 and U+1F600 (a surrogate pair D83D DE00), written out by hand in both byte orders.
  std::string le("\xFF\xFE#\0 \0a\0\xE9\0\n\0" "1\0\x3D\xD8\x00\xDE", 18);
  trace::text::normalise_pasted_text(le);
  CHECK(le == "# a\xC3\xA9\n1\xF0\x9F\x98\x80");
  std::string be("\xFE\xFF\0#\0 \0a\0\xE9\0\n\0" "1", 14);
  trace::text::normalise_pasted_text(be);
  CHECK(be == "# a\xC3\xA9\n1");
  std::string odd("\xFF\xFE#", 3); // odd length: left as it was (refused as binary)
  trace::text::normalise_pasted_text(odd);
  CHECK(odd == std::string("\xFF\xFE#", 3));
}

TEST_CASE("is_grouped_uint: digits in groups of three after one separator") {
  using trace::text::is_grouped_uint;
  CHECK(is_grouped_uint("1,024"));
  CHECK(is_grouped_uint("1,048,576"));
  CHECK(is_grouped_uint("17.179.869.184"));
  CHECK(is_grouped_uint("1'048'576"));
  CHECK_FALSE(is_grouped_uint("1024"));
  CHECK_FALSE(is_grouped_uint("68,52"));
  CHECK_FALSE(is_grouped_uint("1,04,8576"));
  CHECK_FALSE(is_grouped_uint("1,048.576"));
  CHECK_FALSE(is_grouped_uint("1234,567"));
  CHECK(trace::text::locale_number_hint("68,52").find("decimal comma") != std::string::npos);
  CHECK(trace::text::locale_number_hint("1,024").find("thousands separator") != std::string::npos);
  CHECK(trace::text::locale_number_hint("abc").empty());
  CHECK(trace::text::locale_number_hint("1.5").empty());
}

TEST_CASE("wrong_results: the rows whose #wrong is above 0, else a FAILED closing line where #wrong is N/A") {
  const std::string ok = kPastedHeader + pasted_row("1048576", "262144", "0", "0") + pasted_row("2097152", "524288", "0", "0") +
                         "# Out of bounds values : 0 OK\n";
  CHECK(trace::wrong_results(trace::parse_trace(ok, "ok.txt")).empty());
  // Two rows wrong, one in each half: 2 MiB (out-of-place 5) and 4 MiB (in-place 7).
  const std::string bad = kPastedHeader + pasted_row("1048576", "262144", "0", "0") + pasted_row("2097152", "524288", "5", "0") +
                          pasted_row("4194304", "1048576", "0", "7") + "# Out of bounds values : 12 FAILED\n";
  const auto t = trace::parse_trace(bad, "bad.txt");
  CHECK(t.out_of_bounds == 12);
  CHECK(trace::wrong_results(t) == "#wrong above 0 on 2 rows, 2 MiB..4 MiB (7 at most)");
  // -c 0: every #wrong N/A, the closing line alone says the run failed.
  const std::string na = kPastedHeader + pasted_row("1048576", "262144", "N/A", "N/A") + "# Out of bounds values : 3 FAILED\n";
  CHECK(trace::wrong_results(trace::parse_trace(na, "na.txt")) == "'Out of bounds values : 3 FAILED'");
}

TEST_CASE("a last row with no line end after it, cut short, is refused saying so") {
  const std::string cut = kPastedHeader + pasted_row("1048576", "262144", "0", "0") + "  2097152  524288  float  sum";
  CHECK_THROWS_WITH_AS(trace::parse_trace(cut, "cut.txt"),
                       doctest::Contains("cut.txt:4: row has 4 columns but the header names 13 (the file ends inside this row"), Error);
  // The same row with its line end is a broken row, not a cut file.
  CHECK_THROWS_WITH_AS(trace::parse_trace(cut + "\n", "broken.txt"), "broken.txt:4: row has 4 columns but the header names 13", Error);
}

TEST_CASE("a thousands separator in the size column is refused by its line, even on the table's first row") {
  const std::string grouped = kPastedHeader + "  1,048,576  262,144  float  sum  -1  100.0  10.49  18.35  0  100.0  10.49  18.35  0\n";
  CHECK_THROWS_WITH_AS(trace::parse_trace(grouped, "g.txt"), doctest::Contains("g.txt:3: size '1,048,576' is not a whole number (a thousands separator"),
                       Error);
}
