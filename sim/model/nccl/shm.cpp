#include "sim/model/nccl/shm.hpp"

namespace ccsim::model::nccl {

double shm_ring_loop_share(schedule::Op op, Algo algo, int ranks) {
  if (algo != Algo::Ring || ranks < 2) return 1.0;
  const double n = ranks;
  switch (op) {
    case schedule::Op::AllReduce: return (2 * n - 2) / (2 * n - 1);
    case schedule::Op::AllGather:
    case schedule::Op::ReduceScatter: return (n - 1) / n;
    case schedule::Op::Broadcast:
    case schedule::Op::Reduce: return 1.0; // one primitive per chunk, each moving what its port has to move
    default: return 1.0;
  }
}

bool duplex_both_ways(schedule::Op op, int ranks) {
  return !((op == schedule::Op::Broadcast || op == schedule::Op::Reduce) && ranks <= 2);
}

} // namespace ccsim::model::nccl
