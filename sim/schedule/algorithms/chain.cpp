// Pipelined chain broadcast and reduce (reference §1.2-1.3), NCCL's ring algorithms for rooted ops.
// The vector is cut into k segments of `segment` elements (the last one shorter); each rank forwards
// a segment while it receives the next, so the last one reaches the end after p-2+k rounds.
// Broadcast: root -> root+1 -> ... -> root-1. Reduce flows the same way round the ring, as NCCL's
// does: root+1 starts, each next rank reduces and forwards, and the root receives last.
#include "sim/schedule/algorithms/chain.hpp"

#include <algorithm>

#include "sim/core/ceil_div.hpp"
#include "sim/core/error.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {

std::uint64_t chain_max_segments(int ranks) {
  return std::max<std::uint64_t>(64, (std::uint64_t{1} << 22) / static_cast<std::uint64_t>(std::max(1, ranks)));
}

ChainSegments chain_segments(const CollArgs& a) {
  // A run moves about p x segments messages: the default segment grows past 2^22 / p segments (32 GiB at
  // 512 KiB for p = 8), and an explicit --chunk-size giving more is refused, so the work stays bounded.
  const std::uint64_t kMaxSegments = chain_max_segments(a.ranks);
  // 512 KiB: the step size of NCCL's Simple protocol (a 4 MiB buffer in 8 steps).
  const std::uint64_t dflt = std::max<std::uint64_t>(1, (512 * 1024) / std::max<std::uint64_t>(1, a.elt_size));
  const std::uint64_t seg = a.segment > 0 ? a.segment : std::max(dflt, ceil_div(a.count, kMaxSegments));
  if (a.count / seg >= kMaxSegments + 1)
    fail("--chunk-size: {} elements in segments of {} is more than {} segments; use a larger --chunk-size", a.count, seg, kMaxSegments);
  // An empty vector still walks the chain once (zero-byte messages), like the other algorithms.
  const std::uint64_t k = a.count == 0 ? 1 : ceil_div(a.count, seg);
  return {seg, k, a.count - (k - 1) * seg};
}

namespace {

class Chain final : public Schedule {
 public:
  explicit Chain(const CollArgs& a) : Schedule(a), seg_(chain_segments(a)) {
    if (seg_.count > (1u << 30)) fail("ring {}: {} segments is too many; use a larger --chunk-size", to_string(a.op), seg_.count);
  }

  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    const int p = args_.ranks;
    if (p == 1) return false;
    const bool reduce = args_.op == Op::Reduce;
    // Position along the chain: 0 sends first, p-1 receives last.
    const int pos = ((r - args_.root - (reduce ? 1 : 0)) % p + 2 * p) % p;
    const int next = (r + 1) % p, prev = (r + p - 1) % p;
    const auto k = static_cast<int>(seg_.count);
    if (pos == 0) {
      if (s >= k) return false;
      send(out, next, block(s));
      return true;
    }
    // Middle ranks take one extra step to forward the last segment; the end rank only receives.
    if (s >= (pos == p - 1 ? k : k + 1)) return false;
    if (s < k) reduce ? recv_reduce(out, prev, block(s)) : recv(out, prev, block(s));
    if (pos < p - 1 && s >= 1) send(out, next, block(s - 1));
    return true;
  }

 private:
  Block block(int i) const {
    const auto u = static_cast<std::uint64_t>(i);
    return {u * seg_.size, u + 1 == seg_.count ? seg_.last : seg_.size};
  }
  ChainSegments seg_;
};

} // namespace

void add_chain_algorithms(std::vector<AlgorithmInfo>& out) {
  auto make = [](const CollArgs& a) { return std::make_unique<Chain>(a); };
  out.push_back({"ring", Op::Broadcast, "pipelined chain root, root+1, ...: k segments in p-2+k rounds", make, true});
  out.push_back({"ring", Op::Reduce, "pipelined chain root+1, ..., root reducing k segments in p-2+k rounds", make, true});
  out[out.size() - 2].pipelined = out.back().pipelined = true;
  out[out.size() - 2].max_segments = out.back().max_segments = chain_max_segments;
}

} // namespace ccsim::schedule
