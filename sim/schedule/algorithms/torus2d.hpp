// The X x Y grid torus2d uses (args.dims, or the most square factorisation with X >= Y); the formula
// in sim/cost uses the same. Throws Error when args.dims has the wrong shape.
#pragma once
#include <utility>

#include "sim/schedule/collective.hpp"

namespace ccsim::schedule {
std::pair<int, int> torus2d_grid(const CollArgs& a);
}
