// A collective algorithm as data: each rank runs a sequence of steps; a step posts all its actions at
// once and ends when every send has arrived and every receive is in (then any reduction is charged).
// Steps are generated on demand from (rank, step) so a 16k-rank ring never exists as a flat list of
// half a billion transfers; the engine, the data executor and the dumper all replay the same steps.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/schedule/collective.hpp"

namespace ccsim::schedule {

// Offsets and lengths count elements of the rank's buffer (see op_buffer_elems; algorithms may use
// scratch beyond it). Sends carry the buffer's contents as they were when the step began.
struct Action {
  enum class Kind : std::uint8_t { Send, Recv, RecvReduce, Copy };
  Kind kind = Kind::Send;
  int peer = 0;              // Send/Recv*: the other rank
  std::uint64_t off = 0;     // Send: source range; Recv*: destination range; Copy: destination range
  std::uint64_t len = 0;
  std::uint64_t src_off = 0; // Copy only: local source range [src_off, src_off + len)
};

class Schedule {
 public:
  explicit Schedule(CollArgs args) : args_(std::move(args)) {}
  virtual ~Schedule() = default;
  const CollArgs& args() const { return args_; }

  // Writes rank `rank`'s step `s` into `out` (cleared first) and returns true, or returns false when the
  // rank has finished. Steps are numbered from 0 without gaps; a step may be empty of sends or receives.
  virtual bool step(int rank, int s, std::vector<Action>& out) const = 0;

  // The engine's fast path, for schedules whose steps have at most kFixedActions actions (the rings:
  // a 16k-rank ring takes half a billion steps): when fixed_steps() is true, step_fixed() writes the same
  // step as step() into `out` and returns its number of actions, or -1 when the rank has finished. No
  // vector to size or clear, and the actions stay in the caller's fixed buffer.
  static constexpr int kFixedActions = 4;
  virtual bool fixed_steps() const { return false; }
  virtual int step_fixed(int rank, int s, Action* out) const {
    (void)rank, (void)s, (void)out;
    return -1;
  }

  // Elements each rank's buffer needs, scratch included.
  virtual std::uint64_t buffer_elems() const { return op_buffer_elems(args_); }

 protected:
  CollArgs args_;
};

// Helpers algorithms use to write steps concisely.
inline void send(std::vector<Action>& out, int peer, Block b) { out.push_back({Action::Kind::Send, peer, b.off, b.len, 0}); }
inline void recv(std::vector<Action>& out, int peer, Block b) { out.push_back({Action::Kind::Recv, peer, b.off, b.len, 0}); }
inline void recv_reduce(std::vector<Action>& out, int peer, Block b) {
  out.push_back({Action::Kind::RecvReduce, peer, b.off, b.len, 0});
}
inline void copy(std::vector<Action>& out, std::uint64_t dst, std::uint64_t src, std::uint64_t len) {
  out.push_back({Action::Kind::Copy, 0, dst, len, src});
}
// a mod p in [0, p) for any a, negative too: the rank, grid coordinate or block index i -/+ d around a ring of p.
inline int wrap_mod(long a, int p) { return static_cast<int>(((a % p) + p) % p); }

} // namespace ccsim::schedule
