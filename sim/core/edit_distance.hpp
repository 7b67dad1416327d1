// Edits (insert, delete, replace one character) that turn one typed name into another: the "did you mean" of an
// unknown flag (cli/parse_errors.cpp) or GPU kind (topology/gpu_catalogue.cpp).
#pragma once
#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace ccsim {

inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

} // namespace ccsim
