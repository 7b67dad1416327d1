// NVLS allreduce on one Blackwell node: the handoff each loop step pays when calcCollChunking has cut the chunk
// below NCCL_NVLS_CHUNKSIZE, worked by hand from NCCL's source. device/all_reduce.h RunWorkColl NVLS: every stage
// (scatter, reduce/multicast, gather) runs one Simple primitive per loop of nHeads x chunk; prims_simple.h
// ScatterGatherOp: wait for every peer's flag, copy to each head in turn, barrier, system-scope fence, post.
// NCCL's own latency of one Simple step on NVLink: tuning.cc hwLatencies NVLINK Ring Simple 3.4 us. NCCL's
// NVLS efficiency is its figure at the full 128 KiB chunk, so a chunk c pays 3.4 x (1 - c / 128 KiB) per step,
// over (loops + 2) steps. 8 B200: 24 channels, 8 heads; calcCollChunking: 64 KiB while a channel's share is below
// 64 x 8 x 128 KiB = 64 MiB, 32 KiB below 8 x 8 x 64 KiB = 4 MiB, 16 KiB below 2 x 8 x 32 KiB = 512 KiB.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

TEST_CASE("NVLS on 8 B200 pays NCCL's NVLink Simple step latency for each loop of a chunk below 128 KiB") {
  const auto& tab = nccl::load_tables();
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=b200,gpus=8"));
  REQUIRE(g.nvls.channels == 8);
  // 4 MiB: a channel's 170.7 KiB is below 512 KiB: 16 KiB chunks, loops of 8 x 16 KiB = 128 KiB: 2 loops,
  // 4 steps x 3.4 x 7/8 = 11.9 us.
  CHECK(nccl::nvls_step_handoff_us(tab, g, 4194304.0, 24) == doctest::Approx(4 * 3.4 * 0.875));
  // 64 MiB: 2.67 MiB a channel, 32 KiB chunks, loops of 256 KiB: 11 loops, 13 steps x 3.4 x 3/4 = 33.15 us.
  CHECK(nccl::nvls_step_handoff_us(tab, g, 67108864.0, 24) == doctest::Approx(13 * 3.4 * 0.75));
  // 256 MiB: 10.67 MiB a channel, 64 KiB chunks, loops of 512 KiB: 22 loops, 24 steps x 1.7 = 40.8 us.
  CHECK(nccl::nvls_step_handoff_us(tab, g, 268435456.0, 24) == doctest::Approx(24 * 1.7));
  // 2 GiB: 85.3 MiB a channel is not below 64 MiB: the full chunk, whose handoff NCCL's efficiency holds.
  CHECK(nccl::nvls_step_handoff_us(tab, g, 2147483648.0, 24) == 0.0);
}

TEST_CASE("The NVLS step handoff is not charged on Hopper") {
  const auto& tab = nccl::load_tables();
  const auto g = test::packed_graph(topology::resolve_topology("machine:gpu=h100,gpus=8"));
  CHECK(nccl::nvls_step_handoff_us(tab, g, 67108864.0, 16) == 0.0);
}

TEST_CASE("Through the builder: a 64 MiB NVLS allreduce on 8 B200 pays the step handoff") {
  // NCCL's NVLS figure without the bwInter cap: 8 x 80 x 0.74 x 7/8 x 2 = 828.8 GB/s bus, 473.6 algbw.
  // 25 us NVLS latency + (64 MiB + the fill's 2 loops of 24 x 8 x 32 KiB = 12 MiB) / 473.6 GB/s = 193.3 us,
  // plus 13 steps x 2.55 us = 33.15: 226.4 us.
  const auto t = topology::resolve_topology("machine:gpu=b200,gpus=8");
  nccl::Builder b(t, {});
  const Bytes size = Bytes{64} << 20;
  const auto row = metrics::run(b, test::packed_rings_config(t), metrics::plan_size(Op::AllReduce, 8, size, 4));
  REQUIRE(row.choice.algo == "nvls");
  const double us = 25.0 + (67108864.0 + 12582912.0) / 473600.0 + 13 * 3.4 * 0.75;
  CHECK(row.bw.busbw_GBps == doctest::Approx(static_cast<double>(size) / (us * 1000.0) * 14.0 / 8.0).epsilon(0.02));
}
