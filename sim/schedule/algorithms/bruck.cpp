// Bruck et al. 1997 (reference §1.5, §1.8): ceil(lg p) rounds for any p, rank i talking to i -/+ 2^k.
// Allgather: a scratch copy holds blocks i, i+1, ... (mod p) from position 0; in round k rank i sends
// its first min(2^k, p - 2^k) blocks to i - 2^k and appends those of i + 2^k; a final local rotation
// puts block j at position j. Cost ceil(lg p) a + (p-1)/p nb.
// Alltoall: after a local rotation position j holds the block for rank i + j; in round k every block
// whose position has bit k set moves 2^k ranks on (packed into one message, unpacked after), so after
// all rounds position j holds what rank i - j sent to i; a final rotation writes the output.
// Cost ceil(lg p) a + sum_k |{j : bit k of j}| (n/p) b, about (n/2) lg p b.
// Copies read the buffer as it was when their step began, so packing and unpacking get steps of their
// own; those steps have no messages and take no time.
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

class BruckAllGather final : public Schedule {
 public:
  explicit BruckAllGather(const CollArgs& a) : Schedule(a), rounds_(ceil_lg(a.ranks)) {}
  std::uint64_t buffer_elems() const override { return 2 * pc(); } // result, then the rotated scratch

  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    const int p = args_.ranks;
    if (p == 1 || s > rounds_) return false;
    if (s < rounds_) {
      const int d = 1 << s, cnt = std::min(d, p - d);
      if (s == 0) { // the own block goes out straight from its place and into scratch position 0
        copy(out, pc(), blk(r), c());
        send(out, wrap_mod(r - d, p), {blk(r), c()});
      } else {
        send(out, wrap_mod(r - d, p), {pc(), cnt * c()});
      }
      recv(out, wrap_mod(r + d, p), {pc() + d * c(), cnt * c()});
      return true;
    }
    // Scratch position j holds rank r + j's block: two contiguous pieces back to their places.
    const auto n_hi = static_cast<std::uint64_t>(p - 1 - r);
    if (n_hi > 0) copy(out, blk(r + 1), pc() + c(), n_hi * c());
    if (r > 0) copy(out, 0, pc() + (n_hi + 1) * c(), static_cast<std::uint64_t>(r) * c());
    return true;
  }

 private:
  std::uint64_t c() const { return args_.count; }
  std::uint64_t pc() const { return static_cast<std::uint64_t>(args_.ranks) * args_.count; }
  std::uint64_t blk(int j) const { return static_cast<std::uint64_t>(j) * args_.count; }
  int rounds_;
};

class BruckAllToAll final : public Schedule {
 public:
  explicit BruckAllToAll(const CollArgs& a) : Schedule(a), rounds_(ceil_lg(a.ranks)) {
    for (int k = 0; k < rounds_; ++k) most_ = std::max(most_, moved(k));
  }
  // input, output, rotated scratch, send pack, receive pack
  std::uint64_t buffer_elems() const override { return 3 * pc() + 2 * static_cast<std::uint64_t>(most_) * c(); }

  // Steps: copy (rotate + pack round 0), then per round a message step and a copy step (unpack, pack
  // the next round or write the output). p = 1 has the single copy of its own block.
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    const int p = args_.ranks;
    if (p == 1) {
      if (s > 0) return false;
      copy(out, pc(), 0, c());
      return true;
    }
    if (s > 2 * rounds_) return false;
    if (s % 2 == 1) {
      const int k = s / 2, d = 1 << k;
      const std::uint64_t len = static_cast<std::uint64_t>(moved(k)) * c();
      send(out, wrap_mod(r + d, p), {sbuf(), len});
      recv(out, wrap_mod(r - d, p), {rbuf(), len});
      return true;
    }
    const int done = s / 2 - 1; // round whose packed blocks sit in rbuf, or -1 before any
    // Where position j's current value lives at the start of this step.
    auto src = [&](int j) -> std::uint64_t {
      if (done < 0) return blk(wrap_mod(r + j, p)); // still in the input, rotated
      if (j & (1 << done)) return rbuf() + static_cast<std::uint64_t>(rank_in(done, j)) * c();
      return scratch(j);
    };
    for (int j = 0; j < p; ++j) {
      if (s / 2 == rounds_) { // last: position j came from rank r - j
        copy(out, pc() + blk(wrap_mod(r - j, p)), src(j), c());
        continue;
      }
      if (done < 0 || (j & (1 << done))) copy(out, scratch(j), src(j), c()); // rotate / unpack
      const int next = s / 2;
      if (j & (1 << next)) copy(out, sbuf() + static_cast<std::uint64_t>(rank_in(next, j)) * c(), src(j), c());
    }
    return true;
  }

 private:
  int moved(int k) const { return rank_in(k, args_.ranks); } // positions below p with bit k set
  static int rank_in(int k, int j) { // positions below j with bit k set
    const int period = 2 << k, full = j / period, rest = j % period;
    return full * (1 << k) + std::max(0, rest - (1 << k));
  }
  std::uint64_t c() const { return args_.count; }
  std::uint64_t pc() const { return static_cast<std::uint64_t>(args_.ranks) * args_.count; }
  std::uint64_t blk(int j) const { return static_cast<std::uint64_t>(j) * args_.count; }
  std::uint64_t scratch(int j) const { return 2 * pc() + blk(j); }
  std::uint64_t sbuf() const { return 3 * pc(); }
  std::uint64_t rbuf() const { return 3 * pc() + static_cast<std::uint64_t>(most_) * c(); }
  int rounds_;
  int most_ = 0;
};

} // namespace

void add_bruck_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"bruck", Op::AllGather, "ceil(lg p) rounds, rank i sends all it has to i - 2^k (any p)",
                 factory_of<BruckAllGather>(), false});
  out.push_back({"bruck", Op::AllToAll, "ceil(lg p) rounds, blocks whose index has bit k set move 2^k ranks on",
                 factory_of<BruckAllToAll>(), false});
}

} // namespace ccsim::schedule
