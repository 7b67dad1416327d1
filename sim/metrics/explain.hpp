// The analysis behind `ccsim explain`: for one (op, algorithm) at one size, the schedule in words, its
// closed form, the terms with numbers, the simulation beside it (and why they differ), the lower bound
// and the busbw factor; for all algorithms of an op, a size sweep with crossovers and a selection map.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/cost/formula.hpp"
#include "sim/cost/lower_bounds.hpp"
#include "sim/metrics/sweep.hpp"

namespace ccsim::metrics {

// Where alpha and beta come from: given numbers on the ideal crossbar, or a real topology.
struct ExplainSetup {
  schedule::Op op = schedule::Op::AllReduce;
  int ranks = 8;
  cost::Params params;                    // alpha, bw, reduce_bw (ideal mode)
  const topology::Topology* topo = nullptr; // topology mode when set
  RunConfig run;                           // placement/model for topology mode (op/algo overwritten)
  Bytes elt_size = 4;
  // Pipelined algorithms without a segment (run.segment_bytes == 0) run at the one that minimises their time.
  bool choose_segment = true;
};

struct TermLine {
  std::string what;
  std::uint64_t messages;
  Bytes bytes, reduce_bytes;
  std::uint64_t transfers = 1; // messages queued on one port per round (0: a reduction only)
  std::uint64_t shared = 1;    // messages sharing one link fairly, each at bw / shared
};

struct Explanation {
  std::string algo, summary, note;
  std::vector<std::string> schedule_words;
  std::vector<TermLine> terms;
  std::string alpha_expr, beta_expr, gamma_expr;
  cost::Params params;        // the alpha/beta/gamma actually used
  std::vector<std::string> links_used; // topology mode: the links that set alpha and beta
  SizePlan plan;
  Time latency_term = 0, bandwidth_term = 0, gamma_term = 0, overhead_term = 0, formula_time = 0;
  Time simulated = 0;
  engine::Semantics semantics = engine::Semantics::gpu; // the semantics `simulated` ran under
  // Set when the formula assumes blocking send-recv: `simulated` then ran under mpi semantics, and this
  // says so, with the gpu-semantics time beside it.
  std::string semantics_note;
  std::string difference; // empty when formula == simulation
  cost::LowerBound bound;
  Time bound_time = 0, bound_alpha = 0, bound_beta = 0, bound_gamma = 0;
  bool overlaps = false;    // the schedule queues several messages per port per round, or pipelines
  bool beats_bound = false; // faster than the textbook sum (possible only when it overlaps)
  Bandwidth bound_bw = 0; // topology mode: a GPU's total link bandwidth, used for the bound's beta
  Bandwidths bw;
  double busbw_factor = 1;
  std::string busbw_why;
  Bytes segment_bytes = 0;  // pipelined algorithms: the segment used (0: not pipelined)
  std::string segment_why;  // how it was chosen
};

Explanation explain_one(const ExplainSetup& s, const std::string& algo, Bytes size);
// The segment (bytes) explain_one would run a pipelined `algo` at for `size` when none is given; 0 when
// `algo` is not pipelined or s.run.segment_bytes is already set. The main sweep uses it too.
Bytes chosen_segment(const ExplainSetup& s, const std::string& algo, Bytes size);

struct SweepCell {
  Time formula = 0, simulated = 0;
};
struct ExplainSweep {
  std::vector<std::string> algos;
  std::vector<Bytes> sizes;                  // requested sizes
  std::vector<SizePlan> plans;
  std::vector<std::vector<SweepCell>> cells; // [size][algo]
  std::vector<int> best;                     // per size, index of the fastest (simulated) algorithm
  struct Crossover {
    std::string from, to;
    Bytes at; // smallest size (bytes) at which `to` becomes faster in simulation; bisected
  };
  std::vector<Crossover> crossovers;
  struct Range {
    std::string algo;
    Bytes from, to;
  };
  std::vector<Range> selection; // the best algorithm per size range (the MPICH-style threshold map)
  struct Form {
    std::string alpha, beta, gamma; // closed-form coefficients of alpha, n*beta, n*gamma (as Explanation's)
  };
  std::vector<Form> forms; // per algorithm
  cost::Params params;
};

// `progress(done, total)` is called as the sweep goes (sizes and crossover bisections).
ExplainSweep explain_sweep(const ExplainSetup& s, Bytes min_bytes, Bytes max_bytes,
                           const std::function<void(std::size_t, std::size_t)>& progress = {});

std::string busbw_reason(schedule::Op op);

} // namespace ccsim::metrics
