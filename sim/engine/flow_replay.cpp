// Replaying batches of flows for the flow model: see flow_replay.hpp and batch_memo.hpp.
#include "sim/engine/flow_replay.hpp"

#include <algorithm>
#include <cstring>

namespace ccsim::engine {

void FlowReplay::reset_replay() {
  joined_ = 0;
  starting_.clear();
  record_ = false;
  memo_.clear();
  last_entry_ = BatchMemo::kNoEntry;
  replay_flows_.clear();
  replay_live_ = replay_finishing_ = false;
  ++replay_gen_;
}

std::uint32_t FlowReplay::match_batch() {
  record_ = false;
  if (starting_.size() < 2 || starting_.size() > kMaxRecorded) return BatchMemo::kNoEntry;
  // Most batches repeat the one before (a ring's steps): compare with it first, without hashing.
  if (last_entry_ < memo_.size() && same_batch(memo_[last_entry_])) return last_entry_;
  key_hash_ = hash_batch();
  const std::uint32_t e = memo_.find(key_hash_, [&](const BatchMemo::Entry& entry) { return same_batch(entry); });
  if (e == BatchMemo::kNoEntry && memo_.seen(key_hash_)) { // met before: shared as usual, then recorded
    record_ = true;
    build_key();
    batch_ = starting_;
  }
  return e;
}

// Whether starting_ is the batch of `e`.
bool FlowReplay::same_batch(const BatchMemo::Entry& e) const {
  if (e.works.size() != starting_.size()) return false;
  const std::uint32_t* k = e.key.data(); // ends with kKeyEnd, which no route length equals
  const Work* work = e.works.data();
  for (std::uint32_t id : starting_) {
    const Flow& f = flows_[id];
    const std::size_t n = f.route.size();
    if (*work++ != f.work || *k++ != n) return false;
    // Two channels per compare (not std::equal: a memcmp call for a few ids).
    const ChannelId* r = f.route.data();
    std::size_t i = 0;
    for (; i + 2 <= n; i += 2) {
      std::uint64_t a, b;
      std::memcpy(&a, k + i, sizeof a);
      std::memcpy(&b, r + i, sizeof b);
      if (a != b) return false;
    }
    if (i < n && k[i] != r[i]) return false;
    k += n;
  }
  return *k == BatchMemo::kKeyEnd;
}

std::uint64_t FlowReplay::hash_batch() const {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint32_t id : starting_) {
    const Flow& f = flows_[id];
    h = BatchMemo::mix(BatchMemo::mix(h, static_cast<std::uint32_t>(f.work)), static_cast<std::uint32_t>(f.work >> 64));
    h = BatchMemo::mix(h, static_cast<std::uint32_t>(f.route.size()));
    for (ChannelId c : f.route) h = BatchMemo::mix(h, c);
  }
  return h;
}

// The key of starting_ (BatchMemo::Entry's key and works) in key_ and key_works_.
void FlowReplay::build_key() {
  key_.clear();
  key_works_.clear();
  for (std::uint32_t id : starting_) {
    const Flow& f = flows_[id];
    key_works_.push_back(f.work);
    key_.push_back(static_cast<std::uint32_t>(f.route.size()));
    key_.insert(key_.end(), f.route.begin(), f.route.end());
  }
  key_.push_back(BatchMemo::kKeyEnd);
}

// Nothing per flow: their rates are read only if another flow starts meanwhile (prepare_rejoin).
Time FlowReplay::begin_replay(std::uint32_t e, Time now) {
  last_entry_ = replay_ = e;
  replay_flows_.swap(starting_);
  starting_.clear();
  replay_live_ = true;
  replay_finishing_ = false;
  replay_start_ = now;
  return now + memo_[e].span;
}

void FlowReplay::record_batch(Time now, std::vector<Time>& busy) {
  Time at = kNever;
  for (std::uint32_t id : batch_) {
    const Flow& f = flows_[id];
    if (!f.active || f.rate == 0) return; // finished at once, or (cannot happen) not shared
    const Time finish = finish_of(f, now);
    if (at != kNever && finish != at) return;
    at = finish;
  }
  last_entry_ = memo_.add();
  BatchMemo::Entry& e = memo_[last_entry_];
  flush_busy(e, busy); // a slot reused for another batch
  e.hash = key_hash_;
  e.key = key_;
  e.works = key_works_;
  e.span = at - now;
  e.rates.clear();
  e.order.clear();
  e.chans.clear();
  const std::uint32_t epoch = ++epoch_; // find_components' marks, free again until the next re-plan
  for (std::uint32_t id : batch_) {
    const Flow& f = flows_[id];
    e.rates.push_back(f.rate);
    for (ChannelId c : f.route)
      if (chan_stamp_[c] != epoch) {
        chan_stamp_[c] = epoch;
        e.chans.push_back(c);
      }
  }
}

// As when the flows leave their channels in a re-plan. They are reported in the token order the batch had
// the last time (the engine wants token order; a recurring batch usually has the same tokens, so the sort
// after finds them sorted).
void FlowReplay::finish_replay(Time now, std::vector<TokenFlow>& done) {
  BatchMemo::Entry& e = memo_[replay_];
  if (e.order.size() != replay_flows_.size()) {
    e.order.resize(replay_flows_.size());
    for (std::uint32_t i = 0; i < e.order.size(); ++i) e.order[i] = i;
    std::sort(e.order.begin(), e.order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return flows_[replay_flows_[a]].token < flows_[replay_flows_[b]].token;
    });
  }
  for (std::uint32_t i : e.order) {
    const std::uint32_t id = replay_flows_[i];
    Flow& f = flows_[id];
    f.active = false;
    done.emplace_back(f.token, id);
  }
  e.busy += now - replay_start_; // its channels' busy time, added to them when stats are read (flush_busy)
  end_replay();
}

void FlowReplay::prepare_rejoin() {
  const std::vector<Bandwidth>& rates = memo_[replay_].rates;
  for (std::size_t i = 0; i < replay_flows_.size(); ++i) {
    Flow& f = flows_[replay_flows_[i]];
    f.rate = rates[i];
    f.since = replay_start_;
    f.finish = kNever;
    f.group = kNoGroup;
    ++f.gen;
  }
}

void FlowReplay::end_replay() {
  replay_flows_.clear();
  replay_live_ = replay_finishing_ = false;
  ++replay_gen_;
}

void FlowReplay::flush_busy(std::vector<Time>& busy) const {
  for (std::uint32_t i = 0; i < memo_.size(); ++i) flush_busy(memo_[i], busy);
}

void FlowReplay::flush_busy(BatchMemo::Entry& e, std::vector<Time>& busy) {
  if (e.busy == 0) return;
  for (ChannelId c : e.chans) busy[c] += e.busy;
  e.busy = 0;
}

} // namespace ccsim::engine
