#include "sim/cost/longest_paths.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace ccsim::cost {

EdgeKinds::EdgeKinds(const std::vector<std::pair<Bytes, Bytes>>& kinds) {
  for (const auto& k : kinds)
    if (std::find(kinds_.begin(), kinds_.end(), k) == kinds_.end()) kinds_.push_back(k);
  if (kinds_.size() > kMaxEdgeKinds) fail("longest paths: {} kinds of edge, at most {}", kinds_.size(), kMaxEdgeKinds);
  // Key slot m: messages of >= bytes(m); slot n + m: reductions of >= reduce(m) (unused when 0).
  const std::size_t n = kinds_.size();
  step_.assign(n, Key{});
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t m = 0; m < n; ++m) {
      step_[k][m] = kinds_[k].first >= kinds_[m].first ? 1 : 0;
      step_[k][n + m] = kinds_[m].second > 0 && kinds_[k].second >= kinds_[m].second ? 1 : 0;
    }
}

std::size_t EdgeKinds::id(Bytes bytes, Bytes reduce) const {
  const auto it = std::find(kinds_.begin(), kinds_.end(), std::pair{bytes, reduce});
  if (it == kinds_.end()) fail("longest paths: an edge of {} B reducing {} B was not listed", bytes, reduce);
  return static_cast<std::size_t>(it - kinds_.begin());
}

PathSet PathSet::start() {
  PathSet s;
  s.paths_.push_back(Path{});
  return s;
}

void PathSet::add_extended(const PathSet& from, const EdgeKinds& kinds, std::size_t k) {
  const auto& step = kinds.key_step(k);
  width_ = std::max({width_, from.width_, kinds.key_width()});
  for (Path p : from.paths_) {
    ++p.edges[k];
    for (std::size_t i = 0; i < kinds.key_width(); ++i) p.key[i] += step[i];
    add(p);
  }
}

void PathSet::add_all(const PathSet& from) {
  width_ = std::max(width_, from.width_);
  for (const Path& p : from.paths_) add(p);
}

namespace {
// Slots from `width` on are zero in every path (the double binary tree's formula on 512 ranks spends
// a quarter of its time here; 2 kinds of edge compare 4 slots, not 24).
bool outlasts(const Path& a, const Path& b, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i)
    if (a.key[i] < b.key[i]) return false;
  return true;
}
} // namespace

void PathSet::add(const Path& p) {
  for (const Path& q : paths_)
    if (outlasts(q, p, width_)) return;
  std::erase_if(paths_, [&](const Path& q) { return outlasts(p, q, width_); });
  paths_.push_back(p);
}

std::vector<Term> to_terms(const EdgeKinds& kinds, const Path& p, const char* what) {
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < kinds.size(); ++k)
    if (p.edges[k] > 0) order.push_back(k);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::pair{kinds.bytes(a), kinds.reduce(a)} > std::pair{kinds.bytes(b), kinds.reduce(b)};
  });
  std::vector<Term> out;
  for (std::size_t k : order) out.push_back({p.edges[k], kinds.bytes(k), kinds.reduce(k), what});
  return out;
}

} // namespace ccsim::cost
