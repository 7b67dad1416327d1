// Alltoall (reference §1.8): rank r's input block q ([q*c, (q+1)*c)) goes to rank q's output block r
// ([p*c + r*c, ...)); the own block is a local copy.
// pairwise: p-1 steps; in step k-1 rank r sends to r+k and receives from r-k, a perfect matching, so
//   no link carries two messages at once.
// direct: one step posting all p-1 sends and receives. Under fair sharing (--model flow) every link
//   carries its p-1 messages at once and the time is the contention-free ideal, p-1 transfer times.
//   Under fifo (each link serves one message at a time, in the order transfers start) no order of the
//   actions reaches it: ranks begin in rank order and a transfer starts when its second end is posted,
//   so rank r's sends to the ranks below it all start while r begins, each behind the r-1 messages
//   that rank's downlink already holds, and rank p-1's last send ends after 2p-3 transfer times at the
//   earliest. Exchanging with the peers in rank order (send to q, receive from q, q = 0, 1, ...) reaches
//   that floor; the order r+1, r+2, ... took up to 4.8(p-1) (72 transfer times at p = 16).
#include <algorithm>

#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

class AllToAllBase : public Schedule {
 public:
  using Schedule::Schedule;

 protected:
  int p() const { return args_.ranks; }
  int peer(int r, int k) const { return ((r + k) % p() + p()) % p(); }
  Block input(int q) const { return {static_cast<std::uint64_t>(q) * args_.count, args_.count}; }
  Block output(int q) const { return {static_cast<std::uint64_t>(p() + q) * args_.count, args_.count}; }
  void exchange(int r, int k, std::vector<Action>& out) const { // pairwise step k
    send(out, peer(r, k), input(peer(r, k)));
    recv(out, peer(r, -k), output(peer(r, -k)));
  }
  void self_copy(int r, std::vector<Action>& out) const { copy(out, output(r).off, input(r).off, args_.count); }
};

class Pairwise final : public AllToAllBase {
 public:
  using AllToAllBase::AllToAllBase;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    // p = 1 still needs its one (free) step: the own block must reach the output.
    if (s >= std::max(1, p() - 1)) return false;
    if (p() > 1) exchange(r, s + 1, out);
    if (s == 0) self_copy(r, out);
    return true;
  }
};

class Direct final : public AllToAllBase {
 public:
  using AllToAllBase::AllToAllBase;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (s > 0) return false;
    for (int q = 0; q < p(); ++q) // peers in rank order: see the header comment
      if (q != r) {
        send(out, q, input(q));
        recv(out, q, output(q));
      }
    self_copy(r, out);
    return true;
  }
};

} // namespace

void add_alltoall_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"pairwise", Op::AllToAll, "p-1 steps: step k sends to r+k and receives from r-k",
                 [](const CollArgs& a) { return std::make_unique<Pairwise>(a); }, false});
  out.push_back({"direct", Op::AllToAll, "one step posting all p-1 sends and receives (they share the links)",
                 [](const CollArgs& a) { return std::make_unique<Direct>(a); }, false, FormulaFit::ExactWithFairSharing,
                 "the formula is the contention-free alpha + (p-1) n/p beta, exact under --model flow (links shared "
                 "fairly); the default fifo model serves each link's messages one at a time in the order they start, and "
                 "as ranks start in rank order the last one's sends queue behind those already in: alpha + (2p-3) n/p beta"});
}

} // namespace ccsim::schedule
