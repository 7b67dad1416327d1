// Shared by the schedule tests: run one (op, algorithm) on data and on the ideal crossbar, and
// evaluate its registered formula with the same parameters.
#pragma once
#include <string>
#include <vector>

#include "sim/cost/formula.hpp"
#include "sim/engine/engine.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"
#include "sim/verify/execute.hpp"

namespace algo_check {
using namespace ccsim;

inline schedule::CollArgs args(schedule::Op op, int p, std::uint64_t count, std::uint64_t elt = 4) {
  schedule::CollArgs a;
  a.op = op;
  a.ranks = p;
  a.count = count;
  a.elt_size = elt;
  return a;
}

inline std::string check(const schedule::CollArgs& a, const std::string& algo, verify::RedOp op) {
  auto s = schedule::require_algorithm(a.op, algo).make(a);
  return verify::check(*s, op);
}

inline constexpr verify::RedOp kRedOps[] = {verify::RedOp::Sum, verify::RedOp::Prod, verify::RedOp::Min,
                                            verify::RedOp::Max};

struct Machine {
  Time alpha;
  Bandwidth bw, reduce_bw;
};

inline Time simulate(const schedule::CollArgs& a, const std::string& algo, const Machine& m) {
  auto s = schedule::require_algorithm(a.op, algo).make(a);
  auto topo = topology::make_crossbar(a.ranks, m.bw, m.alpha);
  topology::Router router(topo);
  engine::ModelParams params;
  params.reduce_bw = m.reduce_bw;
  params.semantics = engine::Semantics::mpi; // the formulas assume blocking sendrecv
  engine::Engine eng(topo, router, params, engine::fifo_network());
  engine::Job job;
  job.schedule = s.get();
  for (int g = 0; g < a.ranks; ++g) job.node_of_rank.push_back(topo.gpu_node(g));
  job.elt_size = a.elt_size;
  std::vector<engine::Job> jobs{job};
  return eng.run(jobs).makespan;
}

inline Time predict(const schedule::CollArgs& a, const std::string& algo, const Machine& m) {
  auto f = cost::formula_for(a.op, algo, a, a.elt_size);
  if (!f) return -1;
  return cost::evaluate(*f, {m.alpha, m.bw, m.reduce_bw});
}

// Machines with awkward numbers, with and without a reduction cost.
inline const std::vector<Machine>& machines() {
  static const std::vector<Machine> m = {{1'234'566, 23'700'000'000, 0},
                                         {1'234'566, 23'700'000'000, 61'300'000'000},
                                         {3'002, 187'000'000'000, 9'100'000'000},
                                         {9'876'544, 3'100'000'000, 0}};
  return m;
}

// Corners: alpha below one element's time, and a slow link with a huge alpha.
inline const std::vector<Machine>& extreme_machines() {
  static const std::vector<Machine> m = {{2, 1'000'000'000'000, 0}, {100'000'000, 1'000'000'000, 7'000'000'000}};
  return m;
}

inline std::vector<std::uint64_t> counts_for(int p) {
  std::vector<std::uint64_t> c = {1, 3 * static_cast<std::uint64_t>(p) + 2, 1000 * static_cast<std::uint64_t>(p) + 7,
                                  65536 * static_cast<std::uint64_t>(p), 333331};
  if (p > 2) c.push_back(static_cast<std::uint64_t>(p) - 1);
  return c;
}

inline constexpr int kTimedRanks[] = {2, 3, 4, 5, 7, 8, 13, 16};

} // namespace algo_check

namespace algo_check {
// Number of steps rank 0 takes (bounded, so a schedule that never ends fails instead of hanging).
inline int steps_of_rank0(const ccsim::schedule::CollArgs& a, const std::string& algo) {
  auto s = ccsim::schedule::require_algorithm(a.op, algo).make(a);
  std::vector<ccsim::schedule::Action> acts;
  int n = 0;
  while (n < 1000 && s->step(0, n, acts)) ++n;
  return n;
}
} // namespace algo_check
