// big_alloc (sim/engine/big_block.hpp): every block comes zeroed and 64-byte aligned, from calloc when small and
// from a huge-page region when large, including a block handed out again from the region a freed run left behind
// (which the kernel does not clear: big_alloc must).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "sim/engine/big_block.hpp"

using namespace ccsim::engine;

namespace {

bool all_zero(const void* p, std::size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i)
    if (b[i] != 0) return false;
  return true;
}

bool aligned64(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

} // namespace

TEST_CASE("big_alloc: a small block is zeroed and aligned") {
  void* p = big_alloc(1000);
  CHECK(aligned64(p));
  CHECK(all_zero(p, 1000));
  std::memset(p, 0xab, 1000);
  big_free(p);
  big_free(nullptr); // as free(nullptr)
}

TEST_CASE("big_alloc: large blocks are zeroed, aligned and apart, also when a freed region is handed out again") {
  constexpr std::size_t kA = 300 << 10, kB = 600 << 10; // both above the calloc size
  for (int round = 0; round < 3; ++round) {
    auto* a = static_cast<unsigned char*>(big_alloc(kA));
    auto* b = static_cast<unsigned char*>(big_alloc(kB));
    CHECK(aligned64(a));
    CHECK(aligned64(b));
    CHECK((a + kA <= b || b + kB <= a)); // no overlap
    CHECK(all_zero(a, kA));
    CHECK(all_zero(b, kB));
    std::memset(a, 0x5a, kA); // dirty both: the next round gets the same region back
    std::memset(b, 0xa5, kB);
    big_free(b);
    big_free(a);
  }
}

TEST_CASE("big_alloc: a block larger than a huge page") {
  constexpr std::size_t kBig = (5u << 20) + 123;
  auto* p = static_cast<unsigned char*>(big_alloc(kBig));
  CHECK(aligned64(p));
  CHECK(all_zero(p, kBig));
  p[kBig - 1] = 1; // the whole block is mapped
  big_free(p);
}

TEST_CASE("BigAllocator: a vector grows, copies and frees through it") {
  std::vector<std::uint64_t, BigAllocator<std::uint64_t>> v;
  for (std::uint64_t i = 0; i < 100000; ++i) v.push_back(i * 3); // crosses the calloc size while growing
  std::uint64_t sum = 0;
  for (std::uint64_t x : v) sum += x;
  CHECK(sum == 3 * (100000ull * 99999ull / 2));
  v.assign(50000, 7);
  CHECK(v.size() == 50000);
  CHECK(v.front() == 7);
  CHECK(v.back() == 7);
}
