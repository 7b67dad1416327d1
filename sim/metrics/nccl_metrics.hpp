// nccl-tests' definitions (reference §2), so a prediction lines up with an all_reduce_perf row:
// the per-op meaning of "size" and "count", algbw = S / t with GB = 1e9, busbw = algbw * factor.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/units.hpp"
#include "sim/schedule/collective.hpp"

namespace ccsim::metrics {

struct DataType {
  std::string name; // nccl-tests spelling: "float", "half", "bfloat16", "int32", ...
  Bytes size;
};
std::optional<DataType> datatype_from(std::string_view s);
std::string datatype_names();

// What nccl-tests would run for a requested -b/-e size: the count it passes to NCCL and the size it prints.
struct SizePlan {
  std::uint64_t count = 0; // nccl-tests "count" column (per rank, or per peer for alltoall)
  Bytes size = 0;          // nccl-tests "size" column, and the S of algbw
};
SizePlan plan_size(schedule::Op op, int ranks, Bytes requested, Bytes elt_size);

double busbw_factor(schedule::Op op, int ranks);
std::string busbw_factor_text(schedule::Op op); // "2(n-1)/n"

struct Bandwidths {
  double algbw_GBps = 0, busbw_GBps = 0;
};
Bandwidths bandwidths(schedule::Op op, int ranks, Bytes size, Time t);

} // namespace ccsim::metrics
