// Hierarchical 2D allreduce (reference §5.4, Mikami et al. / Ying et al.): ranks form an X x Y grid,
// rank = y*X + x. (1) ring reduce-scatter along each row: rank (x, y) ends with row block x reduced over
// its row; (2) ring allreduce of that block along column x (split again into Y pieces); (3) ring
// allgather along the row. Cost 2(X-1+Y-1) a + 2(p-1)/p nb + (p-1)/p ng: the flat ring's bandwidth
// term with latency 2(X+Y-2) instead of 2(p-1). The grid is args.dims (two extents) or the most square
// factorisation with X >= Y; X or Y = 1 degenerates to the flat ring.
#include <cmath>
#include <tuple>

#include "sim/core/error.hpp"
#include "sim/schedule/algorithms/torus2d.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {

// Shared with the formula so both use the same grid.
std::pair<int, int> torus2d_grid(const CollArgs& a) {
  if (a.dims.size() == 2) {
    if (a.dims[0] < 1 || a.dims[1] < 1 || a.dims[0] * a.dims[1] != a.ranks)
      fail("torus2d: grid {}x{} does not hold {} ranks", a.dims[0], a.dims[1], a.ranks);
    return {a.dims[0], a.dims[1]};
  }
  if (!a.dims.empty()) fail("torus2d: needs a grid of two extents, got {}", a.dims.size());
  int y = static_cast<int>(std::sqrt(static_cast<double>(a.ranks)));
  while (y > 1 && (a.ranks % y != 0 || y * y > a.ranks)) --y;
  return {a.ranks / std::max(y, 1), std::max(y, 1)};
}

namespace {

class Torus2dAllReduce final : public Schedule {
 public:
  explicit Torus2dAllReduce(const CollArgs& a) : Schedule(a) { std::tie(X_, Y_) = torus2d_grid(a); }

  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    const int x = r % X_, y = r / X_;
    const int right = y * X_ + wrap_mod(x + 1, X_), left = y * X_ + wrap_mod(x - 1, X_);
    const int down = wrap_mod(y + 1, Y_) * X_ + x, up = wrap_mod(y - 1, Y_) * X_ + x;
    if (s < X_ - 1) { // row reduce-scatter
      send(out, right, row(x - s - 1));
      recv_reduce(out, left, row(x - s - 2));
      return true;
    }
    s -= X_ - 1;
    if (s < Y_ - 1) { // column reduce-scatter of row block x
      send(out, down, col(x, y - s - 1));
      recv_reduce(out, up, col(x, y - s - 2));
      return true;
    }
    s -= Y_ - 1;
    if (s < Y_ - 1) { // column allgather
      send(out, down, col(x, y - s));
      recv(out, up, col(x, y - s - 1));
      return true;
    }
    s -= Y_ - 1;
    if (s < X_ - 1) { // row allgather
      send(out, right, row(x - s));
      recv(out, left, row(x - s - 1));
      return true;
    }
    return false;
  }

 private:
  Block row(int i) const { return split_block(args_.count, static_cast<std::uint64_t>(X_), static_cast<std::uint64_t>(wrap_mod(i, X_))); }
  Block col(int x, int j) const {
    const Block b = row(x), piece = split_block(b.len, static_cast<std::uint64_t>(Y_), static_cast<std::uint64_t>(wrap_mod(j, Y_)));
    return {b.off + piece.off, piece.len};
  }
  int X_ = 1, Y_ = 1;
};

} // namespace

void add_torus2d_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"torus2d", Op::AllReduce,
                 "X x Y grid: ring reduce-scatter along rows, ring allreduce along columns, ring allgather along rows",
                 [](const CollArgs& a) { return std::make_unique<Torus2dAllReduce>(a); }, false});
}

} // namespace ccsim::schedule
