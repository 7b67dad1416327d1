#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

using namespace ccsim;

TEST_CASE("bandwidth strings: bytes vs bits") {
  CHECK(parse_bandwidth("25GB/s", "x") == 25'000'000'000ULL);
  CHECK(parse_bandwidth("100Gbps", "x") == 12'500'000'000ULL);
  CHECK(parse_bandwidth("100Gb/s", "x") == 12'500'000'000ULL);
  // An upper-case B is bytes whatever follows it: 25GBps = 25 GB/s, not 25 Gb/s.
  CHECK(parse_bandwidth("25GBps", "x") == 25'000'000'000ULL);
  CHECK(parse_bandwidth("480.0GBps", "x") == 480'000'000'000ULL);
  CHECK(parse_bandwidth("800MBps", "x") == 800'000'000ULL);
  CHECK(parse_bandwidth("400Gbps", "x") == 50'000'000'000ULL);
  CHECK(parse_bandwidth("15.75 GB/s", "x") == 15'750'000'000ULL);
  CHECK(parse_bandwidth("12.5e9", "x") == 12'500'000'000ULL);
  CHECK_THROWS_AS(parse_bandwidth("-1GB/s", "x"), Error);
  CHECK_THROWS_AS(parse_bandwidth("0", "x"), Error);
  CHECK_THROWS_AS(parse_bandwidth("5 furlongs", "x"), Error);
}

TEST_CASE("durations and sizes") {
  CHECK(parse_duration("1us", "x") == kPsPerUs);
  CHECK(parse_duration("0.6us", "x") == 600'000);
  CHECK(parse_duration("500ns", "x") == 500'000);
  CHECK(parse_duration("2ms", "x") == 2'000'000'000);
  CHECK_THROWS_AS(parse_duration("5", "x"), Error); // a unit is required
  CHECK_THROWS_AS(parse_duration("-1us", "x"), Error);
  CHECK(parse_size("128M", "x") == 128ULL << 20);
  CHECK(parse_size("8", "x") == 8);
  CHECK(parse_size("1G", "x") == 1ULL << 30);
  CHECK(parse_size("4KiB", "x") == 4096);
  CHECK_THROWS_AS(parse_size("1.5", "x"), Error);
  CHECK_THROWS_AS(parse_size("2P", "x"), Error);
}

TEST_CASE("transfer_time rounds up to the picosecond") {
  CHECK(transfer_time(25, 25'000'000'000ULL) == 1000);   // 25 B at 25 GB/s = 1 ns
  CHECK(transfer_time(1, 3) == 333'333'333'334);          // ceil(1e12 / 3)
  CHECK(transfer_time(0, 1'000) == 0);
  CHECK(transfer_time(1ULL << 40, 1'000'000'000ULL) == 1'099'511'627'776'000LL); // no overflow at 1 TiB
}

TEST_CASE("error messages are one line") {
  try {
    parse_size("12Q", "-e/--maxbytes");
    FAIL("should throw");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK(m.find('\n') == std::string::npos);
    CHECK(m.find("-e/--maxbytes") == 0);
  }
}

TEST_CASE("numbers are read the same whether plain decimals or not") {
  // Plain decimals (digits and a point) take std::from_chars; the rest std::stod. Values by hand.
  CHECK(parse_bandwidth("0.1GB/s", "t") == 100'000'000u);
  CHECK(parse_bandwidth("12.5", "t") == 13u); // 12.5 B/s rounds half away from zero
  CHECK(parse_duration(".5us", "t") == 500'000);
  CHECK(parse_duration(" 1 2 . 5 N s ", "t") == 12'500);
  CHECK_THROWS_WITH_AS(parse_duration("7.", "t"), "t: '7.' needs a time unit (ps, ns, us, ms, s)", Error);
  CHECK(parse_bandwidth("+25GB/s", "t") == 25'000'000'000u);
  CHECK(parse_bandwidth("2.5e1GB/s", "t") == 25'000'000'000u);
  CHECK(parse_bandwidth("0x10", "t") == 16u); // hex, as strtod reads it
  CHECK(parse_bandwidth("25 Gb/s", "t") == 3'125'000'000u);
  CHECK(parse_size("1.5K", "t") == 1536u);
  CHECK_THROWS_WITH_AS(parse_bandwidth("123456789012345678", "t"), "t: bandwidth '123456789012345678' is absurdly large", Error);
  CHECK_THROWS_WITH_AS(parse_bandwidth(".", "t"), "t: '.' is not a number", Error);
}

TEST_CASE("format_size: the largest unit the size reaches, exact or marked rounded") {
  CHECK(format_size(1000) == "1000 B");
  CHECK(format_size(4096) == "4 KiB");
  CHECK(format_size(128ULL << 20) == "128 MiB");
  CHECK(format_size(3ULL << 30) == "3 GiB");
  CHECK(format_size(1536) == "1.5 KiB");                          // 1536 / 1024 = 1.5, exact
  CHECK(format_size(3ULL << 29) == "1.5 GiB");
  CHECK(format_size((1ULL << 20) + (1ULL << 18)) == "1.25 MiB");  // exact in hundredths
  // 208900 KiB = 213913600 B = 204.0039 MiB: was "208900 KiB"; rounded to hundredths it is 204.00, so "~204 MiB".
  CHECK(format_size(208900ULL * 1024) == "~204 MiB");
  CHECK(format_size((1ULL << 30) + 1) == "~1 GiB");
  CHECK(format_size(1000000) == "~976.56 KiB");                   // 1e6 / 1024 = 976.5625
  CHECK(format_size(4096ULL << 30) == "4096 GiB");                // no larger unit
}

// Hundredths rounded half up, by hand: 1030 B = 1 KiB + 6 B, 6 / 1024 = 0.00586 KiB -> 0.59 hundredths -> 1: "~1.01 KiB"
// (truncated it would be "~1 KiB"); 2047 B = 1 KiB + 1023 B, 99.9 hundredths -> 100: the next whole unit, "~2 KiB".
TEST_CASE("format_size: hundredths rounded half up, 100 of them the next whole unit") {
  CHECK(format_size(1030) == "~1.01 KiB");
  CHECK(format_size(1029) == "~1 KiB"); // 5 / 1024 = 0.488 hundredths -> 0
  CHECK(format_size(2047) == "~2 KiB");
}
