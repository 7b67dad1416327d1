// nlohmann::json's parser and serializer behind plain functions, compiled once (json_io.cpp). json::parse and
// dump() are templates whose code every calling unit instantiates again (~1.3 s of g++ -O3 and ~4 s of clang
// ASan CPU per unit, scripts/BENCHMARKS.md "CI time, ninth session"); these do exactly what the calls they
// replace did, exceptions included. Messages for users' files go through json_file.hpp, which uses these too.
#pragma once
#include <iosfwd>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace ccsim {

// json::parse(text): throws nlohmann::json::exception on malformed input.
nlohmann::json json_parse(std::string_view text);
// json::parse(in), reading the stream to its end.
nlohmann::json json_parse(std::istream& in);
// json::parse(text, nullptr, false): a discarded value (is_discarded()) instead of an exception.
nlohmann::json json_parse_or_discarded(std::string_view text);
// ordered_json::parse(text): keys keep the order of the text.
nlohmann::ordered_json ordered_json_parse(std::string_view text);
nlohmann::ordered_json ordered_json_parse_or_discarded(std::string_view text);
// j.dump(indent): strict, throws on invalid UTF-8 (safe_dump in json_file.hpp replaces it instead).
std::string json_dump(const nlohmann::json& j, int indent = -1);
std::string json_dump(const nlohmann::ordered_json& j, int indent = -1);

} // namespace ccsim
