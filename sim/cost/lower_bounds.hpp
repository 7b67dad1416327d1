// Lower bounds on any algorithm for an op (Chan, Heimlich, Purkayastha, van de Geijn 2007;
// reference §1.1): ceil(lg p) start-ups, the bytes some rank must move, the bytes some rank must reduce.
#pragma once
#include <string>

#include "sim/cost/formula.hpp"

namespace ccsim::cost {

struct LowerBound {
  double alpha = 0, beta = 0, gamma = 0; // coefficients of alpha, n*beta, n*gamma
  std::string alpha_text, beta_text, gamma_text;
  bool multi_port = false;
  std::string source; // who proves it, e.g. "Chan et al. 2007"
};

// `multi_port`: the schedule lets a rank post several messages at once (ccsim's links overlap their
// latencies, as SimGrid's do). Chan's ceil(lg p) start-ups assume one message in and one out per rank
// at a time; with many ports one round can already reach everyone, so the latency bound is one alpha.
LowerBound lower_bound(schedule::Op op, int p, bool multi_port = false);
// The bound's time for n bytes under `c` (rounded to the nearest ps; alpha and gamma terms exact).
Time evaluate(const LowerBound& lb, Bytes n, const Params& c);

} // namespace ccsim::cost
