// Closed-form alpha-beta-gamma costs, one per (op, algorithm): the single source of truth used by
// `explain`, the tests and the docs. A formula is the list of messages on the schedule's critical
// path, so it can be printed symbolically (a*alpha + b*n*beta + c*n*gamma) and evaluated to the
// picosecond with the same rounding the engine uses (ceil per message, see core/units.hpp).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/schedule/collective.hpp"

namespace ccsim::cost {

// `messages` back-to-back rounds, each moving `bytes` and reducing `reduce_bytes` at the receiver.
// A round costs alpha + transfers * transfer_time(bytes) + reduce time: `transfers` > 1 is one-port
// serialisation (several messages through one link, latencies overlapping), 0 a round that only
// reduces (a message that arrived early, no alpha). `shared` > 1: the message shares its link fairly
// with shared-1 others for its whole transfer, so it moves at bw / shared (whole bytes/s, as the flow
// model rounds a share).
struct Term {
  std::uint64_t messages = 0;
  Bytes bytes = 0;
  Bytes reduce_bytes = 0;
  std::string what; // "reduce-scatter", "allgather", ...
  std::uint64_t transfers = 1;
  std::uint64_t shared = 1;
};

struct Formula {
  std::vector<Term> terms;
  // Symbolic coefficients in p and n (n = the op's size convention, reference §0).
  std::string alpha, beta, gamma; // e.g. "2(p-1)", "2(p-1)/p", "(p-1)/p"
  std::string note;               // e.g. "non-power-of-two p: ranks beyond 2^floor(lg p) fold in first"
  // Other candidate critical paths, for pipelines whose slowest stage depends on alpha, beta and gamma
  // (e.g. a chain's last rank reducing slower than segments arrive): the time is the longest path.
  std::vector<std::vector<Term>> alternatives{};
};

// One-port LogP-style charges: every message on the path costs o + alpha + n*beta. alpha (wire and
// software latency) overlaps across the messages a rank has in flight at once; o (the time the rank is
// busy posting a message) and n*beta through one port serialise, so a round of `transfers` queued
// messages pays transfers * o and transfers * n*beta but alpha once.
struct Params {
  Time alpha = 0;        // per message
  Bandwidth bw = 1;      // bytes/s
  Bandwidth reduce_bw = 0; // 0: gamma = 0
  Time overhead = 0;     // o, per message a rank posts (LogP's o; explain --o, --sw-overhead)
};

// The formula's time: the longest of its paths, each a sum of rounds.
Time evaluate(const Formula& f, const Params& c);
// One path's time split into its alpha, beta and gamma parts (what `explain` prints).
struct Breakdown {
  Time latency = 0, bandwidth = 0, reduction = 0, overhead = 0; // alpha, n*beta, n*gamma and o parts
  Time total() const { return latency + bandwidth + reduction + overhead; }
};
Breakdown breakdown(const std::vector<Term>& terms, const Params& c);
// The path that sets the time under `c` (the main terms unless an alternative is longer).
const std::vector<Term>& critical_path(const Formula& f, const Params& c);
// Coefficients of `terms` (the main path) as numbers for a given p and n: alpha count, bytes/n moved, bytes/n reduced.
struct Coefficients {
  double alpha = 0, beta = 0, gamma = 0;
};
Coefficients coefficients(const Formula& f, Bytes n);

// ceil(lg p) of the collective's ranks, as a term's message count (tree, doubling and dissemination rounds).
inline std::uint64_t lg_rounds(const schedule::CollArgs& a) { return static_cast<std::uint64_t>(schedule::ceil_lg(a.ranks)); }

using FormulaFn = std::function<Formula(const schedule::CollArgs&, Bytes elt_size)>;
// The formula of (op, algorithm name), or nullopt when none is registered.
std::optional<Formula> formula_for(schedule::Op op, const std::string& algo, const schedule::CollArgs& a, Bytes elt);
bool has_formula(schedule::Op op, const std::string& algo);

} // namespace ccsim::cost
