// Regions: 2 MiB-aligned anonymous mappings advised MADV_HUGEPAGE, handed out front to back (a run's
// rank state and channels share one huge page up to ~16k ranks). Every block is 64-byte aligned, with a
// 16-byte head just before it saying where it came from. A region is unmapped once its last block is freed, except the newest
// one, which is kept for the next run (a sweep or `bench --repeat` runs the engine again and again: its
// blocks are then cleared with memset instead of faulting fresh pages in).
#include "sim/engine/big_block.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

namespace ccsim::engine {
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHead = 64;              // bytes before every block (keeps 64-byte alignment)
constexpr std::size_t kSmall = std::size_t{128} << 10; // below: calloc (a huge page would cost more than it saves)

struct Region {
  std::size_t size;  // bytes mapped
  std::size_t used;  // bytes handed out, from the region's start (its own header included)
  std::size_t live;  // blocks not yet freed
  bool dirty;        // handed out before: blocks must be cleared
};
struct Head { // the 16 bytes before every block
  Region* region; // nullptr: calloc'd
  void* raw;      // what calloc returned
};
static_assert(sizeof(Region) <= kHead && sizeof(Head) <= kHead);

std::mutex mutex;
Region* newest = nullptr; // where blocks are handed out from

std::uintptr_t round_up(std::uintptr_t n, std::uintptr_t to) { return (n + to - 1) / to * to; }

Region* map_region(std::size_t need) {
  const std::size_t size = round_up(need, kHugePage);
  void* raw = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t at = round_up(start, kHugePage), end = start + size + kHugePage;
  if (at > start) munmap(raw, at - start);
  if (end > at + size) munmap(reinterpret_cast<void*>(at + size), end - (at + size));
  madvise(reinterpret_cast<void*>(at), size, MADV_HUGEPAGE); // advice: refused, the region has 4 KiB pages
  auto* r = reinterpret_cast<Region*>(at);
  *r = Region{size, kHead, 0, false};
  return r;
}

} // namespace

void* big_alloc(std::size_t bytes) {
  if (bytes < kSmall) { // calloc's 16-byte alignment, moved up to 64 with the head in front
    void* raw = std::calloc(1, kHead + sizeof(Head) + bytes);
    if (raw == nullptr) throw std::bad_alloc();
    auto* block = reinterpret_cast<char*>(round_up(reinterpret_cast<std::uintptr_t>(raw) + sizeof(Head), kHead));
    *reinterpret_cast<Head*>(block - sizeof(Head)) = Head{nullptr, raw};
    return block;
  }
  const std::size_t need = kHead + round_up(bytes, kHead);
  const std::lock_guard lock(mutex);
  if (newest == nullptr || newest->size - newest->used < need) {
    Region* r = map_region(kHead + need);
    if (newest != nullptr && newest->live == 0) munmap(newest, newest->size);
    newest = r;
  }
  char* block = reinterpret_cast<char*>(newest) + newest->used;
  newest->used += need;
  ++newest->live;
  *reinterpret_cast<Head*>(block + kHead - sizeof(Head)) = Head{newest, nullptr};
  if (newest->dirty) std::memset(block + kHead, 0, bytes);
  return block + kHead;
}

void big_free(void* p) noexcept {
  if (p == nullptr) return;
  const Head head = *reinterpret_cast<const Head*>(static_cast<char*>(p) - sizeof(Head));
  Region* r = head.region;
  if (r == nullptr) return std::free(head.raw);
  const std::lock_guard lock(mutex);
  if (--r->live > 0) return;
  if (r != newest) {
    munmap(r, r->size);
    return;
  }
  r->used = kHead; // kept for the next run
  r->dirty = true;
}

} // namespace ccsim::engine
