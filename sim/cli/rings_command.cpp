#include "sim/cli/rings_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "sim/cli/common.hpp"
#include "sim/cli/parse_errors.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/ring_rank.hpp"
#include "sim/model/registry.hpp"
#include "sim/report/nccl_graph_xml.hpp"
#include "sim/report/progress.hpp"
#include "sim/report/rings_report.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/p2p.hpp"

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
  std::string nccl_graph; // --nccl-graph FILE: the rings as NCCL's graph XML (NCCL_GRAPH_FILE)
  bool relay_outside = false; // routes may pass through GPUs outside --gpus
};

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

// Up to this many GPUs `rings` takes a few seconds at most and says nothing on stderr beyond its progress bar.
constexpr std::size_t kQuietGpus = 32;

// The search routes every GPU pair up front (about 0.5 KiB each: 0.5 GiB and ~20 s at 1024 GPUs).
constexpr std::size_t kRingsMaxGpus = 1024;

Context prepare(const RingsOptions& o, const std::vector<int>& gpus) {
  if (gpus.size() > kRingsMaxGpus)
    fail("rings: {} GPUs is more than the ring search handles (at most {}, it routes every GPU pair); pick a subset "
         "with --gpus",
         gpus.size(), kRingsMaxGpus);
  // Beyond a few dozen GPUs the simulations after the search take long (512 H200s: about two minutes, most of it
  // double_binary_tree's thousands of segments): say so at once on a terminal, with the flags that shorten it.
  if (gpus.size() > kQuietGpus && report::Progress::stderr_is_terminal())
    std::cerr << fmt::format("ccsim rings: {} GPUs: a bounded ring search, then each ring it keeps and every {} schedule "
                             "simulated at {} ranks: seconds to minutes (512 GPUs: about two; the bar below says which step runs); fewer "
                             "GPUs (--gpus 0..{}) or a smaller message (--size 1M) shorten it\n",
                             gpus.size(), o.run.op, gpus.size(), std::min<std::size_t>(gpus.size(), 64) / 2 - 1);
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
  if (c.hops->size() < 2) {
    const char* from = !o.explain.empty() ? "--explain" : !o.run.gpus.empty() ? "--gpus" : "--topo";
    fail("{}: a ring needs at least 2 GPUs, this gives {}", from, c.hops->size());
  }
  if (o.top < 1) fail("--top: must be at least 1");
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
  {
    report::Progress sims("rings: simulating", c.found.best.size());
    c.ranked = metrics::rank_candidates(c.topo(), *c.router, *c.hops, c.base, c.size, c.found,
                                        [&sims](std::size_t i, std::size_t, const std::string& what) { sims.update(i, what); });
  }
  if (c.hops->size() >= 3 && c.hops->size() <= 16)
    c.direct_rings = static_cast<int>(
        topology::hamiltonian_cycles(c.topo(), c.hops->gpus(), [](const topology::Link&) { return true; }, 1000).size());
  else
    c.direct_rings = -1;
  return c;
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

// --channels K: the best set of K rings used at once, and its simulation.
report::RingsFindings::ChannelSet choose_channels(const Context& c, int k) {
  const auto& h = *c.hops;
  report::RingsFindings::ChannelSet set;
  set.k = k;
  const auto pool = metrics::channel_pool(h, c.found);
  set.pool = pool.size();
  set.choice = topology::choose_ring_set(h, pool, k, metrics::ring_step_bytes(c.base.op, h.size(), c.size, c.base.dtype.size));
  for (const auto& r : set.choice.rings) set.rings.push_back(h.to_gpus(r));
  set.simulated = metrics::simulate_rings(c.topo(), *c.router, h, c.base, c.size, set.rings);
  return set;
}

// --explain ORDER: its simulation, and its rank when the search simulated every ring.
void explain_order(const Context& c, const std::vector<int>& ring, report::RingsFindings& f) {
  f.explain_ring = ring;
  f.explained = metrics::simulate_rings(c.topo(), *c.router, *c.hops, c.base, c.size, {ring});
  if (c.found.exhaustive && static_cast<double>(c.ranked.size()) == c.found.distinct_rings)
    f.position = metrics::ring_position(c.ranked, ring, f.explained->row.time);
}

// --nccl-graph FILE: the explained order, else the channel set, else the best ring, as NCCL_GRAPH_FILE reads it.
void write_nccl_graph(const RingsOptions& o, const Context& c, const report::RingsFindings& f) {
  const auto& rings = f.explained ? f.explained->rings : f.channels ? f.channels->rings : c.ranked.front().rings;
  const auto& row = f.explained ? f.explained->row : f.channels ? f.channels->simulated.row : c.ranked.front().row;
  const auto& h = *c.hops;
  topology::PathClassifier classify(c.topo());
  topology::PathClass farthest = topology::PathClass::Loc;
  for (const auto& ring : rings)
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const int a = ring[i], b = ring[(i + 1) % ring.size()];
      // A graph file holds one node's chain between NICs, which `rings` does not choose.
      if (h.at(h.local_of(a), h.local_of(b)).kind == "NET")
        fail("--nccl-graph: hop {}->{} crosses the network; NCCL's graph file describes the GPUs of one node (give one "
             "node's GPUs with --gpus)", a, b);
      // Two NVLinks through a GPU of the job is NCCL's NVB (path_class answers PCIe classes and NVL only).
      const auto& hop = h.at(h.local_of(a), h.local_of(b));
      farthest = std::max(farthest, hop.nvlink_only && !hop.via_gpus.empty() ? topology::PathClass::Nvb : classify(a, b));
    }
  report::NcclRingGraph g;
  g.rings = rings;
  g.speed_GBps = std::round(row.bw.busbw_GBps / static_cast<double>(rings.size()) * 10) / 10;
  g.type_intra = std::string(topology::name(farthest));
  g.comment = fmt::format("written by ccsim rings for topology {}: {} ring(s) for NCCL_GRAPH_FILE (NCCL 2.6.4 and later); gpu dev "
                          "= the GPU's nvidia-smi (NVML) index; speedintra = ccsim's predicted busbw per ring ({:.2f} GB/s in "
                          "all at {} B); typeintra = NCCL's path type of the farthest hop",
                          c.topo().name, rings.size(), row.bw.busbw_GBps, c.size);
  write_output(o.nccl_graph, report::nccl_graph_xml(g), "--nccl-graph");
}

int run_rings(RingsOptions& o) {
  const auto fmt_json = o.format == "json";
  if (!fmt_json && o.format != "table") fail("--format: unknown format '{}' (table, json)", o.format);
  if (o.channels && *o.channels < 1) fail("--channels: must be at least 1, got {}", *o.channels);
  if (o.channels && *o.channels > 64) fail("--channels: {} is more than 64 rings at once", *o.channels);
  // As --timeline: the XML on standard output would run into the table (and a file shared with --output lose one).
  if (o.nccl_graph == "-" || (!o.nccl_graph.empty() && o.nccl_graph == o.output))
    fail("--nccl-graph: give a file of its own (the rings go to stdout or --output)");
  std::vector<int> explain_ring;
  Context c = prepare(o, chosen_gpus(o, explain_ring));
  report::RingsFindings f;
  f.topo = &c.topo();
  f.hops = c.hops.get();
  f.base = &c.base;
  f.found = &c.found;
  f.ranked = &c.ranked;
  f.size = c.size;
  f.top = o.top;
  f.relay_outside = o.relay_outside;
  f.one_based = o.run.one_based;
  f.direct_rings = c.direct_rings;
  f.rank_all_max = kRankAllMax;
  if (!explain_ring.empty()) {
    explain_order(c, explain_ring, f);
  } else {
    f.best_ring_time = c.ranked.front().row.time; // with --channels, the channel set counts as a ring schedule too
    if (o.channels) {
      f.channels = choose_channels(c, *o.channels);
      f.best_ring_time = std::min(f.best_ring_time, f.channels->simulated.row.time);
    }
    const std::vector<std::vector<int>> placements{c.hops->gpus(), c.ranked.front().rings[0]};
    const std::size_t schedule_runs = metrics::schedule_runs(c.base.op, placements.size());
    report::Progress sims("rings: every schedule", schedule_runs);
    f.schedules = metrics::compare_schedules(c.topo(), *c.router, c.base, c.size, placements,
                                             [&sims](std::size_t i, std::size_t, const std::string& what) { sims.update(i, what); });
  }
  if (!o.nccl_graph.empty()) write_nccl_graph(o, c, f);
  write_output(o.output, fmt_json ? report::rings_json(f) : report::rings_text(f), "--output");
  return 0;
}

} // namespace

void add_rings_command(CLI::App& app) {
  auto o = std::make_shared<RingsOptions>();
  auto* cmd = app.add_subcommand("rings", "Find and rank ring orders (one ring or --channels K at once); --explain an order");
  cmd->add_option("-t,--topo", o->run.topo, "Topology: a file, a shipped name or a generator spec")->capture_default_str();
  add_gpu_option(*cmd);
  cmd->add_option("--gpus", o->run.gpus, "The GPUs to connect (default: all)");
  cmd->add_flag("--one-based", o->run.one_based, "GPU numbers in --gpus/--explain count from 1 (\"1-2-3-4-5-6-7-8-1\")");
  cmd->add_option("--op", o->run.op, "Collective the ring runs")->capture_default_str();
  cmd->add_option("--size,-n", o->size, "Message size (nccl-tests convention; K/M/G)")->capture_default_str();
  cmd->add_option("--top", o->top, "How many rings to print")->capture_default_str();
  cmd->add_option("--channels", o->channels, "Also find the best set of K rings used at once (NCCL channels)");
  cmd->add_option("--explain", o->explain, "Explain this ring order (e.g. 0,1,2,3,4,5,6,7) against the best one");
  cmd->add_option("--exhaustive-max", o->exhaustive_max, "Examine every ring up to this many GPUs; beyond, a bounded search")
      ->capture_default_str()
      ->check(whole_in_range(3, 14));
  cmd->add_option("-d,--datatype", o->run.datatype, "Element type")->capture_default_str();
  add_model_options(*cmd, o->run);
  cmd->add_flag("--relay-outside", o->relay_outside,
                "Let routes pass through GPUs outside --gpus (NCCL cannot; by default only the chosen GPUs relay)");
  cmd->add_option("--format", o->format, "table or json")->capture_default_str();
  cmd->add_option("--output", o->output, "Write to this file instead of stdout");
  cmd->add_option("--nccl-graph", o->nccl_graph,
                  "Also write the best ring (the --channels set, the --explain order) as NCCL's graph XML, for NCCL_GRAPH_FILE");
  cmd->callback([o] { run_rings(*o); });
}

} // namespace ccsim::cli
