// Barrier (dissemination) and scan (recursive doubling, linear): correct on data for p = 1..17, the
// engine equal to the closed form on the ideal crossbar for every p tested, and times checked by hand.
#include <doctest/doctest.h>

#include "crossbar_run.hpp"

using namespace ccsim;
using testing::args_of;
using testing::crossbar_timing;

TEST_CASE("scan algorithms compute the inclusive prefix on data for p = 1..17, every reduction") {
  testing::check_data(schedule::Op::Scan, "recursive_doubling");
  testing::check_data(schedule::Op::Scan, "linear");
}

TEST_CASE("the dissemination barrier lets no rank leave before all arrived, p = 1..17") {
  for (int p = 1; p <= 17; ++p) {
    const auto s = schedule::require_algorithm(schedule::Op::Barrier, "dissemination").make(args_of(schedule::Op::Barrier, p, 1));
    INFO("p=", p);
    CHECK(verify::check(*s, verify::RedOp::Sum) == "");
  }
}

namespace {
// A dissemination barrier one round short: for p > 2^(rounds-1) some rank has not heard from everyone.
class ShortBarrier final : public schedule::Schedule {
 public:
  using Schedule::Schedule;
  bool step(int r, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    const int p = args_.ranks;
    int rounds = 0;
    while ((1 << rounds) < p) ++rounds;
    if (s >= rounds - 1) return false;
    schedule::send(out, (r + (1 << s)) % p, {0, 0});
    schedule::recv(out, ((r - (1 << s)) % p + p) % p, {0, 0});
    return true;
  }
};
} // namespace

TEST_CASE("the barrier check rejects a dissemination barrier one round short") {
  for (int p : {3, 5, 8, 13}) {
    ShortBarrier s(args_of(schedule::Op::Barrier, p, 1));
    INFO("p=", p);
    CHECK(verify::check(s, verify::RedOp::Sum).find("may leave before") != std::string::npos);
  }
}

TEST_CASE("barrier and scan: engine equals the closed form on the ideal crossbar for every p tested") {
  testing::check_formula_exact(schedule::Op::Barrier, "dissemination", {1});
  testing::check_formula_exact(schedule::Op::Scan, "recursive_doubling", {1, 1000, 12345});
  testing::check_formula_exact(schedule::Op::Scan, "linear", {1, 1000, 12345});
  // Every p from 2 to 17. The closed forms count blocking send-recv rounds (mpi semantics), where they are
  // exact. Under gpu semantics a send completes once its data has left, so a rank that only sends runs
  // ahead: for p not a power of two the scan's later partial prefixes may arrive before the receiver is
  // ready, and the engine is faster than the rounds (never slower); for powers of two every rank is tight.
  for (int p = 2; p <= 17; ++p)
    for (auto sem : {engine::Semantics::mpi, engine::Semantics::gpu})
      for (std::string algo : {"recursive_doubling", "linear"}) {
        const auto t = crossbar_timing(algo, args_of(schedule::Op::Scan, p, 4321), testing::kSlowReduce, testing::kAlpha,
                                       testing::kBw, nullptr, "fifo", sem);
        INFO(algo, " p=", p, " semantics=", std::string(engine::to_string(sem)));
        const bool pof2 = (p & (p - 1)) == 0;
        if (sem == engine::Semantics::mpi || pof2 || algo == "linear") CHECK(t.engine == t.formula);
        else CHECK(t.engine <= t.formula);
        const auto b = crossbar_timing("dissemination", args_of(schedule::Op::Barrier, p, 1), 0, testing::kAlpha, testing::kBw,
                                       nullptr, "fifo", sem);
        CHECK(b.engine == b.formula);
      }
}

TEST_CASE("barrier and scan times by hand: alpha 2 us, 10 GB/s, n = 1 MB") {
  // Barrier, p = 13: ceil(lg 13) = 4 rounds of an empty message: 8 us.
  CHECK(crossbar_timing("dissemination", args_of(schedule::Op::Barrier, 13, 1), 0, 2'000'000, 10'000'000'000ULL).engine ==
        8'000'000);
  // Recursive-doubling scan, p = 13: 4 steps of 2 us + 1e6 B / 10 GB/s = 100 us: 408 us.
  CHECK(crossbar_timing("recursive_doubling", args_of(schedule::Op::Scan, 13, 250'000), 0, 2'000'000, 10'000'000'000ULL).engine ==
        408'000'000);
  // Linear scan, p = 6: 5 hops of 102 us: 510 us; with gamma = 1/(20 GB/s), each hop adds 50 us: 760 us.
  CHECK(crossbar_timing("linear", args_of(schedule::Op::Scan, 6, 250'000), 0, 2'000'000, 10'000'000'000ULL).engine == 510'000'000);
  CHECK(crossbar_timing("linear", args_of(schedule::Op::Scan, 6, 250'000), 20'000'000'000ULL, 2'000'000, 10'000'000'000ULL).engine ==
        760'000'000);
}
