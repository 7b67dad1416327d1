// The engine's hot path is compiled per mode (FIFO + mpi rendezvous, FIFO + gpu credits, and a generic
// one that reads every switch at run time), and the ring schedules hand it their steps in a fixed action
// buffer. Each mode and each step path must replay a run exactly alike. The references: the generic mode
// (forced by a do-nothing observer, which only it serves) and the vector path (a wrapper schedule that
// forwards step() and hides fixed_steps()); the crossbar ring's closed form anchors all of them.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"

using namespace ccsim;
using namespace ccsim::engine;

namespace {

// The same steps through step() only: the engine takes its vector path.
class VectorSteps final : public schedule::Schedule {
 public:
  explicit VectorSteps(const schedule::Schedule& s) : Schedule(s.args()), s_(s) {}
  bool step(int r, int st, std::vector<schedule::Action>& out) const override { return s_.step(r, st, out); }
  std::uint64_t buffer_elems() const override { return s_.buffer_elems(); }

 private:
  const schedule::Schedule& s_;
};

struct Quiet final : Observer {}; // observes nothing, but makes the engine take its generic mode

struct Outcome {
  Time makespan;
  std::vector<Time> finish;
  std::uint64_t events, transfers;
  std::vector<Bytes> bytes;
  std::vector<Time> busy;
  bool operator==(const Outcome&) const = default;
};

// Two rings at once on a p-GPU crossbar, the second in reverse rank order (they share every link), with
// SMPI's 16-byte header on each message.
Outcome run(schedule::Op op, int p, Semantics sem, bool fixed, bool generic, std::uint64_t count) {
  auto topo = topology::make_crossbar(p, 25'000'000'000ULL, 2 * kPsPerUs);
  topology::Router router(topo);
  ModelParams mp;
  mp.semantics = sem;
  mp.header_bytes = 16;
  Engine eng(topo, router, mp, fifo_network());
  Quiet quiet;
  if (generic) eng.add_observer(&quiet);
  schedule::CollArgs a;
  a.op = op;
  a.ranks = p;
  a.count = count;
  const auto ring = schedule::find_algorithm(op, "ring")->make(a);
  REQUIRE(ring->fixed_steps());
  VectorSteps vec(*ring);
  std::vector<Job> jobs(2);
  for (int j = 0; j < 2; ++j) {
    jobs[j].schedule = fixed ? ring.get() : static_cast<const schedule::Schedule*>(&vec);
    for (int r = 0; r < p; ++r) jobs[j].node_of_rank.push_back(topo.gpu_node(j == 0 ? r : p - 1 - r));
  }
  const RunResult res = eng.run(jobs);
  return {res.makespan, res.job_finish, res.events, res.transfers, res.channels.bytes, res.channels.busy};
}

} // namespace

TEST_CASE("every engine mode and both step paths replay two contending rings alike") {
  for (auto op : {schedule::Op::AllReduce, schedule::Op::AllGather, schedule::Op::ReduceScatter})
    for (int p : {2, 3, 8, 37})
      for (auto sem : {Semantics::gpu, Semantics::mpi}) {
        CAPTURE(p);
        CAPTURE(static_cast<int>(sem));
        const std::uint64_t count = 1000 * static_cast<std::uint64_t>(p) + 7; // uneven blocks
        const Outcome ref = run(op, p, sem, false, true, count);
        CHECK(ref.transfers == 2 * static_cast<std::uint64_t>(p) * (p - 1) * (op == schedule::Op::AllReduce ? 2 : 1));
        CHECK(run(op, p, sem, true, true, count) == ref);
        CHECK(run(op, p, sem, false, false, count) == ref);
        CHECK(run(op, p, sem, true, false, count) == ref);
      }
}

TEST_CASE("the fast modes keep the ring's closed form 2(p-1)(alpha + n/p beta) on an idle crossbar") {
  for (auto sem : {Semantics::gpu, Semantics::mpi})
    for (int p : {2, 5, 64}) {
      auto topo = topology::make_crossbar(p, 10'000'000'000ULL, kPsPerUs);
      topology::Router router(topo);
      ModelParams mp;
      mp.semantics = sem;
      Engine eng(topo, router, mp, fifo_network());
      schedule::CollArgs a;
      a.ranks = p;
      a.count = 1024 * static_cast<std::uint64_t>(p); // p blocks of 1024 floats
      const auto ring = schedule::find_algorithm(schedule::Op::AllReduce, "ring")->make(a);
      Job job;
      job.schedule = ring.get();
      for (int r = 0; r < p; ++r) job.node_of_rank.push_back(topo.gpu_node(r));
      const Time block = transfer_time(4096, 10'000'000'000ULL); // 409.6 ns
      CHECK(eng.run(std::span<const Job>(&job, 1)).makespan == 2 * (p - 1) * (kPsPerUs + block));
    }
}
