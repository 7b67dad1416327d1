// Records one run in full (every transfer with its per-link holding times, every step, every
// reduction) so it can be drawn (timeline.hpp) or analysed (critical_path.hpp) after the engine is done.
// Memory grows with the run, so recording stops at a cap and says so instead of exhausting the machine.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/engine/engine.hpp"

namespace ccsim::observe {

using engine::Occupancy;
using topology::ChannelId;

struct Transfer {
  int job, src, dst, step; // ranks within the job; the sender's step
  Bytes bytes;
  std::uint64_t off;       // first element of the sent range in the sender's buffer
  Time post, start, arrive;
  std::uint32_t hop_first, hop_count; // into Recording::hops
};

struct Hop {
  ChannelId channel;
  Occupancy held;          // when this channel carried the message
  std::int64_t previous;   // transfer that held this channel just before (-1: none); FIFO order
};

struct StepRecord {
  int job, rank, step;
  Time begin, end;
};

struct ReduceRecord {
  int job, rank, step;
  Time begin, end;
  Bytes bytes;
};

struct Recording {
  std::vector<Transfer> transfers; // in the order they were posted
  std::vector<Hop> hops;
  std::vector<StepRecord> steps;   // in the order they ended
  std::vector<ReduceRecord> reduces;
  bool occupancy_known = true;     // false when the network model does not report per-link holding
  bool truncated = false;          // the cap was hit: the recording is incomplete
};

class Recorder final : public engine::Observer {
 public:
  // `channels` = topology.num_channels(); `max_transfers` bounds memory (about 100 bytes per transfer).
  explicit Recorder(std::size_t channels, std::size_t max_transfers = 4'000'000);
  void on_transfer(const engine::TransferRecord& t) override;
  void on_step(int job, int rank, int step, Time begin, Time end) override;
  void on_reduce(int job, int rank, int step, Time begin, Time end, Bytes bytes) override;

  const Recording& recording() const { return rec_; }
  std::size_t max_transfers() const { return max_; }

 private:
  Recording rec_;
  std::vector<std::int64_t> last_on_channel_;
  std::size_t max_;
};

} // namespace ccsim::observe
