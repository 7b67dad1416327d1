#include "sim/cost/lower_bounds.hpp"

#include <cmath>

namespace ccsim::cost {
using schedule::Op;

LowerBound lower_bound(Op op, int p, bool multi_port) {
  LowerBound lb;
  const double q = p;
  lb.alpha = p > 1 ? (multi_port ? 1 : std::ceil(std::log2(q))) : 0;
  lb.alpha_text = multi_port ? "1" : "ceil(lg p)";
  lb.multi_port = multi_port;
  const double frac = (q - 1) / q;
  lb.gamma_text = "0";
  lb.source = "Chan et al. 2007";
  switch (op) {
    case Op::Broadcast:
      lb.beta = p > 1 ? 1 : 0, lb.beta_text = "1"; // the root must send n bytes once
      break;
    case Op::Reduce:
      lb.beta = p > 1 ? 1 : 0, lb.beta_text = "1"; // the root must receive n bytes' worth
      lb.gamma = frac, lb.gamma_text = "(p-1)/p";
      break;
    case Op::Gather:
    case Op::Scatter:
    case Op::AllGather:
    case Op::HyperCube:
      lb.beta = frac, lb.beta_text = "(p-1)/p";
      break;
    case Op::AllToAll: // Chan et al. do not treat alltoall
      lb.beta = frac, lb.beta_text = "(p-1)/p";
      lb.source = "one-port counting: ceil(lg p) rounds to reach every rank, (p-1)/p n must leave each rank; "
                  "Bruck et al. 1997 show no algorithm meets both at once";
      break;
    case Op::ReduceScatter:
      lb.beta = frac, lb.beta_text = "(p-1)/p";
      lb.gamma = frac, lb.gamma_text = "(p-1)/p";
      break;
    case Op::AllReduce:
      lb.beta = 2 * frac, lb.beta_text = "2(p-1)/p";
      lb.gamma = frac, lb.gamma_text = "(p-1)/p";
      break;
    case Op::Scan: // at least a reduce to rank p-1, whose prefix is the sum of all p vectors
      lb.beta = p > 1 ? 1 : 0, lb.beta_text = "1";
      lb.gamma = frac, lb.gamma_text = "(p-1)/p";
      lb.source = "Chan et al. 2007's reduce bound: rank p-1's prefix is a reduction of all p vectors";
      break;
    case Op::SendRecv: // every rank's vector must leave it for another rank: one message of n bytes
      lb.alpha = p > 1 ? 1 : 0, lb.alpha_text = "1";
      lb.beta = p > 1 ? 1 : 0, lb.beta_text = "1";
      lb.source = "one message: each rank's n bytes must reach another rank";
      break;
    case Op::Barrier: // one-port fan-in: a rank's exit depends on every arrival, and knowledge at most doubles per round
      lb.beta = 0, lb.beta_text = "0";
      lb.source = "fan-in: no rank may leave before all p arrived; one message per round at most doubles the ranks a "
                  "rank has heard from (the dissemination barrier of Hensgen, Finkel and Manber 1988 meets it)";
      break;
  }
  return lb;
}

Time evaluate(const LowerBound& lb, Bytes n, const Params& c) {
  double t = lb.alpha * static_cast<double>(c.alpha);
  t += lb.beta * static_cast<double>(n) * 1e12 / static_cast<double>(c.bw);
  if (c.reduce_bw > 0) t += lb.gamma * static_cast<double>(n) * 1e12 / static_cast<double>(c.reduce_bw);
  return static_cast<Time>(std::floor(t)); // floor: a bound must never exceed the true minimum
}

} // namespace ccsim::cost
