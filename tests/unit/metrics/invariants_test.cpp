// Properties every prediction of the fifo, store_forward and flow models must have, whatever the
// algorithm (issue 17): time never falls as the size grows, busbw never exceeds what a GPU's links can
// carry, slower links make a run slower, and on an ideal crossbar more ranks are never faster. The
// expected values are inequalities from first principles, not numbers from the code under test.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "sim/core/error.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

namespace {

const std::vector<std::string> kModels = {"fifo", "store_forward", "flow"};

metrics::RunConfig config(const topology::Topology& t, schedule::Op op, const std::string& algo, const std::string& model) {
  metrics::RunConfig c;
  c.op = op;
  c.algo = algo;
  c.model_name = model;
  std::vector<int> all(static_cast<std::size_t>(t.num_gpus()));
  std::iota(all.begin(), all.end(), 0);
  c.placements = {all};
  return c;
}

// Time of one run, or nullopt when the algorithm does not run on this machine (e.g. needs a grid).
std::optional<Time> time_of(const topology::Topology& t, const metrics::RunConfig& c, Bytes size) {
  topology::Router r(t);
  try {
    return metrics::simulate(t, r, c, size).time;
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::vector<std::string> algos_of(schedule::Op op) {
  std::vector<std::string> v;
  for (const auto& a : schedule::all_algorithms())
    if (a.op == op) v.push_back(a.name);
  return v;
}

std::vector<topology::Topology> machines() {
  return {topology::resolve_topology("dgx1"), topology::generate_from_spec("crossbar:ranks=8"),
          topology::generate_from_spec("torus:dims=2x4")};
}

} // namespace

TEST_CASE("invariant: predicted time never falls as the size grows, for every algorithm and model") {
  for (const auto& t : machines())
    for (auto op : schedule::kAllOps)
      for (const auto& algo : algos_of(op))
        for (const auto& m : kModels) {
          const auto c = config(t, op, algo, m);
          std::optional<Time> prev;
          for (Bytes size = 64; size <= (Bytes{64} << 20); size *= 4) {
            const auto now = time_of(t, c, size);
            if (!now) break;
            INFO(t.name, " ", schedule::to_string(op), " ", algo, " ", m, " at ", size, " B");
            if (prev) CHECK(*now >= *prev);
            prev = now;
          }
        }
}

TEST_CASE("invariant: busbw never exceeds the slowest GPU's total link capacity") {
  // Each GPU must send (allreduce: 2(p-1)/p S, allgather/reducescatter/alltoall: (p-1)/p S) or, for a
  // broadcast root, S bytes: busbw, which scales algbw by exactly that share, is at most the capacity of
  // the GPU's own links. Checked at 256 MiB, where latency hardly counts.
  for (const auto& t : machines()) {
    double min_cap = 1e300;
    for (int g = 0; g < t.num_gpus(); ++g) {
      double cap = 0;
      for (const auto& l : t.links)
        if (l.a == t.gpu_node(g) || l.b == t.gpu_node(g)) cap += static_cast<double>(l.capacity());
      min_cap = std::min(min_cap, cap);
    }
    for (auto op : {schedule::Op::AllReduce, schedule::Op::AllGather, schedule::Op::ReduceScatter, schedule::Op::Broadcast,
                    schedule::Op::AllToAll})
      for (const auto& algo : algos_of(op))
        for (const auto& m : kModels) {
          topology::Router r(t);
          try {
            const auto row = metrics::simulate(t, r, config(t, op, algo, m), Bytes{256} << 20);
            INFO(t.name, " ", schedule::to_string(op), " ", algo, " ", m);
            CHECK(row.bw.busbw_GBps * 1e9 <= min_cap * (1 + 1e-9));
          } catch (const Error&) {
          }
        }
  }
}

TEST_CASE("invariant: halving the bandwidth of the links a ring uses makes it slower under every model") {
  const auto base = topology::resolve_topology("dgx1");
  topology::Router r(base);
  // Link types on the ring's routes (GPU i -> i+1 in the default order).
  std::set<topology::LinkType> used;
  for (int g = 0; g < base.num_gpus(); ++g)
    for (auto ch : r.route(base.gpu_node(g), base.gpu_node((g + 1) % base.num_gpus()))) used.insert(base.link_of(ch).type);
  REQUIRE(!used.empty());
  for (auto type : used)
    for (const auto& m : kModels) {
      auto slow = base;
      for (auto& l : slow.links)
        if (l.type == type) l.bw /= 2;
      const auto c = config(base, schedule::Op::AllReduce, "ring", m);
      const auto before = time_of(base, c, Bytes{64} << 20), after = time_of(slow, c, Bytes{64} << 20);
      REQUIRE(before);
      REQUIRE(after);
      INFO(topology::to_string(type), " ", m);
      CHECK(*after > *before);
    }
}

TEST_CASE("invariant: on an ideal crossbar, twice the ranks at the same per-rank size are never faster") {
  // Per-rank size fixed at 1 MiB: allreduce/broadcast move the same buffer, allgather/reducescatter/
  // alltoall grow with p as nccl-tests sizes them (size = p x per-rank share). Compared between p and
  // 2p: from p to p + 1 the shape can legitimately improve (recursive doubling on 7 ranks folds one rank
  // in with an extra whole-buffer exchange that 8 ranks do not need; torus2d's grid follows p's factors).
  for (auto op : {schedule::Op::AllReduce, schedule::Op::AllGather, schedule::Op::ReduceScatter, schedule::Op::Broadcast,
                  schedule::Op::AllToAll})
    for (const auto& algo : algos_of(op))
      for (const auto& m : kModels)
        for (int first : {2, 3, 5}) {
        std::optional<Time> prev;
        int prev_p = 0;
        for (int p = first; p <= 40; p *= 2) {
          const auto t = topology::make_crossbar(p, 25'000'000'000, 2'000'000);
          const bool total = op == schedule::Op::AllGather || op == schedule::Op::ReduceScatter || op == schedule::Op::AllToAll;
          const Bytes size = (Bytes{1} << 20) * (total ? static_cast<Bytes>(p) : 1);
          // Under the lockstep (mpi) step semantics of the textbook. Under the default gpu semantics one pair
          // breaks it: halving_doubling with store_forward, 10 -> 20 ranks, 1.8% faster. The cause is
          // head-of-line blocking, not a defect: with gpu semantics a rank posts its first halving step
          // while the fold's whole buffer is still arriving at the same receive port (switch->gpu3 on 10
          // ranks: rank 7's step-0 message queues 42 us behind rank 2's 1 MiB fold, and the delay cascades,
          // 84 us queued in all per `--links`), where mpi's lockstep happens to keep them apart (0 us queued).
          // How much lines up depends on p's fold pattern, so gpu semantics need not be monotone in p.
          auto c = config(t, op, algo, m);
          c.model.semantics = engine::Semantics::mpi;
          const auto now = time_of(t, c, size);
          if (!now) break;
          INFO(schedule::to_string(op), " ", algo, " ", m, ": ", prev_p, " -> ", p, " ranks");
          if (prev) CHECK(*now >= *prev);
          prev = now, prev_p = p;
        }
      }
}
