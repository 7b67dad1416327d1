#include "sim/topology/torus_formula.hpp"

#include <algorithm>

namespace ccsim::topology {

TorusFormula::TorusFormula(std::vector<int> dims, Bandwidth bw, Time latency)
    : dims_(std::move(dims)), stride_(dims_.size(), 1), bw_(bw), latency_(latency), rank_(dims_.size(), 0) {
  long s = 1;
  for (std::size_t d = dims_.size(); d-- > 0;) stride_[d] = static_cast<int>(s), s *= dims_[d];
  gpus_ = static_cast<int>(s); // the generator checked the product (at most 2^20)
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    rank_[d] = links_per_gpu_;
    if (dims_[d] > 2) ++links_per_gpu_;
    if (dims_[d] == 2) pairs_.push_back(static_cast<int>(d));
  }
  links_ = static_cast<std::size_t>(links_before(gpus_));
}

bool TorusFormula::owns(int gpu, int d) const {
  const int n = dims_[static_cast<std::size_t>(d)];
  return n > 2 || (n == 2 && coord(gpu, d) == 0);
}

// Every GPU owns one link per extent > 2; of an extent-2 dimension with stride s, the GPUs whose
// coordinate there is 0 own one: in each run of 2s consecutive GPUs, the first s.
std::uint64_t TorusFormula::links_before(std::int64_t gpu) const {
  std::uint64_t n = static_cast<std::uint64_t>(gpu) * links_per_gpu_;
  for (int d : pairs_) {
    const std::int64_t s = stride_[static_cast<std::size_t>(d)];
    n += static_cast<std::uint64_t>((gpu / (2 * s)) * s + std::min(gpu % (2 * s), s));
  }
  return n;
}

std::uint32_t TorusFormula::link_slow(int gpu, int d) const {
  std::uint64_t l = links_before(gpu);
  for (int e = 0; e < d; ++e) l += owns(gpu, e) ? 1 : 0;
  return static_cast<std::uint32_t>(l);
}

std::pair<int, int> TorusFormula::ends(std::uint32_t link) const {
  int gpu = 0;
  std::uint64_t first = 0; // the first link `gpu` owns
  if (links_ == 0) return {0, 0};
  if (pairs_.empty()) {
    gpu = static_cast<int>(link / links_per_gpu_);
    first = static_cast<std::uint64_t>(gpu) * links_per_gpu_;
  } else { // the last GPU whose first link is at or before `link`
    std::int64_t lo = 0, hi = gpus_ - 1;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi + 1) / 2;
      if (links_before(mid) <= link) lo = mid;
      else hi = mid - 1;
    }
    gpu = static_cast<int>(lo);
    first = links_before(lo);
  }
  std::uint64_t k = link - first; // the k-th link the GPU owns, in dimension order
  for (int d = 0; d < static_cast<int>(dims_.size()); ++d)
    if (owns(gpu, d) && k-- == 0) return {gpu, step(gpu, d, true)};
  return {gpu, gpu}; // not a link of this torus (callers check the id against num_links first)
}

int TorusFormula::step(int gpu, int d, bool plus) const {
  const int n = dims_[static_cast<std::size_t>(d)], s = stride(d), c = coord(gpu, d);
  if (plus) return c == n - 1 ? gpu - (n - 1) * s : gpu + s;
  return c == 0 ? gpu + (n - 1) * s : gpu - s;
}

std::uint32_t TorusFormula::channel(int gpu, int d, bool plus) const {
  const int n = dims_[static_cast<std::size_t>(d)];
  const int next = step(gpu, d, plus);
  // The link is owned by whichever end it leaves + from: the owner goes a -> b on channel 2l, back on 2l + 1.
  if (n == 2) return owns(gpu, d) ? 2 * link(gpu, d) : 2 * link(next, d) + 1;
  return plus ? 2 * link(gpu, d) : 2 * link(next, d) + 1;
}

void TorusFormula::route(int src, int dst, std::vector<std::uint32_t>& out) const {
  int cur = src;
  for (int d = static_cast<int>(dims_.size()) - 1; d >= 0; --d) {
    const int n = dims_[static_cast<std::size_t>(d)], s = stride(d);
    int c = (cur / s) % n;
    const int fwd = ((dst / s) % n - c + n) % n;
    const bool plus = fwd <= n - fwd;
    const int steps = plus ? fwd : n - fwd;
    if (steps == 0) continue;
    if (!pairs_.empty()) { // extent-2 dimensions own links unevenly: the general way
      for (int k = 0; k < steps; ++k) out.push_back(channel(cur, d, plus)), cur = step(cur, d, plus);
      continue;
    }
    // Every GPU owns one link here: link(g, d) = g * links_per_gpu + rank[d], stepping by stride s.
    const std::uint32_t per = links_per_gpu_, r = rank_[static_cast<std::size_t>(d)];
    for (int k = 0; k < steps; ++k) {
      if (plus) {
        out.push_back(2 * (static_cast<std::uint32_t>(cur) * per + r));
        cur = c == n - 1 ? cur - (n - 1) * s : cur + s;
        c = c == n - 1 ? 0 : c + 1;
      } else {
        cur = c == 0 ? cur + (n - 1) * s : cur - s;
        c = c == 0 ? n - 1 : c - 1;
        out.push_back(2 * (static_cast<std::uint32_t>(cur) * per + r) + 1);
      }
    }
  }
}

} // namespace ccsim::topology
