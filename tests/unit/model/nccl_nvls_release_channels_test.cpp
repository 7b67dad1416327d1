// NVLS's CUDA channels on one NVLink domain by NCCL release, read in NVIDIA/nccl src/transport/nvls.cc
// ncclNvlsInit at each tag:
//   v2.19.3-1 .. v2.24.3-1: NCCL_PARAM(NvlsChannels, "NVLS_NCHANNELS", 16): 16 on every GPU;
//   v2.25.1-1 .. v2.26.6-1: NVLS_NCHANNELS_SM100 32 when compCap >= 100, NVLS_NCHANNELS_SM90 16 otherwise;
//   v2.27.3-1 on: Blackwell on one node or one MNNVL clique NVLS_NCHANNELS_SM100_NVL 24 (32 across nodes).
// enqueue.cc runs NVLS on comm->nvlsChannels, so the CoreWeave GB200 NVL72 rack (NCCL 2.26.2) ran 32 channels
// where ccsim's tables (2.30.7) give 24. By hand, 72 GB200 at 512 MiB (32 heads): a channel's share 16 MiB on 32
// channels is not below 8 x 32 x 64 KiB = 16 MiB, so the chunk stays 64 KiB, as on 24 channels (21.3 MiB); the
// fill (2 loops of every channel, nccl_nvls_pipeline_test.cpp) is 2 x 32 x 32 x 64 KiB = 134217728 B against
// 2 x 24 x 32 x 64 KiB = 100663296 B at the same algbw: 4/3 of it.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

TEST_CASE("NVLS CUDA channels on one NVLink domain follow the release: 16, then 32 on Blackwell, then 24") {
  auto v = [](const char* s) { return nccl::parse_nccl_version(s); };
  using nccl::Arch;
  CHECK(nccl::nvls_domain_channels_in_release(v("2.24.3"), Arch::Blackwell, 24) == 16);
  CHECK(nccl::nvls_domain_channels_in_release(v("2.25.1"), Arch::Blackwell, 24) == 32);
  CHECK(nccl::nvls_domain_channels_in_release(v("2.26.2"), Arch::Blackwell, 24) == 32);
  CHECK(nccl::nvls_domain_channels_in_release(v("2.26.6"), Arch::Blackwell, 24) == 32);
  CHECK(nccl::nvls_domain_channels_in_release(v("2.27.3"), Arch::Blackwell, 24) == 24);
  CHECK(nccl::nvls_domain_channels_in_release(v("2.29.3"), Arch::Blackwell, 24) == 24);
  CHECK(nccl::nvls_domain_channels_in_release(std::nullopt, Arch::Blackwell, 24) == 24);
  CHECK(nccl::nvls_domain_channels_in_release(v("2.26.2"), Arch::Hopper, 16) == 16);
}

TEST_CASE("The CoreWeave rack's release runs NVLS on 32 channels with 4/3 of the newest release's fill") {
  const auto& tab = nccl::load_tables();
  auto g = test::packed_graph(topology::resolve_topology("machine:gpu=gb200,gpus=72"));
  REQUIRE(g.nvls.channels == 32); // heads: NCCL_MAX_NVLS_ARITY
  CHECK(nccl::channels_used(tab, g, nccl::Algo::Nvls, nccl::Proto::Simple, 72, Bytes{512} << 20) == 24);
  g.nvls.domain_cuda_channels = nccl::nvls_domain_channels_in_release(nccl::parse_nccl_version("2.26.2"), g.arch, 24);
  CHECK(nccl::channels_used(tab, g, nccl::Algo::Nvls, nccl::Proto::Simple, 72, Bytes{512} << 20) == 32);
  const double bytes = 536870912.0, algbw = 465.0;
  CHECK(nccl::nvls_pipeline_fill_us(*tab.nvls, bytes, 32, 32, algbw) == doctest::Approx(134217728.0 / 465000.0));
  CHECK(nccl::nvls_pipeline_fill_us(*tab.nvls, bytes, 24, 32, algbw) == doctest::Approx(100663296.0 / 465000.0));
}

TEST_CASE("Through the builder: --nccl-version 2.26.2 on 8 B200 runs NVLS on 32 channels, the newest tables 24") {
  const auto t = topology::resolve_topology("machine:gpu=b200,gpus=8");
  const auto cfg = test::packed_rings_config(t);
  const auto size = metrics::plan_size(Op::AllReduce, 8, Bytes{256} << 20, 4);
  nccl::Options old_release;
  old_release.nccl_version = "2.26.2";
  nccl::Builder b226(t, old_release);
  const auto c226 = metrics::run(b226, cfg, size).choice;
  CHECK(c226.algo == "nvls");
  CHECK(c226.channels == 32);
  nccl::Builder newest(t, nccl::Options{});
  const auto cnew = metrics::run(newest, cfg, size).choice;
  CHECK(cnew.algo == "nvls");
  CHECK(cnew.channels == 24);
}
