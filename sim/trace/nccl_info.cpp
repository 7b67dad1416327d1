// NCCL INFO lines as facts of a run (see parse_info_facts in nccl_tests_trace.hpp).
#include <cctype>
#include <string>
#include <string_view>

#include "sim/core/units.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::trace {

namespace {
// The number just before `word` in `s` ("24 coll channels" -> 24), or -1.
int count_before(std::string_view s, std::string_view word, const std::string& where) {
  const auto at = s.find(word);
  if (at == std::string_view::npos) return -1;
  auto end = at;
  while (end > 0 && s[end - 1] == ' ') --end;
  auto begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(s[begin - 1]))) --begin;
  if (begin == end) return -1;
  return static_cast<int>(parse_whole(s.substr(begin, end - begin), where + ": NCCL INFO channel count", 0, 4096));
}
} // namespace

void parse_info_facts(std::string_view line, Trace::NcclInfo& info, const std::string& where) {
  const auto at = line.find("NCCL INFO ");
  if (at == std::string_view::npos) return;
  const auto body = line.substr(at + 10);
  if (body.find(" coll channels") != std::string_view::npos) {
    info.coll_channels = count_before(body, " coll channels", where);
    info.collnet_channels = count_before(body, " collnet channels", where);
    info.nvls_channels = count_before(body, " nvls channels", where);
  }
  if (body.rfind("Using network ", 0) == 0) {
    auto net = body.substr(14);
    while (!net.empty() && std::isspace(static_cast<unsigned char>(net.back()))) net.remove_suffix(1);
    info.network = std::string(net.substr(0, 40));
  }
}

} // namespace ccsim::trace
