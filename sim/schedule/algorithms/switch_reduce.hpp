// Allreduce inside a switch that reduces and multicasts (NVLink SHARP in an NVSwitch, SHARP in an
// InfiniBand switch): ranks 0..p-1 are GPUs, rank p sits on the switch node. The vector is cut into k
// segments; at tick s every GPU sends segment s to the switch, which reduces the p contributions, and
// the switch multicasts segment s-1 (reduced one tick earlier) back to every GPU. So each GPU's link
// carries the vector once each way (n out, n in, against the ring's 2(p-1)/p n), and up- and downlink
// traffic overlap: time ~ (k+1)/k * n/B plus per-tick latencies.
// The switch's multicast is p sends of the same segment, one per downlink; the links, not the switch,
// limit it (a switch whose reduction is slower is modelled by the links' bandwidth given to the job).
// Not in the algorithm registry: it needs a switch node to place rank p on.
#pragma once
#include "sim/schedule/schedule.hpp"

namespace ccsim::schedule {

class SwitchAllReduce final : public Schedule {
 public:
  // a.ranks = GPUs + 1 (the switch is the last rank); `segments` >= 1 (clamped to count).
  SwitchAllReduce(const CollArgs& a, std::uint64_t segments);
  bool step(int rank, int s, std::vector<Action>& out) const override;
  int switch_rank() const { return args_.ranks - 1; }

 private:
  Block seg(std::uint64_t j) const { return split_block(args_.count, k_, j); }
  std::uint64_t k_;
};

} // namespace ccsim::schedule
