// Each rank runs all its steps of the first phase, then all its steps of the second. A rank begins the
// second phase as soon as its own first phase is done; the rendezvous keeps it from running ahead of
// a partner still in the first. Uneven counts: blocks of ceil(count/p) elements, the last padded with
// scratch (its bytes are moved, and charged, like the rest).
#include "sim/schedule/algorithms/composed.hpp"

#include <algorithm>

#include "sim/core/ceil_div.hpp"
#include "sim/core/error.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {

Composition composition(const CollArgs& a, const std::string& algo) {
  Composition c;
  const auto p = static_cast<std::uint64_t>(std::max(a.ranks, 1));
  const std::uint64_t block = ceil_div(a.count, p);
  c.first = c.second = a;
  if (algo == "scatter_allgather") {
    c.first.op = Op::Scatter, c.second.op = Op::AllGather;
    c.first.count = c.second.count = block;
    c.first_algo = "binomial", c.second_algo = "ring";
    c.padded = block * p;
  } else if (algo == "reducescatter_gather") {
    c.first.op = Op::ReduceScatter, c.second.op = Op::Gather;
    c.first.count = c.second.count = block;
    c.first_algo = "halving_doubling", c.second_algo = "binomial";
    c.padded = block * p;
  } else if (algo == "reducescatter_allgather") {
    c.first.op = Op::ReduceScatter, c.second.op = Op::AllGather;
    c.first.count = c.second.count = block;
    c.first_algo = "halving_doubling", c.second_algo = "recursive_doubling";
    c.padded = block * p;
  } else if (algo == "gather_bcast") {
    c.first.op = Op::Gather, c.second.op = Op::Broadcast;
    c.first.root = c.second.root = 0;
    c.second.count = a.count * p; // the gathered vector
    c.first_algo = "binomial", c.second_algo = "binomial";
    c.padded = a.count * p;
  } else {
    fail("composition: unknown '{}'", algo);
  }
  return c;
}

namespace {

class Sequence final : public Schedule {
 public:
  Sequence(const CollArgs& a, const std::string& algo) : Schedule(a) {
    const auto c = composition(a, algo);
    first_ = require_algorithm(c.first.op, c.first_algo).make(c.first);
    second_ = require_algorithm(c.second.op, c.second_algo).make(c.second);
    buffer_ = std::max({op_buffer_elems(a), first_->buffer_elems(), second_->buffer_elems(), c.padded});
    first_steps_.assign(static_cast<std::size_t>(std::max(a.ranks, 0)), -1);
  }
  std::uint64_t buffer_elems() const override { return buffer_; }
  bool step(int r, int s, std::vector<Action>& out) const override {
    const int n = first_steps(r);
    return s < n ? first_->step(r, s, out) : second_->step(r, s - n, out);
  }

 private:
  int first_steps(int r) const {
    int& n = first_steps_[static_cast<std::size_t>(r)];
    if (n < 0) {
      std::vector<Action> scratch;
      n = 0;
      while (first_->step(r, n, scratch)) ++n;
    }
    return n;
  }
  std::unique_ptr<Schedule> first_, second_;
  std::uint64_t buffer_ = 0;
  mutable std::vector<int> first_steps_; // per rank, counted on first use
};

AlgorithmInfo composed(const char* name, Op op, const char* summary) {
  return {name, op, summary, [name = std::string(name)](const CollArgs& a) { return std::make_unique<Sequence>(a, name); }, false};
}

} // namespace

void add_composed_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back(composed("scatter_allgather", Op::Broadcast,
                         "van de Geijn: binomial scatter of p blocks, then ring allgather of them"));
  out.push_back(composed("reducescatter_gather", Op::Reduce,
                         "Rabenseifner: recursive-halving reduce-scatter, then binomial gather of the reduced blocks to the root"));
  auto rs_ag = composed("reducescatter_allgather", Op::AllReduce,
                        "reduce-scatter by recursive halving, then allgather by recursive doubling (Thakur's, any p)");
  rs_ag.fit = FormulaFit::UpperBound;
  rs_ag.fit_note = "for p not a power of two the folded ranks finish the reduce-scatter last and the others start the "
                   "allgather without them, so the phases overlap: the formula (their sum) is an upper bound under blocking "
                   "send-recv (--semantics mpi, as the textbook counts)";
  out.push_back(rs_ag);
  out.push_back(composed("gather_bcast", Op::AllGather,
                         "the course's composition: binomial gather to rank 0, then binomial broadcast of the whole result"));
}

} // namespace ccsim::schedule
