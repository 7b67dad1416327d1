// A recorded run as Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing).
// One process per GPU, with sub-tracks per rank for steps, sends, receives and reductions; one
// process "links" with a track per directed link (which message held it when) and counters for
// link utilisation over time. Timestamps are microseconds with nanosecond decimals: both ends of
// every slice are rounded to the nanosecond first, so slices that touch or nest in picoseconds
// still do after the viewer's own rounding, and no two slices on one track partially overlap.
// There is deliberately no "displayTimeUnit": Perfetto reads "ns" there as "timestamps are in ns".
#pragma once
#include <string>
#include <vector>

#include "sim/observe/recorder.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::observe {

struct TimelineMeta {
  std::string op, algo, model;
  Bytes size = 0;                            // the collective's size in bytes (nccl-tests' "size")
  Bytes elt_size = 4;                        // to print chunks in elements
  Time makespan = 0;
  std::vector<std::vector<int>> placements;  // job -> rank -> GPU index
  std::vector<std::string> job_names;        // job -> label ("ring 0 loop 3"); empty = "ring <job>"
};

// Throws Error if the recording is truncated.
std::string chrome_trace(const Recording& rec, const topology::Topology& topo, const TimelineMeta& meta);

// Nanoseconds (rounded half up) as a microsecond literal with three decimals: 1234567 ps -> "1.235".
std::string us_literal(Time ps);

} // namespace ccsim::observe
