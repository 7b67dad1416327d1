// Ring algorithms (reference §1.4-1.6): rank r sends to r+1 and receives from r-1 (mod p).
// Reduce-scatter: p-1 steps, each moving one block and reducing it; after them rank r owns the
// fully reduced block r. Allgather: p-1 steps circulating blocks. Allreduce = the two in sequence:
// 2(p-1) steps of n/p bytes, cost 2(p-1)a + 2(p-1)/p n b + (p-1)/p n g.
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

// a wrapped into [0, p) for a in (-p, p) (r - s and r - s - 1 for r in [0, p), s in [0, p - 1)): called once per
// step of a 16k-rank ring, so no division.
int wrap_once(int a, int p) { return a < 0 ? a + p : a; }

// Blocks of the ring, where block i lives in every rank's buffer: computed once per schedule (the
// split needs two 64-bit divisions, and a 16k-rank ring asks for a block half a billion times).
class RingBase : public Schedule {
 public:
  // `split`: the count is one vector cut into p blocks (allreduce); else p blocks of count each.
  RingBase(const CollArgs& a, bool split) : Schedule(a) {
    const auto n = static_cast<std::uint64_t>(a.ranks);
    blocks_.reserve(n);
    for (std::uint64_t i = 0; i < n; ++i) blocks_.push_back(split ? split_block(a.count, n, i) : Block{i * a.count, a.count});
  }

 protected:
  Block blocks(int i) const { return blocks_[static_cast<std::size_t>(i)]; }
  int p() const { return args_.ranks; }
  int next(int i) const { return i + 1 == p() ? 0 : i + 1; } // i in [0, p)
  int prev(int i) const { return i == 0 ? p() - 1 : i - 1; }
  // Step s of a reduce-scatter pass: send block r-s-1, receive-and-reduce block r-s-2.
  void reduce_scatter_step(int r, int s, Action* out) const {
    exchange(r, wrap_once(r - s - 1, p()), Action::Kind::RecvReduce, out);
  }
  // Step s of an allgather pass: send block r-s (rank r starts with block r), receive block r-s-1.
  void allgather_step(int r, int s, Action* out) const {
    exchange(r, wrap_once(r - s, p()), Action::Kind::Recv, out);
  }
  // Every ring step is two actions, written into the engine's fixed buffer (step_fixed); step() sizes a
  // vector and takes the same step.
  bool fixed_steps() const final { return true; }
  bool step(int r, int s, std::vector<Action>& out) const final {
    out.resize(2);
    if (step_fixed(r, s, out.data()) < 0) return out.clear(), false;
    return true;
  }

 private:
  // Send block b to the successor, receive block b-1 from the predecessor.
  void exchange(int r, int b, Action::Kind recv_kind, Action* out) const {
    const Block sent = blocks(b), received = blocks(prev(b));
    out[0] = Action{Action::Kind::Send, next(r), sent.off, sent.len, 0};
    out[1] = Action{recv_kind, prev(r), received.off, received.len, 0};
  }

  std::vector<Block> blocks_;
};

class RingAllReduce final : public RingBase {
 public:
  explicit RingAllReduce(const CollArgs& a) : RingBase(a, true) {}
  int step_fixed(int r, int s, Action* out) const override {
    if (s >= 2 * (p() - 1)) return -1;
    if (s < p() - 1) reduce_scatter_step(r, s, out);
    else allgather_step(r, s - (p() - 1), out);
    return 2;
  }
};

class RingAllGather final : public RingBase {
 public:
  explicit RingAllGather(const CollArgs& a) : RingBase(a, false) {}
  int step_fixed(int r, int s, Action* out) const override {
    if (s >= p() - 1) return -1;
    allgather_step(r, s, out);
    return 2;
  }
};

class RingReduceScatter final : public RingBase {
 public:
  explicit RingReduceScatter(const CollArgs& a) : RingBase(a, false) {}
  int step_fixed(int r, int s, Action* out) const override {
    if (s >= p() - 1) return -1;
    reduce_scatter_step(r, s, out);
    return 2;
  }
};

} // namespace

void add_ring_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"ring", Op::AllReduce, "ring reduce-scatter then ring allgather, 2(p-1) steps of n/p",
                 factory_of<RingAllReduce>(), true});
  out.push_back({"ring", Op::AllGather, "p-1 steps, each rank forwards one block to its successor",
                 factory_of<RingAllGather>(), true});
  out.push_back({"ring", Op::ReduceScatter, "p-1 steps, each rank reduces one block and forwards it",
                 factory_of<RingReduceScatter>(), true});
}

} // namespace ccsim::schedule
