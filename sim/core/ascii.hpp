// ASCII case folding for names people type in any case (protocols, link kinds, NIC names, collectives): the
// C locale's tolower, which is what ccsim runs in.
#pragma once
#include <cctype>
#include <string>
#include <string_view>

namespace ccsim {

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

} // namespace ccsim
