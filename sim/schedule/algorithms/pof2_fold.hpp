// MPICH's reduction of any p to p' = 2^floor(lg p) ranks (reference §1.10): with r = p - p', the
// first 2r ranks pair up, each even one hands its data to the odd one after it and sits out; the
// survivors are renumbered 0..p'-1 (odd rank 2i+1 -> i, rank j >= 2r -> j - r). Shared by the
// recursive-doubling and halving-doubling schedules and by their formulas.
#pragma once
#include <cstdint>

namespace ccsim::schedule {

struct Pof2Fold {
  int p = 1, pof2 = 1, rem = 0, lg = 0;
  explicit Pof2Fold(int ranks) : p(ranks) {
    while (pof2 * 2 <= p) pof2 *= 2, ++lg;
    rem = p - pof2;
  }
  bool extra(int r) const { return r < 2 * rem && r % 2 == 0; }    // sits out; its partner is r + 1
  bool receiver(int r) const { return r < 2 * rem && r % 2 == 1; } // takes r - 1's data in
  int new_rank(int r) const { return r < 2 * rem ? r / 2 : r - rem; }
  int old_rank(int nr) const { return nr < rem ? 2 * nr + 1 : nr + rem; }
  // First old rank whose data new rank `nr` carries (new ranks below rem carry two); first_old(p') = p.
  int first_old(int nr) const { return nr < rem ? 2 * nr : nr + rem; }
};

} // namespace ccsim::schedule
