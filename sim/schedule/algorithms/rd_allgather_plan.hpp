// Thakur's recursive-doubling allgather for any p (MPICH allgather_intra_recursive_doubling.c;
// Thakur, Rabenseifner, Gropp 2005), as a plan shared by the schedule and its formula.
// Round i (mask m = 2^i): rank r exchanges with r XOR m everything its aligned subtree of m ranks
// holds, [a, min(a + m, p)) with a = r with its low i bits cleared. When the partner subtree is cut
// short by p (u = p - a - m ranks exist, 0 < u < m), only the first u ranks of the lower subtree had
// a partner; they pass the u blocks they received down a binomial tree inside their subtree (sub-rounds
// m/2, m/4, ..., 1), so every rank of the 2m-subtree holds it before round i+1. Every rank receives
// exactly p-1 blocks, in at most 2 ceil(lg p) - 1 steps (rank 0 at p = 2^k + 1).
#pragma once
#include <algorithm>
#include <vector>

#include "sim/schedule/collective.hpp"

namespace ccsim::schedule {

struct RdGatherStep {
  int round = 0, sub = -1;  // sub = -1: the exchange of round `round`; else the fix-up sub-round of distance 2^sub
  int send_to = -1, recv_from = -1;     // -1: none
  int send_first = 0, send_n = 0;       // blocks [first, first + n)
  int recv_first = 0, recv_n = 0;
};

// Rank r's steps in order (ranks skip sub-rounds they have no part in).
inline std::vector<RdGatherStep> rd_gather_plan(int p, int r) {
  std::vector<RdGatherStep> out;
  for (int i = 0, m = 1; m < p; ++i, m <<= 1) {
    const int dst = r ^ m, mine = r & ~(m - 1), theirs = dst & ~(m - 1);
    if (dst < p)
      out.push_back({i, -1, dst, dst, mine, std::min(m, p - mine), theirs, std::min(m, p - theirs)});
    // Fix-up, only in a lower subtree [mine, mine + m) whose partner subtree holds u in (0, m) ranks.
    const int u = p - mine - m;
    if (mine & m || u <= 0 || u >= m) continue;
    for (int j = i - 1; j >= 0; --j) {
      const int t = 1 << j, peer = r ^ t, root = r & ~(2 * t - 1); // root of r's 2t-subtree
      if (peer > r && r < root + u && peer >= root + u)
        out.push_back({i, j, peer, -1, mine + m, u, 0, 0});
      else if (peer < r && peer < root + u && r >= root + u)
        out.push_back({i, j, -1, peer, 0, 0, mine + m, u});
    }
  }
  return out;
}

} // namespace ccsim::schedule
