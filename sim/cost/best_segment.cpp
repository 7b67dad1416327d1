#include "sim/cost/best_segment.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

#include "sim/core/ceil_div.hpp"
#include "sim/core/error.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::cost {

namespace {

// The formula of one (algorithm, arguments) pair is symbolic: it does not depend on the Params it is
// evaluated with. `ccsim rings` chooses the tree's segment once per placement on the same ranks and size
// (the 512-rank double binary tree's formula takes ~2 ms a segment, ~50 segments a choice), so the
// formulas are kept for the process; sweep threads share them.
using FormulaKey = std::tuple<int, std::string, int, std::uint64_t, int, std::uint64_t, std::vector<int>, std::uint64_t, Bytes>;

std::optional<Formula> cached_formula(const schedule::CollArgs& a, const std::string& algo, Bytes elt) {
  static std::mutex mutex;
  static std::map<FormulaKey, std::optional<Formula>> cache;
  FormulaKey key{static_cast<int>(a.op), algo, a.ranks, a.count, a.root, a.segment, a.dims, a.elt_size, elt};
  {
    const std::lock_guard lock(mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  auto f = formula_for(a.op, algo, a, elt);
  const std::lock_guard lock(mutex);
  if (cache.size() >= 4096) cache.clear(); // a long sweep over many sizes: bound the memory
  return cache.emplace(std::move(key), std::move(f)).first->second;
}

} // namespace

SegmentChoice best_segment(const schedule::CollArgs& a0, const std::string& algo, Bytes elt, const Params& c) {
  // The double binary tree splits the vector in two halves and cuts each: k counts the larger half's segments.
  const bool halves = a0.op == schedule::Op::AllReduce;
  const std::uint64_t whole = halves ? (a0.count + 1) / 2 : a0.count;
  // 4096 bounds the formula's cost; the schedule's own cap (2^19 / p segments for the tree) is lower from
  // p = 128 on, and a segment past it would be refused when the schedule runs.
  std::uint64_t cap = 4096;
  if (const auto* info = schedule::find_algorithm(a0.op, algo); info && info->max_segments)
    cap = std::min(cap, info->max_segments(a0.ranks));
  const std::uint64_t kmax = std::clamp<std::uint64_t>(whole, 1, cap);
  std::map<std::uint64_t, Time> seen; // segment -> time
  auto segment_for = [&](std::uint64_t k) { return std::max<std::uint64_t>(1, ceil_div(whole, k)); };
  auto time_of = [&](std::uint64_t k) {
    const std::uint64_t seg = segment_for(k);
    if (auto it = seen.find(seg); it != seen.end()) return it->second;
    schedule::CollArgs a = a0;
    a.segment = seg;
    const auto f = cached_formula(a, algo, elt);
    if (!f) fail("best segment: {} {} has no formula", schedule::to_string(a.op), algo);
    return seen[seg] = evaluate(*f, c);
  };
  // Golden section over x = ln k (the time is close to unimodal in k), then a scan around the best.
  double lo = 0, hi = std::log(static_cast<double>(kmax));
  const double g = (std::sqrt(5.0) - 1) / 2;
  auto k_at = [&](double x) { return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::llround(std::exp(x))), 1, kmax); };
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  for (int it = 0; it < 40 && k_at(hi) > k_at(lo) + 2; ++it) {
    if (time_of(k_at(x1)) <= time_of(k_at(x2))) hi = x2, x2 = x1, x1 = hi - g * (hi - lo);
    else lo = x1, x1 = x2, x2 = lo + g * (hi - lo);
  }
  const std::uint64_t mid = k_at((lo + hi) / 2);
  // Rounding to whole segments matters at small k; near kmax (alpha ~ 0) each formula costs O(k), and
  // a neighbour's time differs by O(1/k), so the scan narrows there.
  const std::uint64_t width = mid <= 512 ? 16 : 2;
  for (std::uint64_t k = mid > width ? mid - width : 1; k <= std::min(kmax, mid + width); ++k) time_of(k);
  time_of(1), time_of(kmax);
  SegmentChoice best{0, 1, 0};
  for (const auto& [seg, t] : seen) // smallest time; ties to the larger segment (fewer messages)
    if (best.segment == 0 || t < best.time || (t == best.time && seg > best.segment)) best = {seg, ceil_div(whole, seg), t};
  return best;
}

} // namespace ccsim::cost
