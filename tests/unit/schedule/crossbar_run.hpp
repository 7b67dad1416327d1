// Test helpers for schedules: run one registered algorithm on the ideal crossbar (engine time), its
// formula's time with the same parameters, and data checks over many shapes.
#pragma once
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/cost/formula.hpp"
#include "sim/engine/engine.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"
#include "sim/verify/execute.hpp"

namespace ccsim::testing {

// Deliberately not round, so ceil-per-message rounding differences would show.
inline constexpr Time kAlpha = 1'234'566;              // ps (even: the crossbar splits it over two links)
inline constexpr Bandwidth kBw = 23'456'789'013;        // B/s
inline constexpr Bandwidth kFastReduce = 61'234'567'891; // reduction faster than the link
inline constexpr Bandwidth kSlowReduce = 7'654'321'987;  // reduction slower than the link

struct Timing {
  Time engine = 0, formula = 0;
};

inline schedule::CollArgs args_of(schedule::Op op, int p, std::uint64_t count, int root = 0, std::uint64_t segment = 0,
                                  std::uint64_t elt = 4) {
  schedule::CollArgs a;
  a.op = op;
  a.ranks = p;
  a.count = count;
  a.root = root;
  a.segment = segment;
  a.elt_size = elt;
  return a;
}

inline Timing crossbar_timing(const std::string& algo, const schedule::CollArgs& a, Bandwidth reduce_bw,
                              Time alpha = kAlpha, Bandwidth bw = kBw, engine::Observer* obs = nullptr,
                              const std::string& network = "fifo",
                              engine::Semantics semantics = engine::Semantics::mpi) { // the textbook's blocking sendrecv
  const auto topo = topology::make_crossbar(a.ranks, bw, alpha);
  topology::Router router(topo);
  engine::ModelParams mp;
  mp.reduce_bw = reduce_bw;
  mp.semantics = semantics;
  engine::Engine eng(topo, router, mp, *engine::find_network(network));
  if (obs) eng.add_observer(obs);
  const auto sched = schedule::require_algorithm(a.op, algo).make(a);
  engine::Job job;
  job.schedule = sched.get();
  for (int g = 0; g < a.ranks; ++g) job.node_of_rank.push_back(topo.gpu_node(g));
  job.elt_size = a.elt_size;
  const std::vector<engine::Job> jobs{job};
  Timing t;
  t.engine = eng.run(jobs).makespan;
  const auto f = cost::formula_for(a.op, algo, a, a.elt_size);
  REQUIRE(f.has_value());
  t.formula = cost::evaluate(*f, {alpha, bw, reduce_bw});
  return t;
}

// Engine == formula for every p the brief lists, each count, with and without gamma.
inline void check_formula_exact(schedule::Op op, const std::string& algo, const std::vector<std::uint64_t>& counts,
                                std::uint64_t segment = 0) {
  for (int p : {2, 3, 4, 5, 7, 8, 13, 16})
    for (std::uint64_t count : counts)
      for (Bandwidth rbw : {Bandwidth{0}, kFastReduce, kSlowReduce}) {
        const int root = schedule::has_root(op) ? p / 2 : 0;
        const auto t = crossbar_timing(algo, args_of(op, p, count, root, segment), rbw);
        INFO(schedule::to_string(op), " ", algo, " p=", p, " count=", count, " segment=", segment, " reduce_bw=", rbw);
        const auto& info = schedule::require_algorithm(op, algo);
        CHECK(schedule::fit_holds(info.fit, t.engine, t.formula));
        if (info.fit == schedule::FormulaFit::ExactWithFairSharing)
          CHECK(crossbar_timing(algo, args_of(op, p, count, root, segment), rbw, kAlpha, kBw, nullptr, "flow").engine ==
                t.formula);
      }
}

// verify::check for p = 1..17, counts that do not divide by p, every reduction, the given roots
// (all roots when `all_roots`, else 0, p/2 and p-1).
inline void check_data(schedule::Op op, const std::string& algo, bool all_roots_for_some_p = true,
                       std::uint64_t segment = 0) {
  const auto& info = schedule::require_algorithm(op, algo);
  for (int p = 1; p <= 17; ++p) {
    std::vector<int> roots{0};
    if (schedule::has_root(op)) {
      if (all_roots_for_some_p && (p == 3 || p == 6 || p == 11)) {
        roots.clear();
        for (int r = 0; r < p; ++r) roots.push_back(r);
      } else {
        roots = {0, p / 2, p - 1};
      }
    }
    for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, static_cast<std::uint64_t>(3 * p + 2)})
      for (int root : roots)
        for (auto red : {verify::RedOp::Sum, verify::RedOp::Prod, verify::RedOp::Min, verify::RedOp::Max}) {
          const auto sched = info.make(args_of(op, p, count, root, segment));
          INFO(schedule::to_string(op), " ", algo, " p=", p, " count=", count, " root=", root, " segment=", segment,
               " redop=", static_cast<int>(red));
          CHECK(verify::check(*sched, red) == "");
        }
  }
}

// Counts transfers that had to wait for a link (start later than posted).
struct QueueWatch final : engine::Observer {
  int transfers = 0, queued = 0;
  void on_transfer(const engine::TransferRecord& t) override {
    ++transfers;
    if (t.start != t.post) ++queued;
  }
};

// Number of steps rank r takes.
inline int steps_of(const schedule::Schedule& s, int r) {
  std::vector<schedule::Action> acts;
  int n = 0;
  while (s.step(r, n, acts)) ++n;
  return n;
}

} // namespace ccsim::testing
