// The formula table. Each entry mirrors its schedule in sim/schedule/algorithms/ step for step;
// tests/unit/cost checks every registered algorithm has one and that the engine reproduces it.
#include <map>
#include <utility>

#include "sim/core/ceil_div.hpp"
#include "sim/cost/family_formulas.hpp"
#include "sim/cost/formula.hpp"
#include "sim/cost/formulas_algos2.hpp"

namespace ccsim::cost {
namespace {

using schedule::Op;
using Key = std::pair<Op, std::string>;

// Ring: p-1 rounds per pass, each moving the largest block (uneven splits give the first blocks one more element).
Formula ring_allreduce(const schedule::CollArgs& a, Bytes elt) {
  const auto p = static_cast<std::uint64_t>(a.ranks);
  const Bytes blk = ceil_div(a.count, p) * elt;
  return {{{p - 1, blk, blk, "reduce-scatter"}, {p - 1, blk, 0, "allgather"}}, "2(p-1)", "2(p-1)/p", "(p-1)/p", ""};
}
Formula ring_allgather(const schedule::CollArgs& a, Bytes elt) {
  const auto p = static_cast<std::uint64_t>(a.ranks);
  return {{{p - 1, a.count * elt, 0, "allgather"}}, "p-1", "(p-1)/p", "0", ""};
}
Formula ring_reduce_scatter(const schedule::CollArgs& a, Bytes elt) {
  const auto p = static_cast<std::uint64_t>(a.ranks);
  return {{{p - 1, a.count * elt, a.count * elt, "reduce-scatter"}}, "p-1", "(p-1)/p", "(p-1)/p", ""};
}

const std::map<Key, FormulaFn>& table() {
  static const std::map<Key, FormulaFn> t = {
      {{Op::AllReduce, "ring"}, ring_allreduce},
      {{Op::AllGather, "ring"}, ring_allgather},
      {{Op::ReduceScatter, "ring"}, ring_reduce_scatter},
      {{Op::Broadcast, "ring"}, chain_broadcast},
      {{Op::Reduce, "ring"}, chain_reduce},
      {{Op::Broadcast, "binomial"}, binomial_broadcast},
      {{Op::Reduce, "binomial"}, binomial_reduce},
      {{Op::Gather, "binomial"}, binomial_gather},
      {{Op::Scatter, "binomial"}, binomial_scatter},
      {{Op::AllReduce, "reduce_bcast"}, reduce_bcast_allreduce},
      {{Op::AllReduce, "ps"}, ps_allreduce},
      {{Op::AllToAll, "pairwise"}, pairwise_alltoall},
      {{Op::AllToAll, "direct"}, direct_alltoall},
      {{Op::SendRecv, "direct"}, direct_sendrecv},
      {{Op::AllReduce, "recursive_doubling"}, recursive_doubling_allreduce},
      {{Op::AllGather, "recursive_doubling"}, recursive_doubling_allgather},
      {{Op::HyperCube, "recursive_doubling"}, recursive_doubling_allgather},
      {{Op::AllGather, "recursive_doubling_fold"}, recursive_doubling_fold_allgather},
      {{Op::AllReduce, "halving_doubling"}, halving_doubling_allreduce},
      {{Op::ReduceScatter, "halving_doubling"}, halving_doubling_reduce_scatter},
      {{Op::AllGather, "bruck"}, bruck_allgather},
      {{Op::AllToAll, "bruck"}, bruck_alltoall},
      {{Op::AllReduce, "torus2d"}, torus2d_allreduce},
      {{Op::AllReduce, "double_binary_tree"}, double_binary_tree_allreduce},
      {{Op::Broadcast, "scatter_allgather"}, scatter_allgather_broadcast},
      {{Op::Reduce, "reducescatter_gather"}, reducescatter_gather_reduce},
      {{Op::AllGather, "gather_bcast"}, gather_bcast_allgather},
      {{Op::AllReduce, "reducescatter_allgather"}, reducescatter_allgather_allreduce},
      {{Op::Barrier, "dissemination"}, dissemination_barrier},
      {{Op::Scan, "recursive_doubling"}, recursive_doubling_scan},
      {{Op::Scan, "linear"}, linear_scan},
  };
  return t;
}

} // namespace

std::optional<Formula> formula_for(Op op, const std::string& algo, const schedule::CollArgs& a, Bytes elt) {
  auto it = table().find({op, algo});
  if (it == table().end()) return std::nullopt;
  return it->second(a, elt);
}

bool has_formula(Op op, const std::string& algo) { return table().count({op, algo}) > 0; }

} // namespace ccsim::cost
