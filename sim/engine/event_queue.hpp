// Pending events ordered by (time, push order): equal times pop in the order they were pushed, so
// every run of the same input is bit-identical.
//
// The engine's clock never goes back (every event is scheduled at or after the one being handled),
// so the queue is a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990): bucket k > 0 holds events whose
// time first differs from the last popped time in bit k-1, bucket 0 those at exactly that time. A push
// is one XOR and a count-leading-zeros; a pop takes from bucket 0, and when that runs dry the lowest
// non-empty bucket is spilled into lower ones (every event moves at most 64 times, in practice once or
// twice). Every bucket holds its events in push order, so ties need no sequence number: a push appends
// the newest event; a spill empties bucket i into buckets below i, which are all empty then (bucket 0
// is used up and i is the lowest non-empty one), in bucket i's order. Bucket 0 is therefore in push
// order, the same order as the (time, seq) heap below.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/core/units.hpp"

namespace ccsim::engine {

struct Event {
  Time time;
  std::uint32_t kind;
  std::uint32_t a, b; // meaning depends on kind (e.g. source and destination rank)
};

// Monotone priority queue: push(t) requires t >= the time of the last popped event.
class RadixEventQueue {
 public:
  void push(Time t, std::uint32_t kind, std::uint32_t a, std::uint32_t b) {
    if (t < last_) throw std::logic_error("event queue: event scheduled before the current time");
    buckets_[bucket_of(t)].push_back(Event{t, kind, a, b});
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  Event pop() {
    if (head_ == buckets_[0].size()) refill();
    --size_;
    return buckets_[0][head_++];
  }
  void clear() {
    for (auto& b : buckets_) b.clear();
    head_ = size_ = 0;
    last_ = 0;
  }

 private:
  std::size_t bucket_of(Time t) const {
    const auto diff = static_cast<std::uint64_t>(t) ^ static_cast<std::uint64_t>(last_);
    return diff == 0 ? 0 : 64 - static_cast<std::size_t>(std::countl_zero(diff));
  }
  // Bucket 0 is used up: move the lowest non-empty bucket's events down, its minimum becoming the new
  // current time (they all land in buckets below it, the minimum ones in bucket 0). When they all share
  // one time (a lockstep collective) the bucket becomes bucket 0 as it is.
  void refill() {
    auto& zero = buckets_[0];
    zero.clear();
    head_ = 0;
    std::size_t i = 1;
    while (buckets_[i].empty()) ++i; // pop() on an empty queue is the caller's bug
    auto& src = buckets_[i];
    Time lo = src.front().time, hi = lo;
    for (const Event& e : src) lo = std::min(lo, e.time), hi = std::max(hi, e.time);
    last_ = lo;
    if (lo == hi) {
      zero.swap(src);
      return;
    }
    for (const Event& e : src) buckets_[bucket_of(e.time)].push_back(e);
    src.clear();
  }

  std::array<std::vector<Event>, 65> buckets_;
  std::size_t head_ = 0; // next event of bucket 0
  std::size_t size_ = 0;
  Time last_ = 0;
};

// A 4-ary min-heap on (time, seq): no monotonicity needed. The reference the radix heap is tested and
// benchmarked against.
class QuaternaryHeapQueue {
 public:
  void push(Time t, std::uint32_t kind, std::uint32_t a, std::uint32_t b) {
    heap_.push_back(Entry{Event{t, kind, a, b}, next_seq_++});
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  Event pop() {
    const Event e = heap_.front().e;
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    return e;
  }
  void clear() {
    heap_.clear();
    next_seq_ = 0;
  }

 private:
  struct Entry {
    Event e;
    std::uint64_t seq;
  };
  static bool event_before(const Entry& x, const Entry& y) {
    return x.e.time < y.e.time || (x.e.time == y.e.time && x.seq < y.seq);
  }
  void sift_up(std::size_t i) {
    Entry e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!event_before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void sift_down(std::size_t i) {
    const std::size_t n = heap_.size();
    Entry e = heap_[i];
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (event_before(heap_[c], heap_[best])) best = c;
      if (!event_before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Entry> heap_;
  std::uint64_t next_seq_ = 0;
};

using EventQueue = RadixEventQueue;

} // namespace ccsim::engine
