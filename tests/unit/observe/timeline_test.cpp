// The Chrome trace against the trace-event format and against the run it draws.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>

#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/observe/timeline.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"
#include "trace_check.hpp"

using namespace ccsim;

namespace {

struct Traced {
  metrics::Row row;
  observe::Recording rec;
  nlohmann::json trace;
  double makespan_us;
};

Traced trace_of(const topology::Topology& topo, const metrics::RunConfig& cfg, Bytes size) {
  topology::Router router(topo);
  observe::Recorder rec(topo.num_channels());
  Traced t;
  t.row = metrics::simulate(topo, router, cfg, size, {&rec});
  t.rec = rec.recording();
  observe::TimelineMeta meta{std::string(schedule::to_string(cfg.op)), cfg.algo, cfg.model_name, t.row.plan.size,
                             cfg.dtype.size, t.row.time, cfg.placements, {}};
  t.trace = nlohmann::json::parse(observe::chrome_trace(t.rec, topo, meta));
  t.makespan_us = t.trace["otherData"]["makespan_us"].get<double>();
  return t;
}

metrics::RunConfig config(std::vector<std::vector<int>> placements, schedule::Op op = schedule::Op::AllReduce) {
  metrics::RunConfig c;
  c.op = op;
  c.placements = std::move(placements);
  return c;
}

std::vector<const nlohmann::json*> slices(const nlohmann::json& trace, const std::string& cat) {
  std::vector<const nlohmann::json*> v;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == cat) v.push_back(&e);
  return v;
}

// One step: every rank sends `len` elements to every other rank and receives as much from each.
class AllAtOnce final : public schedule::Schedule {
 public:
  AllAtOnce(int p, std::uint64_t len) : Schedule(schedule::CollArgs{schedule::Op::AllToAll, p, len}) {}
  bool step(int rank, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    if (s > 0) return false;
    const int p = args().ranks;
    const auto len = args().count;
    for (int d = 1; d < p; ++d) schedule::send(out, (rank + d) % p, {static_cast<std::uint64_t>(d) * len, len});
    for (int d = 1; d < p; ++d) schedule::recv(out, (rank + p - d) % p, {(static_cast<std::uint64_t>(p) + d) * len, len});
    return true;
  }
};

long long ns(const nlohmann::json& v) { return std::llround(v.get<double>() * 1000.0); }

} // namespace

TEST_CASE("the trace checker finds what viewers reject") {
  auto ok = nlohmann::json::parse(R"({"traceEvents":[
    {"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"GPU 0"}},
    {"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"rank 0 steps"}},
    {"ph":"X","cat":"step","pid":1,"tid":1,"ts":0,"dur":5,"name":"step 0","args":{}},
    {"ph":"X","cat":"step","pid":1,"tid":1,"ts":1,"dur":2,"name":"inner","args":{}},
    {"ph":"X","cat":"step","pid":1,"tid":1,"ts":5,"dur":5,"name":"step 1","args":{}}]})");
  CHECK(testing::check_trace(ok, 10.0).empty());
  auto broken = [&](auto edit) {
    auto j = ok;
    edit(j["traceEvents"]);
    return !testing::check_trace(j, 10.0).empty();
  };
  CHECK(broken([](auto& ev) { ev[3]["dur"] = 4.5; }));          // [1, 5.5] crosses step 0's end
  CHECK(broken([](auto& ev) { ev[4]["dur"] = 5.001; }));        // past the end of the run
  CHECK(broken([](auto& ev) { ev[2]["ph"] = "Q"; }));
  CHECK(broken([](auto& ev) { ev[2]["pid"] = "1"; }));
  CHECK(broken([](auto& ev) { ev[2]["ts"] = -1; }));
  CHECK(broken([](auto& ev) { ev[1]["tid"] = 2; }));            // slices on a track without a name
  CHECK(broken([](auto& ev) { ev.push_back({{"ph", "C"}, {"pid", 1}, {"tid", 0}, {"name", "c"}, {"ts", 1}, {"args", {{"v", "x"}}}}); }));
}

TEST_CASE("DGX-1 with six rings: a valid trace with every step, message and link holding of the run") {
  auto topo = topology::resolve_topology("dgx1");
  const auto rings = topology::pack_rings(topo, {}).rings;
  REQUIRE(rings.size() == 6);
  auto t = trace_of(topo, config(rings), 1 << 20);
  const auto problems = testing::check_trace(t.trace, t.makespan_us);
  CHECK_MESSAGE(problems.empty(), (problems.empty() ? "" : problems.front()));
  CHECK(std::abs(t.makespan_us - to_us(t.row.time)) <= 0.0005); // the trace keeps whole nanoseconds
  // Every message appears once as a send and once as a receive; every step as a step slice.
  CHECK(slices(t.trace, "send").size() == t.rec.transfers.size());
  CHECK(slices(t.trace, "recv").size() == t.rec.transfers.size());
  CHECK(slices(t.trace, "step").size() == 6 * 8 * 14); // 2(p-1) steps per rank per ring
  // A link track's slices add up to what the network model says the link was busy (rounding: 1 ns each).
  std::map<std::string, long long> busy;
  std::map<std::pair<long long, long long>, std::string> track_name;
  for (const auto& e : t.trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") track_name[{e["pid"], e["tid"]}] = e["args"]["name"];
  std::size_t link_slices = 0;
  for (const auto* e : slices(t.trace, "link")) {
    const std::string name = track_name.at({(*e)["pid"], (*e)["tid"]});
    busy[name.substr(0, name.find(' '))] += ns((*e)["dur"]);
    ++link_slices;
  }
  std::size_t used = 0;
  for (std::size_t c = 0; c < t.row.result.channels.busy.size(); ++c) {
    const Time b = t.row.result.channels.busy[c];
    if (b == 0) continue;
    ++used;
    const auto name = topo.channel_name(static_cast<topology::ChannelId>(c));
    REQUIRE(busy.count(name));
    CHECK(std::llabs(busy[name] - b / 1000) <= static_cast<long long>(link_slices));
  }
  CHECK(busy.size() == used);
  // Counters: one utilisation series per used link plus the busy-links count, all within [0, 100] %.
  std::set<std::string> counters;
  for (const auto& e : t.trace["traceEvents"])
    if (e["ph"] == "C") {
      counters.insert(e["name"]);
      if (e["name"] != "busy links") {
        CHECK(e["args"]["value"].get<double>() >= 0.0);
        CHECK(e["args"]["value"].get<double>() <= 100.0 + 1e-9);
      }
    }
  CHECK(counters.size() == used + 1);
}

TEST_CASE("store-and-forward hops, reductions and alltoall's many sends per step stay valid") {
  auto topo = topology::make_crossbar(4, 10'000'000'000ULL, 1 * kPsPerUs);
  SUBCASE("store_forward with reduction time") {
    auto cfg = config({{0, 1, 2, 3}});
    cfg.model_name = "store_forward";
    cfg.model.reduce_bw = 20'000'000'000ULL;
    auto t = trace_of(topo, cfg, 4 << 20);
    CHECK(testing::check_trace(t.trace, t.makespan_us).empty());
    CHECK(slices(t.trace, "reduce").size() == 4 * 3); // p-1 reducing steps per rank
    // Each message's second hop starts after its first hop ends plus the link latency.
    for (const auto& x : t.rec.transfers) {
      REQUIRE(x.hop_count == 2);
      const auto& h0 = t.rec.hops[x.hop_first], &h1 = t.rec.hops[x.hop_first + 1];
      const Time lat0 = topo.link_of(h0.channel).latency, lat1 = topo.link_of(h1.channel).latency;
      CHECK(lat0 > 0);
      CHECK(h1.held.begin >= h0.held.end + lat0);
      CHECK(x.arrive == h1.held.end + lat1);
    }
  }
  SUBCASE("a step that posts p-1 sends at once: they go on separate sub-tracks") {
    AllAtOnce sched(4, 1 << 18);
    topology::Router router(topo);
    engine::Engine eng(topo, router, {}, engine::fifo_network());
    observe::Recorder rec(topo.num_channels());
    eng.add_observer(&rec);
    engine::Job job{&sched, {topo.gpu_node(0), topo.gpu_node(1), topo.gpu_node(2), topo.gpu_node(3)}, 4, 0, {}};
    const auto res = eng.run(std::span<const engine::Job>(&job, 1));
    observe::TimelineMeta meta{"alltoall", "direct", "fifo", 4 << 18, 4, res.makespan, {{0, 1, 2, 3}}, {}};
    auto trace = nlohmann::json::parse(observe::chrome_trace(rec.recording(), topo, meta));
    CHECK(testing::check_trace(trace, trace["otherData"]["makespan_us"].get<double>()).empty());
    CHECK(slices(trace, "send").size() == 12);
    std::set<std::pair<long long, long long>> send_tracks;
    for (const auto* e : slices(trace, "send")) send_tracks.insert({(*e)["pid"].get<long long>(), (*e)["tid"].get<long long>()});
    CHECK(send_tracks.size() > 4); // at least one rank needed more than one send lane
  }
}

TEST_CASE("timestamps are microseconds with nanosecond decimals") {
  CHECK(observe::us_literal(0) == "0.000");
  CHECK(observe::us_literal(1'234'567) == "1.235");
  CHECK(observe::us_literal(1'234'499) == "1.234");
  CHECK(observe::us_literal(999'999'999'999) == "1000000.000");
}

TEST_CASE("durations are rounded to the nanosecond like ts, unless a double sum would cross the next slice") {
  // A slice's dur literal has at most 3 decimals (ns), like its ts; the only exception is a slice whose
  // rounded literal, added to ts in doubles as Chrome DevTools does, would end after the next slice on
  // its track starts (DevTools then drops it): those get a shorter literal that still rounds to the ns.
  for (const std::string spec : {"dgx1", "crossbar:ranks=16,bw=25GB/s,alpha=1us"}) {
    CAPTURE(spec);
    auto topo = topology::resolve_topology(spec);
    const auto rings = topology::pack_rings(topo, {}).rings;
    topology::Router router(topo);
    observe::Recorder rec(topo.num_channels());
    const auto cfg = config(rings);
    const auto row = metrics::simulate(topo, router, cfg, 3 << 20, {&rec});
    observe::TimelineMeta meta{"allreduce", "ring", "fifo", row.plan.size, 4, row.time, cfg.placements, {}};
    const std::string raw = observe::chrome_trace(rec.recording(), topo, meta);
    struct X {
      std::string ts, dur;
    };
    std::map<std::pair<int, int>, std::vector<X>> tracks;
    const std::regex ev(R"re("ph":"X","cat":"[^"]*","pid":(\d+),"tid":(\d+),"ts":([0-9.]+),"dur":([0-9.e+-]+))re");
    for (auto it = std::sregex_iterator(raw.begin(), raw.end(), ev); it != std::sregex_iterator(); ++it)
      tracks[{std::stoi((*it)[1]), std::stoi((*it)[2])}].push_back({(*it)[3], (*it)[4]});
    REQUIRE(!tracks.empty());
    auto decimals = [](const std::string& lit) { return lit.size() - lit.find('.') - 1; };
    auto ns = [](const std::string& lit) { return std::llround(std::strtod(lit.c_str(), nullptr) * 1000); };
    std::size_t total = 0, rounded = 0;
    for (auto& [track, v] : tracks) {
      std::stable_sort(v.begin(), v.end(), [&](const X& a, const X& b) { return ns(a.ts) < ns(b.ts); });
      for (std::size_t i = 0; i < v.size(); ++i) {
        ++total;
        CHECK(decimals(v[i].ts) == 3);
        const double ts = std::strtod(v[i].ts.c_str(), nullptr), dur = std::strtod(v[i].dur.c_str(), nullptr);
        if (decimals(v[i].dur) <= 3) {
          ++rounded;
        } else {
          // The exception is justified: the ns-rounded literal would have summed past the limit.
          const long long dns = ns(v[i].dur);
          const std::string lit = observe::us_literal(dns * 1000);
          const double limit = i + 1 < v.size() ? std::max(std::strtod(v[i + 1].ts.c_str(), nullptr), 0.0)
                                                : std::strtod(observe::us_literal((ns(v[i].ts) + dns) * 1000).c_str(), nullptr);
          CHECK(ts + std::strtod(lit.c_str(), nullptr) > limit);
        }
        if (i + 1 < v.size()) CHECK(ts + dur <= std::strtod(v[i + 1].ts.c_str(), nullptr));
      }
    }
    MESSAGE(spec << ": " << rounded << " of " << total << " durations rounded to the ns");
    CHECK(rounded * 4 >= total * 3); // the exceptions are few (about 4-12 % here)
  }
}

TEST_CASE("a truncated recording is refused rather than drawn incomplete") {
  auto topo = topology::make_crossbar(4, 10'000'000'000ULL, kPsPerUs);
  topology::Router router(topo);
  observe::Recorder rec(topo.num_channels(), 5);
  auto cfg = config({{0, 1, 2, 3}});
  auto row = metrics::simulate(topo, router, cfg, 1 << 20, {&rec});
  CHECK(rec.recording().truncated);
  CHECK(rec.recording().transfers.size() == 5);
  observe::TimelineMeta meta{"allreduce", "ring", "fifo", row.plan.size, 4, row.time, cfg.placements, {}};
  CHECK_THROWS_AS(observe::chrome_trace(rec.recording(), topo, meta), Error);
}
