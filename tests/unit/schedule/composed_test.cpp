// The textbook compositions: data for every p and root, engine == formula on the crossbar for every p
// from 2 to 17 and a few larger, and the textbook costs by hand where blocks divide evenly.
#include "crossbar_run.hpp"

using namespace ccsim;
using namespace ccsim::testing;
using schedule::Op;

namespace {
const std::pair<Op, const char*> kComposed[] = {
    {Op::Broadcast, "scatter_allgather"}, {Op::Reduce, "reducescatter_gather"}, {Op::AllGather, "gather_bcast"},
    {Op::AllReduce, "reducescatter_allgather"}};
int ceil_lg(int p) {
  int l = 0;
  while ((1 << l) < p) ++l;
  return l;
}
} // namespace

TEST_CASE("composed algorithms deliver the data for every p, root, count and reduction") {
  for (const auto& [op, algo] : kComposed) check_data(op, algo);
}

TEST_CASE("composed algorithms: engine time equals the formula for p = 2..17 and larger") {
  for (const auto& composed : kComposed) { // not a structured binding: INFO's lambda uses algo (clang 14)
    const Op op = composed.first;
    const char* algo = composed.second;
    for (int p = 2; p <= 17; ++p)
      for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t{777}, std::uint64_t{65'536} * static_cast<std::uint64_t>(p)})
        for (Bandwidth rbw : {Bandwidth{0}, kFastReduce, kSlowReduce}) {
          const int root = schedule::has_root(op) ? p / 2 : 0;
          const auto t = crossbar_timing(algo, args_of(op, p, count, root), rbw);
          INFO(algo, " p=", p, " count=", count, " reduce_bw=", rbw);
          // reducescatter_allgather overlaps its phases for p not a power of two: there its formula is an upper bound.
          if (std::string(algo) == "reducescatter_allgather" && (p & (p - 1)) != 0) CHECK(t.engine <= t.formula);
          else CHECK(t.engine == t.formula);
        }
    for (int p : {24, 31, 32, 33, 64}) {
      const auto t = crossbar_timing(algo, args_of(op, p, 100'003, p - 1), kSlowReduce);
      INFO(algo, " p=", p);
      if (std::string(algo) == "reducescatter_allgather" && (p & (p - 1)) != 0) CHECK(t.engine <= t.formula);
      else CHECK(t.engine == t.formula);
    }
  }
}

TEST_CASE("composed algorithms cost what the textbook says, by hand") {
  // 10 GB/s and blocks of 1000 floats: 4000 B = 400 ns per block, exact in ps; alpha 1 us.
  const Time a = 1'000'000, blk = 400'000;
  for (int p : {4, 5, 8, 13}) {
    const auto P = static_cast<Time>(p);
    INFO("p=", p);
    // van de Geijn: ceil(lg p) a + (p-1) blocks (scatter) + (p-1)(a + block) (ring allgather).
    CHECK(crossbar_timing("scatter_allgather", args_of(Op::Broadcast, p, 1000 * static_cast<std::uint64_t>(p)), 0, a,
                          10'000'000'000).engine == ceil_lg(p) * a + (P - 1) * blk + (P - 1) * (a + blk));
    // gather + broadcast: ceil(lg p) a + (p-1) blocks, then ceil(lg p) (a + p blocks).
    CHECK(crossbar_timing("gather_bcast", args_of(Op::AllGather, p, 1000), 0, a, 10'000'000'000).engine ==
          ceil_lg(p) * a + (P - 1) * blk + ceil_lg(p) * (a + P * blk));
  }
  // Reduce-scatter + allgather allreduce at p = 8: 3 halving rounds of 4, 2, 1 blocks, then 3 doubling rounds
  // of 1, 2, 4: 2 lg p a + 2(p-1) blocks, the message count and sizes of Rabenseifner's allreduce.
  CHECK(crossbar_timing("reducescatter_allgather", args_of(Op::AllReduce, 8, 8000), 0, a, 10'000'000'000).engine == 6 * a + 14 * blk);
  CHECK(crossbar_timing("reducescatter_allgather", args_of(Op::AllReduce, 8, 8000), 0, a, 10'000'000'000).engine ==
        crossbar_timing("halving_doubling", args_of(Op::AllReduce, 8, 8000), 0, a, 10'000'000'000).engine);
  // Rabenseifner's reduce at p = 8: 3 halving rounds of 4, 2, 1 blocks, then a gather of 1, 2, 4: 2 lg p a + 2(p-1) blocks.
  CHECK(crossbar_timing("reducescatter_gather", args_of(Op::Reduce, 8, 8000), 0, a, 10'000'000'000).engine ==
        6 * a + 14 * blk);
}
