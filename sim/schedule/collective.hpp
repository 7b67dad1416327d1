// The collectives ccsim knows, their arguments, and where each rank's data lives in its buffer.
// Sizes follow nccl-tests' "count" (reference §2): per-rank vector for allreduce/broadcast/reduce,
// per-rank block for allgather/reducescatter/gather/scatter, per-peer block for alltoall. Scan (inclusive
// prefix sum, MPI_Scan) has a per-rank vector; a barrier moves no data (its messages are empty).
// Sendrecv (nccl-tests' sendrecv_perf): every rank sends its `count` elements to rank r+1 and receives
// rank r-1's, in one NCCL group (a ring shift; on 1 rank a send to itself). HyperCube (nccl-tests'
// hypercube_perf): an allgather of `count`-element blocks run as lg p groups of point-to-point exchanges
// with rank XOR 2^k (p a power of two only).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim::schedule {

enum class Op { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, Gather, Scatter, AllToAll, Barrier, Scan, SendRecv, HyperCube };
inline constexpr Op kAllOps[] = {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::Broadcast, Op::Reduce, Op::Gather,
                                 Op::Scatter,   Op::AllToAll,  Op::Barrier,       Op::Scan,      Op::SendRecv,
                                 Op::HyperCube};

std::string_view to_string(Op op);          // "allreduce"
std::string_view nccl_test_name(Op op);     // "all_reduce_perf"; barrier and scan have none (a phrase saying so)
std::optional<Op> op_from(std::string_view s); // accepts "allreduce", "all_reduce", "AllReduce"
bool has_root(Op op);
bool reduces(Op op);
// nccl-tests prints the -o reduction in the redop column (sendrecv_perf does, though nothing is reduced).
bool prints_redop(Op op);

struct CollArgs {
  Op op = Op::AllReduce;
  int ranks = 1;
  std::uint64_t count = 0;   // elements, in nccl-tests' sense (see above)
  int root = 0;
  std::uint64_t segment = 0; // pipelining segment in elements for chain/tree algorithms; 0 = algorithm default
  std::vector<int> dims = {}; // grid shape for hierarchical (2D torus) algorithms; empty = near-square
  std::uint64_t elt_size = 4; // bytes per element (lets algorithms pick byte-sized default segments)
};

// Elements one rank's vector holds for the op's definition (before any algorithm scratch):
// allreduce/broadcast/reduce: count; allgather/reducescatter/gather/scatter: ranks*count;
// alltoall: 2*ranks*count (input blocks [0, p*count), output blocks after them); scan: count; barrier: 0;
// sendrecv: 2*count (input [0, count), the received block [count, 2*count)); hypercube: ranks*count.
std::uint64_t op_buffer_elems(const CollArgs& a);

// Even split of `n` elements into `parts` blocks; the first n % parts blocks get one more element.
struct Block {
  std::uint64_t off, len;
};
inline Block split_block(std::uint64_t n, std::uint64_t parts, std::uint64_t i) {
  const std::uint64_t base = n / parts, extra = n % parts;
  return {i * base + (i < extra ? i : extra), base + (i < extra ? 1 : 0)};
}

// ceil(lg p): the rounds of a doubling, dissemination or binomial collective over p ranks (0 for p <= 1).
inline constexpr int ceil_lg(int p) {
  int k = 0;
  while ((std::int64_t{1} << k) < p) ++k;
  return k;
}

} // namespace ccsim::schedule
