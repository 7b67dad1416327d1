// --links: what each directed link carried and how busy it was, the bottleneck link(s), and the
// critical path of the schedule (sim/report/link_report_text renders it).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/engine.hpp"
#include "sim/observe/critical_path.hpp"
#include "sim/observe/timeline.hpp"

namespace ccsim::observe {

struct LinkUse {
  ChannelId channel = 0;
  Bytes bytes = 0;
  Time busy = 0;
  double busy_pct = 0; // of the run's makespan
};

struct LinkReport {
  TimelineMeta meta;
  std::vector<LinkUse> links;          // channels that carried bytes, busiest first
  std::vector<ChannelId> bottlenecks;  // the busiest channel(s), within 0.1% of the most busy time
  std::optional<CriticalPath> path;
  std::string path_note;               // why there is no critical path, when there is none
};

// `rec` may be null (nothing recorded): the report then has no critical path.
LinkReport make_link_report(const topology::Topology& topo, const engine::RunResult& result, const Recording* rec,
                            TimelineMeta meta);

} // namespace ccsim::observe
