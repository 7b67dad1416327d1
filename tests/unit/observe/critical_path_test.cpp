// The critical path tiles [0, finish], follows the messages that gated each step, charges queueing to
// the message that held the link, and the link report names the busiest links.
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/metrics/sweep.hpp"
#include "sim/report/link_report_text.hpp"
#include "sim/observe/timeline.hpp"
#include "sim/observe/link_report.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"
#include "trace_check.hpp"

using namespace ccsim;
using observe::PathSegment;

namespace {

struct Walked {
  metrics::Row row;
  observe::Recording rec;
  observe::CriticalPath path;
};

Walked walk(const topology::Topology& topo, const metrics::RunConfig& cfg, Bytes size) {
  topology::Router router(topo);
  observe::Recorder rec(topo.num_channels());
  Walked w;
  w.row = metrics::simulate(topo, router, cfg, size, {&rec});
  w.rec = rec.recording();
  w.path = observe::critical_path(w.rec, topo, cfg.model_name != "store_forward");
  return w;
}

metrics::RunConfig config(std::vector<std::vector<int>> placements) {
  metrics::RunConfig c;
  c.placements = std::move(placements);
  return c;
}

// No gaps, no overlaps, from 0 to the makespan; totals add up.
void check_tiles(const Walked& w) {
  const auto& s = w.path.segments;
  REQUIRE(!s.empty());
  CHECK(s.front().begin == 0);
  CHECK(s.back().end == w.row.time);
  CHECK(w.path.finish == w.row.time);
  for (std::size_t i = 0; i + 1 < s.size(); ++i) CHECK(s[i].end == s[i + 1].begin);
  for (const auto& x : s) CHECK(x.end >= x.begin);
  CHECK(w.path.transfer + w.path.queued + w.path.reduce + w.path.wait == w.row.time);
  CHECK(w.path.wait == 0); // the fifo models report every holding, so nothing is unattributed
}

} // namespace

TEST_CASE("uncontended ring: the path is 2(p-1) messages back to back, alpha + n/p/B each") {
  const Time alpha = 2 * kPsPerUs;
  const Bandwidth bw = 10'000'000'000ULL;
  auto topo = topology::make_crossbar(4, bw, alpha); // alpha per message (split over the up and down link)
  const Bytes n = 4 << 20;
  auto w = walk(topo, config({{0, 1, 2, 3}}), n);
  check_tiles(w);
  CHECK(w.path.queued == 0);
  CHECK(w.path.transfers == 6);
  CHECK(w.path.segments.size() == 6);
  for (const auto& s : w.path.segments) {
    CHECK(s.kind == PathSegment::Kind::Transfer);
    CHECK(s.end - s.begin == alpha + transfer_time(n / 4, bw));
    CHECK(s.wire == transfer_time(n / 4, bw));
  }
  // Ties between a rank's own send and the message it receives are broken toward the receive, so the
  // path walks backwards around the ring: each message's sender is the previous message's receiver.
  for (std::size_t i = 0; i + 1 < w.path.segments.size(); ++i) {
    const auto& a = w.rec.transfers[static_cast<std::size_t>(w.path.segments[i].transfer)];
    const auto& b = w.rec.transfers[static_cast<std::size_t>(w.path.segments[i + 1].transfer)];
    CHECK(b.src == a.dst);
    CHECK(b.step == a.step + 1);
  }
}

TEST_CASE("two rings on the same links: the path queues behind the other ring's messages") {
  auto topo = topology::make_crossbar(4, 10'000'000'000ULL, 0);
  auto w = walk(topo, config({{0, 1, 2, 3}, {0, 1, 2, 3}}), 8 << 20);
  check_tiles(w);
  CHECK(w.path.queued > 0);
  bool saw = false;
  for (const auto& s : w.path.segments)
    if (s.kind == PathSegment::Kind::Queued) {
      saw = true;
      const auto& holder = w.rec.transfers[static_cast<std::size_t>(s.transfer)];
      const auto& waiter = w.rec.transfers[static_cast<std::size_t>(s.waiting)];
      CHECK(holder.job != waiter.job); // each ring alone never contends with itself here
      CHECK(waiter.start == s.end); // the waiter started when the holder let go of the link
      CHECK(waiter.post < waiter.start);
    }
  CHECK(saw);
}

TEST_CASE("store-and-forward and reductions appear on the path with their own times") {
  auto topo = topology::make_crossbar(4, 10'000'000'000ULL, kPsPerUs);
  auto cfg = config({{0, 1, 2, 3}});
  cfg.model_name = "store_forward";
  cfg.model.reduce_bw = 20'000'000'000ULL;
  const Bytes n = 4 << 20;
  auto w = walk(topo, cfg, n);
  check_tiles(w);
  std::size_t reduces = 0;
  for (const auto& s : w.path.segments)
    if (s.kind == PathSegment::Kind::Reduce) {
      ++reduces;
      CHECK(s.end - s.begin == transfer_time(n / 4, cfg.model.reduce_bw));
    }
  CHECK(reduces == 3); // the p-1 reduce-scatter steps
  // Each message crosses two hops, each on the wire for n/p/B.
  CHECK(w.path.wire == 6 * 2 * transfer_time(n / 4, 10'000'000'000ULL));
}

TEST_CASE("DGX-1: the link report names the busiest links and its path ends at the makespan") {
  auto topo = topology::resolve_topology("dgx1");
  auto cfg = config(topology::pack_rings(topo, {}).rings);
  topology::Router router(topo);
  observe::Recorder rec(topo.num_channels());
  auto row = metrics::simulate(topo, router, cfg, 64 << 20, {&rec});
  observe::TimelineMeta meta{"allreduce", "ring", "fifo", row.plan.size, 4, row.time, cfg.placements, {}};
  auto rep = observe::make_link_report(topo, row.result, &rec.recording(), meta);
  REQUIRE(!rep.links.empty());
  REQUIRE(!rep.bottlenecks.empty());
  Time most = 0;
  for (auto b : row.result.channels.busy) most = std::max(most, b);
  CHECK(row.result.channels.busy[rep.bottlenecks.front()] == most);
  for (auto c : rep.bottlenecks) CHECK(row.result.channels.busy[c] * 1000 >= most * 999);
  for (const auto& l : rep.links)
    if (l.busy * 1000 < most * 999) CHECK(std::find(rep.bottlenecks.begin(), rep.bottlenecks.end(), l.channel) == rep.bottlenecks.end());
  for (const auto& l : rep.links) {
    CHECK(l.busy_pct <= 100.0);
    CHECK(l.busy_pct > 0.0);
  }
  REQUIRE(rep.path);
  CHECK(rep.path->finish == row.time);
  const auto text = report::link_report_text(rep, topo, &rec.recording());
  CHECK(text.find("# Bottleneck link") != std::string::npos);
  CHECK(text.find("# Critical path: ring ") != std::string::npos);
  for (std::size_t pos = 0; pos < text.size(); pos = text.find('\n', pos) + 1) CHECK(text[pos] == '#');
  const auto j = report::link_report_json(rep, topo, &rec.recording());
  CHECK(j["links"].size() == rep.links.size());
  CHECK(j["critical_path"]["finish_us"].get<double>() == doctest::Approx(to_us(row.time)));
  CHECK(j["critical_path"]["segments"].back()["end_us"].get<double>() == doctest::Approx(to_us(row.time)));
  // Without a recording there is still a link table, and the report says why there is no path.
  auto bare = observe::make_link_report(topo, row.result, nullptr, meta);
  CHECK(!bare.path);
  CHECK(report::link_report_text(bare, topo, nullptr).find("Critical path: not recorded") != std::string::npos);
}

TEST_CASE("every registered algorithm: the path tiles the run and the trace is valid") {
  auto topo = topology::make_crossbar(8, 25'000'000'000ULL, kPsPerUs);
  std::size_t ran = 0;
  for (const auto& a : schedule::all_algorithms()) {
    for (const char* model : {"fifo", "store_forward"}) {
      CAPTURE(a.name);
      CAPTURE(schedule::to_string(a.op));
      CAPTURE(model);
      auto cfg = config({{0, 1, 2, 3, 4, 5, 6, 7}});
      cfg.op = a.op;
      cfg.algo = a.name;
      cfg.model_name = model;
      cfg.model.reduce_bw = 100'000'000'000ULL;
      auto w = walk(topo, cfg, 1 << 20);
      check_tiles(w);
      observe::TimelineMeta meta{std::string(schedule::to_string(a.op)), a.name, model, w.row.plan.size, 4, w.row.time,
                                 cfg.placements, {}};
      const auto trace = nlohmann::json::parse(observe::chrome_trace(w.rec, topo, meta));
      const auto problems = testing::check_trace(trace, trace["otherData"]["makespan_us"].get<double>());
      CHECK_MESSAGE(problems.empty(), (problems.empty() ? "" : problems.front()));
      ++ran;
    }
  }
  CHECK(ran >= 2 * 3); // at least the ring family
}
