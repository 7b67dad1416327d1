// Formulas of the recursive-doubling, halving-doubling, Bruck, double-binary-tree and 2D-torus
// schedules (sim/schedule/algorithms/); formulas.cpp lists them in the one table.
#pragma once
#include "sim/cost/formula.hpp"

namespace ccsim::cost {

Formula recursive_doubling_allreduce(const schedule::CollArgs& a, Bytes elt);
Formula recursive_doubling_allgather(const schedule::CollArgs& a, Bytes elt);
Formula recursive_doubling_fold_allgather(const schedule::CollArgs& a, Bytes elt);
Formula halving_doubling_allreduce(const schedule::CollArgs& a, Bytes elt);
Formula halving_doubling_reduce_scatter(const schedule::CollArgs& a, Bytes elt);
Formula bruck_allgather(const schedule::CollArgs& a, Bytes elt);
Formula bruck_alltoall(const schedule::CollArgs& a, Bytes elt);
Formula double_binary_tree_allreduce(const schedule::CollArgs& a, Bytes elt);
Formula torus2d_allreduce(const schedule::CollArgs& a, Bytes elt);
Formula scatter_allgather_broadcast(const schedule::CollArgs& a, Bytes elt);
Formula reducescatter_gather_reduce(const schedule::CollArgs& a, Bytes elt);
Formula gather_bcast_allgather(const schedule::CollArgs& a, Bytes elt);
Formula reducescatter_allgather_allreduce(const schedule::CollArgs& a, Bytes elt);
Formula dissemination_barrier(const schedule::CollArgs& a, Bytes elt);
Formula recursive_doubling_scan(const schedule::CollArgs& a, Bytes elt);
Formula linear_scan(const schedule::CollArgs& a, Bytes elt);

} // namespace ccsim::cost
