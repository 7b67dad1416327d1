// A generated torus as arithmetic: which link joins which GPUs, by number, without a list of links.
// make_torus numbers them so: GPU i (row-major coordinates over `dims`) is node i ("gpu<i>"); for each GPU
// in order, for each dimension in order, the link to its + neighbour (wrapping round), except that an
// extent of 1 has none and an extent of 2 one link per pair, owned by the GPU at coordinate 0. Every link
// is Ideal, one lane of `bw` and `latency`. A million-GPU torus then costs no node and link objects.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/core/units.hpp"

namespace ccsim::topology {

class TorusFormula {
 public:
  TorusFormula() = default;
  TorusFormula(std::vector<int> dims, Bandwidth bw, Time latency);

  const std::vector<int>& dims() const { return dims_; }
  Bandwidth bw() const { return bw_; }
  Time latency() const { return latency_; }
  int gpus() const { return gpus_; }
  std::size_t num_links() const { return links_; }
  int stride(int d) const { return stride_[static_cast<std::size_t>(d)]; }
  int coord(int gpu, int d) const { return (gpu / stride(d)) % dims_[static_cast<std::size_t>(d)]; }

  // The link GPU `gpu` owns in dimension d (to its + neighbour); the GPU must own one.
  std::uint32_t link(int gpu, int d) const {
    if (pairs_.empty()) return static_cast<std::uint32_t>(gpu) * links_per_gpu_ + rank_[static_cast<std::size_t>(d)];
    return link_slow(gpu, d);
  }
  // The two GPUs of a link (a: the owner, b: its + neighbour), as the link list has them.
  std::pair<int, int> ends(std::uint32_t link) const;
  // The neighbour of `gpu` one step along d, + or - (wrapping round).
  int step(int gpu, int d, bool plus) const;
  // The directed channel from `gpu` one step along d (+ or -), as the link list numbers it.
  std::uint32_t channel(int gpu, int d, bool plus) const;
  // Dimension-order route from GPU src to GPU dst as channels, appended to `out`: the last dimension first,
  // the shorter way round each ring (a tie goes the + way), as Router's table-driven torus route.
  void route(int src, int dst, std::vector<std::uint32_t>& out) const;

 private:
  std::uint32_t link_slow(int gpu, int d) const;
  std::uint64_t links_before(std::int64_t gpu) const; // links owned by GPUs 0 .. gpu-1
  bool owns(int gpu, int d) const; // whether `gpu` owns a link in dimension d

  std::vector<int> dims_, stride_;
  Bandwidth bw_ = 0;
  Time latency_ = 0;
  int gpus_ = 0;
  std::size_t links_ = 0;
  std::uint32_t links_per_gpu_ = 0;  // dimensions of extent > 2: links every GPU owns
  std::vector<std::uint32_t> rank_;  // per dimension: owned-link dimensions of extent > 2 before it
  std::vector<int> pairs_;           // dimensions of extent 2 (a link owned by coordinate 0 only)
};

} // namespace ccsim::topology
