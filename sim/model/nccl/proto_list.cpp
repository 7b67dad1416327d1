#include "sim/model/nccl/proto_list.hpp"

#include "sim/core/ascii.hpp"
#include "sim/core/error.hpp"
#include "sim/trace/line_text.hpp"

namespace ccsim::model::nccl {

namespace {
using trace::text::trimmed;
} // namespace

std::string ProtoSet::allowed_names() const {
  std::string out;
  for (Proto p : kProtos)
    if (allows(p)) out += (out.empty() ? "" : ",") + std::string(name(p));
  return out;
}

ProtoSet proto_set_from(std::string_view s, std::string_view flag) {
  ProtoSet set;
  const std::string_view all = trimmed(s);
  if (all.empty() && s.empty()) return set;
  if (ascii_lower(all) == "auto") return set;
  if (all.find_first_of(":;") != std::string_view::npos)
    fail("{}: per-collective lists ('{}') are not modelled; give one list of LL, LL128, Simple (a leading ^ excludes)", flag, s);
  std::string_view list = all;
  const bool exclude = !list.empty() && list.front() == '^';
  if (exclude) list.remove_prefix(1);
  set.on.fill(exclude);
  bool named = false;
  while (!list.empty() || !named) {
    const auto comma = list.find(',');
    const std::string word = ascii_lower(trimmed(list.substr(0, comma)));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    bool known = false;
    for (Proto p : kProtos)
      if (word == ascii_lower(name(p))) set.on[static_cast<std::size_t>(p)] = !exclude, known = true;
    if (word.empty()) fail("{}: '{}' has an empty protocol name (LL, LL128, Simple; a leading ^ excludes)", flag, s);
    if (!known) fail("{}: unknown protocol '{}' in '{}' (LL, LL128, Simple; a leading ^ excludes)", flag, word, s);
    named = true;
    if (comma == std::string_view::npos) break;
  }
  if (set.allowed_names().empty()) fail("{}: '{}' leaves no protocol (LL, LL128, Simple)", flag, s);
  set.stated = std::string(all);
  return set;
}

} // namespace ccsim::model::nccl
