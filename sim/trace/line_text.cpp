#include "sim/trace/line_text.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

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

} // namespace ccsim::trace::text
