// A ring allreduce of 1 MiB over the DGX-1's GPUs in the order 0..7, through ccsim's library API:
// prints size, time (us) and busbw (GB/s) as the CLI's CSV does.
#include <cstdio>

#include "sim/core/error.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

int main() {
  try {
    const auto topo = ccsim::topology::resolve_topology("dgx1");
    ccsim::topology::Router router(topo);
    ccsim::metrics::RunConfig cfg;
    cfg.algo = "ring";
    cfg.placements = {{0, 1, 2, 3, 4, 5, 6, 7}};
    const auto row = ccsim::metrics::simulate(topo, router, cfg, 1 << 20);
    std::printf("%llu,%.6f,%.6f\n", static_cast<unsigned long long>(row.plan.size), static_cast<double>(row.time) / 1e6,
                row.bw.busbw_GBps);
  } catch (const ccsim::Error& e) {
    std::fprintf(stderr, "ring_on_dgx1: %s\n", e.what());
    return 2;
  }
}
