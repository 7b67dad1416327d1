// PathClassifier on generated clusters (Google Benchmark), not part of the test suite:
//   cmake -S . -B build -DCCSIM_BUILD_BENCH=ON && ninja -C build ccsim_bench && build/ccsim_bench --benchmark_filter=PathClassifier
// The pairs --model nccl's shm_ring_hops asks on an HGX H100 cluster: each GPU and the next one on its host,
// source by source. The time per pair should not grow with the number of hosts (a search that cleared
// node-sized arrays per source GPU made the whole pass GPUs x nodes).
#include <benchmark/benchmark.h>

#include <string>

#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

static void BM_PathClassifier_ClusterRingHops(benchmark::State& state) {
  const auto t = topology::resolve_topology("machine:gpu=h100,nodes=" + std::to_string(state.range(0)) + ",nics=8x400G");
  const int gpus = t.num_gpus();
  for (auto _ : state) {
    const topology::PathClassifier classify(t);
    int nvl = 0;
    for (int g = 0; g < gpus; ++g) nvl += classify(g, g % 8 == 7 ? g - 7 : g + 1) == topology::PathClass::Nvl;
    benchmark::DoNotOptimize(nvl);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * gpus);
}
BENCHMARK(BM_PathClassifier_ClusterRingHops)->RangeMultiplier(4)->Range(64, 4096)->Unit(benchmark::kMillisecond);
