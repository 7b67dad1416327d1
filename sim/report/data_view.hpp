// explain --show-data: each rank's buffer before and after the collective, as a small table.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ccsim::report {

struct DataView {
  std::string title;  // e.g. "allreduce ring on 4 ranks, sum, rank r holds r"
  std::uint64_t block = 0; // elements per block: blocks are separated by '|' (0: one block)
  // Per rank; INT64_MIN ("-") where a rank holds nothing, INT64_MIN + 1 (".") where the op defines no result.
  std::vector<std::vector<std::int64_t>> before, after;
  std::string note;   // printed under the table, or ""
};

std::string render_data(const DataView& v);

} // namespace ccsim::report
