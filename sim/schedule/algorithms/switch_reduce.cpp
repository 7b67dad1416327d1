#include "sim/schedule/algorithms/switch_reduce.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace ccsim::schedule {

SwitchAllReduce::SwitchAllReduce(const CollArgs& a, std::uint64_t segments)
    : Schedule(a), k_(std::max<std::uint64_t>(1, std::min<std::uint64_t>(segments, std::max<std::uint64_t>(1, a.count)))) {
  if (a.ranks < 2) fail("switch allreduce: needs at least one GPU and the switch");
}

bool SwitchAllReduce::step(int rank, int s, std::vector<Action>& out) const {
  out.clear();
  const auto tick = static_cast<std::uint64_t>(s);
  if (tick > k_) return false;
  const int sw = switch_rank();
  if (rank != sw) {
    if (tick < k_) send(out, sw, seg(tick));
    if (tick >= 1) recv(out, sw, seg(tick - 1));
    return true;
  }
  for (int g = 0; g < sw; ++g) {
    if (tick < k_) (g == 0 ? recv(out, g, seg(tick)) : recv_reduce(out, g, seg(tick)));
    if (tick >= 1) send(out, g, seg(tick - 1));
  }
  return true;
}

} // namespace ccsim::schedule
