// NVLS allreduce on one node: the fill and drain of NCCL's kernel pipeline, worked by hand from NCCL's
// source. enqueue.cc calcCollChunking (NVLS): chunk 128 KiB, 64 KiB while a channel's bytes are below
// 64 x nHeads x chunk, 32 KiB below 8 x, 16 KiB below 2 x. device/all_reduce.h: scatter, reduce/multicast
// and gather warps loop over nHeads x chunk of the channel's share: 3 stages, the first loop is 2 loops
// ahead of the last stage, so the call pays 2 x channels x nHeads x chunk at the pipeline's algbw once.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>
#include <tuple>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

namespace {
nccl::Tables::Nvls nccl_rule() {
  nccl::Tables::Nvls n;
  n.chunk_bytes = 131072;
  n.pipeline_stages = 3;
  n.chunk_shrink = {{64, 65536}, {8, 32768}, {2, 16384}};
  return n;
}
} // namespace

TEST_CASE("NVLS chunk follows NCCL's shrink rule per channel share") {
  const auto n = nccl_rule();
  // 8 heads: 64 x 8 x 128 KiB = 64 MiB; 8 x 8 x 64 KiB = 4 MiB; 2 x 8 x 32 KiB = 512 KiB.
  CHECK(nccl::nvls_chunk_bytes(n, 64.0 * (1 << 20), 8) == 131072.0); // 1 GiB over 16 channels
  CHECK(nccl::nvls_chunk_bytes(n, 32.0 * (1 << 20), 8) == 65536.0);  // 512 MiB over 16
  CHECK(nccl::nvls_chunk_bytes(n, 4.0 * (1 << 20), 8) == 65536.0);   // not below 4 MiB
  CHECK(nccl::nvls_chunk_bytes(n, 2.0 * (1 << 20), 8) == 32768.0);
  CHECK(nccl::nvls_chunk_bytes(n, 256.0 * 1024, 8) == 16384.0);
  // 4 heads halve every threshold: 32 MiB is not below 64 x 4 x 128 KiB.
  CHECK(nccl::nvls_chunk_bytes(n, 32.0 * (1 << 20), 4) == 131072.0);
}

TEST_CASE("NVLS pipeline fill is two loops of every channel at the pipeline's bandwidth") {
  const auto n = nccl_rule();
  // 8 H100, 16 channels, 272 GB/s algbw: 4 GiB -> 2 x 16 x 8 x 131072 B / 272 GB/s = 123.36 us;
  // 128 MiB (64 KiB chunks) half of that.
  CHECK(nccl::nvls_pipeline_fill_us(n, 4294967296.0, 16, 8, 272.0) == doctest::Approx(33554432.0 / 272000.0));
  CHECK(nccl::nvls_pipeline_fill_us(n, 134217728.0, 16, 8, 272.0) == doctest::Approx(61.68).epsilon(0.001));
  auto one_stage = n;
  one_stage.pipeline_stages = 1;
  CHECK(nccl::nvls_pipeline_fill_us(one_stage, 134217728.0, 16, 8, 272.0) == 0.0);
  CHECK(nccl::nvls_pipeline_fill_us(n, 134217728.0, 16, 8, 0.0) == 0.0);
}

TEST_CASE("The NVLS fill the replay adds leaves out the replay's own first segment") {
  const auto n = nccl_rule();
  // 2 MiB on 16 channels x 8 heads: 16 KiB chunks, fill 2 x 2 MiB; the replay's one 2 MiB segment already
  // runs its two passes in series: 2 MiB / 272 GB/s = 7.71 us of the 15.42 are the replay's.
  CHECK(nccl::nvls_replay_fill_us(n, 2097152.0, 16, 8, 272.0, 1) == doctest::Approx(2097152.0 / 272000.0));
  // 128 MiB, 64 segments of 2 MiB: 61.68 - 7.71 us.
  CHECK(nccl::nvls_replay_fill_us(n, 134217728.0, 16, 8, 272.0, 64) == doctest::Approx(61.68 - 2097152.0 / 272000.0).epsilon(0.001));
  // Never below 0 (a replay segment longer than the stages' loops), and 0 for a one-stage table.
  CHECK(nccl::nvls_replay_fill_us(n, 67108864.0, 16, 8, 272.0, 1) == 0.0);
  auto one_stage = n;
  one_stage.pipeline_stages = 1;
  CHECK(nccl::nvls_replay_fill_us(one_stage, 2097152.0, 16, 8, 272.0, 1) == 0.0);
}

TEST_CASE("The shipped NCCL tables carry NCCL's NVLS chunk rule") {
  const auto& n = *nccl::load_tables().nvls;
  CHECK(n.pipeline_stages == 3);
  REQUIRE(n.chunk_shrink.size() == 3);
  CHECK(n.chunk_shrink[0].loops == 64.0);
  CHECK(n.chunk_shrink[0].bytes == 65536.0);
  CHECK(n.chunk_shrink[2].loops == 2.0);
  CHECK(n.chunk_shrink[2].bytes == 16384.0);
}

TEST_CASE("128 MiB NVLS allreduce on 8 H100 pays the pipeline fill") {
  // NCCL's 476 GB/s busbw = 272 GB/s algbw; 25 us NVLS latency; fill 61.68 us (64 KiB chunks):
  // 25 + 61.68 + 134217728 / 272000 = 580.1 us (518.5 without the fill).
  const auto t = topology::resolve_topology("machine:gpu=h100");
  nccl::Builder b(t, {});
  const Bytes size = Bytes{128} << 20;
  const auto row = metrics::run(b, test::packed_rings_config(t), metrics::plan_size(Op::AllReduce, 8, size, 4));
  REQUIRE(row.choice.algo == "nvls");
  const double us = 25.0 + 61.68 + static_cast<double>(size) / 272000.0;
  CHECK(row.bw.busbw_GBps == doctest::Approx(static_cast<double>(size) / (us * 1000.0) * 14.0 / 8.0).epsilon(0.02));
}

TEST_CASE("NVLS busbw on one node never falls when the size doubles across NCCL's chunk steps") {
  // The fill doubles where the chunk doubles (64 x 16 x 8 x 64 KiB = 512 MiB -> 1 GiB on 8 H100), but so
  // does the size: busbw = size / (latency + fill + size / bw) still rises or stays.
  for (const char* spec : {"machine:gpu=h100", "machine:gpu=b200"}) {
    const auto t = topology::resolve_topology(spec);
    nccl::Builder b(t, {});
    double last = 0;
    for (Bytes size = Bytes{1} << 20; size <= (Bytes{8} << 30); size *= 2) {
      const auto row = metrics::run(b, test::packed_rings_config(t), metrics::plan_size(Op::AllReduce, 8, size, 4));
      CAPTURE(spec);
      CAPTURE(size);
      // NVLS rows only: on 8 B200 2 MiB is ring/LL and 4 MiB NVLS (NCCL's pick), whose 16 KiB chunks pay the step
      // handoff (nccl_nvls_step_handoff_test.cpp): a change of algorithm, not of chunk.
      if (row.choice.algo != "nvls") continue;
      CHECK(row.bw.busbw_GBps >= last * 0.999);
      last = row.bw.busbw_GBps;
    }
  }
}

TEST_CASE("A 1-8 MiB NVLS allreduce on 8 H100 pays its kernel's three stages once, not the replay's pass on top") {
  // By hand from NCCL's kernel (device/all_reduce.h: scatter, reduce/multicast, gather one loop apart) and
  // calcCollChunking: 16 channels x 8 heads. 2 MiB: a channel's 128 KiB is below 2 x 8 x 32 KiB, so 16 KiB
  // chunks, one loop of W = 16 x 8 x 16 KiB = 2 MiB: the three stages in series, 3 W at 272 GB/s algbw,
  // 25 + 3 x 7.71 = 48.13 us. 8 MiB: 512 KiB a channel is not below 2 x 8 x 32 KiB, so 32 KiB chunks, two
  // loops of W = 4 MiB: (2 + 2) W, 25 + 4 x 15.42 = 86.68 us. The replay charged its first segment's
  // up-then-down pass besides the fill: 55.8 and 94.4 us.
  const auto t = topology::resolve_topology("machine:gpu=h100");
  nccl::Builder b(t, {});
  for (const auto& c : {std::tuple{Bytes{2} << 20, 3.0, 2097152.0}, std::tuple{Bytes{8} << 20, 4.0, 4194304.0}}) {
    const Bytes size = std::get<0>(c); // not a structured binding: doctest's CAPTURE is a lambda (clang 14)
    const double loops_of_w = std::get<1>(c), w = std::get<2>(c);
    const auto row = metrics::run(b, test::packed_rings_config(t), metrics::plan_size(Op::AllReduce, 8, size, 4));
    CAPTURE(size);
    REQUIRE(row.choice.algo == "nvls");
    const double us = 25.0 + loops_of_w * w / 272000.0;
    CHECK(row.bw.busbw_GBps == doctest::Approx(static_cast<double>(size) / (us * 1000.0) * 14.0 / 8.0).epsilon(0.02));
  }
}
