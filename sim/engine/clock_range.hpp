// The guard that keeps the event loop's int64-picosecond sums from wrapping (used by Engine::run).
#pragma once
#include <span>

#include "sim/engine/engine.hpp"

namespace ccsim::engine {

// Simulated time is int64 picoseconds (about 106 days). Before running, bound the makespan from above
// as if every byte crossed the slowest link one after another (2 + log2 p buffers per rank: recursive
// doubling sends the whole buffer log2 p times), every GPU reduced all it received, and every one of
// 4p + 64 steps paid 16 hops of the largest latency plus the software alpha. Runs whose bound passes
// half the clock's range are refused, so no sum in the event loop can wrap (and the loop stays as is).
void check_clock_range(const topology::Topology& topo, const ModelParams& params, std::span<const Job> jobs);

} // namespace ccsim::engine
