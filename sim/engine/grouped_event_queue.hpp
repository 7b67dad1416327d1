// Pending events grouped by time: one FIFO list per distinct queued time, and the radix heap
// (event_queue.hpp) ordering the groups. Same order as RadixEventQueue, (time, push order): a group's
// events are in push order, and two groups never share a time (a hash table finds the live group of a
// time, so a push joins it).
//
// Why: collectives queue many events at few distinct times (a binomial broadcast at p = 16,384 holds
// ~300 events per time). The radix heap moves every event ~2.4 times and scans it ~2.9 times before it
// pops when those times spread over many bits; here only the groups move, and an event is written once
// and read once. When every time is distinct it costs one hash probe more per event than the radix heap.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "sim/engine/event_queue.hpp"

namespace ccsim::engine {

// Monotone priority queue with RadixEventQueue's contract: push(t) requires t >= the time of the last
// popped event, t < 2^62, kind < 4.
class GroupedEventQueue {
 public:
  static constexpr Time kMaxTime = RadixEventQueue::kMaxTime;

  void push(Time t, std::uint32_t kind, std::uint32_t a, std::uint32_t b) {
    if (t < last_ || t >= kMaxTime) throw std::logic_error("event queue: event scheduled before the current time or past 2^62 ps");
    const std::uint32_t n = new_node(Node{kind, a, b, kNone});
    std::uint32_t& slot = find(t);
    if (slot == kNone) {
      slot = new_group(Group{t, n, n});
      ++live_;
      times_.push(t, 0, slot, 0);
      if (2 * live_ > table_.size()) grow();
    } else {
      Group& g = groups_[slot];
      nodes_[g.tail].next = n;
      g.tail = n;
    }
    ++size_;
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  Event pop() {
    if (cur_ == kNone) cur_ = times_.pop().a; // pop() on an empty queue is the caller's bug
    Group& g = groups_[cur_];
    const std::uint32_t n = g.head;
    const Node node = nodes_[n];
    nodes_[n].next = free_node_, free_node_ = n;
    const Event e{g.time, node.kind, node.a, node.b};
    last_ = g.time;
    --size_;
    if (node.next != kNone) {
      g.head = node.next;
    } else { // the group is used up: a later push at this time starts a new one, which pops next
      erase(g.time);
      g.head = free_group_, free_group_ = cur_;
      cur_ = kNone;
      --live_;
    }
    return e;
  }
  // The event that pops k after the next one, when it is in the current group: for prefetching its state.
  bool peek(std::size_t k, std::uint32_t& kind, std::uint32_t& a, std::uint32_t& b) const {
    if (cur_ == kNone) return false;
    std::uint32_t n = groups_[cur_].head;
    for (std::size_t i = 0; i < k && n != kNone; ++i) n = nodes_[n].next;
    if (n == kNone) return false;
    kind = nodes_[n].kind, a = nodes_[n].a, b = nodes_[n].b;
    return true;
  }
  void clear() {
    times_.clear();
    nodes_.clear(), groups_.clear(), table_.assign(16, kNone);
    free_node_ = free_group_ = cur_ = kNone;
    size_ = live_ = 0;
    last_ = 0;
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Node {
    std::uint32_t kind, a, b;
    std::uint32_t next; // the group's next event, or the next free node
  };
  struct Group {
    Time time;
    std::uint32_t head, tail; // head: the next free group when free
  };

  std::uint32_t new_node(const Node& n) {
    if (free_node_ == kNone) {
      nodes_.push_back(n);
      return static_cast<std::uint32_t>(nodes_.size() - 1);
    }
    const std::uint32_t i = free_node_;
    free_node_ = nodes_[i].next;
    nodes_[i] = n;
    return i;
  }
  std::uint32_t new_group(const Group& g) {
    if (free_group_ == kNone) {
      groups_.push_back(g);
      return static_cast<std::uint32_t>(groups_.size() - 1);
    }
    const std::uint32_t i = free_group_;
    free_group_ = groups_[i].head;
    groups_[i] = g;
    return i;
  }

  // The hash table: open addressing with linear probing, group ids keyed by their time.
  std::size_t home(Time t) const {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(t) * 0x9E3779B97F4A7C15ull) >> 32) & (table_.size() - 1);
  }
  // The slot holding t's group, else the empty slot where it belongs.
  std::uint32_t& find(Time t) {
    if (table_.empty()) table_.assign(16, kNone);
    for (std::size_t i = home(t);; i = (i + 1) & (table_.size() - 1))
      if (table_[i] == kNone || groups_[table_[i]].time == t) return table_[i];
  }
  // Removes t's group (present) and shifts back the entries after it, so no probe sequence breaks.
  void erase(Time t) {
    const std::size_t mask = table_.size() - 1;
    std::size_t i = home(t);
    while (groups_[table_[i]].time != t) i = (i + 1) & mask;
    for (std::size_t j = (i + 1) & mask; table_[j] != kNone; j = (j + 1) & mask) {
      const std::size_t h = home(groups_[table_[j]].time);
      if (((j - h) & mask) >= ((j - i) & mask)) table_[i] = table_[j], i = j; // j's entry may move up to i
    }
    table_[i] = kNone;
  }
  void grow() {
    std::vector<std::uint32_t> old(2 * table_.size(), kNone);
    old.swap(table_);
    for (std::uint32_t gid : old)
      if (gid != kNone) find(groups_[gid].time) = gid;
  }

  RadixEventQueue times_; // one entry per live group: (its time, kind 0, its id)
  std::vector<Node> nodes_;
  std::vector<Group> groups_;
  std::vector<std::uint32_t> table_ = std::vector<std::uint32_t>(16, kNone);
  std::uint32_t free_node_ = kNone, free_group_ = kNone;
  std::uint32_t cur_ = kNone; // the group being popped (its time is last_)
  std::size_t size_ = 0, live_ = 0;
  Time last_ = 0;
};

using EventQueue = GroupedEventQueue;

} // namespace ccsim::engine
