// The training-step simulation: zero compute reduces to the collectives, overlap only helps, one GPU
// never talks, bucket size trades latency against overlap, 16-bit gradients halve the traffic.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "sim/engine/engine.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/scenario/ps_schedule.hpp"
#include "sim/scenario/run.hpp"
#include "sim/scenario/step.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using nlohmann::json;

namespace {

// `n` layers of `params` each with the given per-layer times.
json timed_model(int n, std::uint64_t params, const std::string& fwd, const std::string& bwd) {
  json layers = json::array();
  for (int i = 0; i < n; ++i) layers.push_back({{"params", params}, {"forward", fwd}, {"backward", bwd}});
  return {{"layers", layers}};
}

scenario::Scenario make(json model, const std::string& topo, json extra = json::object()) {
  json j = {{"model", model}, {"compute", {{"batch_per_gpu", 1}}}, {"topology", topo}, {"degrees", {1}}};
  for (auto& [k, v] : extra.items()) j[k] = v;
  return scenario::scenario_from_json(j, "test.json");
}

const metrics::DataType kFloat{"float", 4}, kHalf{"half", 2};
const std::string kXbar = "crossbar:ranks=8,bw=25GB/s,alpha=2us";

// With zero compute a 3-bucket step is its three exchanges back to back, the network never idle.
template <class Result>
void check_three_back_to_back(const Result& r, Time one) {
  CHECK(r.items.size() == 3);
  CHECK(r.step == 3 * one);
  CHECK(r.comm_busy == r.step);
}
} // namespace

TEST_CASE("buckets fill in reverse layer order, hold every parameter, and get ready as backward proceeds") {
  auto s = make(timed_model(5, 3'000'000, "1ms", "2ms"), kXbar, {{"bucket_size", "25M"}});
  const auto b = scenario::make_buckets(s, 4);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    total += b[i].elems;
    CHECK(b[i].elems <= (25ULL << 20) / 4);
    if (i) CHECK(b[i].ready >= b[i - 1].ready);
  }
  CHECK(total == s.total_params());
  CHECK(b.size() == 3); // 15 M floats in buckets of 6.55 M
  // The first bucket (6.55 M > 2 x 3 M) closes inside the third layer from the end: 5 ms forward + 3 x 2 ms.
  CHECK(b.front().ready == 11 * 1'000'000'000LL);
  CHECK(b.back().ready == s.forward_time() + s.backward_time());
}

TEST_CASE("a step with zero compute takes exactly the sum of its collectives") {
  // Three layers of 1 Mi floats, 4 MiB buckets: three allreduces of 4 MiB back to back.
  auto s = make(timed_model(3, 1ULL << 20, "0us", "0us"), kXbar, {{"bucket_size", "4M"}});
  auto topo = topology::resolve_topology(kXbar);
  topology::Router router(topo);
  metrics::RunConfig rc;
  rc.placements = {{0, 1, 2, 3}};
  const Time one = metrics::simulate(topo, router, rc, 4ULL << 20).time;
  REQUIRE(one > 0);
  scenario::StepSimulator ar(s, topo, scenario::Strategy::AllReduce, kFloat, 4);
  const auto r = ar.run();
  CHECK(r.compute == 0);
  check_three_back_to_back(r, one);
  // ZeRO: three reduce-scatters then three allgathers of 1/4 each.
  rc.op = schedule::Op::ReduceScatter;
  const Time rs = metrics::simulate(topo, router, rc, 4ULL << 20).time;
  rc.op = schedule::Op::AllGather;
  const Time ag = metrics::simulate(topo, router, rc, 4ULL << 20).time;
  scenario::StepSimulator z(s, topo, scenario::Strategy::Zero, kFloat, 4);
  CHECK(z.run().step == 3 * rs + 3 * ag);
}

TEST_CASE("a step with zero compute takes exactly the sum of its parameter-server exchanges") {
  // A DGX-1 (it has CPUs for ps_cpu and uneven links, so placement matters); GPUs 0,1,4,5; three
  // buckets of 1 Mi floats. Each bucket is one push + pull exchange on the one stream, so the step is
  // three exchanges back to back. Each exchange is timed here independently of StepSimulator: the
  // registry's "ps" allreduce (a different implementation of push-then-pull) for the central servers,
  // and the scenario's sharded schedule run directly for ps_sharded.
  auto s = make(timed_model(3, 1ULL << 20, "0us", "0us"), "dgx1", {{"bucket_size", "4M"}, {"gpus", {0, 1, 4, 5}}});
  auto topo = topology::resolve_topology("dgx1");
  topology::Router router(topo);
  const std::vector<int> gpus{0, 1, 4, 5};
  auto run_job = [&](const schedule::Schedule& sched, std::vector<int> nodes) {
    engine::Job job;
    job.schedule = &sched;
    job.node_of_rank = std::move(nodes);
    job.elt_size = 4;
    engine::Engine eng(topo, router, s.model, engine::fifo_network());
    return eng.run(std::span<const engine::Job>(&job, 1)).makespan;
  };
  std::vector<int> gpu_nodes;
  for (int g : gpus) gpu_nodes.push_back(topo.gpu_node(g));
  schedule::CollArgs a;
  a.op = schedule::Op::AllReduce;
  a.count = 1ULL << 20;
  a.elt_size = 4;
  const auto& ps = schedule::require_algorithm(schedule::Op::AllReduce, "ps");

  SUBCASE("ps_gpu0: the first GPU of the group serves") {
    metrics::RunConfig rc;
    rc.algo = "ps";
    rc.placements = {gpus};
    const Time one = metrics::simulate(topo, router, rc, 4ULL << 20).time;
    REQUIRE(one > 0);
    const auto r = scenario::StepSimulator(s, topo, scenario::Strategy::PsGpu0, kFloat, 4).run();
    CHECK(r.compute == 0);
    check_three_back_to_back(r, one);
  }
  SUBCASE("ps_cpu: a fifth rank on the first CPU serves") {
    a.ranks = 5;
    a.root = 4;
    auto nodes = gpu_nodes;
    int cpu = -1;
    for (int i = 0; i < static_cast<int>(topo.nodes.size()) && cpu < 0; ++i)
      if (topo.nodes[static_cast<std::size_t>(i)].kind == topology::NodeKind::Cpu) cpu = i;
    REQUIRE(cpu >= 0);
    nodes.push_back(cpu);
    const Time one = run_job(*ps.make(a), nodes);
    REQUIRE(one > 0);
    const auto r = scenario::StepSimulator(s, topo, scenario::Strategy::PsCpu, kFloat, 4).run();
    check_three_back_to_back(r, one);
  }
  SUBCASE("ps_sharded: push (reduce-scatter pattern) and pull (allgather pattern) as one exchange") {
    // The identity holds for the exchange as run: one two-step schedule per bucket. That need not equal
    // a reduce-scatter's time plus an allgather's, because the engine lets a GPU whose shard is complete
    // start its pull while others still push; so the test times the scenario's own schedule directly.
    a.ranks = 4;
    const Time one = run_job(*scenario::make_ps_sharded(a), gpu_nodes);
    REQUIRE(one > 0);
    const auto r = scenario::StepSimulator(s, topo, scenario::Strategy::PsSharded, kFloat, 4).run();
    check_three_back_to_back(r, one);
  }
}

TEST_CASE("the engine is shift-invariant, which is why exchange durations are cached") {
  auto topo = topology::resolve_topology("dgx1");
  topology::Router router(topo);
  schedule::CollArgs args;
  args.ranks = 4;
  args.count = 1 << 20;
  const auto sched = schedule::require_algorithm(schedule::Op::AllReduce, "ring").make(args);
  engine::Job job;
  job.schedule = sched.get();
  for (int g = 0; g < 4; ++g) job.node_of_rank.push_back(topo.gpu_node(g));
  engine::Engine e(topo, router, {}, engine::fifo_network());
  const Time d = e.run(std::span<const engine::Job>(&job, 1)).makespan;
  job.start = 123'456'789;
  CHECK(e.run(std::span<const engine::Job>(&job, 1)).makespan == job.start + d);
}

TEST_CASE("overlap never makes a step slower, and helps when compute and communication are comparable") {
  auto topo = topology::resolve_topology("dgx1");
  for (auto st : {scenario::Strategy::AllReduce, scenario::Strategy::Zero, scenario::Strategy::PsCpu,
                  scenario::Strategy::PsGpu0, scenario::Strategy::PsSharded})
    for (int p : {2, 4, 8}) {
      auto on = make(timed_model(12, 2'000'000, "0.2ms", "0.4ms"), "dgx1", {{"bucket_size", "8M"}});
      auto off = make(timed_model(12, 2'000'000, "0.2ms", "0.4ms"), "dgx1", {{"bucket_size", "8M"}, {"overlap", false}});
      scenario::StepSimulator a(on, topo, st, kFloat, p), b(off, topo, st, kFloat, p);
      const auto ra = a.run(), rb = b.run();
      CAPTURE(scenario::to_string(st));
      CAPTURE(p);
      CHECK(ra.step <= rb.step);
      CHECK(ra.compute == rb.compute);
      if (st == scenario::Strategy::AllReduce) CHECK(ra.step < rb.step);
    }
}

TEST_CASE("one GPU has no communication, whatever the strategy") {
  auto topo = topology::resolve_topology("dgx1");
  auto s = make(timed_model(4, 5'000'000, "1ms", "2ms"), "dgx1");
  for (auto st : {scenario::Strategy::AllReduce, scenario::Strategy::Zero, scenario::Strategy::PsCpu,
                  scenario::Strategy::PsGpu0, scenario::Strategy::PsSharded}) {
    scenario::StepSimulator sim(s, topo, st, kFloat, 1);
    const auto r = sim.run();
    CHECK(r.items.empty());
    CHECK(r.comm_busy == 0);
    CHECK(r.step == r.compute);
    CHECK(r.step == 12 * 1'000'000'000LL);
  }
}

TEST_CASE("bucketing: many buckets overlap backward, one bucket pays fewer latencies") {
  auto topo = topology::resolve_topology(kXbar);
  // With compute: many small buckets start while backward still runs, one bucket waits for all of it.
  auto many = make(timed_model(16, 1'000'000, "0.5ms", "1ms"), kXbar, {{"bucket_size", "4M"}});
  auto one = make(timed_model(16, 1'000'000, "0.5ms", "1ms"), kXbar, {{"bucket_size", "1G"}});
  scenario::StepSimulator m(many, topo, scenario::Strategy::AllReduce, kFloat, 8), o(one, topo, scenario::Strategy::AllReduce, kFloat, 8);
  const auto rm = m.run(), ro = o.run();
  CHECK(ro.items.size() == 1);
  CHECK(rm.items.size() > 10);
  CHECK(rm.exposed() < ro.exposed());
  // Without compute there is nothing to overlap: the single bucket's fewer start-ups win.
  auto many0 = make(timed_model(16, 1'000'000, "0us", "0us"), kXbar, {{"bucket_size", "4M"}});
  auto one0 = make(timed_model(16, 1'000'000, "0us", "0us"), kXbar, {{"bucket_size", "1G"}});
  scenario::StepSimulator m0(many0, topo, scenario::Strategy::AllReduce, kFloat, 8), o0(one0, topo, scenario::Strategy::AllReduce, kFloat, 8);
  CHECK(o0.run().step < m0.run().step);
}

TEST_CASE("16-bit gradients halve the bytes and nearly halve the communication") {
  auto topo = topology::resolve_topology("dgx1");
  auto s = make(timed_model(8, 8'000'000, "0us", "0us"), "dgx1");
  scenario::StepSimulator f(s, topo, scenario::Strategy::AllReduce, kFloat, 8), h(s, topo, scenario::Strategy::AllReduce, kHalf, 8);
  const auto rf = f.run(), rh = h.run();
  CHECK(rh.comm_busy < rf.comm_busy);
  CHECK(static_cast<double>(rh.comm_busy) < 0.6 * static_cast<double>(rf.comm_busy));
  CHECK(static_cast<double>(rh.comm_busy) > 0.45 * static_cast<double>(rf.comm_busy));
}

TEST_CASE("a CPU parameter server over PCIe is slower than ring allreduce over NVLink, sharding the server helps") {
  auto topo = topology::resolve_topology("dgx1");
  auto s = make(timed_model(8, 4'000'000, "0us", "0us"), "dgx1");
  auto t = [&](scenario::Strategy st) { return scenario::StepSimulator(s, topo, st, kFloat, 8).run().step; };
  const Time ar = t(scenario::Strategy::AllReduce), cpu = t(scenario::Strategy::PsCpu), gpu0 = t(scenario::Strategy::PsGpu0),
             sharded = t(scenario::Strategy::PsSharded);
  CHECK(ar < cpu);
  CHECK(ar < gpu0);
  CHECK(sharded < gpu0); // the one server's links carry everything; sharding spreads them
}

TEST_CASE("run_scenario: speedup and efficiency follow from the step times, auto picks a registered algorithm") {
  json j = {{"model", {{"params", 2e8}, {"layers", 8}}},
            {"compute", {{"batch_per_gpu", 4}, {"tokens_per_sample", 512}, {"device_flops", 125e12}, {"utilization", 0.3}}},
            {"topology", "dgx1"},
            {"degrees", {1, 2, 4, 8}},
            {"algorithm", "auto"}};
  const auto s = scenario::scenario_from_json(j, "inline.json");
  const auto rep = scenario::run_scenario(s);
  REQUIRE(rep.steps.size() == 4);
  CHECK(rep.steps[0].speedup == doctest::Approx(1.0));
  for (const auto& row : rep.steps) {
    CHECK(row.efficiency <= 1.0 + 1e-12);
    CHECK(row.speedup == doctest::Approx(row.gpus * to_sec(row.result.compute) / to_sec(row.result.step)));
    for (const auto& it : row.result.items) CHECK(schedule::find_algorithm(schedule::Op::AllReduce, it.algo) != nullptr);
  }
  // forward = 4 x 2 x 2e8 x 512 / (125e12 x 0.3) s; backward twice that.
  CHECK(to_sec(s.forward_time()) == doctest::Approx(4 * 2 * 2e8 * 512 / (125e12 * 0.3)).epsilon(1e-9));
  CHECK(s.backward_time() == doctest::Approx(2.0 * static_cast<double>(s.forward_time())).epsilon(1e-9));
}

TEST_CASE("auto is never slower than ring, and ZeRO shards the model state") {
  auto topo = topology::resolve_topology("dgx1");
  auto ring = make(timed_model(6, 3'000'000, "0.1ms", "0.2ms"), "dgx1", {{"bucket_size", "4M"}});
  auto aut = make(timed_model(6, 3'000'000, "0.1ms", "0.2ms"), "dgx1", {{"bucket_size", "4M"}, {"algorithm", "auto"}});
  for (int p : {2, 3, 8}) {
    CAPTURE(p);
    const auto r = scenario::StepSimulator(ring, topo, scenario::Strategy::AllReduce, kFloat, p).run();
    const auto a = scenario::StepSimulator(aut, topo, scenario::Strategy::AllReduce, kFloat, p).run();
    CHECK(a.step <= r.step);
    CHECK(a.comm_busy <= r.comm_busy);
  }
  const double ar = scenario::state_bytes_per_gpu(ring, scenario::Strategy::AllReduce, 2, 8);
  const double z = scenario::state_bytes_per_gpu(ring, scenario::Strategy::Zero, 2, 8);
  const double P = static_cast<double>(ring.total_params());
  CHECK(ar == doctest::Approx(P * (2 + 2 + 12)));        // ZeRO paper: 16 bytes per parameter
  CHECK(z == doctest::Approx(P * 2 + P * (2 + 12) / 8)); // stage 2: gradients and optimizer sharded
  CHECK(scenario::state_bytes_per_gpu(ring, scenario::Strategy::Zero, 2, 1) == doctest::Approx(ar));
}

TEST_CASE("a CPU server is reached over PCIe: two GPUs behind one switch share its uplink both ways") {
  // DGX-1: GPUs 0 and 1 sit on pcie_sw0, whose one PCIe Gen3 link (15.75 GB/s) leads to cpu0. One bucket of
  // B bytes: both pushes cross that link (2B), then both pulls (2B): 4B / 15.75 GB/s plus latencies.
  auto topo = topology::resolve_topology("dgx1");
  auto s = make(timed_model(1, 1'000'000, "0us", "0us"), "dgx1");
  const auto r = scenario::StepSimulator(s, topo, scenario::Strategy::PsCpu, kFloat, 2).run();
  REQUIRE(r.items.size() == 1);
  const double expect = 4 * 4e6 / 15.75e9;
  CHECK(to_sec(r.step) >= expect);
  CHECK(to_sec(r.step) < expect + 10e-6); // a few link latencies, no more
  // The same bucket with GPU0 as server crosses one NVLink (25 GB/s) each way: B/25 + B/25.
  const auto g = scenario::StepSimulator(s, topo, scenario::Strategy::PsGpu0, kFloat, 2).run();
  CHECK(to_sec(g.step) >= 2 * 4e6 / 25e9);
  CHECK(to_sec(g.step) < 2 * 4e6 / 25e9 + 10e-6);
}
