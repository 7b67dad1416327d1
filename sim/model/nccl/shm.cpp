#include "sim/model/nccl/shm.hpp"

#include <algorithm>
#include <cmath>

#include "sim/topology/p2p.hpp"

namespace ccsim::model::nccl {

double shm_ring_loop_share(schedule::Op op, Algo algo, int ranks) {
  if (algo != Algo::Ring || ranks < 2) return 1.0;
  const double n = ranks;
  switch (op) {
    case schedule::Op::AllReduce: return (2 * n - 2) / (2 * n - 1);
    case schedule::Op::AllGather:
    case schedule::Op::ReduceScatter: return (n - 1) / n;
    default: return 1.0;
  }
}

bool host_staged_link(const topology::Topology& t, const topology::Link& l) {
  const auto gpu = [&](int n) { return t.nodes[static_cast<std::size_t>(n)].kind == topology::NodeKind::Gpu; };
  if (!topology::is_pcie(l.type) || !(gpu(l.a) || gpu(l.b))) return false;
  const auto staged = static_cast<double>(topology::host_staged_bw(l, "topology " + t.name));
  return std::abs(static_cast<double>(l.bw) - staged) <= 0.005 * staged;
}

} // namespace ccsim::model::nccl
