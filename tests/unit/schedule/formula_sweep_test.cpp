// Engine time == formula for every registered algorithm over pseudo-random shapes and machines
// (fixed seed): p 1..17, any root, tiny to large counts, chain segments, alpha from 0 to 100 us,
// reductions from far slower to far faster than the links.
#include <random>

#include "crossbar_run.hpp"

using namespace ccsim;
using namespace ccsim::testing;

TEST_CASE("engine time equals the formula for random shapes and parameters") {
  std::mt19937_64 rng(20261122);
  const auto& all = schedule::all_algorithms();
  for (int it = 0; it < 4000; ++it) {
    const auto& info = all[rng() % all.size()];
    const int p = 1 + static_cast<int>(rng() % 17);
    const std::uint64_t count = rng() % 3 == 0 ? rng() % 50 : rng() % 2'000'000;
    std::uint64_t seg = rng() % 2 ? 0 : 1 + rng() % 200'000;
    if (seg > 0 && (count + seg - 1) / seg > 2000) seg = count / 2000 + 1; // keep long chains affordable
    const Time alpha = rng() % 4 == 0 ? 0 : 2 * static_cast<Time>(rng() % (rng() % 2 ? 500 : 50'000'000));
    const Bandwidth bw = 1'000'000'000 + rng() % 100'000'000'000;
    const Bandwidth rbw = rng() % 3 == 0 ? 0 : 1'000'000 + rng() % (rng() % 2 ? 1'000'000'000 : 200'000'000'000);
    const auto a = args_of(info.op, p, count, static_cast<int>(rng() % static_cast<std::uint64_t>(p)), seg);
    const auto t = crossbar_timing(info.name, a, rbw, alpha, bw);
    INFO(schedule::to_string(info.op), " ", info.name, " p=", p, " count=", count, " root=", a.root, " segment=", seg,
         " alpha=", alpha, " bw=", bw, " reduce_bw=", rbw);
    CHECK(schedule::fit_holds(info.fit, t.engine, t.formula));
    if (info.fit == schedule::FormulaFit::ExactWithFairSharing)
      CHECK(crossbar_timing(info.name, a, rbw, alpha, bw, nullptr, "flow").engine == t.formula);
  }
}
