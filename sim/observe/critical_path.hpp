// The chain of events that set a run's finish time. Start at the rank that finished last and walk
// back: a step ended when its last message arrived (or its reduction finished); a message left when
// its sender's step began, unless a link on its route was still held by an earlier message, in which
// case the wait is charged to that message and the walk continues from it; a step began when the
// rank's previous step ended. The segments tile [0, finish] without gaps.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/observe/recorder.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::observe {

struct PathSegment {
  enum class Kind {
    Transfer, // `transfer` moving (on the wire or in link latency)
    Queued,   // `waiting` could not start: `channel` was held by `transfer`
    Reduce,   // rank `rank` of job `job` reducing what step `step` received
    Wait,     // time the recording cannot attribute (model without per-link holding times)
  };
  Kind kind = Kind::Transfer;
  Time begin = 0, end = 0;
  std::int64_t transfer = -1;
  std::int64_t waiting = -1;
  ChannelId channel = 0;
  int job = -1, rank = -1, step = -1;
  Time wire = 0; // Transfer: part of [begin, end) during which the message held a link (the rest is latency)
};

struct CriticalPath {
  int job = -1, rank = -1; // the rank that finished last
  Time finish = 0;
  std::vector<PathSegment> segments; // in time order
  Time transfer = 0, wire = 0, queued = 0, reduce = 0, wait = 0; // totals by kind (wire is part of transfer)
  std::size_t transfers = 0; // distinct messages on the path (moving or holding a link)
};

// `cut_through`: a message holds every link of its route at once (fifo model) rather than hop by hop.
// Throws Error if the recording is truncated or empty.
CriticalPath critical_path(const Recording& rec, const topology::Topology& topo, bool cut_through);

} // namespace ccsim::observe
