#include "sim/metrics/explain.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/cost/best_segment.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"

namespace ccsim::metrics {
using schedule::Action;
using schedule::Op;

std::string busbw_reason(Op op) {
  switch (op) {
    case Op::AllReduce:
      return "every element needs p-1 reductions and p copies, each on a different rank, so 2(p-1) transfers of the "
             "vector are spread over p ranks' links: busbw = algbw * 2(p-1)/p is the rate each link runs at";
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::AllToAll:
    case Op::Gather:
    case Op::Scatter:
      return "each rank must receive (or send) the (p-1)/p of the total buffer that is not its own, so "
             "busbw = algbw * (p-1)/p is the rate each link runs at";
    case Op::Broadcast:
    case Op::Reduce:
      return "the root must send (or receive) the whole vector once, so busbw = algbw: the root's link is the bottleneck";
    case Op::Scan:
      return "nccl-tests has no scan; ccsim uses busbw = algbw (factor 1), as for reduce: the last rank must receive "
             "at least n bytes (its prefix depends on every other rank), so its link carries at least the whole vector";
    case Op::SendRecv:
      return "every rank sends its whole vector to one other rank over its own link, so busbw = algbw (factor 1, as "
             "nccl-tests' sendrecv_perf): the rate one link runs at";
    case Op::HyperCube:
      return "nccl-tests' hypercube_perf counts algbw as the (p-1)/p of the total each rank receives and prints "
             "busbw = algbw (factor 1), so busbw is the rate each link runs at, as for allgather";
    case Op::Barrier:
      return "nccl-tests has no barrier; a barrier moves no data, so its size is 0 and algbw = busbw = 0 "
             "(factor 1, never meaningful): only its time counts";
  }
  return "";
}

namespace {

// Records what the schedule's messages crossed, to name the links and spot contention.
class LinkWatcher final : public engine::Observer {
 public:
  explicit LinkWatcher(topology::Router& r) : router_(r) {}
  void on_transfer(const engine::TransferRecord& t) override {
    if (t.route.empty()) return;
    if (t.start > t.post) ++queued, max_wait = std::max(max_wait, t.start - t.post);
    // A pipelined schedule sends many segments down each route: what a route adds is counted once (the
    // router's info and the channel set were a sixth of `ccsim rings` on 512 GPUs when redone per message).
    if (!seen_routes_.emplace(t.route.begin(), t.route.end()).second) return;
    const auto info = router_.info(t.route);
    max_latency = std::max(max_latency, info.latency);
    min_bw = min_bw == 0 ? info.bottleneck : std::min(min_bw, info.bottleneck);
    max_hops = std::max(max_hops, info.hops);
    bottlenecks.insert(info.bottleneck);
    for (auto c : t.route) channels.insert(c);
  }
  struct RouteHash {
    std::size_t operator()(const std::vector<topology::ChannelId>& r) const {
      std::size_t h = 1469598103934665603ull; // FNV-1a over the channel ids
      for (auto c : r) h = (h ^ c) * 1099511628211ull;
      return h;
    }
  };
  std::unordered_set<std::vector<topology::ChannelId>, RouteHash> seen_routes_;
  topology::Router& router_;
  Time max_latency = 0, max_wait = 0;
  Bandwidth min_bw = 0;
  int max_hops = 0;
  std::uint64_t queued = 0;
  std::set<Bandwidth> bottlenecks;
  std::set<topology::ChannelId> channels;
};

std::string rel(int peer, int rank, int p) {
  const int d = ((peer - rank) % p + p) % p;
  if (d == 0) return "itself";
  if (d <= p / 2) return fmt::format("rank+{}", d);
  return fmt::format("rank-{}", p - d);
}

// The rank whose steps show the algorithm best: the one with the most steps among the first 64 (for p
// not a power of two, rank 0 often only folds in and out; a survivor runs the main rounds), the lowest on a tie.
int shown_rank(const schedule::Schedule& s) {
  std::vector<Action> acts;
  int best = 0, most = -1;
  for (int r = 0; r < std::min(s.args().ranks, 64); ++r) {
    int n = 0;
    while (n < 2000 && s.step(r, n, acts)) ++n;
    if (n > most) best = r, most = n;
  }
  return best;
}

// One step in words; repeated identical actions (Bruck's local rotations) are said once with a count.
std::string step_words(const std::vector<Action>& acts, int rank, int p, Bytes elt) {
  std::vector<std::string> parts;
  for (const auto& a : acts) {
    const Bytes b = a.len * elt;
    switch (a.kind) {
      case Action::Kind::Send: parts.push_back(fmt::format("send {} to {}", format_size(b), rel(a.peer, rank, p))); break;
      case Action::Kind::Recv: parts.push_back(fmt::format("receive {} from {}", format_size(b), rel(a.peer, rank, p))); break;
      case Action::Kind::RecvReduce:
        parts.push_back(fmt::format("receive and reduce {} from {}", format_size(b), rel(a.peer, rank, p)));
        break;
      case Action::Kind::Copy: parts.push_back(fmt::format("copy {} locally", format_size(b))); break;
    }
  }
  std::string line;
  for (std::size_t i = 0; i < parts.size();) {
    std::size_t j = i;
    while (j < parts.size() && parts[j] == parts[i]) ++j;
    line += (line.empty() ? "" : "; ") + parts[i] + (j - i > 1 ? fmt::format(" (x{})", j - i) : "");
    i = j;
  }
  return line.empty() ? "wait" : line;
}

// One rank's steps, consecutive steps of the same shape merged: the schedule in words.
std::vector<std::string> describe(const schedule::Schedule& s, Bytes elt) {
  std::vector<std::string> out;
  std::vector<Action> acts;
  const int p = s.args().ranks, rank = shown_rank(s);
  std::string prev;
  int first = 0, count = 0;
  auto flush = [&](int last) {
    if (count == 0) return;
    out.push_back(count == 1 ? fmt::format("step {}: {}", first, prev)
                             : fmt::format("steps {}-{} ({} steps): {}", first, last, count, prev));
  };
  int st = 0;
  for (; s.step(rank, st, acts); ++st) {
    const std::string line = step_words(acts, rank, p, elt);
    if (line == prev) {
      ++count;
    } else {
      flush(st - 1);
      prev = line, first = st, count = 1;
    }
    if (out.size() > 40) break;
  }
  flush(st - 1);
  out.insert(out.begin(), fmt::format("rank {} runs {} step(s); p = {} ranks (peers relative to rank {})", rank, st, p, rank));
  return out;
}

schedule::CollArgs args_for(const ExplainSetup& s, std::uint64_t count, int p) {
  RunConfig run = s.run; // the explained op and element size override the placement's
  run.op = s.op;
  run.dtype.size = s.elt_size;
  return coll_args(run, count, p);
}

int ranks_in(const ExplainSetup& s) { return s.topo ? ranks_of(s.run) : s.ranks; }

// Rings the explained run splits the data over (topology mode, ring algorithms), and one ring's args.
std::uint64_t rings_of(const ExplainSetup& s, const schedule::AlgorithmInfo& algo) {
  return s.topo && algo.ring_like && s.run.placements.size() > 1 ? static_cast<std::uint64_t>(s.run.placements.size()) : 1;
}

// A pipelined algorithm without --chunk-size: the segment that minimises its formula's time, with alpha
// and beta as explain will use them (topology mode: from a first run's links; they do not depend on the cut).
ExplainSetup with_best_segment(const ExplainSetup& s, const schedule::AlgorithmInfo& algo, Bytes size, std::string& why);

} // namespace

Explanation explain_one(const ExplainSetup& s_in, const std::string& algo_name, Bytes size) {
  const auto& algo = schedule::require_algorithm(s_in.op, algo_name);
  std::string segment_why;
  const ExplainSetup s = with_best_segment(s_in, algo, size, segment_why);
  const int p = ranks_in(s);
  Explanation e;
  e.segment_why = segment_why;
  e.algo = algo.name;
  e.summary = algo.summary;
  e.plan = plan_size(s.op, p, size, s.elt_size);
  // Several rings (topology mode, ring algorithms) each carry an equal share: the formula is one ring's.
  const auto rings = rings_of(s, algo);
  const bool multi = rings > 1;
  const auto args = args_for(s, schedule::split_block(e.plan.count, rings, 0).len, p);
  if (algo.pipelined) e.segment_bytes = s.run.segment_bytes;
  const auto f = cost::formula_for(s.op, algo.name, args, s.elt_size);
  if (!f) fail("explain: {} {} has no formula (every algorithm must have one)", schedule::to_string(s.op), algo.name);
  e.alpha_expr = f->alpha, e.beta_expr = f->beta, e.gamma_expr = f->gamma, e.note = f->note;
  if (multi)
    e.note += fmt::format("{}{} rings run at once, each carrying n/{}: the terms below are one ring's (bandwidth term / {})",
                          e.note.empty() ? "" : "; ", rings, rings, rings);
  for (const auto& t : f->terms) e.terms.push_back({t.what, t.messages, t.bytes, t.reduce_bytes, t.transfers, t.shared});
  e.schedule_words = describe(*algo.make(args), s.elt_size);

  // Simulate: on the ideal crossbar with the given numbers, or on the topology.
  RunConfig run = s.run;
  run.op = s.op;
  run.algo = algo.name;
  run.best_segment = false; // explain chose the segment above (or runs the default on purpose)
  run.dtype.size = s.elt_size;
  std::optional<topology::Topology> ideal;
  const topology::Topology* topo = s.topo;
  if (!topo) {
    ideal = topology::make_crossbar(p, s.params.bw, s.params.alpha);
    topo = &*ideal;
    std::vector<int> all(static_cast<std::size_t>(p));
    std::iota(all.begin(), all.end(), 0);
    run.placements = {all};
    run.model.reduce_bw = s.params.reduce_bw;
  } else if (!algo.ring_like && run.placements.size() > 1) {
    run.placements.resize(1); // several rings only make sense for ring algorithms
  }
  topology::Router router(*topo);
  if (!s.topo) run.model.overhead = s.params.overhead;
  LinkWatcher watch(router);
  Row row = simulate(*topo, router, run, size, {&watch});
  e.semantics = run.model.semantics;
  e.params = s.params;
  e.params.overhead = run.model.overhead;
  if (s.topo) {
    // alpha and beta the formula should use: the slowest route the schedule takes.
    e.params.alpha = watch.max_latency + run.model.alpha_sw;
    e.params.bw = std::max<Bandwidth>(watch.min_bw, 1);
    e.params.reduce_bw = run.model.reduce_bw;
    std::map<std::string, std::vector<std::string>> kinds; // "nvlink2 x1 (25 GB/s)" -> directed links
    for (auto c : watch.channels) {
      const auto& l = topo->link_of(c);
      kinds[fmt::format("{} x{} ({}/direction, latency {})", topology::to_string(l.type), l.lanes,
                        format_bandwidth(l.capacity()), format_duration(l.latency))]
          .push_back(topo->channel_name(c));
    }
    for (auto& [k, names] : kinds) {
      std::string list;
      for (std::size_t i = 0; i < names.size() && i < 4; ++i) list += (i ? ", " : "") + names[i];
      e.links_used.push_back(fmt::format("{}: {} directed link(s), e.g. {}{}", k, names.size(), list, names.size() > 4 ? ", ..." : ""));
    }
  }
  const auto& path = cost::critical_path(*f, e.params);
  if (&path != &f->terms) {
    e.note += std::string(e.note.empty() ? "" : "; ") + "at these numbers another path of the pipeline is the longest:";
    e.terms.clear();
    for (const auto& t : path) e.terms.push_back({t.what, t.messages, t.bytes, t.reduce_bytes, t.transfers, t.shared});
  }
  const auto parts = cost::breakdown(path, e.params);
  e.latency_term = parts.latency, e.bandwidth_term = parts.bandwidth, e.gamma_term = parts.reduction;
  e.overhead_term = parts.overhead;
  e.formula_time = cost::evaluate(*f, e.params);
  // The textbook formulas count blocking send-recv rounds (a sender waits for its message to arrive).
  // Where gpu semantics (a send completes once its data has left) run faster than that and mpi
  // semantics give the formula, show the mpi run and say so.
  if (row.time != e.formula_time && run.model.semantics == engine::Semantics::gpu) {
    RunConfig blocking = run;
    blocking.model.semantics = engine::Semantics::mpi;
    LinkWatcher mpi_watch(router);
    Row mpi_row = simulate(*topo, router, blocking, size, {&mpi_watch});
    if (schedule::fit_holds(algo.fit, mpi_row.time, e.formula_time)) {
      e.semantics_note = fmt::format("the formula counts blocking send-recv rounds, so this is simulated with --semantics "
                                     "mpi; with gpu semantics (a send completes once its data has left) it takes {:.3f} us",
                                     to_us(row.time));
      std::swap(row, mpi_row);
      std::swap(watch.queued, mpi_watch.queued), std::swap(watch.max_wait, mpi_watch.max_wait);
      e.semantics = engine::Semantics::mpi;
    }
  }
  e.simulated = row.time;
  e.bw = row.bw;

  if (e.simulated != e.formula_time) {
    std::vector<std::string> why;
    if (watch.queued > 0)
      why.push_back(fmt::format("contention: {} message(s) waited for a busy link, up to {}", watch.queued,
                                format_duration(watch.max_wait)));
    if (watch.bottlenecks.size() > 1)
      why.push_back(fmt::format("routes differ: {} distinct bottleneck bandwidths, the formula assumes the slowest ({})",
                                watch.bottlenecks.size(), format_bandwidth(watch.min_bw)));
    if (s.topo && watch.max_hops > 1)
      why.push_back(fmt::format("multi-hop routes (up to {} hops); latencies differ per route", watch.max_hops));
    if (!algo.fit_note.empty() && !s.topo) why.insert(why.begin(), algo.fit_note);
    if (e.params.overhead > 0)
      why.push_back("o: the formula adds every posted message's o, while the engine overlaps a receive's o with its "
                    "message's flight and a queue's o with its transfers");
    if (why.empty()) why.push_back("the schedule overlaps steps that the formula counts one after another (pipelining)");
    for (const auto& w : why) e.difference += (e.difference.empty() ? "" : "; ") + w;
  }
  // A schedule that queues (or fairly shares) several messages on one port per round is multi-port: their latencies overlap,
  // so the one-port ceil(lg p) start-ups do not bind it (ps gathers p-1 messages in one round).
  bool multi_port = false;
  for (const auto& t : f->terms) multi_port = multi_port || t.transfers > 1 || t.shared > 1;
  e.bound = cost::lower_bound(s.op, p, multi_port);
  const Bytes n = e.plan.size;
  // On a real machine a GPU can drive all its links at once: the bound's beta is 1 / (the smallest
  // total link bandwidth of any GPU in the run), not one link's.
  cost::Params bp = e.params;
  if (s.topo) {
    Bandwidth inj = 0;
    for (const auto& pl : run.placements)
      for (int g : pl) {
        const int node = topo->gpu_node(g);
        Bandwidth sum = 0;
        for (const auto& l : topo->links)
          if (l.a == node || l.b == node) sum += l.capacity();
        inj = inj == 0 ? sum : std::min(inj, sum);
      }
    bp.bw = std::max<Bandwidth>(inj, 1);
    e.bound_bw = bp.bw;
  }
  cost::Params only_alpha = bp, only_beta = bp, only_gamma = bp;
  only_alpha.bw = UINT64_MAX / 2, only_alpha.reduce_bw = 0;
  only_beta.alpha = 0, only_beta.reduce_bw = 0;
  only_gamma.alpha = 0, only_gamma.bw = UINT64_MAX / 2;
  e.bound_alpha = cost::evaluate(e.bound, n, only_alpha);
  e.bound_beta = cost::evaluate(e.bound, n, only_beta);
  e.bound_gamma = e.params.reduce_bw > 0 ? cost::evaluate(e.bound, n, only_gamma) : 0;
  e.bound_time = cost::evaluate(e.bound, n, bp);
  e.beats_bound = e.simulated < e.bound_time;
  e.overlaps = multi_port || !f->alternatives.empty();
  for (const auto& t : f->terms) e.overlaps = e.overlaps || t.transfers != 1 || t.shared != 1;
  e.busbw_factor = busbw_factor(s.op, p);
  e.busbw_why = busbw_reason(s.op);
  return e;
}

namespace {

ExplainSetup with_best_segment(const ExplainSetup& s, const schedule::AlgorithmInfo& algo, Bytes size, std::string& why) {
  ExplainSetup out = s;
  if (!algo.pipelined) return out;
  if (s.run.segment_bytes > 0 || !s.choose_segment) {
    why = s.run.segment_bytes > 0 ? "given by --chunk-size" : "";
    return out;
  }
  cost::Params c = s.params;
  if (s.topo) {
    ExplainSetup probe = s;
    probe.choose_segment = false;
    // The links a schedule uses do not depend on the size once every edge carries data, so probe at
    // most 1 MiB per rank: the probe replays the default segment, whose count grows with the size.
    c = explain_one(probe, algo.name, std::min<Bytes>(size, static_cast<Bytes>(ranks_in(s)) << 20)).params;
  }
  const int p = ranks_in(s);
  const auto plan = plan_size(s.op, p, size, s.elt_size);
  const auto args = args_for(s, schedule::split_block(plan.count, rings_of(s, algo), 0).len, p);
  const auto best = cost::best_segment(args, algo.name, s.elt_size, c);
  out.run.segment_bytes = best.segment * s.elt_size;
  why = fmt::format("chosen to minimise the formula's time ({} segment(s){}); --chunk-size overrides", best.segments,
                    algo.op == Op::AllReduce ? " per tree half" : "");
  return out;
}

} // namespace

Bytes chosen_segment(const ExplainSetup& s, const std::string& algo_name, Bytes size) {
  const auto& algo = schedule::require_algorithm(s.op, algo_name);
  if (!algo.pipelined || s.run.segment_bytes > 0) return 0;
  std::string why;
  return with_best_segment(s, algo, size, why).run.segment_bytes;
}

ExplainSweep explain_sweep(const ExplainSetup& s, Bytes min_bytes, Bytes max_bytes,
                           const std::function<void(std::size_t, std::size_t)>& progress) {
  ExplainSweep out;
  const int p = ranks_in(s);
  for (const auto& a : schedule::all_algorithms())
    if (a.op == s.op) out.algos.push_back(a.name);
  if (out.algos.empty()) fail("explain: no algorithm implements {}", schedule::to_string(s.op));
  out.sizes = size_series(min_bytes, max_bytes, 2);
  out.forms.resize(out.algos.size());
  // Work units for the progress report: every size, then every crossover's bisection.
  const std::size_t total = out.sizes.size() * 2;
  for (std::size_t i = 0; i < out.sizes.size(); ++i) {
    if (progress) progress(i, total);
    const Bytes size = out.sizes[i];
    out.plans.push_back(plan_size(s.op, p, size, s.elt_size));
    std::vector<SweepCell> row;
    for (std::size_t a = 0; a < out.algos.size(); ++a) {
      const auto e = explain_one(s, out.algos[a], size);
      out.params = e.params;
      if (i == 0) out.forms[a] = {e.alpha_expr, e.beta_expr, e.gamma_expr};
      row.push_back({e.formula_time, e.simulated});
    }
    const auto best = std::min_element(row.begin(), row.end(), [](auto& a, auto& b) { return a.simulated < b.simulated; });
    out.best.push_back(static_cast<int>(best - row.begin()));
    out.cells.push_back(std::move(row));
  }
  // Selection map: runs of the same winner.
  for (std::size_t i = 0; i < out.sizes.size(); ++i) {
    const auto& name = out.algos[static_cast<std::size_t>(out.best[i])];
    if (out.selection.empty() || out.selection.back().algo != name) out.selection.push_back({name, out.plans[i].size, out.plans[i].size});
    else out.selection.back().to = out.plans[i].size;
  }
  // Crossovers: where the winner changes, bisect the requested size by the formulas.
  for (std::size_t i = 1; i < out.sizes.size(); ++i) {
    if (progress) progress(out.sizes.size() + i, total);
    if (out.best[i] == out.best[i - 1]) continue;
    const std::string& from = out.algos[static_cast<std::size_t>(out.best[i - 1])];
    const std::string& to = out.algos[static_cast<std::size_t>(out.best[i])];
    Bytes lo = out.sizes[i - 1], hi = out.sizes[i];
    // By simulation (it equals the formula wherever the registry says the formula is exact).
    auto faster = [&](Bytes b) { return explain_one(s, to, b).simulated < explain_one(s, from, b).simulated; };
    while (hi - lo > s.elt_size) {
      const Bytes mid = lo + (hi - lo) / 2;
      (faster(mid) ? hi : lo) = mid;
    }
    out.crossovers.push_back({from, to, hi});
  }
  return out;
}

} // namespace ccsim::metrics
