// NVLS in --model nccl, against NCCL 2.30.7's search and tuning worked by hand:
// H100 (NVLink4, 18 lanes x 20.6 = 370.8 GB/s into the switch, sm90 speeds 60 50 40 ..., 8 GPUs):
//   8 channels; the head's link carries 9 shares: 9 x 40 = 360 <= 370.8 < 9 x 50 -> bwIntra 40; bwInter
//   raised while below 80: 50, 60 -> 60. Per channel min(40 x 0.85 x 7/8 x 2, 60) = 59.5; busBw 476.
// B200 (NVLink5, 18 x 40.1 = 721.8, sm100 speeds 90 80 ...): 9 x 80 = 720 -> bwIntra 80, bwInter 90;
//   per channel min(80 x 0.74 x 7/8 x 2 = 103.6, 90) = 90; busBw 720.
#include "../model/nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

namespace {
metrics::Row run(const topology::Topology& t, Op op, Bytes size, const std::string& nvls, const std::string& algo = "auto") {
  nccl::Options o;
  o.nvls = nccl::nvls_mode_from(nvls);
  o.mode = nccl::algo_mode_from(algo);
  nccl::Builder b(t, o);
  const auto cfg = test::packed_rings_config(t, op);
  return metrics::run(b, cfg, metrics::plan_size(op, t.num_gpus(), size, 4));
}
double nvls_busbw(const std::string& topo, Op op) {
  const auto t = topology::resolve_topology(topo);
  const auto& tab = nccl::load_tables();
  const auto cfg = test::packed_rings_config(t, op);
  const auto g = nccl::make_graph(t, tab, cfg.placements, "");
  return nccl::nvls_bus_bandwidth(tab, g, op, 8);
}
} // namespace

TEST_CASE("NVLS graph and bandwidth on H100 and B200 follow NCCL's search and tuning") {
  const auto t = topology::resolve_topology("machine:gpu=h100,gpus=8");
  const auto& tab = nccl::load_tables();
  const auto g = nccl::make_graph(t, tab, test::packed_rings_config(t, Op::AllReduce).placements, "");
  CHECK(g.nvls.channels == 8);
  CHECK(g.nvls.bw_intra == doctest::Approx(40.0));
  CHECK(g.nvls.bw_inter == doctest::Approx(60.0));
  CHECK(nvls_busbw("machine:gpu=h100,gpus=8", Op::AllReduce) == doctest::Approx(476.0));
  CHECK(nvls_busbw("machine:gpu=b200,gpus=8", Op::AllReduce) == doctest::Approx(720.0));
  // Allgather: per channel 40 x 0.85 x 7/8 x 7/8 = 26.03 -> 208.25, below the ring: NCCL keeps the ring.
  CHECK(nvls_busbw("machine:gpu=h100,gpus=8", Op::AllGather) == doctest::Approx(208.25));
}

TEST_CASE("NVLS replay of a large allreduce meets NCCL's figure and never exceeds the links") {
  const auto t = topology::resolve_topology("machine:gpu=h100,gpus=8");
  const auto row = run(t, Op::AllReduce, Bytes{4} << 30, "auto");
  CHECK(row.choice.algo == "nvls");
  // 476 GB/s busbw less the 25 us latency and NCCL's kernel pipeline fill (2 x 16 channels x 8 heads x
  // 128 KiB at 272 GB/s = 123.4 us; nccl_nvls_pipeline_test): 476 x 15790.3 / 15938.7 = 471.6, within 1 %.
  CHECK(row.bw.busbw_GBps == doctest::Approx(471.6).epsilon(0.01));
  CHECK(row.bw.busbw_GBps < 476.0);
  // Each GPU moves the vector once each way: algbw can't exceed a GPU's switch bandwidth (18 x 25 GB/s).
  CHECK(row.bw.algbw_GBps < 450.0);
  const auto off = run(t, Op::AllReduce, Bytes{4} << 30, "off");
  CHECK(off.choice.algo == "ring");
  CHECK(off.bw.busbw_GBps < row.bw.busbw_GBps);
}

TEST_CASE("NVLS is refused where the machine has none") {
  const auto a100 = topology::resolve_topology("machine:gpu=a100,gpus=8");
  CHECK_THROWS_AS(run(a100, Op::AllReduce, 1 << 20, "on"), Error);
  CHECK_THROWS_AS(run(a100, Op::AllReduce, 1 << 20, "auto", "nvls"), Error);
  CHECK(run(a100, Op::AllReduce, Bytes{1} << 30, "auto").choice.algo == "ring");
  const auto h100 = topology::resolve_topology("machine:gpu=h100,gpus=8");
  CHECK_THROWS_AS(run(h100, Op::AllReduce, 1 << 20, "off", "nvls"), Error);
  CHECK_THROWS_AS(nccl::nvls_mode_from("maybe"), Error);
}

TEST_CASE("NVLS busbw rises with size and algbw stays under a GPU's NVLink bandwidth") {
  // Per-GPU NVLink per direction (models/gpus.json): H100 18 x 25 GB/s, B200 and GB200 18 x 50 GB/s. NVLS
  // moves the vector once each way per GPU, so algbw can never exceed it.
  const struct {
    const char* topo;
    double gpu_GBps;
  } machines[] = {{"machine:gpu=h100,gpus=8", 450}, {"machine:gpu=b200,gpus=8", 900}, {"machine:gpu=gb200,gpus=16", 900}};
  for (const auto& m : machines) {
    CAPTURE(m.topo);
    const auto t = topology::resolve_topology(m.topo);
    double last = 0;
    for (Bytes size = Bytes{4} << 20; size <= (Bytes{8} << 30); size *= 4) {
      CAPTURE(size);
      const auto row = run(t, Op::AllReduce, size, "on", "nvls");
      CHECK(row.choice.algo == "nvls");
      CHECK(row.bw.algbw_GBps < m.gpu_GBps);
      CHECK(row.bw.busbw_GBps >= last * 0.999);
      last = row.bw.busbw_GBps;
    }
  }
}
