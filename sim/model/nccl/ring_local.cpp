#include "sim/model/nccl/ring_local.hpp"

namespace ccsim::model::nccl {

double ring_local_bytes(schedule::Op op, Proto proto, int ranks, double bytes) {
  if (ranks < 2 || bytes <= 0) return 0;
  const double fifo_reads = proto == Proto::LL ? 2.0 : proto == Proto::LL128 ? 128.0 / 120.0 : 1.0;
  const double part = bytes / ranks; // the chunks of one rank's last primitives, over the whole collective
  switch (op) {
    case schedule::Op::AllReduce:
    case schedule::Op::AllGather: return part * (fifo_reads + 1.0);           // FIFO read, output written
    case schedule::Op::ReduceScatter: return part * (fifo_reads + 2.0);       // FIFO and input read, output written
    default: return 0;
  }
}

bool ring_last_primitive_copies(bool one_process, bool p2p_read, const std::optional<NcclVersion>& release) {
  const bool direct_unregistered = release && *release < kDirectNeedsRegistrationFrom;
  return !(one_process && !p2p_read && direct_unregistered);
}

} // namespace ccsim::model::nccl
