#include "sim/core/json_file.hpp"
#include "sim/core/json_io.hpp"
#include "sim/core/output_files.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ccsim {
using nlohmann::json;

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  return n;
}

// nlohmann's messages start with "[json.exception.parse_error.101] ": the tag says nothing to a user.
std::string strip_tag(std::string msg) {
  if (msg.rfind("[json.exception.", 0) == 0) {
    const auto close = msg.find("] ");
    if (close != std::string::npos) msg = msg.substr(close + 2);
  }
  return msg;
}

} // namespace

std::string printable(std::string_view text, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (out.size() >= max) return out + "...";
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8_length(text, i);
    if (n == 0 || c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string safe_dump(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }
std::string safe_dump(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string describe(const json& v) { return printable(safe_dump(v), 60); }

json parse_json_text(std::string_view text, const std::string& origin) {
  // An empty file is what a failed `... > plan.json` leaves behind: say that, not "unexpected end of input".
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) fail("{}: is empty, not a JSON document", origin);
  try {
    return json_parse(text);
  } catch (const json::exception& e) { // parse errors and number overflow (1e400) alike
    fail("{}: malformed JSON: {}", origin, printable(strip_tag(e.what())));
  }
}

json read_json_file(const std::string& path, const std::string& prefix) {
  if (path.empty()) fail("{}'': an empty file name", prefix);
  if (std::error_code ec; std::filesystem::is_directory(path, ec)) fail("{}{}: is a directory, not a JSON file", prefix, printable(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}{}: cannot open", prefix, printable(path));
  note_input(path); // never an output of this run (output_files.hpp)
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) fail("{}{}: cannot read", prefix, printable(path));
  return parse_json_text(ss.str(), prefix + printable(path));
}

void JsonValue::fail_message(const std::string& msg) const {
  if (path_.empty()) ccsim::fail("{}: {}", *file_, msg);
  ccsim::fail("{}: \"{}\": {}", *file_, printable(path_), msg);
}

bool JsonValue::has(std::string_view key) const { return v_->is_object() && v_->contains(key); }

std::optional<JsonValue> JsonValue::get(std::string_view key) const {
  if (!v_->is_object()) fail("expected an object, got {}", describe(*v_));
  const auto it = v_->find(key);
  if (it == v_->end()) return std::nullopt;
  return child(*it, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

JsonValue JsonValue::operator[](std::string_view key) const {
  auto v = get(key);
  if (!v) fail("missing \"{}\"", printable(key));
  return *v;
}

std::vector<std::pair<std::string, JsonValue>> JsonValue::items() const {
  if (!v_->is_object()) fail("expected an object, got {}", describe(*v_));
  std::vector<std::pair<std::string, JsonValue>> out;
  for (auto it = v_->begin(); it != v_->end(); ++it)
    out.emplace_back(it.key(), child(it.value(), path_.empty() ? it.key() : path_ + "." + it.key()));
  return out;
}

void JsonValue::only_keys(std::initializer_list<std::string_view> known) const {
  if (!v_->is_object()) fail("expected an object, got {}", describe(*v_));
  for (auto it = v_->begin(); it != v_->end(); ++it) {
    bool ok = false;
    for (auto k : known) ok = ok || it.key() == k;
    if (ok) continue;
    std::string list;
    for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    fail("unknown key '{}' (known: {})", printable(it.key()), list);
  }
}

std::size_t JsonValue::size() const {
  if (!v_->is_array()) fail("expected a list, got {}", describe(*v_));
  return v_->size();
}

JsonValue JsonValue::at(std::size_t i) const {
  if (i >= size()) fail("has no element {}", i);
  return child((*v_)[i], path_ + '[' + std::to_string(i) + ']'); // not fmt: one per element of every list
}

std::vector<JsonValue> JsonValue::elements() const {
  const std::size_t n = size();
  std::vector<JsonValue> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(child((*v_)[i], path_ + '[' + std::to_string(i) + ']'));
  return out;
}

std::string JsonValue::as_string() const {
  if (!v_->is_string()) fail("expected a string, got {}", describe(*v_));
  return v_->get<std::string>();
}

bool JsonValue::as_bool() const {
  if (!v_->is_boolean()) fail("expected true or false, got {}", describe(*v_));
  return v_->get<bool>();
}

double JsonValue::as_double(double lo, double hi) const {
  if (!v_->is_number()) fail("expected a number, got {}", describe(*v_));
  const double v = v_->get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) fail("expected a number in [{:g}, {:g}], got {}", lo, hi, describe(*v_));
  return v;
}

std::int64_t JsonValue::as_int(std::int64_t lo, std::int64_t hi) const {
  if (v_->is_number_unsigned()) {
    const auto u = v_->get<std::uint64_t>();
    if (hi >= 0 && u <= static_cast<std::uint64_t>(hi) && static_cast<std::int64_t>(u) >= lo) return static_cast<std::int64_t>(u);
  } else if (v_->is_number_integer()) {
    const auto s = v_->get<std::int64_t>();
    if (s >= lo && s <= hi) return s;
  } else if (v_->is_number_float()) {
    const double d = v_->get<double>();
    // Whole doubles ("3e8") are fine; the range test is done in double, where lo and hi are exact enough.
    if (std::isfinite(d) && d == std::floor(d) && d >= static_cast<double>(lo) && d <= static_cast<double>(hi) &&
        std::abs(d) < 9.2e18)
      return static_cast<std::int64_t>(d);
  } else {
    fail("expected a whole number, got {}", describe(*v_));
  }
  fail("expected a whole number in [{}, {}], got {}", lo, hi, describe(*v_));
}

std::uint64_t JsonValue::as_uint(std::uint64_t lo, std::uint64_t hi) const {
  if (v_->is_number_unsigned()) {
    const auto u = v_->get<std::uint64_t>();
    if (u >= lo && u <= hi) return u;
  } else if (v_->is_number_integer()) { // signed storage (a document built in code, or a negative number)
    const auto i = v_->get<std::int64_t>();
    if (i >= 0 && static_cast<std::uint64_t>(i) >= lo && static_cast<std::uint64_t>(i) <= hi) return static_cast<std::uint64_t>(i);
  } else if (v_->is_number_float()) {
    const double d = v_->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && d >= static_cast<double>(lo) && d <= static_cast<double>(hi) && d < 1.8e19)
      return static_cast<std::uint64_t>(d);
  } else {
    fail("expected a whole number, got {}", describe(*v_));
  }
  fail("expected a whole number in [{}, {}], got {}", lo, hi, describe(*v_));
}

} // namespace ccsim
