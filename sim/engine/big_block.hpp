// Zeroed memory for a run's large arrays (per-rank state, per-channel free times), from regions of whole
// transparent huge pages. A fresh 4 KiB page costs ~1.5 us of kernel time here (fault, zeroing, cgroup
// charge, and freeing at exit): the 192 pages of a 16,384-rank broadcast's rank state and channels were a
// fifth of its CPU, where one 2 MiB page costs ~0.08 ms (scripts/BENCHMARKS.md, branch bcast10x). Small
// blocks come from calloc; the kernel's THP policy decides (with "never" the regions get 4 KiB pages).
#pragma once
#include <cstddef>

namespace ccsim::engine {

// `bytes` of zeroed memory aligned to 64 bytes; throws std::bad_alloc. Free with big_free.
void* big_alloc(std::size_t bytes);
void big_free(void* p) noexcept;

// std::allocator's stand-in for the engine's per-rank vectors (elements are constructed as usual).
template <class T> struct BigAllocator {
  using value_type = T;
  BigAllocator() = default;
  template <class U> BigAllocator(const BigAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= 64);
    return static_cast<T*>(big_alloc(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { big_free(p); }
  template <class U> bool operator==(const BigAllocator<U>&) const noexcept { return true; }
};

} // namespace ccsim::engine
