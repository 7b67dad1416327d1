// A schedule executed on small, readable data for a student to look at (explain --show-data): each
// rank's buffer before and after, inputs laid out as schedule/collective.hpp describes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/verify/execute.hpp"

namespace ccsim::verify {

// What a rank holds where the op gives it no input (printed as "-"), and, after the run, where the op
// defines no result (printed as "."; the algorithm may have left partial results there).
inline constexpr std::int64_t kNoData = INT64_MIN;
inline constexpr std::int64_t kUndefined = INT64_MIN + 1;

enum class Values {
  Rank, // every input element of rank r is r (the MindSpore examples: "rank r holds value r")
  Index // input element i (its position in the op's vector) is i, on every rank
};
Values values_from(const std::string& s); // "rank" or "index"; Error naming --values otherwise

struct DataRun {
  Buffers before, after; // the op's part of each rank's buffer (scratch beyond it is not shown)
};

// Executes `s` on inputs made by `v`; throws Error when the schedule fails.
DataRun run_on_data(const schedule::Schedule& s, RedOp op, Values v);

RedOp red_op_from(const std::string& s); // sum, prod, min, max; Error naming --redop otherwise

} // namespace ccsim::verify
