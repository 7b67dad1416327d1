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
//
// Storage is sized to what is queued: a bucket is a list of 4 KiB chunks of 16-byte slots (the kind
// rides in the time's top two bits) drawn from one pool, and a chunk goes back to the pool as soon as
// it is read, so the queue holds its peak number of queued events plus one partial chunk per bucket,
// not each bucket's own peak (a million-rank broadcast's buckets kept ~100 MiB as vectors).
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/engine/big_block.hpp"

namespace ccsim::engine {

struct Event {
  Time time;
  std::uint32_t kind;
  std::uint32_t a, b; // meaning depends on kind (e.g. source and destination rank)
};

// Monotone priority queue: push(t) requires t >= the time of the last popped event, t < 2^62, kind < 4.
class RadixEventQueue {
 public:
  static constexpr Time kMaxTime = Time{1} << 62; // the engine refuses runs that could last this long
  RadixEventQueue() = default;
  RadixEventQueue(const RadixEventQueue&) = delete;
  RadixEventQueue& operator=(const RadixEventQueue&) = delete;
  ~RadixEventQueue() {
    clear();
    while (free_) {
      Chunk* c = std::exchange(free_, free_->next);
      if (!in_slab(c)) delete c;
    }
    big_free(slab_);
  }

  // Pools chunks for `events` queued events in one zeroed block (big_block.hpp), so that a run's queue shares
  // the huge pages of its rank state and channels instead of faulting in a fresh 4 KiB page per chunk. Once per
  // queue; the pool grows chunk by chunk beyond it as before.
  void reserve(std::size_t events) {
    if (slab_ != nullptr) return;
    const std::size_t n = events / kSlots + 1;
    slab_ = static_cast<Chunk*>(big_alloc(n * sizeof(Chunk)));
    slab_end_ = slab_ + n;
    chunks_ += n;
    for (std::size_t i = n; i-- > 0;) release(slab_ + i); // the pool hands out slab_[0] first
  }

  void push(Time t, std::uint32_t kind, std::uint32_t a, std::uint32_t b) {
    if (t < last_ || t >= kMaxTime) throw std::logic_error("event queue: event scheduled before the current time or past 2^62 ps");
    append(buckets_[bucket_of(t)], Slot{static_cast<std::uint64_t>(t) | std::uint64_t{kind} << 62, a, b});
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // Chunks of kSlots events allocated so far (in buckets or pooled): what the queue's storage costs.
  std::size_t chunks() const { return chunks_; }
  static constexpr std::uint32_t kSlots = 255;
  Event pop() {
    Bucket& zero = buckets_[0];
    if (zero.head == nullptr || head_ == zero.head->n) next_zero();
    --size_;
    const Slot& s = zero.head->slot[head_++];
    return Event{time_of(s), static_cast<std::uint32_t>(s.key >> 62), s.a, s.b};
  }
  // The event that pops k after the next one, when it is already known (in bucket 0's current chunk): for
  // prefetching its state. False when it is not (yet) known.
  bool peek(std::size_t k, std::uint32_t& kind, std::uint32_t& a, std::uint32_t& b) const {
    const Chunk* c = buckets_[0].head;
    if (c == nullptr || head_ + k >= c->n) return false;
    const Slot& s = c->slot[head_ + k];
    kind = static_cast<std::uint32_t>(s.key >> 62), a = s.a, b = s.b;
    return true;
  }
  void clear() {
    for (auto& b : buckets_) drop(b);
    head_ = size_ = 0;
    last_ = 0;
  }

 private:
  struct Slot {
    std::uint64_t key; // time | kind << 62
    std::uint32_t a, b;
  };
  struct Chunk {
    Chunk* next;
    std::uint32_t n; // slots filled
    Slot slot[kSlots];
  };
  struct Bucket {
    Chunk* head = nullptr; // every chunk but the tail is full
    Chunk* tail = nullptr;
  };
  static Time time_of(const Slot& s) { return static_cast<Time>(s.key & (std::uint64_t{kMaxTime} - 1)); }
  std::size_t bucket_of(Time t) const {
    const auto diff = static_cast<std::uint64_t>(t) ^ static_cast<std::uint64_t>(last_);
    return diff == 0 ? 0 : 64 - static_cast<std::size_t>(std::countl_zero(diff));
  }
  void append(Bucket& b, const Slot& s) {
    if (b.tail == nullptr || b.tail->n == kSlots) [[unlikely]] {
      Chunk* c = free_ ? std::exchange(free_, free_->next) : (++chunks_, new Chunk);
      c->next = nullptr;
      c->n = 0;
      (b.tail ? b.tail->next : b.head) = c;
      b.tail = c;
    }
    b.tail->slot[b.tail->n++] = s;
  }
  void release(Chunk* c) { c->next = free_, free_ = c; }
  void drop(Bucket& b) {
    while (b.head) release(std::exchange(b.head, b.head->next));
    b.tail = nullptr;
  }
  // Bucket 0's current chunk is read: go on to its next one, else refill.
  void next_zero() {
    Bucket& zero = buckets_[0];
    if (zero.head != nullptr && zero.head->next != nullptr) {
      release(std::exchange(zero.head, zero.head->next));
      head_ = 0;
      return;
    }
    refill();
  }
  // Bucket 0 is used up: move the lowest non-empty bucket's events down, its minimum becoming the new
  // current time (they all land in buckets below it, the minimum ones in bucket 0). When they all share
  // one time (a lockstep collective) the bucket becomes bucket 0 as it is.
  void refill() {
    Bucket& zero = buckets_[0];
    drop(zero);
    head_ = 0;
    std::size_t i = 1;
    while (buckets_[i].head == nullptr) ++i; // pop() on an empty queue is the caller's bug
    Bucket src = std::exchange(buckets_[i], Bucket{});
    Time lo = time_of(src.head->slot[0]), hi = lo;
    for (const Chunk* c = src.head; c; c = c->next)
      for (std::uint32_t k = 0; k < c->n; ++k) lo = std::min(lo, time_of(c->slot[k])), hi = std::max(hi, time_of(c->slot[k]));
    last_ = lo;
    if (lo == hi) {
      zero = src;
      return;
    }
    // A chunk goes back to the pool once read, so the spill reuses it.
    for (Chunk* c = src.head; c;) {
      for (std::uint32_t k = 0; k < c->n; ++k) append(buckets_[bucket_of(time_of(c->slot[k]))], c->slot[k]);
      release(std::exchange(c, c->next));
    }
  }

  std::array<Bucket, 65> buckets_;
  std::size_t head_ = 0; // next event of bucket 0's head chunk
  std::size_t size_ = 0;
  Time last_ = 0;
  Chunk* free_ = nullptr; // the pool: chunks not in any bucket
  std::size_t chunks_ = 0;
  Chunk *slab_ = nullptr, *slab_end_ = nullptr; // reserve()'s chunks (the others came from new)
  bool in_slab(const Chunk* c) const { return !std::less<const Chunk*>{}(c, slab_) && std::less<const Chunk*>{}(c, slab_end_); }
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
