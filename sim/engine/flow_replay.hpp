// Replaying batches of flows for the flow model (flow_network.cpp; the memo is batch_memo.hpp). Flows that
// start moving on an empty network wait in `starting_` for the re-plan of that instant. A batch met before
// (same routes and bytes, in the same order), which then ended at one instant, is replayed: its flows take
// the rates recorded, join no channel, and one event stands for their finish. Any other flow starting
// meanwhile makes them rejoin their channels as they would have at the batch's start, with the progress
// their rates made since, and sharing goes on as usual. A new batch joins its channels and is shared as
// usual; the second time its hash is met, the outcome is recorded.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/engine/batch_memo.hpp"
#include "sim/engine/max_min_share.hpp"
#include "sim/engine/token_sort.hpp"

namespace ccsim::engine {

class FlowReplay : protected MaxMinShare {
 protected:
  void reset_replay();
  // The memo entry that starting_ repeats, or BatchMemo::kNoEntry (then `record_` says whether to record it
  // after sharing, batch_ and the key holding what to record).
  std::uint32_t match_batch();
  // starting_ is entry `e`'s batch, starting now: returns when it ends.
  Time begin_replay(std::uint32_t e, Time now);
  // After sharing the batch that started alone (batch_): if its flows end at one instant, remember it.
  void record_batch(Time now, std::vector<Time>& busy); // busy: the channels' busy time (a reused entry flushes)
  // The replayed batch ends now: its flows, in token order where it repeats, into `done`.
  void finish_replay(Time now, std::vector<TokenFlow>& done);
  // Another flow starts: the replayed flows take their rates and progress since the batch's start, to rejoin
  // their channels (the caller joins them, then calls end_replay).
  void prepare_rejoin();
  void end_replay();
  // Adds the replayed batches' busy time to their channels.
  void flush_busy(std::vector<Time>& busy) const;

  static constexpr std::size_t kMaxRecorded = 1 << 16; // flows in a batch the memo keeps (its memory)
  std::uint32_t joined_ = 0;                // flows on channel lists (started, not finished)
  std::vector<std::uint32_t> starting_;      // flows that started on an empty network since the last re-plan
  bool record_ = false;                      // match_batch: record starting_'s outcome
  std::vector<std::uint32_t> replay_flows_;  // the batch being replayed (in key order)
  Time replay_start_ = 0;
  bool replay_live_ = false, replay_finishing_ = false;
  std::uint32_t replay_gen_ = 0; // tags the replay's finish event; bumped when it becomes stale

 private:
  bool same_batch(const BatchMemo::Entry& e) const;
  std::uint64_t hash_batch() const;
  void build_key();
  static void flush_busy(BatchMemo::Entry& e, std::vector<Time>& busy);

  std::vector<std::uint32_t> key_, batch_; // the key (BatchMemo::Entry::key) and flows of the batch to record
  std::vector<Work> key_works_;
  std::uint64_t key_hash_ = 0;
  mutable BatchMemo memo_; // mutable: flush_busy empties the entries' pending busy time
  std::uint32_t replay_ = 0, last_entry_ = BatchMemo::kNoEntry; // memo entries: replayed, last used
};

} // namespace ccsim::engine
