// The radix heap pops exactly the (time, push order) order of the reference 4-ary heap, ties included.
#include <doctest/doctest.h>

#include <random>

#include "sim/engine/event_queue.hpp"
#include "sim/engine/small_list.hpp"

using namespace ccsim;
using namespace ccsim::engine;

TEST_CASE("radix event queue pops in (time, push order) order like the 4-ary heap") {
  for (unsigned seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    RadixEventQueue radix;
    QuaternaryHeapQueue heap;
    Time now = 0;
    // Monotone workload: each pop may push a few events at now + small or large delays, many ties.
    for (std::uint32_t i = 0; i < 64; ++i) {
      const Time t = static_cast<Time>(rng() % 4);
      radix.push(t, 0, i, 0);
      heap.push(t, 0, i, 0);
    }
    std::uint32_t id = 64;
    int popped = 0;
    while (!heap.empty()) {
      REQUIRE(radix.size() == heap.size());
      const Event x = radix.pop(), y = heap.pop();
      REQUIRE(x.time == y.time);
      REQUIRE(x.a == y.a); // a is unique per push
      REQUIRE(x.kind == y.kind);
      CHECK(x.time >= now);
      now = x.time;
      if (++popped > 20000) continue;
      const int n = static_cast<int>(rng() % 3);
      for (int k = 0; k < n; ++k) {
        const std::uint64_t r = rng() % 5;
        const Time d = r == 0 ? 0 : r == 1 ? static_cast<Time>(rng() % 7) : static_cast<Time>(rng() % (Time{1} << (rng() % 45)));
        radix.push(now + d, 1, id, 0);
        heap.push(now + d, 1, id, 0);
        ++id;
      }
    }
    CHECK(radix.empty());
  }
}

TEST_CASE("radix event queue refuses an event in the past") {
  RadixEventQueue q;
  q.push(10, 0, 0, 0);
  q.pop();
  CHECK_THROWS(q.push(9, 0, 0, 0));
}

TEST_CASE("small list keeps order and spills to the heap") {
  SmallList<2> l;
  for (std::uint32_t v = 0; v < 9; ++v) l.push_back(v);
  CHECK(l.size() == 9);
  CHECK(l.erase(3));
  CHECK_FALSE(l.erase(3));
  SmallList<2> copy = l;
  CHECK(copy.front() == 0);
  for (std::uint32_t v : {0u, 1u, 2u, 4u, 5u, 6u, 7u, 8u}) CHECK(copy.erase(v));
  CHECK(copy.empty());
  CHECK(l.size() == 8);
}
