// Event-queue micro-benchmarks (Google Benchmark), not part of the test suite:
//   cmake -S . -B build -DCCSIM_BUILD_BENCH=ON && ninja -C build ccsim_bench && build/ccsim_bench
// The "hold" model: N events in flight; each pop pushes one event a random delay later. Two delay
// mixes: "ring" (every event at the same future instant, as a lockstep ring on a crossbar) and
// "spread" (delays uniform over 0..1 ms in ps, as contended or irregular schedules).
#include <benchmark/benchmark.h>

#include <random>

#include "sim/engine/event_queue.hpp"

using namespace ccsim;
using namespace ccsim::engine;

template <class Q>
static void hold(benchmark::State& state, bool spread) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  Q q;
  std::mt19937_64 rng(42);
  const Time step = 1'000'000;
  for (std::uint32_t i = 0; i < n; ++i) q.push(spread ? static_cast<Time>(rng() % step) : step, 0, i, 0);
  for (auto _ : state) {
    const Event e = q.pop();
    q.push(e.time + (spread ? static_cast<Time>(rng() % step) : step), 0, e.a, 0);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}

static void BM_Radix_Ring(benchmark::State& s) { hold<RadixEventQueue>(s, false); }
static void BM_Heap4_Ring(benchmark::State& s) { hold<QuaternaryHeapQueue>(s, false); }
static void BM_Radix_Spread(benchmark::State& s) { hold<RadixEventQueue>(s, true); }
static void BM_Heap4_Spread(benchmark::State& s) { hold<QuaternaryHeapQueue>(s, true); }
BENCHMARK(BM_Radix_Ring)->RangeMultiplier(16)->Range(64, 1 << 20);
BENCHMARK(BM_Heap4_Ring)->RangeMultiplier(16)->Range(64, 1 << 20);
BENCHMARK(BM_Radix_Spread)->RangeMultiplier(16)->Range(64, 1 << 20);
BENCHMARK(BM_Heap4_Spread)->RangeMultiplier(16)->Range(64, 1 << 20);

BENCHMARK_MAIN();
