#include "sim/trace/ccsim_output.hpp"

#include <charconv>
#include <cmath>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_io.hpp"

namespace ccsim::trace {
namespace {

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) out.push_back(cur), cur.clear();
    else if (c != '\r') cur += c;
  }
  out.push_back(cur);
  return out;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream in{std::string(s)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::uint64_t whole(const std::string& t, const char* what, const std::string& where) {
  std::uint64_t x = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) fail("{}: {} '{}' is not a whole number", where, what, t);
  return x;
}

int integer(const std::string& t, const char* what, const std::string& where) {
  int x = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) fail("{}: {} '{}' is not an integer", where, what, t);
  return x;
}

double number(const std::string& t, const char* what, const std::string& where) {
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v) || v < 0)
    fail("{}: {} '{}' is not a finite non-negative number", where, what, t);
  return v;
}

void finish(Trace& t, std::optional<schedule::Op> op, int ranks, const Hints& h) {
  t.op = op, t.op_from = "ccsim output";
  t.ranks = ranks, t.ranks_from = "ccsim output";
  if (h.op && (h.force || !t.op)) t.op = h.op, t.op_from = "--op";
  if (h.ranks > 0 && (h.force || t.ranks <= 0)) t.ranks = h.ranks, t.ranks_from = "--ranks";
  t.has_redop_column = t.has_root_column = true;
  if (t.rows.empty()) fail("{}: ccsim output without rows", t.origin);
}

MeasuredRow row(std::uint64_t size, std::uint64_t count, std::string type, std::string redop, int root, double time_us) {
  MeasuredRow r;
  r.size = size, r.count = count, r.type = std::move(type), r.redop = std::move(redop), r.root = root;
  r.out_of_place = Half{time_us, 0, 0, ""};
  return r;
}

// "# ccsim prediction: allreduce (...)", "# topology NAME (ORIGIN), 8 ranks", then size count type redop
// root time algbw busbw [choice ...] rows; every other line starts with '#'.
Trace parse_table(const std::vector<std::string>& lines, const std::string& origin, const Hints& h) {
  Trace t;
  t.origin = origin;
  std::optional<schedule::Op> op;
  int ranks = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string where = fmt::format("{}:{}", origin, i + 1);
    const auto w = words(lines[i]);
    if (w.empty()) continue;
    if (w[0][0] == '#') {
      if (t.rows.empty()) t.provenance.push_back(lines[i]);
      if (w.size() >= 4 && w[1] == "ccsim" && w[2] == "prediction:") op = schedule::op_from(w[3]);
      if (w.size() >= 4 && w[1] == "topology" && w.back() == "ranks") ranks = integer(w[w.size() - 2], "rank count", where);
      continue;
    }
    if (w.size() < 8) fail("{}: a ccsim table row needs size count type redop root time algbw busbw", where);
    auto r = row(whole(w[0], "size", where), whole(w[1], "count", where), w[2], w[3], integer(w[4], "root", where),
                 number(w[5], "time", where));
    r.out_of_place->algbw = number(w[6], "algbw", where), r.out_of_place->busbw = number(w[7], "busbw", where);
    r.line = static_cast<int>(i + 1);
    t.rows.push_back(std::move(r));
  }
  finish(t, op, ranks, h);
  return t;
}

// size,count,type,redop,root,time_us,algbw_GBps,busbw_GBps[,choice columns],op,ranks
Trace parse_csv(const std::vector<std::string>& lines, const std::string& origin, const Hints& h) {
  Trace t;
  t.origin = origin;
  const auto head = split(lines.front(), ',');
  auto col = [&](const char* name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < head.size(); ++i)
      if (head[i] == name) return i;
    return std::nullopt;
  };
  std::optional<schedule::Op> op;
  int ranks = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty() || lines[i] == "\r") continue;
    const std::string where = fmt::format("{}:{}", origin, i + 1);
    const auto f = split(lines[i], ',');
    if (f.size() != head.size()) fail("{}: {} fields but the header names {}", where, f.size(), head.size());
    auto r = row(whole(f[0], "size", where), whole(f[1], "count", where), f[2], f[3], integer(f[4], "root", where),
                 number(f[5], "time_us", where));
    r.line = static_cast<int>(i + 1);
    t.rows.push_back(std::move(r));
    if (auto c = col("op")) op = schedule::op_from(f[*c]);
    if (auto c = col("ranks")) ranks = integer(f[*c], "ranks", where);
  }
  finish(t, op, ranks, h);
  return t;
}

std::uint64_t non_negative(const nlohmann::json& j, const char* key, const std::string& origin) {
  const auto& v = j.at(key);
  if (!v.is_number_unsigned()) fail("{}: '{}' must be a whole non-negative number, got {}", origin, key, json_dump(v));
  return v.get<std::uint64_t>();
}

// A whole number in [lo, hi]: the JSON's root and ranks become ints, so a larger or fractional one (1e20, 2^32 + 8)
// is refused here rather than converted (undefined for a double, a wrap to a plausible count for an integer).
int whole_in(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi, const std::string& origin) {
  const auto& v = j.at(key);
  const bool fits = v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi)
                                           : v.is_number_integer() && v.get<std::int64_t>() <= hi;
  if (!fits || (v.is_number_integer() && v.get<std::int64_t>() < lo))
    fail("{}: '{}' must be a whole number from {} to {}, got {}", origin, key, lo, hi, json_dump(v));
  return static_cast<int>(v.get<std::int64_t>());
}

Trace parse_json(std::string_view text, const std::string& origin, const Hints& h) {
  Trace t;
  t.origin = origin;
  try {
    const auto j = json_parse(text);
    const std::string type = j.at("datatype"), redop = j.at("redop");
    const int root = whole_in(j, "root", -1, 1 << 24, origin);
    for (const auto& r : j.at("rows")) {
      const double us = r.contains("time_ps") ? r.at("time_ps").get<double>() / 1e6 : r.at("time_us").get<double>();
      if (!std::isfinite(us) || us < 0) fail("{}: a row's time is not a finite non-negative number", origin);
      t.rows.push_back(row(non_negative(r, "size", origin), non_negative(r, "count", origin), type, redop, root, us));
    }
    finish(t, schedule::op_from(j.at("op").get<std::string>()), whole_in(j, "ranks", 0, 1 << 24, origin), h);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: ccsim JSON output without what compare needs: {}", origin, e.what());
  }
  return t;
}

} // namespace

std::optional<Trace> parse_ccsim_output(std::string_view text, const std::string& origin, const Hints& hints) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::nullopt;
  if (text[first] == '{') {
    const auto j = json_parse_or_discarded(text);
    // ccsim's own JSON names its tool; any other "tool" (a number, an object) is not ccsim's output: not value("tool", ""),
    // which throws nlohmann's type_error for a non-string.
    if (j.is_object() && j.contains("tool") && j["tool"].is_string() && j["tool"].get<std::string>() == "ccsim")
      return parse_json(text, origin, hints);
    return std::nullopt;
  }
  auto lines = split(text, '\n');
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty()) return std::nullopt;
  if (lines.front().rfind("size,count,type,redop,root,time_us", 0) == 0) return parse_csv(lines, origin, hints);
  if (lines.front().rfind("# ccsim prediction:", 0) == 0) return parse_table(lines, origin, hints);
  return std::nullopt;
}

} // namespace ccsim::trace
