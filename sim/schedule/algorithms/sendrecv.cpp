// Sendrecv, nccl-tests' sendrecv_perf: in one group every rank sends its vector ([0, c)) to rank r+1 and
// receives rank r-1's into [c, 2c). One step of p simultaneous point-to-point transfers, each on its own
// pair of ports, so on a crossbar the time is one message: alpha + n beta. On 1 rank the send goes to the
// rank itself (NCCL allows it): a local copy, free in the engine.
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

class Shift final : public Schedule {
 public:
  using Schedule::Schedule;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (s > 0) return false;
    const int p = args_.ranks;
    const std::uint64_t c = args_.count;
    if (p == 1) {
      copy(out, c, 0, c);
      return true;
    }
    send(out, (r + 1) % p, {0, c});
    recv(out, (r - 1 + p) % p, {c, c});
    return true;
  }
};

} // namespace

void add_sendrecv_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"direct", Op::SendRecv, "one step: every rank sends to r+1 and receives from r-1 (nccl-tests' sendrecv_perf)",
                 // Not ring-like: ranks stay in GPU order (nccl-tests' rank r is device r), so r -> r+1 are the
                 // pairs the real test measures, not neighbours of a packed NVLink ring.
                 [](const CollArgs& a) { return std::make_unique<Shift>(a); }, false});
}

} // namespace ccsim::schedule
