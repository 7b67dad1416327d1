// The explicit-tree pipelined allreduce (--model nccl's tree): correct on data for chains, stars,
// binary and random trees, and on the engine it pipelines: k segments over a 2-rank tree take about
// k message times, not 2k.
#include <doctest/doctest.h>

#include <map>
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

// runTreeSplit (NVIDIA's tree allreduce, RCCL's LL / LL128 one): the up and down groups of a GPU run at once, so the two directions
// are two pipelines, not one lockstep. Two GPUs, the root on GPU 0: GPU 1's up group streams k segments to the root,
// which sends each on to GPU 1's down group as it comes in: by hand (k + 1) segment times and the latency of two
// messages; the shared-tick TreePipelineAllReduce on the same tree pays the latency once a segment.
TEST_CASE("tree split: up and down pipelines pay the hop latency once, not once a segment") {
  const Time alpha = testing::kAlpha;
  const Bandwidth bw = testing::kBw;
  const auto topo = topology::make_crossbar(2, bw, alpha);
  topology::Router router(topo);
  const std::uint64_t count = 1 << 20, k = 64;
  const Time s = transfer_time(4 * count / k, bw); // 65536 B: 2.79 us against alpha's 1.23, 8 credits never bind
  const schedule::TreeSplitAllReduce split(testing::args_of(Op::AllReduce, 4, count), {-1, 0}, k);
  engine::Engine eng(topo, router, {}, engine::fifo_network());
  engine::Job job{&split, {topo.gpu_node(0), topo.gpu_node(1), topo.gpu_node(0), topo.gpu_node(1)}, 4, 0, {}};
  const Time t = eng.run(std::vector<engine::Job>{job}).makespan;
  CHECK(t >= static_cast<Time>(k + 1) * s);
  CHECK(t <= static_cast<Time>(k + 1) * s + 3 * alpha);
  const TreePipelineAllReduce lock(testing::args_of(Op::AllReduce, 2, count), {-1, 0}, k);
  engine::Engine eng2(topo, router, {}, engine::fifo_network());
  engine::Job job2{&lock, {topo.gpu_node(0), topo.gpu_node(1)}, 4, 0, {}};
  const Time t2 = eng2.run(std::vector<engine::Job>{job2}).makespan;
  CHECK(t2 >= static_cast<Time>(k) * (s + alpha)); // one hop latency a tick
}

// Every send of the split tree has its receive, segment for segment, and each rank's steps are what the ticks give:
// a chain of 4 GPUs rooted at 0 (depths 0..3, heights 3..0), k = 5: the root's up group runs k + H = 8 ticks, a leaf's
// up group k = 5, the down group of the GPU at depth d k + H + d (a leaf one fewer), the root's down group none.
TEST_CASE("tree split: sends and receives pair up, steps by hand") {
  const int p = 4;
  const std::uint64_t k = 5, count = 37;
  const schedule::TreeSplitAllReduce s(testing::args_of(Op::AllReduce, 2 * p, count), {-1, 0, 1, 2}, k);
  std::map<std::pair<int, int>, std::vector<std::pair<std::uint64_t, std::uint64_t>>> sent, got;
  std::vector<int> steps(2 * p, 0);
  std::vector<schedule::Action> out;
  for (int r = 0; r < 2 * p; ++r)
    for (int st = 0; s.step(r, st, out); ++st) {
      steps[static_cast<std::size_t>(r)] = st + 1;
      for (const auto& a : out)
        if (a.kind == schedule::Action::Kind::Send) sent[{r, a.peer}].emplace_back(a.off, a.len);
        else got[{a.peer, r}].emplace_back(a.off, a.len);
    }
  CHECK(sent == got);
  CHECK(steps == std::vector<int>{8, 7, 6, 5, 0, 3 + 5 + 1, 3 + 5 + 2, 3 + 5 + 3 - 1});
  // Ranks 1..3 send up to their parent's up group; the root sends down to GPU 1's down group (rank 5), which
  // sends on to 6 and 7.
  CHECK(sent.count({0, 5}) == 1);
  CHECK(sent.count({5, 6}) == 1);
  CHECK(sent.count({6, 7}) == 1);
  CHECK(sent.size() == 6);
  CHECK_THROWS_AS(schedule::TreeSplitAllReduce(testing::args_of(Op::AllReduce, 3, 10), {-1, 0}, 1), Error);
}

// NVIDIA's tree across nodes as --model nccl replays it (builder.cpp tree_plan): runTreeSplit's two groups on the flow
// network under gpu semantics, 8 credits (NCCL_STEPS). The two GPUs stand for two nodes' heads, one network hop apart.
// By hand, latency last (a message's bytes leave, then alpha): GPU 1's up group sends segment j from j s to (j + 1) s;
// it lands at (j + 1) s + alpha; the root forwards it down in its next tick, from (j + 1) s + alpha to (j + 2) s + alpha,
// landing at (j + 2) s + 2 alpha. The last segment j = k - 1 ends the run at (k + 1) s + 2 alpha, at any segment size:
// 1 MiB in 16 and 64 segments. The shared-tick lockstep (mpi semantics, what the NVIDIA tree ran before) pays
// s + alpha a tick over k + 1 ticks.
TEST_CASE("tree split on the flow network: a 2-node tree's time by hand at two segment sizes, latency paid twice") {
  const Time alpha = testing::kAlpha;
  const Bandwidth bw = testing::kBw;
  const auto topo = topology::make_crossbar(2, bw, alpha);
  topology::Router router(topo);
  const std::uint64_t count = 1 << 18; // 1 MiB of floats
  for (const std::uint64_t k : {std::uint64_t{16}, std::uint64_t{64}}) {
    CAPTURE(k);
    const Time s = transfer_time(4 * count / k, bw);
    const schedule::TreeSplitAllReduce split(testing::args_of(Op::AllReduce, 4, count), {-1, 0}, k);
    engine::ModelParams gpu;
    gpu.semantics = engine::Semantics::gpu;
    gpu.credits = 8;
    engine::Engine eng(topo, router, gpu, *engine::find_network("flow"));
    engine::Job job{&split, {topo.gpu_node(0), topo.gpu_node(1), topo.gpu_node(0), topo.gpu_node(1)}, 4, 0, {}};
    const Time t = eng.run(std::vector<engine::Job>{job}).makespan;
    const Time want = static_cast<Time>(k + 1) * s + 2 * alpha;
    CHECK(t >= want - static_cast<Time>(k + 2)); // ps rounding, one a message at most
    CHECK(t <= want + static_cast<Time>(k + 2));
    const TreePipelineAllReduce lock(testing::args_of(Op::AllReduce, 2, count), {-1, 0}, k);
    engine::ModelParams mpi;
    mpi.semantics = engine::Semantics::mpi;
    engine::Engine eng2(topo, router, mpi, *engine::find_network("flow"));
    engine::Job job2{&lock, {topo.gpu_node(0), topo.gpu_node(1)}, 4, 0, {}};
    CHECK(eng2.run(std::vector<engine::Job>{job2}).makespan >= static_cast<Time>(k + 1) * (s + alpha));
  }
}
