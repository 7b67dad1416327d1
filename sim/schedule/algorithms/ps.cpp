// Parameter-server allreduce: every rank pushes its whole vector to the server (args.root), the
// server reduces them all, then sends the result back to each rank. One port per GPU means the
// server is the bottleneck: the p-1 pushes queue on its downlink and the p-1 replies on its uplink,
// so each phase costs alpha + (p-1) transfers of n bytes (latencies overlap, bandwidth does not).
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

class ParameterServer final : public Schedule {
 public:
  using Schedule::Schedule;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    const int p = args_.ranks, server = args_.root;
    if (p == 1 || s > 1) return false;
    const Block all{0, args_.count};
    if (r != server) {
      s == 0 ? send(out, server, all) : recv(out, server, all);
      return true;
    }
    for (int q = 0; q < p; ++q)
      if (q != server) s == 0 ? recv_reduce(out, q, all) : send(out, q, all);
    return true;
  }
};

} // namespace

void add_ps_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"ps", Op::AllReduce, "parameter server: all push to the root, it reduces and sends the result back",
                 [](const CollArgs& a) { return std::make_unique<ParameterServer>(a); }, false});
}

} // namespace ccsim::schedule
