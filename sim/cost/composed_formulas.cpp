// Compositions (sim/schedule/algorithms/composed.hpp): the first phase's critical path, then the
// second's. Exact when the second phase starts together on the ranks its critical path needs: the ring
// allgather after a scatter (every ring step waits for the latest rank), the gather after a
// reduce-scatter (all ranks end it together), the broadcast after a gather (it starts at the root,
// which finishes the gather last).
#include <fmt/format.h>

#include "sim/cost/formulas_algos2.hpp"
#include "sim/schedule/algorithms/composed.hpp"

namespace ccsim::cost {

namespace {

Formula compose(const schedule::CollArgs& a, Bytes elt, const std::string& algo) {
  const auto c = schedule::composition(a, algo);
  const auto f1 = formula_for(c.first.op, c.first_algo, c.first, elt);
  const auto f2 = formula_for(c.second.op, c.second_algo, c.second, elt);
  Formula out;
  for (const auto* f : {&*f1, &*f2})
    for (auto t : f->terms) {
      t.what = fmt::format("{} ({})", t.what, f == &*f1 ? schedule::to_string(c.first.op) : schedule::to_string(c.second.op));
      out.terms.push_back(t);
    }
  if (c.padded > a.count && a.count > 0)
    out.note = fmt::format("count {} is not a multiple of p: blocks of {} elements, the last padded to {} in all", a.count,
                           c.padded / static_cast<std::uint64_t>(a.ranks), c.padded);
  return out;
}

} // namespace

Formula scatter_allgather_broadcast(const schedule::CollArgs& a, Bytes elt) {
  auto f = compose(a, elt, "scatter_allgather");
  f.alpha = "ceil(lg p) + p-1", f.beta = "2(p-1)/p", f.gamma = "0";
  return f;
}

Formula reducescatter_gather_reduce(const schedule::CollArgs& a, Bytes elt) {
  auto f = compose(a, elt, "reducescatter_gather");
  const bool pof2 = (a.ranks & (a.ranks - 1)) == 0;
  f.alpha = pof2 ? "2 lg p" : "floor(lg p)+2 + ceil(lg p)";
  f.beta = pof2 ? "2(p-1)/p" : "1 + (p' + sum_k min(2^k, r))/p + (p-1)/p";
  f.gamma = pof2 ? "(p-1)/p" : "1 + (p'-1 + sum_k min(2^k, r))/p";
  if (!pof2) f.note += std::string(f.note.empty() ? "" : "; ") + "non-power-of-two p: the reduce-scatter folds the first 2r ranks in (MPICH)";
  return f;
}

// Recursive halving then recursive doubling: for p a power of two the messages of Rabenseifner's
// halving_doubling; otherwise the reduce-scatter folds the extra ranks in and Thakur's allgather runs on all p.
Formula reducescatter_allgather_allreduce(const schedule::CollArgs& a, Bytes elt) {
  auto f = compose(a, elt, "reducescatter_allgather");
  const bool pof2 = (a.ranks & (a.ranks - 1)) == 0;
  if (pof2) {
    f.alpha = "2 lg p", f.beta = "2(p-1)/p", f.gamma = "(p-1)/p";
    return f;
  }
  const auto c = schedule::composition(a, "reducescatter_allgather");
  const auto f1 = formula_for(c.first.op, c.first_algo, c.first, elt);
  const auto f2 = formula_for(c.second.op, c.second_algo, c.second, elt);
  f.alpha = f1->alpha + " + " + f2->alpha, f.beta = f1->beta + " + " + f2->beta, f.gamma = f1->gamma;
  f.note += std::string(f.note.empty() ? "" : "; ") + "non-power-of-two p: the reduce-scatter folds the first 2r ranks in (MPICH), "
            "then Thakur's recursive-doubling allgather runs on all p";
  return f;
}

Formula gather_bcast_allgather(const schedule::CollArgs& a, Bytes elt) {
  auto f = compose(a, elt, "gather_bcast");
  f.alpha = "2ceil(lg p)", f.beta = "(p-1)/p + ceil(lg p)", f.gamma = "0";
  f.note = "the course writes a log p + (p-1) b l + a log p + log p p b l and simplifies it to a log p + p l b log p, "
           "dropping the gather's (p-1)/p n beta and one a log p; this is the exact sum";
  return f;
}

} // namespace ccsim::cost
