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

std::uint64_t to_u64(const std::string& t, const std::string& what, const std::string& where) {
  if (!is_uint(t)) fail("{}: {} '{}' is not a whole number", where, what, t);
  try {
    return std::stoull(t);
  } catch (...) {
    fail("{}: {} '{}' is out of range", where, what, t);
  }
}

double to_double(const std::string& t, const std::string& what, const std::string& where) {
  if (!is_number(t)) fail("{}: {} '{}' is not a number", where, what, t);
  const double v = std::strtod(t.c_str(), nullptr);
  if (!std::isfinite(v) || v < 0) fail("{}: {} '{}' must be a finite non-negative number", where, what, t);
  return v;
}

bool is_launcher(std::string_view word) {
  if (const auto slash = word.rfind('/'); slash != std::string_view::npos) word.remove_prefix(slash + 1);
  return word == "mpirun" || word == "mpiexec" || word == "mpiexec.hydra" || word == "orterun" || word == "srun";
}

} // namespace ccsim::trace::text
