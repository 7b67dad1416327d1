// Mirrors sim/schedule/algorithms/recursive_doubling.cpp round for round. Not a power of two: the fold
// costs one round of the first kind and the unfold one of the full result. A transfer starts once its
// receive is posted, so survivors that skip the fold wait for partners still folding: rounds add up.
// Thakur's allgather (any p) is in rd_allgather_formula.cpp.
#include "sim/cost/formulas_algos2.hpp"
#include "sim/schedule/algorithms/pof2_fold.hpp"

namespace ccsim::cost {

Formula recursive_doubling_allreduce(const schedule::CollArgs& a, Bytes elt) {
  const schedule::Pof2Fold f(a.ranks);
  const Bytes n = a.count * elt;
  Formula out;
  if (f.rem > 0) out.terms.push_back({1, n, n, "fold"});
  out.terms.push_back({static_cast<std::uint64_t>(f.lg), n, n, "exchange"});
  if (f.rem > 0) out.terms.push_back({1, n, 0, "unfold"});
  if (f.rem == 0) {
    out.alpha = out.beta = out.gamma = "lg p";
  } else {
    out.alpha = out.beta = "floor(lg p)+2";
    out.gamma = "floor(lg p)+1";
    out.note = "non-power-of-two p: the first 2r ranks fold into p' = 2^floor(lg p) (+a+nb+ng) and get the result back (+a+nb)";
  }
  return out;
}

Formula recursive_doubling_fold_allgather(const schedule::CollArgs& a, Bytes elt) {
  const schedule::Pof2Fold f(a.ranks);
  const Bytes blk = a.count * elt;
  Formula out;
  if (f.rem > 0) out.terms.push_back({1, blk, 0, "fold"});
  // Rank 0 carries the most blocks (survivors below r carry two): round k sends its 2^k groups.
  for (int k = 0; k < f.lg; ++k)
    out.terms.push_back({1, static_cast<Bytes>(f.first_old(1 << k)) * blk, 0, "exchange"});
  if (f.rem > 0) out.terms.push_back({1, static_cast<Bytes>(f.p) * blk, 0, "unfold"});
  out.gamma = "0";
  if (f.rem == 0) {
    out.alpha = "lg p";
    out.beta = "(p-1)/p";
  } else {
    out.alpha = "floor(lg p)+2";
    out.beta = "(1 + (p'-1) + sum_k min(2^k, r) + p)/p";
    out.note = "non-power-of-two p: the first 2r ranks fold their block into their odd partner (p' = 2^floor(lg p), "
               "r = p - p'), survivors below r carry two blocks, and the full result goes back at the end";
  }
  return out;
}

} // namespace ccsim::cost
