// A short list of rank ids held inline (most ranks wait for one or two peers at a time), spilling to
// the heap only when it grows past N. Keeps the engine's per-rank state free of allocations.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

namespace ccsim::engine {

template <unsigned N>
class SmallList {
 public:
  SmallList() = default;
  SmallList(const SmallList& o) { append_all(o); }
  SmallList& operator=(const SmallList& o) {
    if (this != &o) {
      size_ = 0;
      append_all(o);
    }
    return *this;
  }
  ~SmallList() { release(); }

  bool empty() const { return size_ == 0; }
  std::uint32_t size() const { return size_; }
  std::uint32_t front() const { return data()[0]; }
  const std::uint32_t* begin() const { return data(); }
  std::uint32_t* begin() { return data(); }
  const std::uint32_t* end() const { return data() + size_; }
  void push_back(std::uint32_t v) {
    if (size_ == cap_) grow();
    data()[size_++] = v;
  }
  // Replaces the first occurrence of v by w; false if v is absent.
  bool replace(std::uint32_t v, std::uint32_t w) {
    std::uint32_t* d = data();
    for (std::uint32_t i = 0; i < size_; ++i)
      if (d[i] == v) return d[i] = w, true;
    return false;
  }
  // Removes the first occurrence of v (keeping the others in order); false if absent.
  bool erase(std::uint32_t v) {
    std::uint32_t* d = data();
    for (std::uint32_t i = 0; i < size_; ++i)
      if (d[i] == v) {
        for (--size_; i < size_; ++i) d[i] = d[i + 1]; // lists are short: no memmove call
        return true;
      }
    return false;
  }

 private:
  bool on_heap() const { return cap_ > N; }
  std::uint32_t* data() { return on_heap() ? heap_ : inline_; }
  const std::uint32_t* data() const { return on_heap() ? heap_ : inline_; }
  void grow() {
    const std::uint32_t cap = cap_ * 2;
    auto* d = new std::uint32_t[cap];
    std::memcpy(d, data(), size_ * sizeof(std::uint32_t));
    release();
    heap_ = d;
    cap_ = cap;
  }
  void release() {
    if (on_heap()) delete[] heap_;
    cap_ = N;
  }
  void append_all(const SmallList& o) {
    for (std::uint32_t i = 0; i < o.size_; ++i) push_back(o.data()[i]);
  }

  std::uint32_t size_ = 0, cap_ = N;
  union {
    std::uint32_t inline_[N];
    std::uint32_t* heap_;
  };
};

} // namespace ccsim::engine
