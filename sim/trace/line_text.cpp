#include "sim/trace/line_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "sim/core/error.hpp"

namespace ccsim::trace::text {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream ss{std::string(s)};
  std::string t;
  while (ss >> t) out.push_back(t);
  return out;
}

bool is_uint(const std::string& t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool is_number(const std::string& t) {
  if (t.empty()) return false;
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

namespace {
// A file that starts with a UTF-16 byte order mark (Windows Notepad's "Unicode" save, PowerShell's `>` before 7.0:
// FF FE little-endian, FE FF big-endian) as UTF-8; its NUL bytes read as "binary data" before. An odd length or a
// broken surrogate pair leaves the text as it was (refused as binary, as any other such file).
void utf16_to_utf8(std::string& s) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  if (s.size() < 2 || s.size() % 2 != 0) return;
  const bool le = b(0) == 0xFF && b(1) == 0xFE, be = b(0) == 0xFE && b(1) == 0xFF;
  if (!le && !be) return;
  std::string out;
  out.reserve(s.size() / 2);
  const auto unit = [&](std::size_t k) -> unsigned { return le ? b(k) | (b(k + 1) << 8) : (b(k) << 8) | b(k + 1); };
  for (std::size_t k = 2; k < s.size(); k += 2) {
    unsigned c = unit(k);
    if (c >= 0xD800 && c <= 0xDBFF) { // a surrogate pair: one code point above U+FFFF
      if (k + 2 >= s.size()) return;
      const unsigned lo = unit(k + 2);
      if (lo < 0xDC00 || lo > 0xDFFF) return;
      c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
      k += 2;
    } else if (c >= 0xDC00 && c <= 0xDFFF) {
      return;
    }
    if (c < 0x80) out += static_cast<char>(c);
    else if (c < 0x800) out += static_cast<char>(0xC0 | (c >> 6)), out += static_cast<char>(0x80 | (c & 0x3F));
    else if (c < 0x10000)
      out += static_cast<char>(0xE0 | (c >> 12)), out += static_cast<char>(0x80 | ((c >> 6) & 0x3F)), out += static_cast<char>(0x80 | (c & 0x3F));
    else
      out += static_cast<char>(0xF0 | (c >> 18)), out += static_cast<char>(0x80 | ((c >> 12) & 0x3F)),
          out += static_cast<char>(0x80 | ((c >> 6) & 0x3F)), out += static_cast<char>(0x80 | (c & 0x3F));
  }
  s = std::move(out);
}
} // namespace

void normalise_pasted_text(std::string& s) {
  utf16_to_utf8(s);
  if (s.find_first_of("\xA0\xEF\xE2") == std::string::npos) return; // nothing to do in a plain ASCII file
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto u = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
    if (u(i) == 0xEF && u(i + 1) == 0xBB && u(i + 2) == 0xBF) { i += 2; continue; } // U+FEFF
    if (u(i) == 0xC2 && u(i + 1) == 0xA0) { out += ' ', ++i; continue; }            // U+00A0
    if (u(i) == 0xE2 && u(i + 1) == 0x80 && (u(i + 2) == 0x87 || u(i + 2) == 0xAF || u(i + 2) == 0x89)) { // U+2007, U+202F, U+2009
      out += ' ', i += 2;
      continue;
    }
    if (u(i) == 0xE2 && u(i + 1) == 0x88 && u(i + 2) == 0x92) { out += '-', i += 2; continue; } // U+2212 minus: root -1
    // A lone 0xA0 after an ASCII byte is no UTF-8 continuation: a Windows-1252 / Latin-1 no-break space.
    if (u(i) == 0xA0 && (i == 0 || u(i - 1) < 0x80)) { out += ' '; continue; }
    out += s[i];
  }
  s = std::move(out);
}

bool is_grouped_uint(const std::string& t) {
  if (t.size() < 5 || !std::isdigit(static_cast<unsigned char>(t[0]))) return false;
  const char sep = t[t.size() - 4];
  if (sep != ',' && sep != '.' && sep != '\'') return false;
  // From the right: groups of three digits, each after the one separator, the first group 1-3 digits.
  std::size_t end = t.size();
  while (end > 4 && t[end - 4] == sep) {
    for (std::size_t k = end - 3; k < end; ++k)
      if (!std::isdigit(static_cast<unsigned char>(t[k]))) return false;
    end -= 4;
  }
  if (end < 1 || end > 3) return false;
  for (std::size_t k = 0; k < end; ++k)
    if (!std::isdigit(static_cast<unsigned char>(t[k]))) return false;
  return true;
}

std::string locale_number_hint(const std::string& t) {
  bool locale = is_grouped_uint(t); // "1,048,576", "1.048.576", "1'048'576"
  // "68,52": one comma between digits where nccl-tests prints a '.'.
  const auto comma = t.find(',');
  if (!locale && comma != std::string::npos && t.find(',', comma + 1) == std::string::npos && t.find('.') == std::string::npos)
    locale = is_number(std::string(t).replace(comma, 1, "."));
  if (!locale) return "";
  return " (a thousands separator or a decimal comma: nccl-tests prints plain digits and a '.'; a spreadsheet or a locale "
         "changed the copy: give the output as nccl-tests wrote it)";
}

std::uint64_t to_u64(const std::string& t, const std::string& what, const std::string& where) {
  if (!is_uint(t)) fail("{}: {} '{}' is not a whole number{}", where, what, t, locale_number_hint(t));
  try {
    return std::stoull(t);
  } catch (...) {
    fail("{}: {} '{}' is out of range", where, what, t);
  }
}

double to_double(const std::string& t, const std::string& what, const std::string& where) {
  if (!is_number(t)) fail("{}: {} '{}' is not a number{}", where, what, t, locale_number_hint(t));
  const double v = std::strtod(t.c_str(), nullptr);
  if (!std::isfinite(v) || v < 0) fail("{}: {} '{}' must be a finite non-negative number", where, what, t);
  return v;
}

bool is_launcher(std::string_view word) {
  if (const auto slash = word.rfind('/'); slash != std::string_view::npos) word.remove_prefix(slash + 1);
  return word == "mpirun" || word == "mpiexec" || word == "mpiexec.hydra" || word == "orterun" || word == "srun";
}

} // namespace ccsim::trace::text
