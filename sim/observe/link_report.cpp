#include "sim/observe/link_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::observe {
namespace {
double pct(Time part, Time whole) { return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0; }
} // namespace

LinkReport make_link_report(const topology::Topology& topo, const engine::RunResult& result, const Recording* rec,
                            TimelineMeta meta) {
  LinkReport r;
  r.meta = std::move(meta);
  const auto& st = result.channels;
  for (std::size_t c = 0; c < st.bytes.size(); ++c)
    if (st.bytes[c] > 0 || st.busy[c] > 0)
      r.links.push_back({static_cast<ChannelId>(c), st.bytes[c], st.busy[c], pct(st.busy[c], r.meta.makespan)});
  std::stable_sort(r.links.begin(), r.links.end(), [](const LinkUse& a, const LinkUse& b) { return a.busy > b.busy; });
  // Within 0.1% of the busiest: symmetric schedules tie to the picosecond only up to rounding.
  for (const auto& l : r.links)
    if (l.busy > 0 && l.busy * 1000 >= r.links.front().busy * 999) r.bottlenecks.push_back(l.channel);
  if (!rec) r.path_note = "not recorded";
  else if (rec->truncated)
    r.path_note = fmt::format("not computed: the run has more than {} transfers; choose a smaller --timeline-size",
                              rec->transfers.size());
  else if (rec->steps.empty()) r.path_note = "not computed: nothing ran";
  else r.path = critical_path(*rec, topo, r.meta.model != "store_forward");
  return r;
}

} // namespace ccsim::observe
