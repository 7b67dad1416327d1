// A short list of rank ids held inline (most ranks wait for one or two peers at a time), spilling to
// the heap only when it grows past N. Keeps the engine's per-rank state free of allocations, in 4 + 4N
// bytes (12 for N = 2; a million ranks' state is two per cache line): the heap block keeps its capacity
// in its first word and its address lives in the inline words, the size's top bit saying which.
#pragma once
#include <cstdint>
#include <cstring>

namespace ccsim::engine {

template <unsigned N>
class SmallList {
  static_assert(N * sizeof(std::uint32_t) >= sizeof(std::uint32_t*), "the inline words must hold a pointer");

 public:
  SmallList() = default;
  SmallList(const SmallList& o) { append_all(o); }
  SmallList& operator=(const SmallList& o) {
    if (this != &o) {
      bits_ &= kOnHeap; // keep the block, empty
      append_all(o);
    }
    return *this;
  }
  ~SmallList() { release(); }

  bool empty() const { return size() == 0; }
  std::uint32_t size() const { return bits_ & ~kOnHeap; }
  std::uint32_t front() const { return data()[0]; }
  const std::uint32_t* begin() const { return data(); }
  std::uint32_t* begin() { return data(); }
  const std::uint32_t* end() const { return data() + size(); }
  void push_back(std::uint32_t v) {
    if (bits_ < N) [[likely]] { // inline, with room (on the heap, bits_ has its top bit set)
      words_[bits_++] = v;
      return;
    }
    const std::uint32_t n = size();
    if (n == capacity()) grow();
    data()[n] = v;
    ++bits_;
  }
  // Replaces the first occurrence of v by w; false if v is absent.
  bool replace(std::uint32_t v, std::uint32_t w) {
    std::uint32_t* d = data();
    for (std::uint32_t i = 0, n = size(); i < n; ++i)
      if (d[i] == v) return d[i] = w, true;
    return false;
  }
  // Removes the first occurrence of v (keeping the others in order); false if absent.
  bool erase(std::uint32_t v) {
    std::uint32_t* d = data();
    for (std::uint32_t i = 0, n = size(); i < n; ++i)
      if (d[i] == v) {
        for (--n, --bits_; i < n; ++i) d[i] = d[i + 1]; // lists are short: no memmove call
        return true;
      }
    return false;
  }

 private:
  static constexpr std::uint32_t kOnHeap = 0x80000000u;
  bool on_heap() const { return (bits_ & kOnHeap) != 0; }
  std::uint32_t* block() const { // on the heap: [capacity, values...]
    std::uint32_t* b;
    std::memcpy(&b, words_, sizeof b);
    return b;
  }
  std::uint32_t capacity() const { return on_heap() ? block()[0] : N; }
  std::uint32_t* data() { return on_heap() ? block() + 1 : words_; }
  const std::uint32_t* data() const { return on_heap() ? block() + 1 : words_; }
  void grow() {
    const std::uint32_t n = size(), cap = capacity() * 2;
    auto* b = new std::uint32_t[cap + 1];
    b[0] = cap;
    std::memcpy(b + 1, data(), n * sizeof(std::uint32_t));
    release();
    std::memcpy(words_, &b, sizeof b);
    bits_ = n | kOnHeap;
  }
  void release() {
    if (on_heap()) delete[] block();
    bits_ = size();
  }
  void append_all(const SmallList& o) {
    for (std::uint32_t i = 0, n = o.size(); i < n; ++i) push_back(o.data()[i]);
  }

  std::uint32_t bits_ = 0; // size, and kOnHeap
  std::uint32_t words_[N] = {};
};

} // namespace ccsim::engine
