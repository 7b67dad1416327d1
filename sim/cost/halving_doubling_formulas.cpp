// Mirrors sim/schedule/algorithms/halving_doubling.cpp round for round. Blocks from split_block are
// largest first, and rank 0 keeps (and reduces) the lower half in every halving round and sends it in
// every doubling round, so its rounds are the largest; when p is not a power of two it is also a fold
// receiver, so it starts last. Its chain is the critical path when partners start each round together:
// at p = 2^k with equal blocks (count divisible by p). With uneven blocks, ranks that kept a smaller
// half finish a round one element's worth earlier, the doubling rounds pair ranks so desynchronised,
// and the engine can differ from this sum by a few element times (a max, which a sum cannot express).
// For other p see kFoldNote.
#include "sim/cost/formulas_algos2.hpp"
#include "sim/schedule/algorithms/pof2_fold.hpp"

namespace ccsim::cost {

namespace {
const char* kFoldNote =
    "non-power-of-two p: the first 2r ranks fold into p' = 2^floor(lg p) (r = p - p'), halving runs over p' groups, "
    "and each extra rank gets its result back at the end (MPICH): two extra rounds of the whole vector. Every "
    "transfer starts once its receive is posted, so survivors that skip the fold cannot run ahead of a partner "
    "that is still folding, and the rounds add up exactly";
const char* kFoldNoteRs =
    "non-power-of-two p: the first 2r ranks fold into p' = 2^floor(lg p) (r = p - p'): an extra round of the whole "
    "vector in (a + nb + ng); halving runs over p' groups, survivors below r own two ranks' blocks; at the end each "
    "extra rank gets its one block back (a + nb/p), MPICH's recursive halving. Every transfer starts once its receive "
    "is posted, so survivors that skip the fold cannot run ahead of a partner that is still folding, and the rounds "
    "add up exactly";
}

Formula halving_doubling_allreduce(const schedule::CollArgs& a, Bytes elt) {
  const schedule::Pof2Fold f(a.ranks);
  const Bytes n = a.count * elt;
  const auto pp = static_cast<std::uint64_t>(f.pof2);
  auto lower = [&](int m) { return schedule::split_block(a.count, pp, static_cast<std::uint64_t>(m)).off * elt; };
  Formula out;
  if (f.rem > 0) out.terms.push_back({1, n, n, "fold"});
  for (int m = f.pof2 / 2; m >= 1; m /= 2) out.terms.push_back({1, lower(m), lower(m), "reduce-scatter"});
  for (int m = 1; m < f.pof2; m *= 2) out.terms.push_back({1, lower(m), 0, "allgather"});
  if (f.rem > 0) out.terms.push_back({1, n, 0, "unfold"});
  if (f.rem == 0) {
    out.alpha = "2 lg p";
    out.beta = "2(p-1)/p";
    out.gamma = "(p-1)/p";
  } else {
    out.alpha = "2 floor(lg p)+2";
    out.beta = "2 + 2(p'-1)/p'";
    out.gamma = "1 + (p'-1)/p'";
    out.note = kFoldNote;
  }
  return out;
}

Formula halving_doubling_reduce_scatter(const schedule::CollArgs& a, Bytes elt) {
  const schedule::Pof2Fold f(a.ranks);
  const Bytes blk = a.count * elt, n = static_cast<Bytes>(f.p) * blk;
  Formula out;
  if (f.rem > 0) out.terms.push_back({1, n, n, "fold"});
  for (int m = f.pof2 / 2; m >= 1; m /= 2) {
    const Bytes half = static_cast<Bytes>(f.first_old(m)) * blk; // new ranks [0, m), two blocks each below r
    out.terms.push_back({1, half, half, "reduce-scatter"});
  }
  if (f.rem > 0) out.terms.push_back({1, blk, 0, "unfold"});
  if (f.rem == 0) {
    out.alpha = "lg p";
    out.beta = out.gamma = "(p-1)/p";
  } else {
    out.alpha = "floor(lg p)+2";
    out.beta = "1 + (p' + sum_k min(2^k, r))/p";
    out.gamma = "1 + (p'-1 + sum_k min(2^k, r))/p";
    out.note = kFoldNoteRs;
  }
  return out;
}

} // namespace ccsim::cost
