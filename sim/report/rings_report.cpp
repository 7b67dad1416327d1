#include "sim/report/rings_report.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/json_file.hpp"
#include "sim/report/nccl_graph_xml.hpp"
#include "sim/report/report.hpp"
#include "sim/core/units.hpp"

namespace ccsim::report {
namespace {

// GPU lists and rings: listed up to 32 GPUs, more read as gpu_order_text gives them (report.hpp), every GPU still said.
std::string join(const std::vector<int>& v) { return gpu_order_text(v); }

std::string list_or_none(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return v.empty() ? std::string("none") : s;
}

double gbps(Bandwidth b) { return static_cast<double>(b) / 1e9; }

std::string hop_text(const topology::HopRoute& h) { return h.via.empty() ? h.kind : h.kind + " via " + h.via; }

// As hop_text, flagging an intermediate GPU outside the allocation: the hop borrows another job's GPU links.
std::string hop_text(const topology::HopTable& t, const topology::HopRoute& h) {
  std::string s = hop_text(h);
  for (int g : h.via_gpus)
    if (t.local_of(g) < 0) s += fmt::format(" (gpu{} not chosen)", g);
  return s;
}

const topology::HopRoute& hop_between(const topology::HopTable& h, int gpu_a, int gpu_b) {
  return h.at(h.local_of(gpu_a), h.local_of(gpu_b));
}

// Per hop of `ring` (GPU order): the most hops of `all` that share one of its channels.
std::vector<int> hop_sharing(const topology::HopTable& h, const std::vector<int>& ring, const std::vector<std::vector<int>>& all) {
  std::map<topology::ChannelId, int> load;
  for (const auto& r : all)
    for (std::size_t k = 0; k < r.size(); ++k)
      for (auto c : hop_between(h, r[k], r[(k + 1) % r.size()]).channels) ++load[c];
  std::vector<int> out;
  for (std::size_t k = 0; k < ring.size(); ++k) {
    int m = 0;
    for (auto c : hop_between(h, ring[k], ring[(k + 1) % ring.size()]).channels) m = std::max(m, load[c]);
    out.push_back(m);
  }
  return out;
}

// The slowest effective hop bandwidth of a ring set (a hop shared by k rings gets 1/k of its link).
Bandwidth slowest_hop(const topology::HopTable& h, const metrics::RankedRing& r) {
  Bandwidth m = std::numeric_limits<Bandwidth>::max();
  const auto& ring = r.rings[0];
  const auto share = hop_sharing(h, ring, r.rings);
  for (std::size_t k = 0; k < ring.size(); ++k)
    m = std::min(m, hop_between(h, ring[k], ring[(k + 1) % ring.size()]).bottleneck / static_cast<Bandwidth>(share[k]));
  return m;
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
    const auto& hop = hop_between(h, a, b);
    arr.push_back({{"from", a}, {"to", b}, {"link", hop.kind}, {"via", hop.via}, {"direct", hop.direct},
                   {"bottleneck_GBps", gbps(hop.bottleneck)}, {"latency_us", to_us(hop.latency)}});
  }
  return arr;
}

std::string header(const RingsFindings& f) {
  return fmt::format("# ccsim rings: {} ({}), GPUs {}, {} {} {}, model {}{}\n", f.topo->name, f.topo->origin, join(f.hops->gpus()),
                     schedule::to_string(f.base->op), format_size(f.size), f.base->dtype.name, f.base->model_name,
                     f.relay_outside ? ", routes may relay through other GPUs" : "");
}

// --explain, part 1: the given ring hop by hop; returns the JSON hops.
nlohmann::json explain_hops(const RingsFindings& f, Bandwidth best_min, std::ostringstream& out, std::vector<std::string>& slower) {
  const auto& h = *f.hops;
  const auto& ring = f.explain_ring;
  const int p = h.size();
  const auto share = hop_sharing(h, ring, {ring});
  std::vector<std::string> single, doubled, routed;
  auto ja = nlohmann::json::array();
  out << fmt::format("  {:<9} {:<34} {:>8} {:>9} {:>7}\n", "hop", "link", "GB/s", "latency", "shared");
  for (int k = 0; k < p; ++k) {
    const int a = ring[static_cast<std::size_t>(k)], b = ring[static_cast<std::size_t>((k + 1) % p)];
    const auto& hop = hop_between(h, a, b);
    const std::string name = fmt::format("{}->{}", a, b);
    const int shared = share[static_cast<std::size_t>(k)];
    const Bandwidth eff = hop.bottleneck / static_cast<Bandwidth>(shared);
    out << fmt::format("  {:<9} {:<34} {:>8.4g} {:>9} {:>7}\n", name, hop_text(h, hop), gbps(eff), format_duration(hop.latency),
                       shared > 1 ? fmt::format("x{}", shared) : "");
    if (!hop.direct) routed.push_back(name + " (" + hop_text(h, hop) + ")");
    else if (f.topo->link_of(hop.channels[0]).lanes > 1) doubled.push_back(name);
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
nlohmann::json explain_rank(const RingsFindings& f, std::ostringstream& out) {
  if (!f.position) {
    out << fmt::format("  rank: not computed ({}; the rank among all rings is computed when they are at most {:.0f}, i.e. up to 9 GPUs)\n",
                       f.found->exhaustive ? fmt::format("{:.0f} rings", f.found->distinct_rings) : "the search was not exhaustive",
                       f.rank_all_max);
    return nullptr;
  }
  const auto& pos = *f.position;
  const auto nth = [](std::size_t n) {
    const char* suf = (n % 100 >= 11 && n % 100 <= 13) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
    return fmt::format("{}{}", n, suf);
  };
  out << fmt::format("  rank: {} of all {} rings (every ring simulated): {} strictly faster, {} tied (this one included), {} slower\n",
                     nth(pos.rank), pos.of, pos.faster, pos.tied, pos.slower);
  return {{"rank", pos.rank}, {"of", pos.of}, {"faster", pos.faster}, {"tied", pos.tied}, {"slower", pos.slower}};
}

// --explain, part 3: the best ring against the given one.
void explain_against_best(const RingsFindings& f, Bandwidth best_min, const std::vector<std::string>& slower, std::ostringstream& out) {
  const auto& h = *f.hops;
  const int p = h.size();
  const auto& best = f.ranked->front();
  const auto& mine = *f.explained;
  out << fmt::format("Best ring {}: {:.2f} us, busbw {:.2f} GB/s, limiting hop {}\n", join(best.rings[0]), to_us(best.row.time),
                     best.row.bw.busbw_GBps, limiting_text(h, best.bound));
  auto max_latency = [&](const std::vector<int>& r) {
    Time m = 0;
    for (int k = 0; k < p; ++k)
      m = std::max(m, hop_between(h, r[static_cast<std::size_t>(k)], r[static_cast<std::size_t>((k + 1) % p)]).latency);
    return m;
  };
  if (best.row.time < mine.row.time) {
    out << fmt::format("  The best order is {:.2f}x faster. Hops of the given order slower than every hop of the best ring "
                       "(its slowest carries {:.4g} GB/s): {}.\n",
                       static_cast<double>(mine.row.time) / static_cast<double>(best.row.time), gbps(best_min), list_or_none(slower));
    // Same bandwidth: then the per-step latency (routed hops cross more links) is what differs.
    out << fmt::format("  Slowest hop latency: {} here, {} in the best ring ({} steps pay it).\n", format_duration(max_latency(f.explain_ring)),
                       format_duration(max_latency(best.rings[0])), f.base->op == schedule::Op::AllReduce ? 2 * (p - 1) : p - 1);
  } else if (mine.row.time == best.row.time) {
    out << "  The given order is as fast as the best ring found.\n";
  } else {
    out << "  The given order is faster than every ring the search simulated.\n";
  }
}

// --explain: why this order is slow or fast, hop by hop, against the best ring.
void explain_order(const RingsFindings& f, std::ostringstream& out, nlohmann::json& j) {
  const auto& h = *f.hops;
  const auto& best = f.ranked->front();
  const auto& mine = *f.explained;
  const Bandwidth best_min = slowest_hop(h, best);
  out << header(f);
  out << fmt::format("Ring {} (as given{}):\n", join(f.explain_ring), f.one_based ? ", shown 0-based" : "");
  std::vector<std::string> slower;
  const auto ja = explain_hops(f, best_min, out, slower);
  out << fmt::format("  limiting hop: {}\n", limiting_text(h, mine.bound));
  out << fmt::format("  simulated: {:.2f} us, busbw {:.2f} GB/s\n", to_us(mine.row.time), mine.row.bw.busbw_GBps);
  const auto jrank = explain_rank(f, out);
  explain_against_best(f, best_min, slower, out);
  j["explain"] = {{"ring", f.explain_ring}, {"hops", ja}, {"time_us", to_us(mine.row.time)}, {"busbw_GBps", mine.row.bw.busbw_GBps},
                  {"limiting", limiting_text(h, mine.bound)}, {"rank", jrank}};
  j["best"] = {{"ring", best.rings[0]}, {"time_us", to_us(best.row.time)}, {"busbw_GBps", best.row.bw.busbw_GBps},
               {"limiting", limiting_text(h, best.bound)}};
}

// Whether every GPU pair is one NVSwitch hop of the same width and latency (an HGX board, an NVL rack): there the
// order cannot matter, which "no ring over direct links" would hide from someone with an 8-GPU NVSwitch box.
bool through_one_switch(const topology::HopTable& h) {
  const auto& first = h.at(0, h.size() > 1 ? 1 : 0);
  for (int i = 0; i < h.size(); ++i)
    for (int j = 0; j < h.size(); ++j)
      if (i != j && (h.at(i, j).kind != "NVSwitch" || h.at(i, j).bottleneck != first.bottleneck || h.at(i, j).latency != first.latency))
        return false;
  return h.size() > 1;
}

// The ranked rings, each with its hops.
void print_ranked(const RingsFindings& f, std::ostringstream& out, nlohmann::json& j) {
  const auto& h = *f.hops;
  const int p = h.size();
  out << fmt::format("# search: {}; {} complete rings scored by the bound, best {} simulated\n", f.found->method, f.found->scored,
                     f.ranked->size());
  if (f.direct_rings == 0 && through_one_switch(h))
    out << "# every pair meets through the NVSwitch at the same bandwidth and latency: every ring order is as fast\n";
  else if (f.direct_rings == 0) out << "# no ring over direct GPU-GPU links exists for these GPUs: every ring has a routed hop\n";
  else if (f.direct_rings > 0)
    out << fmt::format("# rings over direct GPU-GPU links only: {}{} (undirected)\n", f.direct_rings, f.direct_rings >= 1000 ? "+" : "");
  out << fmt::format("# {:>4} {:>12} {:>12}  {:<24} {}\n", "rank", "time(us)", "busbw(GB/s)", "ring (0-based)", "bottleneck");
  auto jr = nlohmann::json::array();
  for (std::size_t i = 0; i < f.ranked->size() && static_cast<int>(i) < f.top; ++i) {
    const auto& r = (*f.ranked)[i];
    out << fmt::format("  {:>4} {:>12.2f} {:>12.2f}  {:<24} {}\n", i + 1, to_us(r.row.time), r.row.bw.busbw_GBps, join(r.rings[0]),
                       limiting_text(h, r.bound));
    std::string hops;
    std::map<std::string, int> kinds; // beyond 32 GPUs: hops counted by kind, each hop in --format json
    for (int k = 0; k < p; ++k) {
      const int a = r.rings[0][static_cast<std::size_t>(k)], b = r.rings[0][static_cast<std::size_t>((k + 1) % p)];
      const auto& hop = hop_between(h, a, b);
      if (p > 32) ++kinds[hop.kind];
      else hops += fmt::format("{}{}->{} {}", k ? " | " : "", a, b, hop_text(h, hop));
    }
    if (p > 32) {
      for (const auto& [kind, n] : kinds) hops += fmt::format("{}{} x {}", hops.empty() ? "" : ", ", n, kind);
      hops += " (each hop in --format json)";
    }
    out << "         hops: " << hops << "\n";
    jr.push_back({{"rank", i + 1}, {"ring", r.rings[0]}, {"time_us", to_us(r.row.time)}, {"busbw_GBps", r.row.bw.busbw_GBps},
                  {"bottleneck", limiting_text(h, r.bound)}, {"hops", hops_json(h, r.rings[0])}});
  }
  j["rings"] = jr;
}

// Directed channels that carry more ring hops than their link has lanes (what "not link-disjoint" means).
void print_disjointness(const RingsFindings& f, std::ostringstream& out, nlohmann::json& jc) {
  const auto& set = *f.channels;
  std::map<topology::ChannelId, int> load;
  for (const auto& r : set.choice.rings)
    for (std::size_t i = 0; i < r.size(); ++i)
      for (auto ch : f.hops->at(r[i], r[(i + 1) % r.size()]).channels) ++load[ch];
  std::vector<std::string> over;
  auto jover = nlohmann::json::array();
  for (const auto& [ch, n] : load)
    if (const int lanes = f.topo->link_of(ch).lanes; n > lanes) {
      over.push_back(fmt::format("{} ({} rings, {} lane{})", f.topo->channel_name(ch), n, lanes, lanes > 1 ? "s" : ""));
      jover.push_back({{"channel", f.topo->channel_name(ch)}, {"rings", n}, {"lanes", lanes}});
    }
  if (over.empty())
    out << "  link-disjoint: no directed channel carries more rings than its link has lanes\n";
  else
    out << fmt::format("  NOT link-disjoint: {} directed channel{} carry more rings than {} link{} lanes (no link-disjoint set "
                       "of {} was found): {}\n",
                       over.size(), over.size() > 1 ? "s" : "", over.size() > 1 ? "their" : "its", over.size() > 1 ? "s have" : " has",
                       set.k, list_or_none(over));
  jc["link_disjoint"] = over.empty();
  jc["over_lanes"] = jover;
}

// --channels K: the set of K rings used at once.
void print_channels(const RingsFindings& f, std::ostringstream& out, nlohmann::json& j) {
  const auto& h = *f.hops;
  const auto& set = *f.channels;
  out << fmt::format("\n# {} channels (rings used at once, 1/{} of the data each), chosen from {} candidate rings:\n", set.k, set.k, set.pool);
  auto js = nlohmann::json::array();
  for (std::size_t i = 0; i < set.rings.size(); ++i) {
    out << fmt::format("  channel {:>2}: {}\n", i, join(set.rings[i]));
    js.push_back({{"ring", set.rings[i]}, {"hops", hops_json(h, set.rings[i])}});
  }
  nlohmann::json jc{{"k", set.k}, {"rings", js}};
  print_disjointness(f, out, jc);
  const auto& sim = set.simulated.row;
  out << fmt::format("  combined: {:.2f} us, busbw {:.2f} GB/s; busiest: {}\n", to_us(sim.time), sim.bw.busbw_GBps,
                     limiting_text(h, set.choice.score));
  out << fmt::format("  best single ring for comparison: busbw {:.2f} GB/s\n", f.ranked->front().row.bw.busbw_GBps);
  jc["time_us"] = to_us(sim.time);
  jc["busbw_GBps"] = sim.bw.busbw_GBps;
  j["channels"] = jc;
}

// Every schedule of the op, on the given order and on the best ring's order.
void print_schedules(const RingsFindings& f, std::ostringstream& out, nlohmann::json& j) {
  out << fmt::format("\n# every {} schedule, rank order = the GPUs as given or the best ring, whichever is faster:\n",
                     schedule::to_string(f.base->op));
  auto jsch = nlohmann::json::array();
  for (const auto& s : f.schedules) {
    out << fmt::format("  {:<22} {:>12.2f} us {:>10.2f} GB/s  order {}\n", s.algo, to_us(s.row.time), s.row.bw.busbw_GBps, join(s.placement));
    jsch.push_back({{"algo", s.algo}, {"order", s.placement}, {"time_us", to_us(s.row.time)}, {"busbw_GBps", s.row.bw.busbw_GBps}});
  }
  if (!f.schedules.empty()) {
    const auto& first = f.schedules.front();
    // With --channels the bar is the faster of the best single ring and the channel set: name which one it is.
    const bool set_wins = f.channels && f.channels->simulated.row.time == f.best_ring_time &&
                          f.channels->simulated.row.time < f.ranked->front().row.time;
    const std::string bar = set_wins ? fmt::format("the {}-channel ring set", f.channels->k) : "the best ring";
    if (first.algo != "ring" && first.row.time < f.best_ring_time)
      out << fmt::format("  {} beats {} ({:.2f} us vs {:.2f} us)\n", first.algo, set_wins ? bar : "every ring examined",
                         to_us(first.row.time), to_us(f.best_ring_time));
    else
      out << fmt::format("  no other schedule beats {} ({:.2f} us)\n", bar, to_us(f.best_ring_time));
  }
  j["schedules"] = jsch;
}

// How to hand the rings just found to NCCL: NCCL_RINGS (ranks; read by NCCL up to v2.4.8-1, src/misc/rings.cc
// ncclGetRings) or, from v2.6.4-1, a graph file (NCCL_GRAPH_FILE, src/graph/search.cc) that --nccl-graph writes.
void print_nccl(const RingsFindings& f, std::ostringstream& out, nlohmann::json& j) {
  const auto& h = *f.hops;
  const auto& rings = f.channels ? f.channels->rings : f.ranked->front().rings;
  std::vector<std::vector<int>> ranks;
  for (const auto& r : rings) ranks.push_back(h.to_local(r));
  const std::string env = nccl_rings_env(ranks);
  const std::string what = f.channels ? fmt::format("the {} channels", f.channels->k) : "the best ring";
  // Beyond 32 GPUs (as the hops above) the lines would run to thousands of characters: --format json has them.
  const auto& g = h.gpus();
  bool identity = true;
  for (std::size_t i = 0; i < g.size(); ++i) identity = identity && g[i] == static_cast<int>(i);
  const std::string ranks_on = identity && g.size() > 32 ? "rank i on GPU i"
                               : g.size() > 32           ? "rank i on the i-th GPU of --gpus"
                                                         : fmt::format("rank i on GPU {} in that order", join(g));
  out << fmt::format("\n# to run {} in NCCL ({}, one process per GPU):\n", what, ranks_on);
  if (g.size() > 32)
    out << fmt::format("#   NCCL 2.4.8 and older: NCCL_RINGS, {} ranks per ring: in --format json (nccl.NCCL_RINGS)\n", g.size());
  else
    out << fmt::format("#   NCCL 2.4.8 and older: NCCL_RINGS=\"{}\"\n", env);
  bool crosses_network = false; // a graph file is one node's (--nccl-graph refuses a ring over the network)
  for (const auto& r : rings)
    for (std::size_t i = 0; i < r.size(); ++i) crosses_network = crosses_network || hop_between(h, r[i], r[(i + 1) % r.size()]).kind == "NET";
  if (crosses_network)
    out << "#   NCCL 2.6.4 and later: no such variable; a graph file (NCCL_GRAPH_FILE) holds one node's GPUs: --nccl-graph "
           "writes one for one node's GPUs (--gpus)\n";
  else
    out << "#   NCCL 2.6.4 and later: add --nccl-graph ring.xml to this command, then run with NCCL_GRAPH_FILE=ring.xml\n";
  j["nccl"] = {{"rings", rings}, {"NCCL_RINGS", env}};
}

void render(const RingsFindings& f, std::ostringstream& out, nlohmann::json& j) {
  j["topology"] = f.topo->name;
  j["gpus"] = f.hops->gpus();
  j["op"] = schedule::to_string(f.base->op);
  j["size"] = f.size;
  j["relay_outside"] = f.relay_outside;
  j["search"] = {{"exhaustive", f.found->exhaustive}, {"method", f.found->method}, {"distinct_rings", f.found->distinct_rings},
                 {"scored", f.found->scored}, {"simulated", f.ranked->size()}};
  if (f.direct_rings >= 0) j["direct_link_rings"] = f.direct_rings;
  if (f.explained) {
    explain_order(f, out, j);
    return;
  }
  out << header(f);
  print_ranked(f, out, j);
  if (f.channels) print_channels(f, out, j);
  print_nccl(f, out, j);
  print_schedules(f, out, j);
}

} // namespace

std::string rings_text(const RingsFindings& f) {
  std::ostringstream out;
  nlohmann::json j;
  render(f, out, j);
  return out.str();
}

std::string rings_json(const RingsFindings& f) {
  std::ostringstream out;
  nlohmann::json j;
  render(f, out, j);
  return safe_dump(j, 1) + "\n";
}

} // namespace ccsim::report
