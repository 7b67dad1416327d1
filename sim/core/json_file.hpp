// Reading JSON input files: one place that opens and parses a file and reads typed values out of it,
// so every loader (topology, scenario, params, NCCL tables) reports bad input the same way, in one line
// naming the file and the element: `scenarios/x.json: "network.model": expected a string, got 1`.
// nlohmann's own exceptions (type errors, number overflow, invalid UTF-8) never escape from here.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"

namespace ccsim {

// A JSON value as it appears in a message: its dump, made printable and short.
std::string describe(const nlohmann::json& v);
// dump() that never throws on invalid UTF-8 in strings (such bytes become U+FFFD). Output that carries
// file names or text from files must use this: a file name need not be UTF-8.
std::string safe_dump(const nlohmann::json& j, int indent = -1);
std::string safe_dump(const nlohmann::ordered_json& j, int indent = -1);

// Parses `text` as JSON; on failure throws Error "`origin`: malformed JSON: <reason>" (one line).
nlohmann::json parse_json_text(std::string_view text, const std::string& origin);
// Reads and parses the file at `path`; errors name it ("<path>: cannot open", "<path>: malformed JSON ...").
// `prefix` is put before the path in every message (e.g. "--params ").
nlohmann::json read_json_file(const std::string& path, const std::string& prefix = "");

// A value inside a parsed document, with the file and the element path used in every message.
class JsonValue {
 public:
  JsonValue(const nlohmann::json& v, std::string file, std::string path = "")
      : v_(&v), file_(std::make_shared<const std::string>(std::move(file))), path_(std::move(path)) {}

  const nlohmann::json& raw() const { return *v_; }
  const std::string& file() const { return *file_; }
  const std::string& path() const { return path_; } // "network.model", "links[3].bw"; "" for the root

  // "<file>: "<path>": <message>" (the path part left out at the root).
  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) const {
    fail_message(fmt::format(f, std::forward<Args>(args)...));
  }
  [[noreturn]] void fail_message(const std::string& msg) const;

  bool is_object() const { return v_->is_object(); }
  bool is_array() const { return v_->is_array(); }
  bool is_string() const { return v_->is_string(); }
  bool is_number() const { return v_->is_number(); }
  bool is_bool() const { return v_->is_boolean(); }

  // Objects. has() is false for a non-object; get()/operator[] fail unless the value is an object.
  bool has(std::string_view key) const;
  std::optional<JsonValue> get(std::string_view key) const;
  JsonValue operator[](std::string_view key) const; // fails "missing" when absent
  std::vector<std::pair<std::string, JsonValue>> items() const;
  // Fails naming the first key not in `known` (the list is shown).
  void only_keys(std::initializer_list<std::string_view> known) const;

  // Arrays (fail unless the value is an array).
  std::size_t size() const;
  JsonValue at(std::size_t i) const;
  std::vector<JsonValue> elements() const;

  // Typed reads: each fails "expected <what>, got <value>" on the wrong type or a value out of range.
  std::string as_string() const;
  bool as_bool() const;
  double as_double(double lo = -1e308, double hi = 1e308) const; // finite, in [lo, hi]
  // A whole number in [lo, hi]; written as an integer or as a whole double (3e8). Never truncates.
  std::int64_t as_int(std::int64_t lo, std::int64_t hi) const;
  std::uint64_t as_uint(std::uint64_t lo, std::uint64_t hi) const;

 private:
  JsonValue(const nlohmann::json& v, std::shared_ptr<const std::string> file, std::string path)
      : v_(&v), file_(std::move(file)), path_(std::move(path)) {}
  JsonValue child(const nlohmann::json& v, std::string path) const { return {v, file_, std::move(path)}; }
  const nlohmann::json* v_;
  // Shared by every value of one document: a topology file has thousands of values, and a copy of the
  // file name each (longer than the short-string buffer) was a malloc each.
  std::shared_ptr<const std::string> file_;
  std::string path_;
};

} // namespace ccsim
