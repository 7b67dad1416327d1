// The scenario file reader's checks, shared by the data-parallel and the hybrid-parallel parts of a
// scenario: every message is one line that starts with "scenario <file>:" and names the element.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/core/units.hpp"

namespace ccsim::scenario {
using nlohmann::json;

// Reads one scenario; every message starts with "scenario <file>:" so it names the file.
class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  template <typename... Args>
  [[noreturn]] void bad(fmt::format_string<Args...> f, Args&&... args) const {
    fail("scenario {}: {}", origin_, fmt::format(f, std::forward<Args>(args)...));
  }

  void only_keys(const json& j, const std::string& where, std::initializer_list<const char*> keys) const {
    if (!j.is_object()) bad("{} must be an object", where);
    for (auto it = j.begin(); it != j.end(); ++it) { // not a structured binding: clang 14 cannot capture one
      const std::string& k = it.key();
      if (std::find_if(keys.begin(), keys.end(), [&](const char* s) { return k == s; }) == keys.end()) {
        std::string known;
        for (const char* s : keys) known += (known.empty() ? "" : ", ") + std::string(s);
        bad("unknown key '{}' in {} (known: {})", printable(k), where, known);
      }
    }
  }

  double number(const json& j, const std::string& key) const {
    if (!j.is_number()) bad("{} must be a number, got {}", key, describe(j));
    const double v = j.get<double>();
    if (!std::isfinite(v)) bad("{} must be finite", key);
    return v;
  }
  double positive(const json& j, const std::string& key) const {
    const double v = number(j, key);
    if (!(v > 0)) bad("{} must be positive, got {}", key, describe(j));
    return v;
  }
  // Counts may be written 3e8; they must still be whole.
  // The range check is done on the number as written, before any narrowing.
  std::uint64_t count(const json& j, const std::string& key, bool allow_zero = false,
                      std::uint64_t max = 1'000'000'000'000'000'000) const {
    const double v = number(j, key);
    if (v < 0 || (!allow_zero && v == 0) || v != std::floor(v))
      bad("{} must be a {} whole number, got {}", key, allow_zero ? "non-negative" : "positive", describe(j));
    if (v > 1e18 || v > static_cast<double>(max)) bad("{} must be at most {}, got {}", key, max, describe(j)); // 1e30 is whole, but huge
    const std::uint64_t n = j.is_number_float() ? static_cast<std::uint64_t>(v) : JsonValue(j, origin_, key).as_uint(0, UINT64_MAX);
    if (n > max) bad("{} must be at most {}, got {}", key, max, describe(j));
    return n;
  }
  std::string string(const json& j, const std::string& key) const {
    if (!j.is_string()) bad("{} must be a string, got {}", key, describe(j));
    return j.get<std::string>();
  }
  Time duration(const json& j, const std::string& key) const {
    const Time t = parse_duration(string(j, key), "scenario " + origin_ + ": " + key);
    if (t < 0) bad("{} must not be negative", key);
    return t;
  }
  // A value that may be one string or a list of strings.
  std::vector<std::string> strings(const json& j, const std::string& key) const {
    std::vector<std::string> out;
    if (j.is_string()) out.push_back(j.get<std::string>());
    else if (j.is_array() && !j.empty())
      for (const auto& e : j) out.push_back(string(e, key));
    else bad("{} must be a string or a non-empty list of strings", key);
    return out;
  }

 private:
  std::string origin_;
};

} // namespace ccsim::scenario
