#include "sim/metrics/nccl_metrics.hpp"

#include <array>

namespace ccsim::metrics {
using schedule::Op;

namespace {
const std::array<DataType, 11> kTypes{{{"int8", 1},
                                       {"uint8", 1},
                                       {"int32", 4},
                                       {"uint32", 4},
                                       {"int64", 8},
                                       {"uint64", 8},
                                       {"half", 2},
                                       {"float", 4},
                                       {"double", 8},
                                       {"bfloat16", 2},
                                       {"fp8", 1}}};
} // namespace

std::optional<DataType> datatype_from(std::string_view s) {
  if (s == "float32") s = "float";
  if (s == "float16" || s == "fp16") s = "half";
  if (s == "bf16") s = "bfloat16";
  // nccl-tests' fp8 names (f8e4m3, f8e5m2), rccl-tests' (fp8_e4m3, fp8_e5m2) and NCCL 1 builds' char / int
  // (test_typenames in each src/common.cu): the same element sizes.
  if (s == "f8e4m3" || s == "f8e5m2" || s == "fp8_e4m3" || s == "fp8_e5m2") s = "fp8";
  if (s == "char") s = "int8";
  if (s == "int") s = "int32";
  if (s == "float64") s = "double";
  for (const auto& t : kTypes)
    if (t.name == s) return t;
  return std::nullopt;
}

std::string datatype_names() {
  std::string out;
  for (const auto& t : kTypes) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

// nccl-tests' *GetCollByteCount: ops whose size is a total split per rank align the per-rank
// count down to 16 bytes ((count/nranks) & -(16/eltSize)).
SizePlan plan_size(Op op, int ranks, Bytes requested, Bytes elt) {
  const std::uint64_t count = requested / elt;
  const auto p = static_cast<std::uint64_t>(ranks);
  switch (op) {
    case Op::AllReduce:
    case Op::Broadcast:
    case Op::Reduce:
    case Op::Scan:
    case Op::SendRecv: return {count, count * elt};
    case Op::Barrier: return {count, 0}; // no data moves: size 0, so algbw and busbw are 0
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::Gather:
    case Op::Scatter:
    case Op::AllToAll: {
      const std::uint64_t align = elt >= 16 ? 1 : 16 / elt;
      const std::uint64_t base = (count / p) & ~(align - 1);
      return {base, base * p * elt};
    }
    case Op::HyperCube: { // hypercube.cu: base = (count / (4 n)) * 4 elements (ALIGN 4), whatever the type
      const std::uint64_t base = count / (4 * p) * 4;
      return {base, base * p * elt};
    }
  }
  return {};
}

double busbw_factor(Op op, int ranks) {
  const double n = ranks;
  switch (op) {
    case Op::AllReduce: return 2.0 * (n - 1) / n;
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::Gather:
    case Op::Scatter:
    case Op::AllToAll: return (n - 1) / n;
    case Op::Broadcast:
    case Op::Reduce:
    case Op::Scan:
    case Op::Barrier:
    case Op::SendRecv:
    case Op::HyperCube: return 1.0;
  }
  return 1.0;
}

std::string busbw_factor_text(Op op) {
  switch (op) {
    case Op::AllReduce: return "2(n-1)/n";
    case Op::Broadcast:
    case Op::Reduce:
    case Op::Scan:
    case Op::Barrier:
    case Op::SendRecv:
    case Op::HyperCube: return "1";
    default: return "(n-1)/n";
  }
}

Bandwidths bandwidths(Op op, int ranks, Bytes size, Time t) {
  if (t <= 0) return {};
  double algbw = static_cast<double>(size) / 1.0e9 / to_sec(t);
  // hypercube.cu's HyperCubeGetBw: algbw = count x eltsize x (n-1) / time, the bytes a rank received.
  if (op == Op::HyperCube && ranks > 0) algbw *= static_cast<double>(ranks - 1) / ranks;
  return {algbw, algbw * busbw_factor(op, ranks)};
}

} // namespace ccsim::metrics
