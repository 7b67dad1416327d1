#include <doctest/doctest.h>

#include "sim/core/json_file.hpp"
#include "sim/core/units.hpp"

using namespace ccsim;
using nlohmann::json;

namespace {
json doc(const char* text) { return json::parse(text); }
} // namespace

TEST_CASE("json_file: messages name the file and the element path") {
  const json j = doc(R"({"network": {"model": 1}, "links": [{"bw": "x"}, {"lanes": 2}]})");
  const JsonValue root(j, "scenarios/x.json");
  CHECK_THROWS_WITH_AS(root["network"]["model"].as_string(), "scenarios/x.json: \"network.model\": expected a string, got 1", Error);
  CHECK_THROWS_WITH_AS(root["links"].at(0)["lanes"], "scenarios/x.json: \"links[0]\": missing \"lanes\"", Error);
  CHECK(root["links"].at(1)["lanes"].as_int(1, 8) == 2);
  CHECK_THROWS_WITH_AS(root["nodes"], "scenarios/x.json: missing \"nodes\"", Error);
  CHECK_THROWS_WITH_AS(root.only_keys({"network"}), doctest::Contains("unknown key 'links' (known: network)"), Error);
}

TEST_CASE("json_file: whole numbers are range-checked before any narrowing") {
  const json j = doc(R"([4294967304, -1, 3e8, 2.5, 18446744073709551615, 1e19, "7", true])");
  const JsonValue a(j, "f.json");
  CHECK_THROWS_WITH_AS(a.at(0).as_int(1, 65536), doctest::Contains("expected a whole number in [1, 65536], got 4294967304"), Error);
  CHECK(a.at(0).as_uint(0, UINT64_MAX) == 4294967304ULL);
  CHECK_THROWS_AS(a.at(1).as_uint(0, 10), Error);
  CHECK(a.at(1).as_int(-5, 5) == -1);
  CHECK(a.at(2).as_uint(0, 1'000'000'000) == 300'000'000);
  CHECK_THROWS_AS(a.at(3).as_int(0, 10), Error);
  CHECK(a.at(4).as_uint(0, UINT64_MAX) == UINT64_MAX);
  CHECK_THROWS_AS(a.at(4).as_int(INT64_MIN, INT64_MAX), Error);
  CHECK_THROWS_AS(a.at(5).as_int(INT64_MIN, INT64_MAX), Error); // 1e19 does not fit in int64
  CHECK_THROWS_WITH_AS(a.at(6).as_int(0, 10), "f.json: \"[6]\": expected a whole number, got \"7\"", Error);
  CHECK_THROWS_AS(a.at(7).as_double(), Error);
  CHECK_THROWS_AS(a.at(8), Error); // no such element
}

TEST_CASE("json_file: doubles must be finite and in range") {
  const json j = doc(R"({"e": 1e10, "ok": 0.5})");
  const JsonValue v(j, "p.json");
  CHECK_THROWS_WITH_AS(v["e"].as_double(0, 100), "p.json: \"e\": expected a number in [0, 100], got 10000000000.0", Error);
  CHECK(v["ok"].as_double(0, 1) == 0.5);
  CHECK_THROWS_WITH_AS(parse_json_text(R"({"name": 1e400})", "t.json"), "t.json: malformed JSON: number overflow parsing '1e400'", Error);
  CHECK_THROWS_WITH_AS(parse_json_text("{", "t.json"), doctest::Contains("t.json: malformed JSON: "), Error);
}

TEST_CASE("printable and safe_dump: control characters and invalid UTF-8 never reach a message or throw") {
  CHECK(printable("a\nb\x1b[31m") == "a\\x0ab\\x1b[31m");
  CHECK(printable("caf\xc3\xa9") == "caf\xc3\xa9"); // valid UTF-8 stays
  CHECK(printable("\xff\xfe") == "\\xff\\xfe");
  CHECK(printable("abcdef", 3) == "abc...");
  const json j = std::string("\xff.json");
  CHECK_THROWS(j.dump()); // what nlohmann does: the reason for safe_dump
  CHECK(safe_dump(j) == "\"\xef\xbf\xbd.json\"");
}

TEST_CASE("parse_whole: only whole decimal numbers that fit") {
  CHECK(parse_whole("8", "x", 1, 10) == 8);
  CHECK(parse_whole("-1", "x", -1, 10) == -1);
  for (const char* bad : {"8abc", "8.9", "+8", " 8", "", "0x8"})
    CHECK_THROWS_WITH_AS(parse_whole(bad, "--topo ranks", 0, 100), doctest::Contains("is not a whole number"), Error);
  CHECK_THROWS_WITH_AS(parse_whole("99999999999999999999", "n", 0, 100), doctest::Contains("out of range"), Error);
  CHECK_THROWS_WITH_AS(parse_whole("101", "n", 0, 100), "n: 101 is out of range (0..100)", Error);
}
