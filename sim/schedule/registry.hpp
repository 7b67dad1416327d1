// The catalogue of (op, algorithm) pairs: one entry per schedule the engine can replay.
// Listed explicitly in registry.cpp so `ccsim --help` and the tests see the same table.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/schedule/schedule.hpp"

namespace ccsim::schedule {

// How the algorithm's closed form (sim/cost) relates to the engine on the ideal crossbar.
enum class FormulaFit {
  Exact, // equal to the picosecond, always
  // Equal under --model flow (every link shared max-min fairly); under the default fifo model, which
  // serves each link's messages one at a time in the order they start, a lower bound.
  ExactWithFairSharing,
  // The formula adds two phases one after the other; a rank starts the second as soon as its own first
  // is done, so where the ranks end the first phase at different times (p not a power of two) the engine
  // overlaps them and may be faster, never slower (under mpi semantics, the textbook's blocking send-recv,
  // which explain falls back to). Exact for p a power of two.
  UpperBound,
};

struct AlgorithmInfo {
  std::string name; // as typed after --algo, e.g. "ring"
  Op op;
  std::string summary; // one line for --help and explain
  std::function<std::unique_ptr<Schedule>(const CollArgs&)> make;
  // Placement hint: true when consecutive ranks talk most (ring, chain), so a ring order is meaningful.
  bool ring_like = false;
  FormulaFit fit = FormulaFit::Exact;
  std::string fit_note = {}; // why the formula is not exact, when it is not
  // Cut into segments (CollArgs::segment): explain and the sweep choose the segment that minimises the
  // formula's time unless --chunk-size gives one (sim/cost/best_segment.hpp).
  bool pipelined = false;
  // The most segments the schedule accepts on p ranks (per tree half for the double binary tree), which
  // bounds its work; best_segment searches no further, so a chosen segment never hits the schedule's refusal.
  std::function<std::uint64_t(int ranks)> max_segments = {};
};

// AlgorithmInfo::make for a schedule class constructed from the CollArgs alone.
template <typename ScheduleClass>
std::function<std::unique_ptr<Schedule>(const CollArgs&)> factory_of() {
  return [](const CollArgs& a) { return std::make_unique<ScheduleClass>(a); };
}

// Whether `engine` (run with the default fifo model) and `formula` stand as `fit` promises.
bool fit_holds(FormulaFit fit, Time engine, Time formula);

const std::vector<AlgorithmInfo>& all_algorithms();
const AlgorithmInfo* find_algorithm(Op op, const std::string& name);
// Throws Error listing what exists when (op, name) does not.
const AlgorithmInfo& require_algorithm(Op op, const std::string& name);
std::vector<std::string> algorithm_names(); // distinct names, sorted
// What runs when --algo is not given: ring where the op has one, else the op's first registered
// algorithm (binomial for gather and scatter, pairwise for alltoall).
const std::string& default_algorithm(Op op);

// Each algorithm file contributes its entries.
void add_ring_algorithms(std::vector<AlgorithmInfo>& out);
void add_chain_algorithms(std::vector<AlgorithmInfo>& out);
void add_binomial_algorithms(std::vector<AlgorithmInfo>& out);
void add_ps_algorithms(std::vector<AlgorithmInfo>& out);
void add_alltoall_algorithms(std::vector<AlgorithmInfo>& out);
void add_recursive_doubling_algorithms(std::vector<AlgorithmInfo>& out);
void add_halving_doubling_algorithms(std::vector<AlgorithmInfo>& out);
void add_bruck_algorithms(std::vector<AlgorithmInfo>& out);
void add_torus2d_algorithms(std::vector<AlgorithmInfo>& out);
void add_double_binary_tree_algorithms(std::vector<AlgorithmInfo>& out);
void add_composed_algorithms(std::vector<AlgorithmInfo>& out);
void add_scan_barrier_algorithms(std::vector<AlgorithmInfo>& out);
void add_sendrecv_algorithms(std::vector<AlgorithmInfo>& out);

} // namespace ccsim::schedule
