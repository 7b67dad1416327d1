#include "sim/trace/ring_lines.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"
#include "sim/trace/line_text.hpp"

namespace ccsim::trace {
using text::tokens;
using text::is_uint;
using text::starts_with;
namespace {

// A whole number written in decimal digits (optionally with a leading '-'), parsed without wrapping:
// nullopt when `t` is not one or does not fit in an int.
std::optional<int> to_int(std::string_view t) {
  int v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc{} || end != t.data() + t.size() || t.empty()) return std::nullopt;
  return v;
}

} // namespace

// Digits of `t` from `pos` on (possibly none).
std::string_view digits_at(std::string_view t, std::size_t pos) {
  std::size_t e = pos;
  while (e < t.size() && std::isdigit(static_cast<unsigned char>(t[e]))) ++e;
  return t.substr(pos, e - pos);
}

// A rank or device number from a trace: out of range is an error naming the line, not a wrap.
int checked_int(std::string_view t, const char* what, const std::string& where) {
  const auto v = to_int(t);
  if (!v) fail("{}: {} '{}' is not a whole number that fits in 32 bits", where, what, printable(t, 40));
  return *v;
}

namespace {

// "3[3]" -> (3, 3); "15" -> (15, -1)
bool parse_rank_dev(const std::string& t, int& rank, int& dev, const std::string& where) {
  const auto r = digits_at(t, 0);
  if (r.empty()) return false;
  rank = checked_int(r, "rank", where);
  dev = -1;
  if (r.size() == t.size()) return true;
  if (t[r.size()] != '[' || t.back() != ']') return false;
  const auto d = digits_at(t, r.size() + 1);
  if (d.empty() || r.size() + 1 + d.size() + 1 != t.size()) return false;
  dev = checked_int(d, "device", where);
  return true;
}

// After "NCCL INFO " at `pos`: "Ring 00 :" or "Channel 00/02 :"; returns the text after the colon.
std::optional<std::string_view> ring_head(std::string_view line, std::size_t pos, int& channel, const std::string& where) {
  std::string_view rest = line.substr(pos);
  for (std::string_view word : {"Ring ", "Channel "})
    if (starts_with(rest, word)) {
      rest.remove_prefix(word.size());
      const auto ch = digits_at(rest, 0);
      if (ch.empty()) return std::nullopt;
      rest.remove_prefix(ch.size());
      if (!rest.empty() && rest[0] == '/') {
        const auto of = digits_at(rest, 1);
        if (of.empty()) return std::nullopt;
        rest.remove_prefix(1 + of.size());
      }
      if (!starts_with(rest, " :")) return std::nullopt;
      channel = checked_int(ch, "channel", where);
      return rest.substr(2);
    }
  return std::nullopt;
}

} // namespace

// NCCL INFO "Ring 00 : 3[3] -> 2[2] via P2P/IPC", "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0",
// or the ring listing "Channel 00/02 :    0   1   2   3". Returns false when the line is something else.
// Plain scanning, no std::regex: a recursive regex overflows the stack on a long line.
bool parse_ring_line(const std::string& line, std::vector<RingHop>& out, const std::string& where) {
  constexpr std::string_view kInfo = "NCCL INFO ";
  int channel = 0;
  std::optional<std::string_view> tail;
  for (auto pos = line.find(kInfo); pos != std::string::npos && !tail; pos = line.find(kInfo, pos + 1))
    tail = ring_head(line, pos + kInfo.size(), channel, where);
  if (!tail) return false;
  const auto rest = tokens(*tail);
  const auto arrow = std::find(rest.begin(), rest.end(), "->");
  if (arrow == rest.end()) {
    if (rest.empty() || !std::all_of(rest.begin(), rest.end(), is_uint)) return false;
    for (std::size_t i = 0; i < rest.size(); ++i)
      out.push_back({channel, checked_int(rest[i], "rank", where), checked_int(rest[(i + 1) % rest.size()], "rank", where), -1, -1, ""});
    return true;
  }
  if (arrow == rest.begin() || arrow + 1 == rest.end()) return false;
  RingHop h;
  h.channel = channel;
  if (!parse_rank_dev(*(arrow - 1), h.src, h.src_dev, where) || !parse_rank_dev(*(arrow + 1), h.dst, h.dst_dev, where)) return false;
  const auto via = std::find(rest.begin(), rest.end(), "via");
  if (via != rest.end() && via + 1 != rest.end()) h.transport = *(via + 1);
  out.push_back(h);
  return true;
}

} // namespace ccsim::trace
