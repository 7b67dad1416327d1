// NCCL_MIN_CTAS / NCCL_MAX_CTAS bound NVLS's CUDA channels, read in NVIDIA/nccl src/transport/nvls.cc ncclNvlsInit
// (v2.17.1-1 to v2.29.7-1) and ncclNvlsTuning (v2.30.3-1 on): nvlsChannels = max(minCTAs, min(maxCTAs, the count)),
// src/enqueue.cc running NVLS and NVLS-tree on nvlsChannels. src/init.cc caps both at MAXCHANNELS (src/include/
// device.h: 32 to v2.24.3-1, 64 from v2.25.1-1) and lowers a minCTAs above maxCTAs to it. NCCL_MIN/MAX_NCHANNELS
// (connect.cc ncclMinNchannels / ncclMaxNchannels) bound comm->nChannels only. Expected counts by hand from that rule:
//   8 B200, newest tables (NVLS_NCHANNELS_SM100_NVL 24): maxCTAs 8 -> 8; minCTAs 40 -> 40; minCTAs 8 over maxCTAs 4 -> 4;
//   NCCL 2.24.3 (16 NVLS channels, MAXCHANNELS 32): minCTAs 40 -> 32; NCCL_MAX_NCHANNELS 4 alone -> 24 (untouched).
//   2 x 8 B200 NVLS-tree (32 channels, nvls_tree_release_test): maxCTAs 16 -> 16; minCTAs 40 -> 40.
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

TEST_CASE("NCCL's MAXCHANNELS by release: 32 to 2.24.3, 64 from 2.25.1") {
  CHECK(nccl::max_channels_in_release(nccl::parse_nccl_version("2.19.3")) == 32);
  CHECK(nccl::max_channels_in_release(nccl::parse_nccl_version("2.24.3")) == 32);
  CHECK(nccl::max_channels_in_release(nccl::parse_nccl_version("2.25.1")) == 64);
  CHECK(nccl::max_channels_in_release(std::nullopt) == 64);
}

// NCCL_NVLS_NCHANNELS as each release reads it (nvls.cc / init.cc at v2.24.3-1, v2.25.1-1, v2.27.3-1).
TEST_CASE("NCCL_NVLS_NCHANNELS by release: the param to 2.24, a value >= 0 from 2.25.1, > 0 from 2.27.3") {
  auto v = [](const char* s) { return nccl::parse_nccl_version(s); };
  CHECK(nccl::nvls_nchannels_in_release(v("2.24.3"), 8) == 8);
  CHECK(nccl::nvls_nchannels_in_release(v("2.24.3"), 0) == 1);
  CHECK(nccl::nvls_nchannels_in_release(v("2.24.3"), -2) == 1);
  CHECK(nccl::nvls_nchannels_in_release(v("2.25.1"), 0) == 1);
  CHECK(nccl::nvls_nchannels_in_release(v("2.25.1"), -1) == 0);
  CHECK(nccl::nvls_nchannels_in_release(v("2.27.3"), 0) == 0);
  CHECK(nccl::nvls_nchannels_in_release(v("2.27.3"), 12) == 12);
  CHECK(nccl::nvls_nchannels_in_release(std::nullopt, 12) == 12);
}

namespace {
struct Choice {
  std::string algo;
  int channels = 0;
};
Choice nvls_choice(nccl::Options o) {
  const auto t = topology::resolve_topology("machine:gpu=b200,gpus=8");
  const auto cfg = test::packed_rings_config(t);
  nccl::Builder b(t, std::move(o));
  const auto c = metrics::run(b, cfg, metrics::plan_size(Op::AllReduce, 8, Bytes{256} << 20, 4)).choice;
  return {c.algo, c.channels};
}
} // namespace

TEST_CASE("NCCL_MIN/MAX_CTAS bound NVLS channels on one node, NCCL_MIN/MAX_NCHANNELS do not") {
  nccl::Options none;
  const auto base = nvls_choice(none);
  REQUIRE(base.algo == "nvls");
  CHECK(base.channels == 24);
  nccl::Options max8;
  max8.max_ctas = 8;
  CHECK(nvls_choice(max8).channels == 8);
  nccl::Options min40;
  min40.min_ctas = 40;
  CHECK(nvls_choice(min40).channels == 40);
  nccl::Options both;
  both.min_ctas = 8;
  both.max_ctas = 4;
  CHECK(nvls_choice(both).channels == 4);
  nccl::Options old;
  old.nccl_version = "2.24.3";
  old.min_ctas = 40;
  CHECK(nvls_choice(old).channels == 32);
  nccl::Options nch;
  nch.max_channels = 4;
  nch.min_channels = 2;
  CHECK(nvls_choice(nch).channels == 24);
  nccl::Options logged;
  logged.nvls_channels = 12;
  logged.max_ctas = 8; // the log's count already has the bounds in it
  CHECK(nvls_choice(logged).channels == 12);
  nccl::Options stated; // NCCL_NVLS_NCHANNELS 40 within maxCTAs 36: 36
  stated.nvls_nchannels = 40;
  stated.max_ctas = 36;
  CHECK(nvls_choice(stated).channels == 36);
}

TEST_CASE("NCCL_MIN/MAX_CTAS bound NVLS-tree channels across nodes") {
  const auto& tab = nccl::load_tables();
  auto g = test::packed_graph(topology::resolve_topology("machine:gpu=b200,nodes=2,nics=8x400G,kind=ib"));
  REQUIRE(g.nvls.tree);
  CHECK(nccl::nvls_cuda_channels(tab, g, nccl::Algo::NvlsTree) == 32);
  g.nvls.max_ctas = 16;
  CHECK(nccl::nvls_cuda_channels(tab, g, nccl::Algo::NvlsTree) == 16);
  CHECK(nccl::channels_used(tab, g, nccl::Algo::NvlsTree, nccl::Proto::Simple, 16, Bytes{1} << 30) == 16);
  g.nvls.max_ctas = 0;
  g.nvls.min_ctas = 40;
  CHECK(nccl::nvls_cuda_channels(tab, g, nccl::Algo::NvlsTree) == 40);
}
