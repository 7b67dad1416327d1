// The explicit-tree pipelined allreduce (--model nccl's tree): correct on data for chains, stars,
// binary and random trees, and on the engine it pipelines: k segments over a 2-rank tree take about
// k message times, not 2k.
#include <doctest/doctest.h>

#include <random>

#include "crossbar_run.hpp"
#include "sim/core/error.hpp"
#include "sim/schedule/algorithms/tree_pipeline.hpp"

using namespace ccsim;
using schedule::Op;
using schedule::TreePipelineAllReduce;

namespace {
std::vector<std::vector<int>> trees_for(int p, std::mt19937& rng) {
  std::vector<std::vector<int>> out;
  std::vector<int> chain(static_cast<std::size_t>(p)), star(chain), binary(chain), random(chain), rooted_mid(chain);
  for (int r = 0; r < p; ++r) {
    chain[static_cast<std::size_t>(r)] = r - 1;
    star[static_cast<std::size_t>(r)] = r == 0 ? -1 : 0;
    binary[static_cast<std::size_t>(r)] = r == 0 ? -1 : (r - 1) / 2;
    random[static_cast<std::size_t>(r)] = r == 0 ? -1 : static_cast<int>(rng() % static_cast<unsigned>(r));
  }
  // A chain rooted in the middle (two children at the root, as NCCL's node heads have).
  const int mid = p / 2;
  for (int r = 0; r < p; ++r) rooted_mid[static_cast<std::size_t>(r)] = r == mid ? -1 : r < mid ? r + 1 : r - 1;
  return {chain, star, binary, random, rooted_mid};
}
} // namespace

TEST_CASE("tree pipeline allreduce is correct on data for many trees, p up to 17, any segment count") {
  std::mt19937 rng(7);
  for (int p = 1; p <= 17; ++p)
    for (const auto& parent : trees_for(p, rng))
      for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, static_cast<std::uint64_t>(3 * p + 2)})
        for (std::uint64_t k : {1, 2, 3, 7})
          for (auto red : {verify::RedOp::Sum, verify::RedOp::Prod, verify::RedOp::Min, verify::RedOp::Max}) {
            const TreePipelineAllReduce s(testing::args_of(Op::AllReduce, p, count), parent, k);
            INFO("p " << p << " count " << count << " k " << k);
            CHECK(verify::check(s, red) == "");
          }
}

TEST_CASE("tree pipeline: segments overlap across steps and directions") {
  const Time alpha = testing::kAlpha;
  const Bandwidth bw = testing::kBw;
  const auto topo = topology::make_crossbar(2, bw, alpha);
  topology::Router router(topo);
  for (std::uint64_t k : {1, 4, 64}) {
    const std::uint64_t count = 1 << 20;
    const TreePipelineAllReduce s(testing::args_of(Op::AllReduce, 2, count), {-1, 0}, k);
    engine::Engine eng(topo, router, {}, engine::fifo_network());
    engine::Job job{&s, {topo.gpu_node(0), topo.gpu_node(1)}, 4, 0, {}};
    const std::vector<engine::Job> jobs{job};
    const Time t = eng.run(jobs).makespan;
    const Time msg = alpha + transfer_time(4 * count / k, bw);
    // Up and down use opposite directions of each link: k segments up, the last one back down.
    CAPTURE(k);
    CHECK(t >= static_cast<Time>(k + 1) * (msg - alpha));
    CHECK(t <= static_cast<Time>(k + 2) * msg);
  }
}

TEST_CASE("tree pipeline refuses trees that are not trees") {
  const auto a = testing::args_of(Op::AllReduce, 3, 10);
  CHECK_THROWS_AS(TreePipelineAllReduce(a, {-1, -1, 0}, 1), Error);   // two roots
  CHECK_THROWS_AS(TreePipelineAllReduce(a, {1, 2, 0}, 1), Error);     // no root
  CHECK_THROWS_AS(TreePipelineAllReduce(a, {-1, 2, 1}, 1), Error);    // a cycle beside the root
  CHECK_THROWS_AS(TreePipelineAllReduce(a, {-1, 5, 0}, 1), Error);    // parent out of range
}
