#include "sim/model/nccl/shm.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/topology/gpu_catalogue.hpp"

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
  const int gen = static_cast<int>(l.type) - static_cast<int>(topology::LinkType::Pcie3) + 3;
  const double staged = static_cast<double>(topology::pcie_gen(fmt::format("pcie{}", gen), "topology " + t.name).nop2p_bw) /
                        std::max(1, l.lanes);
  return std::abs(static_cast<double>(l.bw) - staged) <= 0.005 * staged;
}

} // namespace ccsim::model::nccl
