// How the pipelined chain algorithms cut the vector; shared with their cost formulas.
#pragma once
#include <cstdint>

#include "sim/schedule/collective.hpp"

namespace ccsim::schedule {

struct ChainSegments {
  std::uint64_t size;  // elements per segment: args.segment, or 512 KiB worth of elements by default
  std::uint64_t count; // k >= 1 segments
  std::uint64_t last;  // elements in the last segment (count - (k-1)*size)
};
ChainSegments chain_segments(const CollArgs& a);
// The most segments chain_segments accepts on `ranks` ranks: a run moves about p x segments messages.
std::uint64_t chain_max_segments(int ranks);

} // namespace ccsim::schedule
