// A std::vector whose contents a generator writes on first use. A generated million-GPU crossbar keeps
// its nodes and links as a formula (sim/topology/topology.hpp); the simulation's hot path asks the
// formula, and whatever walks the node or link list (topo show, link reports, the NCCL model) gets the
// full list, built then, exactly as the generator would have built it up front.
#pragma once
#include <atomic>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace ccsim::topology {

namespace detail {
inline std::mutex& lazy_fill_mutex() {
  static std::mutex m; // fills are rare (once per topology and list): one lock for all of them
  return m;
}
} // namespace detail

template <typename T>
class LazyVector {
 public:
  using Fill = std::function<void(std::vector<T>&)>;
  LazyVector() = default;
  LazyVector(const LazyVector& o) { copy_from(o); }
  LazyVector(LazyVector&& o) noexcept { move_from(o); }
  LazyVector& operator=(const LazyVector& o) {
    if (this != &o) copy_from(o);
    return *this;
  }
  LazyVector& operator=(LazyVector&& o) noexcept {
    if (this != &o) move_from(o);
    return *this;
  }

  // The contents become whatever `fill` writes, when first asked for.
  void defer(Fill fill) {
    v_.clear();
    fill_ = std::move(fill);
    pending_.store(true, std::memory_order_release);
  }
  bool pending() const { return pending_.load(std::memory_order_acquire); }

  const std::vector<T>& get() const {
    if (pending()) materialize();
    return v_;
  }
  std::vector<T>& get() {
    if (pending()) materialize();
    return v_;
  }
  operator const std::vector<T>&() const { return get(); }

  std::size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const T& operator[](std::size_t i) const { return get()[i]; }
  T& operator[](std::size_t i) { return get()[i]; }
  const T& at(std::size_t i) const { return get().at(i); }
  T& at(std::size_t i) { return get().at(i); }
  auto begin() const { return get().begin(); }
  auto end() const { return get().end(); }
  auto begin() { return get().begin(); }
  auto end() { return get().end(); }
  const T& front() const { return get().front(); }
  const T& back() const { return get().back(); }
  T& front() { return get().front(); }
  T& back() { return get().back(); }
  const T* data() const { return get().data(); }
  T* data() { return get().data(); }
  void reserve(std::size_t n) { get().reserve(n); }
  void clear() { get().clear(); }
  void resize(std::size_t n) { get().resize(n); }
  void push_back(const T& x) { get().push_back(x); }
  void push_back(T&& x) { get().push_back(std::move(x)); }
  template <typename... A>
  T& emplace_back(A&&... a) {
    return get().emplace_back(std::forward<A>(a)...);
  }
  template <typename It>
  auto erase(It first, It last) {
    return get().erase(first, last);
  }
  template <typename It>
  auto erase(It pos) {
    return get().erase(pos);
  }

 private:
  void materialize() const {
    std::lock_guard<std::mutex> lock(detail::lazy_fill_mutex());
    if (!pending_.load(std::memory_order_relaxed)) return; // another thread filled it meanwhile
    fill_(v_);
    pending_.store(false, std::memory_order_release);
  }
  void copy_from(const LazyVector& o) {
    std::lock_guard<std::mutex> lock(detail::lazy_fill_mutex());
    v_ = o.v_;
    fill_ = o.fill_;
    pending_.store(o.pending_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  }
  void move_from(LazyVector& o) noexcept {
    v_ = std::move(o.v_);
    fill_ = std::move(o.fill_);
    pending_.store(o.pending_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    o.v_.clear();
    o.pending_.store(false, std::memory_order_relaxed);
  }

  mutable std::vector<T> v_;
  Fill fill_;
  mutable std::atomic<bool> pending_{false};
};

} // namespace ccsim::topology
