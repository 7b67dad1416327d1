// Ring algorithms (reference §1.4-1.6): rank r sends to r+1 and receives from r-1 (mod p).
// Reduce-scatter: p-1 steps, each moving one block and reducing it; after them rank r owns the
// fully reduced block r. Allgather: p-1 steps circulating blocks. Allreduce = the two in sequence:
// 2(p-1) steps of n/p bytes, cost 2(p-1)a + 2(p-1)/p n b + (p-1)/p n g.
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

int mod(long a, int p) { return static_cast<int>(((a % p) + p) % p); }

// Blocks of the ring: `blocks(i)` is where block i lives in every rank's buffer.
class RingBase : public Schedule {
 public:
  using Schedule::Schedule;

 protected:
  virtual Block blocks(int i) const = 0;
  int p() const { return args_.ranks; }
  // Step s of a reduce-scatter pass: send block r-s-1, receive-and-reduce block r-s-2.
  void reduce_scatter_step(int r, int s, std::vector<Action>& out) const {
    send(out, mod(r + 1, p()), blocks(mod(r - s - 1, p())));
    recv_reduce(out, mod(r - 1, p()), blocks(mod(r - s - 2, p())));
  }
  // Step s of an allgather pass: send block r-s (rank r starts with block r), receive block r-s-1.
  void allgather_step(int r, int s, std::vector<Action>& out) const {
    send(out, mod(r + 1, p()), blocks(mod(r - s, p())));
    recv(out, mod(r - 1, p()), blocks(mod(r - s - 1, p())));
  }
};

class RingAllReduce final : public RingBase {
 public:
  using RingBase::RingBase;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (s >= 2 * (p() - 1)) return false;
    if (s < p() - 1) reduce_scatter_step(r, s, out);
    else allgather_step(r, s - (p() - 1), out);
    return true;
  }

 protected:
  Block blocks(int i) const override { return split_block(args_.count, static_cast<std::uint64_t>(p()), static_cast<std::uint64_t>(i)); }
};

class RingAllGather final : public RingBase {
 public:
  using RingBase::RingBase;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (s >= p() - 1) return false;
    allgather_step(r, s, out);
    return true;
  }

 protected:
  Block blocks(int i) const override { return {static_cast<std::uint64_t>(i) * args_.count, args_.count}; }
};

class RingReduceScatter final : public RingBase {
 public:
  using RingBase::RingBase;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (s >= p() - 1) return false;
    reduce_scatter_step(r, s, out);
    return true;
  }

 protected:
  Block blocks(int i) const override { return {static_cast<std::uint64_t>(i) * args_.count, args_.count}; }
};

template <typename T>
std::function<std::unique_ptr<Schedule>(const CollArgs&)> factory() {
  return [](const CollArgs& a) { return std::make_unique<T>(a); };
}

} // namespace

void add_ring_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"ring", Op::AllReduce, "ring reduce-scatter then ring allgather, 2(p-1) steps of n/p",
                 factory<RingAllReduce>(), true});
  out.push_back({"ring", Op::AllGather, "p-1 steps, each rank forwards one block to its successor",
                 factory<RingAllGather>(), true});
  out.push_back({"ring", Op::ReduceScatter, "p-1 steps, each rank reduces one block and forwards it",
                 factory<RingReduceScatter>(), true});
}

} // namespace ccsim::schedule
