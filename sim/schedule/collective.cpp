#include "sim/schedule/collective.hpp"

#include <algorithm>
#include <cctype>

namespace ccsim::schedule {

std::string_view to_string(Op op) {
  switch (op) {
    case Op::AllReduce: return "allreduce";
    case Op::AllGather: return "allgather";
    case Op::ReduceScatter: return "reducescatter";
    case Op::Broadcast: return "broadcast";
    case Op::Reduce: return "reduce";
    case Op::Gather: return "gather";
    case Op::Scatter: return "scatter";
    case Op::AllToAll: return "alltoall";
    case Op::Barrier: return "barrier";
    case Op::Scan: return "scan";
    case Op::SendRecv: return "sendrecv";
    case Op::HyperCube: return "hypercube";
  }
  return "?";
}

std::string_view nccl_test_name(Op op) {
  switch (op) {
    case Op::AllReduce: return "all_reduce_perf";
    case Op::AllGather: return "all_gather_perf";
    case Op::ReduceScatter: return "reduce_scatter_perf";
    case Op::Broadcast: return "broadcast_perf";
    case Op::Reduce: return "reduce_perf";
    case Op::Gather: return "gather_perf";
    case Op::Scatter: return "scatter_perf";
    case Op::AllToAll: return "alltoall_perf";
    case Op::SendRecv: return "sendrecv_perf";
    case Op::HyperCube: return "hypercube_perf";
    case Op::Barrier:
    case Op::Scan: return "no nccl-tests program";
  }
  return "?";
}

std::optional<Op> op_from(std::string_view s) {
  std::string k;
  for (char c : s)
    if (c != '_' && c != '-') k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (k == "bcast") k = "broadcast";
  for (Op op : kAllOps)
    if (to_string(op) == k) return op;
  return std::nullopt;
}

bool has_root(Op op) { return op == Op::Broadcast || op == Op::Reduce || op == Op::Gather || op == Op::Scatter; }
bool reduces(Op op) { return op == Op::AllReduce || op == Op::ReduceScatter || op == Op::Reduce || op == Op::Scan; }
bool prints_redop(Op op) { return reduces(op) || op == Op::SendRecv; }

std::uint64_t op_buffer_elems(const CollArgs& a) {
  const auto p = static_cast<std::uint64_t>(a.ranks);
  switch (a.op) {
    case Op::AllReduce:
    case Op::Broadcast:
    case Op::Reduce:
    case Op::Scan: return a.count;
    case Op::Barrier: return 0;
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::Gather:
    case Op::Scatter:
    case Op::HyperCube: return p * a.count;
    case Op::AllToAll: return 2 * p * a.count;
    case Op::SendRecv: return 2 * a.count;
  }
  return 0;
}

} // namespace ccsim::schedule
