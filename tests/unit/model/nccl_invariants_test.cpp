// Invariants the NCCL model must keep like every other model (issue 17): time never falls as the size
// grows while NCCL's choice stays the same, busbw stays within what the GPU's links can carry, and an
// edited link bandwidth changes the prediction.
#include <doctest/doctest.h>

#include <numeric>

#include "sim/model/registry.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

namespace {

metrics::RunConfig allreduce(const topology::Topology& t) {
  metrics::RunConfig c;
  c.op = schedule::Op::AllReduce;
  c.model_name = "nccl";
  c.placements = topology::pack_rings(t, {}).rings;
  return c;
}

metrics::Row predict(const topology::Topology& t, Bytes size) {
  auto b = model::make_model("nccl", t, {});
  const auto cfg = allreduce(t);
  return metrics::run(*b, cfg, metrics::plan_size(cfg.op, metrics::ranks_of(cfg), size, 4));
}

// Bytes per second one GPU can push into the machine: the sum of its links' capacities.
double egress_GBps(const topology::Topology& t, int gpu) {
  double sum = 0;
  const int node = t.gpu_node(gpu);
  for (const auto& l : t.links)
    if (l.a == node || l.b == node) sum += static_cast<double>(l.capacity()) / 1e9;
  return sum;
}

} // namespace

TEST_CASE("NCCL model: time never falls as the size doubles while the choice stays the same") {
  for (const char* spec : {"dgx1", "hgx-a100", "pcie-gen4-8gpu", "cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=efa"}) {
    const auto t = topology::resolve_topology(spec);
    auto b = model::make_model("nccl", t, {});
    const auto cfg = allreduce(t);
    std::optional<metrics::Row> prev;
    for (Bytes s = 1024; s <= (Bytes{1} << 30); s *= 2) {
      const auto row = metrics::run(*b, cfg, metrics::plan_size(cfg.op, metrics::ranks_of(cfg), s, 4));
      if (prev && prev->choice.algo == row.choice.algo && prev->choice.proto == row.choice.proto &&
          prev->choice.channels == row.choice.channels) {
        INFO(spec, " ", s, " B, ", row.choice.algo, "/", row.choice.proto);
        CHECK(row.time >= prev->time);
      }
      prev = row;
    }
  }
}

TEST_CASE("NCCL model: busbw within what a GPU's links carry, on machines without in-switch reduction") {
  // A ring (or tree) GPU sends 2(p-1)/p of the buffer (busbw's numerator) through its own links, so
  // busbw <= the GPU's total link capacity whatever NCCL chose.
  for (const char* spec : {"dgx1", "dgx1-p100", "hgx-a100", "pcie-gen3-8gpu", "rtx4090-pcie-8gpu"}) {
    const auto t = topology::resolve_topology(spec);
    double cap = 1e300;
    for (int g = 0; g < t.num_gpus(); ++g) cap = std::min(cap, egress_GBps(t, g));
    for (Bytes s = 1024; s <= (Bytes{1} << 30); s *= 4) {
      INFO(spec, " ", s, " B");
      CHECK(predict(t, s).bw.busbw_GBps <= cap * 1.0001);
    }
  }
}

TEST_CASE("NCCL model: a slower link in the topology file slows the prediction") {
  // DGX-1V's NVLink2 at its 25 GB/s per lane (NCCL's table says 20): halving every NVLink to 12.5 GB/s
  // must make a bandwidth-bound allreduce slower; before, NCCL's table figure hid the edit.
  auto t = topology::resolve_topology("dgx1");
  const auto before = predict(t, Bytes{256} << 20);
  for (auto& l : t.links)
    if (topology::is_nvlink(l.type)) l.bw /= 2;
  const auto after = predict(t, Bytes{256} << 20);
  CHECK(after.time > before.time);
  // Bandwidth-bound: close to twice as slow (NCCL's 20 GB/s per lane became the link's own 12.5).
  CHECK(static_cast<double>(after.time) / static_cast<double>(before.time) == doctest::Approx(20.0 / 12.5).epsilon(0.05));
}
