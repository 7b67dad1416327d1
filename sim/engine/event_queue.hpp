// Pending events ordered by (time, sequence number): equal times pop in the order they were pushed,
// so every run of the same input is bit-identical.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"

namespace ccsim::engine {

struct Event {
  Time time;
  std::uint64_t seq;
  std::uint32_t kind;
  std::uint32_t a, b; // meaning depends on kind (e.g. source and destination rank)
};

// A 4-ary min-heap: shallower than a binary heap, and its children share a cache line.
class EventQueue {
 public:
  void push(Time t, std::uint32_t kind, std::uint32_t a, std::uint32_t b) {
    heap_.push_back(Event{t, next_seq_++, kind, a, b});
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  Event pop() {
    Event e = heap_.front();
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
  static bool before(const Event& x, const Event& y) { return x.time < y.time || (x.time == y.time && x.seq < y.seq); }
  void sift_up(std::size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void sift_down(std::size_t i) {
    const std::size_t n = heap_.size();
    Event e = heap_[i];
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t last = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
};

} // namespace ccsim::engine
