// Alltoall (reference §1.8): rank r's input block q ([q*c, (q+1)*c)) goes to rank q's output block r
// ([p*c + r*c, ...)); the own block is a local copy.
// pairwise: p-1 steps; in step k-1 rank r sends to r+k and receives from r-k, a perfect matching, so
//   no link carries two messages at once.
// direct: one step posting all p-1 sends (to r+1, r+2, ...) and receives. On a one-port crossbar the
//   sends serialise on the uplink and, because the engine holds a message's uplink and the peer's
//   downlink together in posting order, rank r's k-th send waits until slot 2r+k-1: the last
//   message ends after 3(p-1) transfer times (p >= 3) instead of the p-1 a perfect interleaving gets.
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
  void exchange(int r, int k, std::vector<Action>& out) const {
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
    for (int k = 1; k < p(); ++k) exchange(r, k, out);
    self_copy(r, out);
    return true;
  }
};

} // namespace

void add_alltoall_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"pairwise", Op::AllToAll, "p-1 steps: step k sends to r+k and receives from r-k",
                 [](const CollArgs& a) { return std::make_unique<Pairwise>(a); }, false});
  out.push_back({"direct", Op::AllToAll, "one step posting all p-1 sends and receives (they queue on the links)",
                 [](const CollArgs& a) { return std::make_unique<Direct>(a); }, false, FormulaFit::LowerBound,
                 "the formula is the contention-free alpha + (p-1) n/p beta; with every send posted at once, the "
                 "order in which transfers take the links makes them queue (use --model flow for fair sharing)"});
}

} // namespace ccsim::schedule
