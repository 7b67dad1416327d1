// In-switch allreduce (NVLS / SHARP): the last rank sits on the switch node, reduces and multicasts.
// Expectations by hand: each GPU link carries the vector once each way; on an ideal switch with k
// segments in lockstep, k+1 ticks of one segment each, (k+1) * (n/k) / B.
#include <doctest/doctest.h>

#include "sim/engine/engine.hpp"
#include "sim/schedule/algorithms/switch_reduce.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"

using namespace ccsim;

namespace {
engine::RunResult run_on_switch(int p, std::uint64_t count, std::uint64_t k, Bandwidth bw) {
  const auto topo = topology::make_crossbar(p, bw, 0);
  topology::Router router(topo);
  engine::ModelParams mp;
  mp.semantics = engine::Semantics::mpi;
  engine::Engine eng(topo, router, mp, *engine::find_network("fifo"));
  schedule::CollArgs a;
  a.op = schedule::Op::AllReduce;
  a.ranks = p + 1;
  a.count = count;
  a.elt_size = 4;
  schedule::SwitchAllReduce s(a, k);
  engine::Job job;
  job.schedule = &s;
  for (int g = 0; g < p; ++g) job.node_of_rank.push_back(topo.gpu_node(g));
  job.node_of_rank.push_back(p); // make_crossbar's switch is the node after the GPUs
  job.elt_size = 4;
  return eng.run(std::vector<engine::Job>{job});
}
} // namespace

TEST_CASE("switch allreduce moves the vector once up and once down on every GPU link") {
  const int p = 8;
  const std::uint64_t count = 1 << 20; // 4 MiB
  const auto r = run_on_switch(p, count, 16, 100'000'000'000);
  const auto& bytes = r.channels.bytes;
  REQUIRE(bytes.size() == 2 * static_cast<std::size_t>(p)); // p links, two directions each
  for (std::size_t c = 0; c < bytes.size(); ++c) CHECK(bytes[c] == count * 4);
}

TEST_CASE("switch allreduce on an ideal switch takes k+1 segment times") {
  const Bandwidth bw = 50'000'000'000;
  for (int p : {2, 3, 8, 72})
    for (std::uint64_t k : {1, 4, 64}) {
      CAPTURE(p);
      CAPTURE(k);
      const std::uint64_t count = 64 * 1024 * k; // segments of 256 KiB
      const Time seg = transfer_time(64 * 1024 * 4, bw);
      CHECK(run_on_switch(p, count, k, bw).makespan == static_cast<Time>(k + 1) * seg);
    }
}

TEST_CASE("switch allreduce refuses a job without a GPU") {
  schedule::CollArgs a;
  a.op = schedule::Op::AllReduce;
  a.ranks = 1;
  a.count = 8;
  CHECK_THROWS(schedule::SwitchAllReduce(a, 1));
}
