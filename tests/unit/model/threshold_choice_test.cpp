// NCCL 2.4.x's choice before its tuning model (models/nccl.json threshold_choice_by_version,
// sim/model/nccl/threshold_choice.hpp), worked by hand from NVIDIA/nccl v2.4.8-1 src/enqueue.cc getKernelInfo
// and src/init.cc ncclThreadThreshold / ncclTreeThreshold.
// 8 V100 ranks on one node, ring allreduce (8 chunks per loop), 12 channels: threadThreshold 64, LL's
// per-thread share min(64, 8) = 8. At 1 MiB nt doubles 64 -> 128 -> 256 (1 MiB / (256 x 8) = 512 > 8 but
// 512 threads exceed 256), nc = ceil(1 MiB / (256 x 8 x 8)) = 64, capped at 12, so the threshold is
// 12 x 256 x 8 x 64 = 1 572 864 B: 1 MiB runs LL on 12 channels, 2 MiB Simple.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include <limits>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/threshold_choice.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using schedule::Op;

namespace {
const nccl::Tables::ThresholdRule& rule_248() {
  const auto* r = nccl::threshold_rule(nccl::load_tables(), nccl::parse_nccl_version("2.4.8"));
  REQUIRE(r != nullptr);
  return *r;
}
nccl::ThresholdChoice pick(Op op, int ranks, int nodes, int channels, Bytes size, int sm = 70) {
  const auto c = nccl::threshold_choice(rule_248(), op, ranks, nodes, true, sm, channels, size, std::nullopt);
  REQUIRE(c.has_value());
  return *c;
}
} // namespace

TEST_CASE("The threshold rule covers NCCL 2.4.x only") {
  const auto& tab = nccl::load_tables();
  CHECK(nccl::threshold_rule(tab, nccl::parse_nccl_version("2.4")) != nullptr);
  CHECK(nccl::threshold_rule(tab, nccl::parse_nccl_version("2.4.8")) != nullptr);
  CHECK(nccl::threshold_rule(tab, nccl::parse_nccl_version("2.5.6")) == nullptr); // tuning.cc from here
  CHECK(nccl::threshold_rule(tab, nccl::parse_nccl_version("2.3.7")) == nullptr);
  CHECK(nccl::threshold_rule(tab, std::nullopt) == nullptr);
}

TEST_CASE("NCCL 2.4.8 runs LL up to 1572864 B for 8 ranks on 12 channels, Simple above") {
  const auto& r = rule_248();
  CHECK(nccl::thread_threshold(r, 70, 1) == 64);
  CHECK(nccl::thread_threshold(r, 60, 1) == 32);  // pre-Volta
  CHECK(nccl::thread_threshold(r, 70, 2) == 128); // across nodes
  const auto at1m = nccl::ll_pick(r, 1 << 20, 8, false, 64, 12);
  CHECK(at1m.threshold == 1572864);
  CHECK(at1m.ll);
  CHECK(at1m.threads == 256);
  CHECK(at1m.channels == 12);
  CHECK(nccl::ll_pick(r, 1572864, 8, false, 64, 12).ll);
  CHECK_FALSE(nccl::ll_pick(r, 1572865, 8, false, 64, 12).ll);
  const auto c1 = pick(Op::AllReduce, 8, 1, 12, Bytes{1} << 20);
  CHECK(c1.algo == nccl::Algo::Ring);
  CHECK(c1.proto == nccl::Proto::LL);
  CHECK(c1.channels == 12);
  const auto c2 = pick(Op::AllReduce, 8, 1, 12, Bytes{2} << 20);
  CHECK(c2.proto == nccl::Proto::Simple);
  CHECK(c2.channels == 12);
}

TEST_CASE("NCCL 2.4.8 runs small LL sizes on the channels and threads they fill") {
  const auto& r = rule_248();
  // 64 KiB: nt 256 (65536 / (128 x 8) = 64 > 8), nc = ceil(65536 / (256 x 8 x 8)) = 4; threshold 4 x 256 x 8 x 64.
  const auto k64 = nccl::ll_pick(r, 65536, 8, false, 64, 12);
  CHECK(k64.threads == 256);
  CHECK(k64.channels == 4);
  CHECK(k64.threshold == 524288);
  // 1 KiB: 1024 / (64 x 8) = 2 <= 8 keeps nt 64; nc = ceil(1024 / 4096) = 1.
  const auto k1 = nccl::ll_pick(r, 1024, 8, false, 64, 12);
  CHECK(k1.ll);
  CHECK(k1.threads == 64);
  CHECK(k1.channels == 1);
  CHECK(pick(Op::AllReduce, 8, 1, 12, Bytes{65536}).channels == 4);
  // Channels above MAXCHANNELS 16 are cut: 24 graph channels run as 16 (2 MiB Simple).
  CHECK(pick(Op::AllReduce, 8, 1, 24, Bytes{2} << 20).channels == 16);
}

TEST_CASE("NCCL 2.4.8's tree threshold: none on one node, always on 2 NVLink nodes, a crossover on 4") {
  const auto& r = rule_248();
  CHECK(nccl::tree_threshold(r, true, 1, 8, 12) == 0);
  CHECK(nccl::tree_threshold(r, true, 2, 16, 24) == std::numeric_limits<std::int64_t>::max());
  // 4 nodes x 8, 16 channels: ringbw 80000, treebw 60000, ringlat 6 x 31 = 186, treelat 15 x 2 + 4 x 7 = 58:
  // 80000 x 60000 / 20000 x 128 = 30 720 000 B.
  CHECK(nccl::tree_threshold(r, true, 4, 32, 16) == 30720000);
  // Without NVLink: ringbw 5000, treebw 2/3 of it: 10000 x 128 = 1 280 000 B (float rounding aside).
  CHECK(nccl::tree_threshold(r, false, 4, 32, 16) == doctest::Approx(1280000).epsilon(1e-6));
  // 1 MiB on the tree: threadThreshold 128 x 4 (tree pattern), one chunk per loop, nc 16: 16 x 256 x 512 = 2 MiB.
  const auto t1 = pick(Op::AllReduce, 32, 4, 16, Bytes{1} << 20);
  CHECK(t1.algo == nccl::Algo::Tree);
  CHECK(t1.proto == nccl::Proto::LL);
  CHECK(t1.channels == 16);
  const auto t4 = pick(Op::AllReduce, 32, 4, 16, Bytes{4} << 20);
  CHECK(t4.algo == nccl::Algo::Tree);
  CHECK(t4.proto == nccl::Proto::Simple);
  CHECK(pick(Op::AllReduce, 32, 4, 16, Bytes{64} << 20).algo == nccl::Algo::Ring);
  // Allgather never takes the tree.
  CHECK(pick(Op::AllGather, 32, 4, 16, Bytes{1} << 10).algo == nccl::Algo::Ring);
}

TEST_CASE("8 V100 described as NCCL 2.4.8 run 1 MiB ring/LL on 12 channels and 2 MiB ring/Simple") {
  const auto t = topology::resolve_topology("dgx1-v100");
  const auto cfg = test::packed_rings_config(t);
  nccl::Options o;
  o.nccl_version = "2.4.8";
  nccl::Builder b(t, o);
  REQUIRE(b.graph(cfg).channels == 6);
  const auto at = [&](Bytes size) { return metrics::run(b, cfg, metrics::plan_size(Op::AllReduce, 8, size, 4)).choice; };
  const auto c1 = at(Bytes{1} << 20);
  CHECK(c1.algo == "ring");
  CHECK(c1.proto == "LL");
  CHECK(c1.channels == 12);
  const auto c2 = at(Bytes{2} << 20);
  CHECK(c2.proto == "Simple");
  CHECK(c2.channels == 12);
  CHECK(at(Bytes{65536}).channels == 4);
}
