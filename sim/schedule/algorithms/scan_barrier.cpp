// Barrier and scan (inclusive prefix reduction, MPI_Scan), the two collectives the course names that
// nccl-tests does not measure.
//  - dissemination barrier (Hensgen, Finkel and Manber 1988; Mellor-Crummey and Scott 1991): in round k
//    rank r signals r+2^k and waits for r-2^k (mod p); after ceil(lg p) rounds every rank has heard,
//    directly or through others, from all p. Its messages are empty.
//  - recursive-doubling scan (Hillis and Steele 1986): in step k rank r sends its partial prefix to
//    r+2^k and reduces the one from r-2^k into its own; after step k it holds the reduction of ranks
//    (r-2^(k+1), r], so ceil(lg p) steps of the whole vector reach rank 0..r.
//  - linear scan: the prefix travels down the chain 0 -> 1 -> ... -> p-1, each rank reducing it into
//    its own vector before passing it on: p-1 hops of the whole vector, one after another.
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

class DisseminationBarrier final : public Schedule {
 public:
  using Schedule::Schedule;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    const int p = args_.ranks;
    if (s >= ceil_lg(p)) return false;
    const int d = 1 << s;
    send(out, (r + d) % p, {0, 0});
    recv(out, ((r - d) % p + p) % p, {0, 0});
    return true;
  }
};

class RecursiveDoublingScan final : public Schedule {
 public:
  using Schedule::Schedule;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    const int p = args_.ranks;
    if (s >= ceil_lg(p)) return false;
    const int d = 1 << s;
    const Block all{0, args_.count};
    if (r + d < p) send(out, r + d, all);
    if (r - d >= 0) recv_reduce(out, r - d, all);
    return true; // a rank with neither partner this round waits (an empty step)
  }
};

class LinearScan final : public Schedule {
 public:
  using Schedule::Schedule;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    const int p = args_.ranks;
    const Block all{0, args_.count};
    // Rank 0 has nothing to receive, so its only step is the send; rank p-1 only receives.
    const int st = r == 0 ? s + 1 : s;
    if (st == 0) recv_reduce(out, r - 1, all);
    else if (st == 1 && r + 1 < p) send(out, r + 1, all);
    return !out.empty();
  }
};

} // namespace

void add_scan_barrier_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"dissemination", Op::Barrier, "dissemination: in round k rank i signals i+2^k and waits for i-2^k (mod p), ceil(lg p) rounds",
                 [](const CollArgs& a) { return std::make_unique<DisseminationBarrier>(a); }, false});
  out.push_back({"recursive_doubling", Op::Scan,
                 "recursive doubling (Hillis-Steele): in step k rank i sends its partial prefix to i+2^k, ceil(lg p) steps",
                 [](const CollArgs& a) { return std::make_unique<RecursiveDoublingScan>(a); }, false});
  out.push_back({"linear", Op::Scan, "linear: the prefix passes down the chain 0 -> 1 -> ... -> p-1, p-1 hops of n",
                 [](const CollArgs& a) { return std::make_unique<LinearScan>(a); }, true});
}

} // namespace ccsim::schedule
