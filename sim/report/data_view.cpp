#include "sim/report/data_view.hpp"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

namespace ccsim::report {
namespace {

std::string row(const std::vector<std::int64_t>& b, std::uint64_t block) {
  std::string s = "[";
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i > 0) s += block > 0 && i % block == 0 ? " | " : " ";
    s += b[i] == INT64_MIN ? "-" : b[i] == INT64_MIN + 1 ? "." : fmt::format("{}", b[i]);
  }
  return s + "]";
}

} // namespace

std::string render_data(const DataView& v) {
  std::string o = v.title + "\n";
  std::size_t w = 6;
  for (const auto& b : v.before) w = std::max(w, row(b, v.block).size());
  o += fmt::format("  {:<8}  {:<{}}  {}\n", "", "before", w, "after");
  for (std::size_t r = 0; r < v.before.size(); ++r)
    o += fmt::format("  rank {:<3}  {:<{}}  {}\n", r, row(v.before[r], v.block), w, row(v.after[r], v.block));
  if (!v.note.empty()) o += v.note + "\n";
  return o;
}

} // namespace ccsim::report
