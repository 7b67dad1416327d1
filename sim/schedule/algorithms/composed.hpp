// Collectives built from two others run one after the other on each rank (the textbook compositions):
// broadcast = scatter + allgather (van de Geijn), reduce = reduce-scatter + gather (Rabenseifner),
// allgather = gather + broadcast (the course's), allreduce = reduce-scatter + allgather (recursive
// halving then recursive doubling). Shared by the schedules and their formulas, so both
// split the data the same way.
#pragma once
#include <string>

#include "sim/schedule/schedule.hpp"

namespace ccsim::schedule {

struct Composition {
  CollArgs first, second;          // the two phases' arguments (their own ops and block counts)
  std::string first_algo, second_algo;
  std::uint64_t padded = 0;        // elements the phases cover (>= the op's count: the last block padded)
};

// The phases of `algo` ("scatter_allgather", "reducescatter_gather", "gather_bcast") for args `a`.
Composition composition(const CollArgs& a, const std::string& algo);

} // namespace ccsim::schedule
