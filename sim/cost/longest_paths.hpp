// Longest paths through a graph of steps whose edges each cost alpha + bytes*beta (+ reduced*gamma),
// kept symbolic: a path is how many edges of each kind it crosses, and a set keeps every path that no
// other one outlasts for all alpha, beta, gamma. Pipelines whose critical chain changes with the
// numbers (double_binary_tree) become a Formula with alternatives, exact for any machine.
#pragma once
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/cost/formula.hpp"

namespace ccsim::cost {

inline constexpr std::size_t kMaxEdgeKinds = 12;

// The kinds of edge a graph has: one message of `bytes`, then reducing `reduce` bytes (0: none).
class EdgeKinds {
 public:
  explicit EdgeKinds(const std::vector<std::pair<Bytes, Bytes>>& kinds); // duplicates are merged
  std::size_t id(Bytes bytes, Bytes reduce) const;                       // the kind must be listed
  std::size_t size() const { return kinds_.size(); }
  Bytes bytes(std::size_t k) const { return kinds_[k].first; }
  Bytes reduce(std::size_t k) const { return kinds_[k].second; }
  // An edge of kind k adds 1 to each of these counts it falls under: messages of >= m bytes (slot m) and
  // reductions of >= m bytes (slot size() + m), for every size m in the graph (the smallest m counts every
  // message). Only the first key_width() slots are ever non-zero, so comparisons stop there.
  using Key = std::array<std::uint32_t, 2 * kMaxEdgeKinds>;
  const Key& key_step(std::size_t k) const { return step_[k]; }
  std::size_t key_width() const { return 2 * kinds_.size(); }

 private:
  std::vector<std::pair<Bytes, Bytes>> kinds_;
  std::vector<Key> step_;
};

struct Path {
  std::array<std::uint32_t, kMaxEdgeKinds> edges{}; // count per kind
  EdgeKinds::Key key{};                            // the counts of EdgeKinds::key_step, summed
};

// Paths none of which outlasts another for every alpha, beta, gamma >= 0: since a message's time and a
// reduction's time grow with their bytes, a path outlasts another when every count of its key is at
// least as large.
class PathSet {
 public:
  static PathSet start(); // the empty path
  bool empty() const { return paths_.empty(); }
  const std::vector<Path>& paths() const { return paths_; }
  void clear() { paths_.clear(); }
  // Adds each path of `from` extended by one edge of kind k.
  void add_extended(const PathSet& from, const EdgeKinds& kinds, std::size_t k);
  void add_all(const PathSet& from);

 private:
  void add(const Path& p);
  std::vector<Path> paths_;
  std::size_t width_ = 0; // key slots any path here may have non-zero (EdgeKinds::key_width)
};

// A path as formula terms, one per kind it crosses (largest messages first).
std::vector<Term> to_terms(const EdgeKinds& kinds, const Path& p, const char* what);

} // namespace ccsim::cost
