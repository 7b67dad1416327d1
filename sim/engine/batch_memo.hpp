// Batches of flows the flow model (flow_network.cpp) has shared before on an otherwise empty network,
// and what came of them. Max-min rates depend only on the routes (channel capacities are fixed for a run)
// and, with the bytes, when each flow finishes; a batch that started alone on the network therefore ends
// the same way every time it recurs, until another flow joins. A ring's steps are one such batch, over
// and over. Only batches whose flows all finish at one instant are kept (one phase: the rates never
// change before that instant), so a replayed batch is fully described by its rates and that instant.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::engine {

class BatchMemo {
 public:
  struct Entry {
    std::uint64_t hash = 0;
    std::vector<std::uint32_t> key;        // per flow: route length, the route; then kKeyEnd
    std::vector<unsigned __int128> works;  // per flow: bytes x ps per second (the flow model's Work)
    std::vector<Bandwidth> rates;          // per flow, in key order
    std::vector<topology::ChannelId> chans; // every channel the batch crosses, once
    Time span = 0;                         // from the batch's start to its one finish instant
    std::vector<std::uint32_t> order;       // flows (key order) by token, as they last finished
    Time busy = 0;                          // replayed time not yet added to its channels' busy time
  };

  void clear() {
    entries_.clear();
    seen_.clear();
    next_ = next_seen_ = 0;
  }
  static constexpr std::uint32_t kNoEntry = UINT32_MAX;
  static constexpr std::uint32_t kKeyEnd = UINT32_MAX; // closes a key (a route is never that long)
  // The entry with this hash for which `same(entry)` holds, or kNoEntry.
  template <class Same>
  std::uint32_t find(std::uint64_t hash, Same&& same) const {
    for (std::uint32_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].hash == hash && same(entries_[i])) return i;
    return kNoEntry;
  }
  // Whether a batch with this hash was met before (among the last kEntries new ones); remembers it. A batch
  // is recorded the second time it is met, so batches that never recur (all-to-all, a sweep's sizes) cost
  // their hash only.
  bool seen(std::uint64_t hash) {
    if (std::find(seen_.begin(), seen_.end(), hash) != seen_.end()) return true;
    if (seen_.size() < kEntries) seen_.push_back(hash);
    else seen_[next_seen_++ % kEntries] = hash;
    return false;
  }
  // Keeps up to kEntries batches (a halving-doubling has one shape per round), replacing round robin.
  std::uint32_t add() {
    if (entries_.size() < kEntries) {
      entries_.emplace_back();
      return static_cast<std::uint32_t>(entries_.size() - 1);
    }
    const auto i = static_cast<std::uint32_t>(next_);
    next_ = (next_ + 1) % kEntries;
    return i;
  }
  Entry& operator[](std::uint32_t i) { return entries_[i]; }
  const Entry& operator[](std::uint32_t i) const { return entries_[i]; }
  std::size_t size() const { return entries_.size(); }

  static std::uint64_t mix(std::uint64_t h, std::uint32_t x) { return (h ^ x) * 0x100000001b3ull; }

 private:
  static constexpr std::size_t kEntries = 64;
  std::vector<Entry> entries_;
  std::vector<std::uint64_t> seen_;
  std::size_t next_ = 0, next_seen_ = 0;
};

} // namespace ccsim::engine
