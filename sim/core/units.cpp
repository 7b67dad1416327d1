#include "sim/core/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"

namespace ccsim {
namespace {

struct NumberAndUnit {
  double value;
  std::string unit; // lower-cased, spaces removed
};

// "25", "0.7", ".5" at the start of `s`, digits and at most one point, 18 characters at most (so no range error),
// read by std::from_chars: it rounds as strtod does (correctly) and is several times quicker, and topology files
// hold thousands of these. Anything else (a sign, an exponent, hex, inf, nan) is left to std::stod.
bool plain_decimal(std::string_view s, double& v, std::size_t& used) {
  std::size_t i = 0, digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9';) ++i, ++digits;
  if (digits == 0 || i > 18) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E' || s[i] == 'x' || s[i] == 'X')) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + i, v);
  if (ec != std::errc{} || end != s.data() + i) return false;
  used = i;
  return true;
}

// std::isspace in the C locale (ccsim never sets another), without a library call per character.
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

NumberAndUnit split(std::string_view text, std::string_view what) {
  // The text without spaces, on the stack when short (every value in a topology file is).
  char buf[64];
  std::string long_text;
  std::size_t n = 0;
  for (char c : text)
    if (!is_space(c)) {
      if (n < sizeof buf) buf[n] = c;
      else long_text.push_back(c);
      ++n;
    }
  if (n == 0) fail("{}: empty value", what);
  if (n > sizeof buf) long_text.insert(0, buf, sizeof buf);
  const std::string_view s = n > sizeof buf ? std::string_view(long_text) : std::string_view(buf, n);
  std::size_t used = 0;
  double v = 0;
  if (!plain_decimal(s, v, used)) try {
      v = std::stod(std::string(s), &used);
    } catch (const std::out_of_range&) {
      // A number past a double's range ("1e400GB/s") is a number, only absurd: said so, as for 1e20GB/s. One too
      // small for a double ("1e-400us") reads as 0, as strtod rounds it, and the unit's own checks follow.
      const std::string whole(s);
      char* end = nullptr;
      v = std::strtod(whole.c_str(), &end);
      if (std::isinf(v)) fail("{}: '{}' is absurdly large (beyond the range of a double)", what, text);
      used = static_cast<std::size_t>(end - whole.c_str());
    } catch (...) {
      fail("{}: '{}' is not a number", what, text);
    }
  if (!std::isfinite(v)) fail("{}: '{}' is not a finite number", what, text);
  std::string unit(s.substr(used));
  for (auto& c : unit)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a'); // std::tolower in the C locale ccsim runs in
  return {v, std::move(unit)};
}

} // namespace

Bandwidth parse_bandwidth(std::string_view text, std::string_view what) {
  auto [v, unit] = split(text, what);
  double scale = 0;
  if (unit.empty() || unit == "b/s" || unit == "bps") scale = 1;  // bare numbers are bytes/s
  else if (unit == "kb/s") scale = 1e3;
  else if (unit == "mb/s") scale = 1e6;
  else if (unit == "gb/s") scale = 1e9;
  else if (unit == "tb/s") scale = 1e12;
  else if (unit == "gbps" || unit == "gbit/s") scale = 1e9 / 8;  // network speeds are bits
  else if (unit == "mbps" || unit == "mbit/s") scale = 1e6 / 8;
  else if (unit == "tbps" || unit == "tbit/s") scale = 1e12 / 8;
  else fail("{}: unknown bandwidth unit in '{}' (use GB/s, MB/s, Gbps, or bytes/s)", what, text);
  // GB/s with an upper-case B means bytes; "Gb/s" is ambiguous after lower-casing, so the raw text decides.
  if (unit == "gb/s" && text.find("Gb/s") != std::string_view::npos) scale = 1e9 / 8;
  // Likewise "GBps" (MBps, TBps) is bytes, as in "480.0GBps" of nccl-tests summaries; only a lower-case b
  // ("Gbps") is bits. Read as bits, "--bw 25GBps" silently ran 8x slower than "--bw 25GB/s".
  if ((unit == "gbps" || unit == "mbps" || unit == "tbps") && text.find("Bps") != std::string_view::npos)
    scale = unit == "gbps" ? 1e9 : unit == "mbps" ? 1e6 : 1e12;
  const double bps = v * scale;
  if (!(bps >= 1)) fail("{}: bandwidth must be positive, got '{}'", what, text);
  if (bps > 1e16) fail("{}: bandwidth '{}' is absurdly large", what, text);
  return static_cast<Bandwidth>(std::llround(bps));
}

Time parse_duration(std::string_view text, std::string_view what) {
  auto [v, unit] = split(text, what);
  double ps = 0;
  if (unit == "ps") ps = v;
  else if (unit == "ns") ps = v * 1e3;
  else if (unit == "us" || unit == "µs") ps = v * 1e6;
  else if (unit == "ms") ps = v * 1e9;
  else if (unit == "s") ps = v * 1e12;
  else fail("{}: '{}' needs a time unit (ps, ns, us, ms, s)", what, text);
  if (v < 0) fail("{}: time must not be negative, got '{}'", what, text);
  if (ps > 1e18) fail("{}: time '{}' is absurdly large", what, text);
  return static_cast<Time>(std::llround(ps));
}

Bytes parse_size(std::string_view text, std::string_view what) {
  auto [v, unit] = split(text, what);
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "k" || unit == "ki" || unit == "kib" || unit == "kb") scale = 1024.0;
  else if (unit == "m" || unit == "mi" || unit == "mib" || unit == "mb") scale = 1024.0 * 1024;
  else if (unit == "g" || unit == "gi" || unit == "gib" || unit == "gb") scale = 1024.0 * 1024 * 1024;
  else if (unit == "t" || unit == "ti" || unit == "tib" || unit == "tb") scale = 1024.0 * 1024 * 1024 * 1024;
  else fail("{}: unknown size unit in '{}' (use B, K, M, G or T, powers of 1024 as in nccl-tests; KiB, Ki and KB alike)", what, text);
  if (v < 0) fail("{}: size must not be negative, got '{}'", what, text);
  const double b = v * scale;
  if (b > 1.2e15) fail("{}: size '{}' is absurdly large (limit 1 PiB)", what, text);
  if (b != std::floor(b)) fail("{}: size '{}' is not a whole number of bytes", what, text);
  return static_cast<Bytes>(b);
}

std::int64_t parse_whole(std::string_view text, std::string_view what, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  const bool whole = !text.empty() && ec != std::errc::invalid_argument && end == text.data() + text.size();
  if (!whole) fail("{}: '{}' is not a whole number", what, printable(text, 40));
  if (ec == std::errc::result_out_of_range || v < lo || v > hi)
    fail("{}: {} is out of range ({}..{})", what, printable(text, 40), lo, hi);
  return v;
}

std::string format_bandwidth(Bandwidth bw) {
  if (bw >= 1'000'000'000) return fmt::format("{:g} GB/s", static_cast<double>(bw) / 1e9);
  if (bw >= 1'000'000) return fmt::format("{:g} MB/s", static_cast<double>(bw) / 1e6);
  return fmt::format("{} B/s", bw);
}

std::string format_duration(Time t) {
  if (t >= kPsPerSec) return fmt::format("{:g} s", to_sec(t));
  if (t >= 1'000'000'000) return fmt::format("{:g} ms", static_cast<double>(t) / 1e9);
  if (t >= kPsPerUs) return fmt::format("{:g} us", to_us(t));
  if (t >= kPsPerNs) return fmt::format("{:g} ns", static_cast<double>(t) / 1e3);
  return fmt::format("{} ps", t);
}

std::string format_size(Bytes b) {
  // The largest unit the size reaches, with up to two decimals (1.5 GiB, 204 MiB): an odd size read in the
  // smallest unit that divides it ("208900 KiB") hid its magnitude. A value the two decimals cannot hold exactly
  // says so with a leading '~' (the exact bytes are in every CSV/JSON output and beside the size where it matters).
  constexpr Bytes K = 1024;
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB"};
  if (b < K) return fmt::format("{} B", b);
  int u = 0;
  Bytes unit = K;
  while (u < 2 && b / unit >= K) unit *= K, ++u;
  if (b % unit == 0) return fmt::format("{} {}", b / unit, kUnits[u]);
  // Hundredths of the unit, rounded half up (rest < 1 GiB: rest * 100 fits); exact when rest * 100 is a multiple of the unit.
  const Bytes whole = b / unit, rest = b % unit;
  const Bytes hundredths = (rest * 100 + unit / 2) / unit;
  const bool exact = rest * 100 % unit == 0;
  std::string text = hundredths == 100 ? fmt::format("{}", whole + 1) : fmt::format("{}.{:02}", whole, hundredths);
  while (text.find('.') != std::string::npos && (text.back() == '0' || text.back() == '.')) text.pop_back();
  return fmt::format("{}{} {}", exact ? "" : "~", text, kUnits[u]);
}

} // namespace ccsim
