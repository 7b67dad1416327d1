#include "sim/cli/rings_command.hpp"

#include <unistd.h>

#include <iostream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/common.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/ring_rank.hpp"
#include "sim/model/registry.hpp"
#include "sim/report/progress.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/core/json_file.hpp"

namespace ccsim::cli {
namespace {

struct RingsOptions {
  RunOptions run; // --topo, --gpus, --one-based, model flags, --op, -d
  std::string size = "128M";
  int top = 10;
  std::optional<int> channels; // --channels K; unset: no channel set
  int exhaustive_max = 12;
  std::string explain;
  std::string format = "table";
  std::string output;
  bool relay_outside = false; // routes may pass through GPUs outside --gpus
};

std::string join(const std::vector<int>& v, const char* sep = " ") {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : sep) + std::to_string(x);
  return s;
}

std::string hop_text(const topology::HopRoute& h) { return h.via.empty() ? h.kind : h.kind + " via " + h.via; }

// As hop_text, flagging an intermediate GPU outside the allocation: the hop borrows another job's GPU links.
std::string hop_text(const topology::HopTable& t, const topology::HopRoute& h) {
  std::string s = hop_text(h);
  for (int g : h.via_gpus)
    if (t.local_of(g) < 0) s += fmt::format(" (gpu{} not chosen)", g);
  return s;
}

double gbps(Bandwidth b) { return static_cast<double>(b) / 1e9; }

// Per hop of `ring` (GPU order): the most hops of `all` that share one of its channels.
std::vector<int> hop_sharing(const topology::HopTable& h, const std::vector<int>& ring, const std::vector<std::vector<int>>& all) {
  std::map<topology::ChannelId, int> load;
  for (const auto& r : all)
    for (std::size_t k = 0; k < r.size(); ++k)
      for (auto c : h.at(h.local_of(r[k]), h.local_of(r[(k + 1) % r.size()])).channels) ++load[c];
  std::vector<int> out;
  for (std::size_t k = 0; k < ring.size(); ++k) {
    int m = 0;
    for (auto c : h.at(h.local_of(ring[k]), h.local_of(ring[(k + 1) % ring.size()])).channels) m = std::max(m, load[c]);
    out.push_back(m);
  }
  return out;
}

std::string limiting_text(const topology::HopTable& h, const topology::RingScore& s) {
  if (s.limiting_from < 0) return "-";
  const auto& hop = h.at(s.limiting_from, s.limiting_to);
  const auto& t = h.topology();
  return fmt::format("{}->{} {} ({:.4g} GB/s link, {} hop(s) on {})", h.gpus()[static_cast<std::size_t>(s.limiting_from)],
                     h.gpus()[static_cast<std::size_t>(s.limiting_to)], hop_text(h, hop), gbps(t.link_of(s.limiting_channel).capacity()),
                     s.limiting_load, t.channel_name(s.limiting_channel));
}

nlohmann::json hops_json(const topology::HopTable& h, const std::vector<int>& ring) {
  auto arr = nlohmann::json::array();
  for (std::size_t k = 0; k < ring.size(); ++k) {
    const int a = ring[k], b = ring[(k + 1) % ring.size()];
    const auto& hop = h.at(h.local_of(a), h.local_of(b));
    arr.push_back({{"from", a}, {"to", b}, {"link", hop.kind}, {"via", hop.via}, {"direct", hop.direct},
                   {"bottleneck_GBps", gbps(hop.bottleneck)}, {"latency_us", to_us(hop.latency)}});
  }
  return arr;
}

struct Context {
  std::unique_ptr<topology::Topology> owned; // router and hop table point into it, so it must not move
  const topology::Topology& topo() const { return *owned; }
  std::unique_ptr<topology::Router> router;
  std::unique_ptr<topology::HopTable> hops;
  metrics::RunConfig base;
  std::unique_ptr<metrics::PlanBuilder> model; // base.builder: the --model every ring is predicted with
  Bytes size = 0;
  topology::RingSearchResult found;
  std::vector<metrics::RankedRing> ranked;
  bool relay_outside = false;
  int direct_rings = 0; // undirected Hamiltonian cycles over direct GPU-GPU links only (capped; -1: not counted)
};

// Rings up to rotation and direction on n GPUs: (n-1)!/2, 1 below 3 GPUs.
double distinct_rings(int n) {
  double d = 1;
  for (int k = 3; k < n; ++k) d *= k;
  return d;
}
// --explain ranks the order among every ring up to this many (9 GPUs; about a second of simulation).
constexpr double kRankAllMax = 20160;

// The search routes every GPU pair up front (about 0.5 KiB each: 0.5 GiB and ~20 s at 1024 GPUs).
constexpr std::size_t kRingsMaxGpus = 1024;

Context prepare(const RingsOptions& o, const std::vector<int>& gpus) {
  if (gpus.size() > kRingsMaxGpus)
    fail("rings: {} GPUs is more than the ring search handles (at most {}, it routes every GPU pair); pick a subset "
         "with --gpus",
         gpus.size(), kRingsMaxGpus);
  Context c;
  c.owned = std::make_unique<topology::Topology>(topology::resolve_topology(o.run.topo));
  c.router = std::make_unique<topology::Router>(c.topo());
  // NCCL cannot relay through a GPU outside the communicator: by default only the chosen GPUs forward.
  c.relay_outside = o.relay_outside;
  if (!o.relay_outside) c.router->set_relay_gpus(gpus);
  if (auto op = schedule::op_from(o.run.op); op && !schedule::find_algorithm(*op, "ring"))
    fail("--op: no ring algorithm is registered for {}, so there is no ring to rank", o.run.op);
  RunOptions ro = o.run;
  ro.gpus.clear();
  ro.algo = "ring";
  ro.root = 0;
  c.base = make_run_config(ro, c.topo());
  auto mo = model_options(ro);
  if (!o.relay_outside) mo.relay_gpus = gpus;
  c.model = model::make_model(ro.model, c.topo(), mo);
  c.base.builder = c.model.get();
  c.size = parse_size(o.size, "--size");
  if (c.size == 0) fail("--size: must be positive");
  c.hops = std::make_unique<topology::HopTable>(c.topo(), *c.router, gpus);
  if (c.hops->size() < 2) fail("rings: needs at least 2 GPUs");
  if (o.top < 1) fail("--top: must be at least 1");
  if (o.exhaustive_max < 3 || o.exhaustive_max > 14) fail("--exhaustive-max: {} is out of range (3..14)", o.exhaustive_max);
  topology::RingSearchOptions so;
  so.step_bytes = metrics::ring_step_bytes(c.base.op, c.hops->size(), c.size, c.base.dtype.size);
  so.keep = std::max(32, 2 * o.top);
  so.exhaustive_max = o.exhaustive_max;
  // --explain on an exhaustive search: simulate every ring, so the given order's rank among all is exact.
  if (!o.explain.empty() && c.hops->size() <= so.exhaustive_max && distinct_rings(c.hops->size()) <= kRankAllMax)
    so.keep = static_cast<int>(distinct_rings(c.hops->size()));
  report::Progress bar("rings: searching", 100);
  if (bar.enabled()) so.progress = [&bar](double f) { bar.update(static_cast<std::size_t>(f * 100)); };
  c.found = topology::search_rings(*c.hops, so);
  bar.done();
  c.ranked = metrics::rank_candidates(c.topo(), *c.router, *c.hops, c.base, c.size, c.found);
  if (c.hops->size() >= 3 && c.hops->size() <= 16)
    c.direct_rings = static_cast<int>(
        topology::hamiltonian_cycles(c.topo(), c.hops->gpus(), [](const topology::Link&) { return true; }, 1000).size());
  else
    c.direct_rings = -1;
  return c;
}

std::string header(const Context& c) {
  return fmt::format("# ccsim rings: {} ({}), GPUs {}, {} {} {}, model {}{}\n", c.topo().name, c.topo().origin, join(c.hops->gpus()),
                     schedule::to_string(c.base.op), format_size(c.size), c.base.dtype.name, c.base.model_name,
                     c.relay_outside ? ", routes may relay through other GPUs" : "");
}

std::vector<int> all_gpus(const topology::Topology& t) {
  std::vector<int> g(static_cast<std::size_t>(t.num_gpus()));
  std::iota(g.begin(), g.end(), 0);
  return g;
}

// The GPUs to search over: --explain's ring (which must match --gpus when both are given), else --gpus or all.
std::vector<int> chosen_gpus(const RingsOptions& o, std::vector<int>& explain_ring) {
  const auto topo_probe = topology::resolve_topology(o.run.topo);
  if (o.explain.empty())
    return o.run.gpus.empty() ? all_gpus(topo_probe) : parse_gpu_list(o.run.gpus, "--gpus", topo_probe, o.run.one_based);
  explain_ring = parse_ring_order(o.explain, "--explain", topo_probe, o.run.one_based);
  auto gpus = explain_ring;
  std::sort(gpus.begin(), gpus.end());
  if (!o.run.gpus.empty()) {
    auto given = parse_gpu_list(o.run.gpus, "--gpus", topo_probe, o.run.one_based);
    std::sort(given.begin(), given.end());
    if (given != gpus) fail("--explain: the ring must visit exactly the GPUs of --gpus");
  }
  return gpus;
}

std::string list_or_none(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return v.empty() ? std::string("none") : s;
}

// The slowest effective hop bandwidth of a ring set (a hop shared by k rings gets 1/k of its link).
Bandwidth slowest_hop(const topology::HopTable& h, const metrics::RankedRing& r) {
  Bandwidth m = std::numeric_limits<Bandwidth>::max();
  const auto& ring = r.rings[0];
  const auto share = hop_sharing(h, ring, r.rings);
  for (std::size_t k = 0; k < ring.size(); ++k)
    m = std::min(m, h.at(h.local_of(ring[k]), h.local_of(ring[(k + 1) % ring.size()])).bottleneck / static_cast<Bandwidth>(share[k]));
  return m;
}

// --explain, part 1: the given ring hop by hop; returns the JSON hops.
nlohmann::json explain_hops(const Context& c, const std::vector<int>& ring, Bandwidth best_min, std::ostringstream& out,
                            std::vector<std::string>& slower) {
  const auto& h = *c.hops;
  const int p = h.size();
  const auto share = hop_sharing(h, ring, {ring});
  std::vector<std::string> single, doubled, routed;
  auto ja = nlohmann::json::array();
  out << fmt::format("  {:<9} {:<34} {:>8} {:>9} {:>7}\n", "hop", "link", "GB/s", "latency", "shared");
  for (int k = 0; k < p; ++k) {
    const int a = ring[static_cast<std::size_t>(k)], b = ring[static_cast<std::size_t>((k + 1) % p)];
    const auto& hop = h.at(h.local_of(a), h.local_of(b));
    const std::string name = fmt::format("{}->{}", a, b);
    const int shared = share[static_cast<std::size_t>(k)];
    const Bandwidth eff = hop.bottleneck / static_cast<Bandwidth>(shared);
    out << fmt::format("  {:<9} {:<34} {:>8.4g} {:>9} {:>7}\n", name, hop_text(h, hop), gbps(eff), format_duration(hop.latency),
                       shared > 1 ? fmt::format("x{}", shared) : "");
    if (!hop.direct) routed.push_back(name + " (" + hop_text(h, hop) + ")");
    else if (c.topo().link_of(hop.channels[0]).lanes > 1) doubled.push_back(name);
    else single.push_back(name);
    if (eff < best_min) slower.push_back(fmt::format("{} ({:.4g} GB/s)", name, gbps(eff)));
    ja.push_back({{"from", a}, {"to", b}, {"link", hop.kind}, {"via", hop.via}, {"effective_GBps", gbps(eff)}, {"shared_by", shared}});
  }
  out << fmt::format("  direct hops on 2+ lanes (NVLink x2 and wider): {}\n", list_or_none(doubled));
  out << fmt::format("  direct single-lane hops: {}\n", list_or_none(single));
  out << fmt::format("  routed hops (no direct link; what they cross): {}\n", list_or_none(routed));
  return ja;
}

// --explain, part 2: the given ring's place among all rings, when the search simulated every one.
nlohmann::json explain_rank(const Context& c, const std::vector<int>& ring, Time time, std::ostringstream& out) {
  if (!(c.found.exhaustive && static_cast<double>(c.ranked.size()) == c.found.distinct_rings)) {
    out << fmt::format("  rank: not computed ({}; the rank among all rings is computed when they are at most {:.0f}, i.e. up to 9 GPUs)\n",
                       c.found.exhaustive ? fmt::format("{:.0f} rings", c.found.distinct_rings) : "the search was not exhaustive",
                       kRankAllMax);
    return nullptr;
  }
  const auto pos = metrics::ring_position(c.ranked, ring, time);
  const auto nth = [](std::size_t n) {
    const char* suf = (n % 100 >= 11 && n % 100 <= 13) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
    return fmt::format("{}{}", n, suf);
  };
  out << fmt::format("  rank: {} of all {} rings (every ring simulated): {} strictly faster, {} tied (this one included), {} slower\n",
                     nth(pos.rank), pos.of, pos.faster, pos.tied, pos.slower);
  return {{"rank", pos.rank}, {"of", pos.of}, {"faster", pos.faster}, {"tied", pos.tied}, {"slower", pos.slower}};
}

// --explain, part 3: the best ring against the given one.
void explain_against_best(const Context& c, const std::vector<int>& ring, const metrics::RankedRing& mine, Bandwidth best_min,
                          const std::vector<std::string>& slower, std::ostringstream& out) {
  const auto& h = *c.hops;
  const int p = h.size();
  const auto& best = c.ranked.front();
  out << fmt::format("Best ring {}: {:.2f} us, busbw {:.2f} GB/s, limiting hop {}\n", join(best.rings[0]), to_us(best.row.time),
                     best.row.bw.busbw_GBps, limiting_text(h, best.bound));
  auto max_latency = [&](const std::vector<int>& r) {
    Time m = 0;
    for (int k = 0; k < p; ++k)
      m = std::max(m, h.at(h.local_of(r[static_cast<std::size_t>(k)]), h.local_of(r[static_cast<std::size_t>((k + 1) % p)])).latency);
    return m;
  };
  if (best.row.time < mine.row.time) {
    out << fmt::format("  The best order is {:.2f}x faster. Hops of the given order slower than every hop of the best ring "
                       "(its slowest carries {:.4g} GB/s): {}.\n",
                       static_cast<double>(mine.row.time) / static_cast<double>(best.row.time), gbps(best_min), list_or_none(slower));
    // Same bandwidth: then the per-step latency (routed hops cross more links) is what differs.
    out << fmt::format("  Slowest hop latency: {} here, {} in the best ring ({} steps pay it).\n", format_duration(max_latency(ring)),
                       format_duration(max_latency(best.rings[0])), c.base.op == schedule::Op::AllReduce ? 2 * (p - 1) : p - 1);
  } else if (mine.row.time == best.row.time) {
    out << "  The given order is as fast as the best ring found.\n";
  } else {
    out << "  The given order is faster than every ring the search simulated.\n";
  }
}

// --explain: why this order is slow or fast, hop by hop, against the best ring.
void explain_order(const RingsOptions& o, const Context& c, const std::vector<int>& ring, std::ostringstream& out, nlohmann::json& j) {
  const auto& h = *c.hops;
  const auto& best = c.ranked.front();
  const auto mine = metrics::simulate_rings(c.topo(), *c.router, h, c.base, c.size, {ring});
  const Bandwidth best_min = slowest_hop(h, best);
  out << header(c);
  out << fmt::format("Ring {} (as given{}):\n", join(ring), o.run.one_based ? ", shown 0-based" : "");
  std::vector<std::string> slower;
  const auto ja = explain_hops(c, ring, best_min, out, slower);
  out << fmt::format("  limiting hop: {}\n", limiting_text(h, mine.bound));
  out << fmt::format("  simulated: {:.2f} us, busbw {:.2f} GB/s\n", to_us(mine.row.time), mine.row.bw.busbw_GBps);
  const auto jrank = explain_rank(c, ring, mine.row.time, out);
  explain_against_best(c, ring, mine, best_min, slower, out);
  j["explain"] = {{"ring", ring}, {"hops", ja}, {"time_us", to_us(mine.row.time)}, {"busbw_GBps", mine.row.bw.busbw_GBps},
                  {"limiting", limiting_text(h, mine.bound)}, {"rank", jrank}};
  j["best"] = {{"ring", best.rings[0]}, {"time_us", to_us(best.row.time)}, {"busbw_GBps", best.row.bw.busbw_GBps},
               {"limiting", limiting_text(h, best.bound)}};
}

// The ranked rings, each with its hops.
void print_ranked(const RingsOptions& o, const Context& c, std::ostringstream& out, nlohmann::json& j) {
  const auto& h = *c.hops;
  const int p = h.size();
  out << fmt::format("# search: {}; {} complete rings scored by the bound, best {} simulated\n", c.found.method, c.found.scored, c.ranked.size());
  if (c.direct_rings == 0) out << "# no ring over direct GPU-GPU links exists for these GPUs: every ring has a routed hop\n";
  else if (c.direct_rings > 0) out << fmt::format("# rings over direct GPU-GPU links only: {}{} (undirected)\n", c.direct_rings, c.direct_rings >= 1000 ? "+" : "");
  out << fmt::format("# {:>4} {:>12} {:>12}  {:<24} {}\n", "rank", "time(us)", "busbw(GB/s)", "ring (0-based)", "bottleneck");
  auto jr = nlohmann::json::array();
  for (std::size_t i = 0; i < c.ranked.size() && static_cast<int>(i) < o.top; ++i) {
    const auto& r = c.ranked[i];
    out << fmt::format("  {:>4} {:>12.2f} {:>12.2f}  {:<24} {}\n", i + 1, to_us(r.row.time), r.row.bw.busbw_GBps, join(r.rings[0]),
                       limiting_text(h, r.bound));
    std::string hops;
    for (int k = 0; k < p; ++k) {
      const int a = r.rings[0][static_cast<std::size_t>(k)], b = r.rings[0][static_cast<std::size_t>((k + 1) % p)];
      hops += fmt::format("{}{}->{} {}", k ? " | " : "", a, b, hop_text(h, h.at(h.local_of(a), h.local_of(b))));
    }
    out << "         hops: " << hops << "\n";
    jr.push_back({{"rank", i + 1}, {"ring", r.rings[0]}, {"time_us", to_us(r.row.time)}, {"busbw_GBps", r.row.bw.busbw_GBps},
                  {"bottleneck", limiting_text(h, r.bound)}, {"hops", hops_json(h, r.rings[0])}});
  }
  j["rings"] = jr;
}

// Directed channels that carry more ring hops than their link has lanes (what "not link-disjoint" means).
void print_disjointness(const Context& c, const std::vector<std::vector<int>>& local_rings, int k, std::ostringstream& out, nlohmann::json& jc) {
  std::map<topology::ChannelId, int> load;
  for (const auto& r : local_rings)
    for (std::size_t i = 0; i < r.size(); ++i)
      for (auto ch : c.hops->at(r[i], r[(i + 1) % r.size()]).channels) ++load[ch];
  std::vector<std::string> over;
  auto jover = nlohmann::json::array();
  for (const auto& [ch, n] : load)
    if (const int lanes = c.topo().link_of(ch).lanes; n > lanes) {
      over.push_back(fmt::format("{} ({} rings, {} lane{})", c.topo().channel_name(ch), n, lanes, lanes > 1 ? "s" : ""));
      jover.push_back({{"channel", c.topo().channel_name(ch)}, {"rings", n}, {"lanes", lanes}});
    }
  if (over.empty())
    out << "  link-disjoint: no directed channel carries more rings than its link has lanes\n";
  else
    out << fmt::format("  NOT link-disjoint: {} directed channel{} carry more rings than {} link{} lanes (no link-disjoint set "
                       "of {} was found): {}\n",
                       over.size(), over.size() > 1 ? "s" : "", over.size() > 1 ? "their" : "its", over.size() > 1 ? "s have" : " has", k,
                       list_or_none(over));
  jc["link_disjoint"] = over.empty();
  jc["over_lanes"] = jover;
}

// --channels K: the best set of K rings at once; returns its simulated time.
Time print_channels(const Context& c, int k, std::ostringstream& out, nlohmann::json& j) {
  const auto& h = *c.hops;
  const int p = h.size();
  const auto pool = metrics::channel_pool(h, c.found);
  const auto set = topology::choose_ring_set(h, pool, k, metrics::ring_step_bytes(c.base.op, p, c.size, c.base.dtype.size));
  std::vector<std::vector<int>> rings;
  for (const auto& r : set.rings) rings.push_back(h.to_gpus(r));
  const auto sim = metrics::simulate_rings(c.topo(), *c.router, h, c.base, c.size, rings);
  out << fmt::format("\n# {} channels (rings used at once, 1/{} of the data each), chosen from {} candidate rings:\n", k, k, pool.size());
  auto js = nlohmann::json::array();
  for (std::size_t i = 0; i < rings.size(); ++i) {
    out << fmt::format("  channel {:>2}: {}\n", i, join(rings[i]));
    js.push_back({{"ring", rings[i]}, {"hops", hops_json(h, rings[i])}});
  }
  nlohmann::json jc{{"k", k}, {"rings", js}};
  print_disjointness(c, set.rings, k, out, jc);
  out << fmt::format("  combined: {:.2f} us, busbw {:.2f} GB/s; busiest: {}\n", to_us(sim.row.time), sim.row.bw.busbw_GBps,
                     limiting_text(h, set.score));
  out << fmt::format("  best single ring for comparison: busbw {:.2f} GB/s\n", c.ranked.front().row.bw.busbw_GBps);
  jc["time_us"] = to_us(sim.row.time);
  jc["busbw_GBps"] = sim.row.bw.busbw_GBps;
  j["channels"] = jc;
  return sim.row.time;
}

// Every schedule of the op, on the given order and on the best ring's order.
void print_schedules(const Context& c, Time best_ring_time, std::ostringstream& out, nlohmann::json& j) {
  std::vector<std::vector<int>> placements{c.hops->gpus(), c.ranked.front().rings[0]};
  const auto sched = metrics::compare_schedules(c.topo(), *c.router, c.base, c.size, placements);
  out << fmt::format("\n# every {} schedule, rank order = the GPUs as given or the best ring, whichever is faster:\n",
                     schedule::to_string(c.base.op));
  auto jsch = nlohmann::json::array();
  for (const auto& s : sched) {
    out << fmt::format("  {:<22} {:>12.2f} us {:>10.2f} GB/s  order {}\n", s.algo, to_us(s.row.time), s.row.bw.busbw_GBps, join(s.placement));
    jsch.push_back({{"algo", s.algo}, {"order", s.placement}, {"time_us", to_us(s.row.time)}, {"busbw_GBps", s.row.bw.busbw_GBps}});
  }
  if (!sched.empty()) {
    if (sched.front().algo != "ring" && sched.front().row.time < best_ring_time)
      out << fmt::format("  {} beats every ring examined ({:.2f} us vs {:.2f} us)\n", sched.front().algo, to_us(sched.front().row.time),
                         to_us(best_ring_time));
    else
      out << "  no other schedule beats the best ring\n";
  }
  j["schedules"] = jsch;
}

int run_rings(RingsOptions& o) {
  const auto fmt_json = o.format == "json";
  if (!fmt_json && o.format != "table") fail("--format: unknown format '{}' (table, json)", o.format);
  if (o.channels && *o.channels < 1) fail("--channels: must be at least 1, got {}", *o.channels);
  if (o.channels && *o.channels > 64) fail("--channels: {} is more than 64 rings at once", *o.channels);
  std::vector<int> explain_ring;
  Context c = prepare(o, chosen_gpus(o, explain_ring));
  std::ostringstream out;
  nlohmann::json j;
  j["topology"] = c.topo().name;
  j["gpus"] = c.hops->gpus();
  j["op"] = schedule::to_string(c.base.op);
  j["size"] = c.size;
  j["relay_outside"] = o.relay_outside;
  j["search"] = {{"exhaustive", c.found.exhaustive}, {"method", c.found.method}, {"distinct_rings", c.found.distinct_rings},
                 {"scored", c.found.scored}, {"simulated", c.ranked.size()}};
  if (c.direct_rings >= 0) j["direct_link_rings"] = c.direct_rings;
  if (!explain_ring.empty()) {
    explain_order(o, c, explain_ring, out, j);
  } else {
    out << header(c);
    print_ranked(o, c, out, j);
    Time best_ring_time = c.ranked.front().row.time; // with --channels, the channel set counts as a ring schedule too
    if (o.channels) best_ring_time = std::min(best_ring_time, print_channels(c, *o.channels, out, j));
    print_schedules(c, best_ring_time, out, j);
  }
  write_output(o.output, fmt_json ? safe_dump(j, 1) + "\n" : out.str());
  return 0;
}

} // namespace

void add_rings_command(CLI::App& app) {
  auto o = std::make_shared<RingsOptions>();
  auto* cmd = app.add_subcommand("rings", "Find and rank ring orders (one ring or --channels K at once); --explain an order");
  cmd->add_option("-t,--topo", o->run.topo, "Topology: a file, a shipped name or a generator spec")->capture_default_str();
  cmd->add_option("--gpus", o->run.gpus, "The GPUs to connect (default: all)");
  cmd->add_flag("--one-based", o->run.one_based, "GPU numbers in --gpus/--explain count from 1 (\"1-2-3-4-5-6-7-8-1\")");
  cmd->add_option("--op", o->run.op, "Collective the ring runs")->capture_default_str();
  cmd->add_option("--size,-n", o->size, "Message size (nccl-tests convention; K/M/G)")->capture_default_str();
  cmd->add_option("--top", o->top, "How many rings to print")->capture_default_str();
  cmd->add_option("--channels", o->channels, "Also find the best set of K rings used at once (NCCL channels)");
  cmd->add_option("--explain", o->explain, "Explain this ring order (e.g. 0,1,2,3,4,5,6,7) against the best one");
  cmd->add_option("--exhaustive-max", o->exhaustive_max, "Examine every ring up to this many GPUs; beyond, a bounded search")
      ->capture_default_str();
  cmd->add_option("-d,--datatype", o->run.datatype, "Element type")->capture_default_str();
  add_model_options(*cmd, o->run);
  cmd->add_flag("--relay-outside", o->relay_outside,
                "Let routes pass through GPUs outside --gpus (NCCL cannot; by default only the chosen GPUs relay)");
  cmd->add_option("--format", o->format, "table or json")->capture_default_str();
  cmd->add_option("--output", o->output, "Write to this file instead of stdout");
  cmd->callback([o] { run_rings(*o); });
}

} // namespace ccsim::cli
