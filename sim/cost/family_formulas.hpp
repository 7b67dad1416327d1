// Formula functions that live in per-family files (chain_formulas.cpp, ...); formulas.cpp keeps the
// one table that maps (op, algorithm) to them.
#pragma once
#include "sim/cost/formula.hpp"

namespace ccsim::cost {

using schedule::CollArgs;

Formula chain_broadcast(const CollArgs& a, Bytes elt);
Formula chain_reduce(const CollArgs& a, Bytes elt);
Formula binomial_broadcast(const CollArgs& a, Bytes elt);
Formula binomial_reduce(const CollArgs& a, Bytes elt);
Formula binomial_gather(const CollArgs& a, Bytes elt);
Formula binomial_scatter(const CollArgs& a, Bytes elt);
Formula reduce_bcast_allreduce(const CollArgs& a, Bytes elt);
Formula ps_allreduce(const CollArgs& a, Bytes elt);
Formula pairwise_alltoall(const CollArgs& a, Bytes elt);
Formula direct_alltoall(const CollArgs& a, Bytes elt);
Formula direct_sendrecv(const CollArgs& a, Bytes elt);

} // namespace ccsim::cost
