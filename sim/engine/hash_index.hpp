// A map from 64-bit hashes to indices (into the caller's arrays) by open addressing with linear probing:
// the slot holds the hash, so a lookup costs one cache line where std::unordered_map's bucket array and
// node cost two or three misses (perf on the flow model's share memo: ~40 % of its lookup time). Equal
// hashes of different content coexist; the caller's `same(index)` tells them apart. (Boost 1.74, this
// project's Debian version, has no unordered_flat_map.)
#pragma once
#include <cstdint>
#include <vector>

namespace ccsim::engine {

class HashIndex {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // The index stored under `hash` for which `same(index)` holds, or kNone.
  template <class Same>
  std::uint32_t find(std::uint64_t hash, Same same) const {
    if (slots_.empty()) return kNone;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.index == kNone) return kNone;
      if (s.hash == hash && same(s.index)) return s.index;
    }
  }
  void insert(std::uint64_t hash, std::uint32_t index) {
    if (2 * (size_ + 1) > slots_.size()) grow(); // at most half full: short probes
    place(hash, index);
    ++size_;
  }
  void clear() {
    if (size_ == 0) return;
    slots_.assign(slots_.size(), Slot{});
    size_ = 0;
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t index = kNone;
  };
  void place(std::uint64_t hash, std::uint32_t index) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash & mask;
    while (slots_[i].index != kNone) i = (i + 1) & mask;
    slots_[i] = {hash, index};
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 64 : 2 * slots_.size());
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.index != kNone) place(s.hash, s.index);
  }

  std::vector<Slot> slots_; // a power of two long
  std::size_t size_ = 0;
};

} // namespace ccsim::engine
