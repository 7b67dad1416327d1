// NCCL's per-channel ring LL128 cap (tuning.cc perChMaxRingLL128Bws), Blackwell row by release, read at each tag:
//   v2.25.1-1 .. v2.28.3-1 {2*36.7, 2*36.7, 2*36.7}; v2.28.7-1 .. v2.28.9-1 {2*36.7, 34.6, 2*36.7};
//   v2.29.2-1, v2.29.3-1 {34.5, 34.6, 34.5}; v2.29.7-1 .. v2.30.7-1 {40, 40, 40} (the tables' own row).
// By hand, NCCL's tuner on one node of 8 B200 for a 16 MiB allgather (ring graph 16 channels x 45 GB/s, bus
// 720 GB/s; algbw = bus x 8/7; NVLink ring latencies: LL128 14 + 7 x 1.9 = 27.3 us, Simple 8.4 + 7 x 3.4 =
// 32.2 us):
//   Simple:         32.2 + 16777216 / (1000 x 720 x 8/7)                         = 32.2 + 20.389 = 52.589 us
//   LL128, 2.29.3:  27.3 + 16777216 / (1000 x min(0.92 x 720, 16 x 34.5) x 8/7) = 27.3 + 26.594 = 53.894 us
//   LL128, 2.28.9:  27.3 + 16777216 / (1000 x min(662.4, 16 x 73.4) x 8/7)      = 27.3 + 22.160 = 49.460 us
//   LL128, 2.29.7:  27.3 + 16777216 / (1000 x min(662.4, 16 x 40) x 8/7)        = 27.3 + 22.938 = 50.238 us
// so 2.29.3 picks ring/Simple where 2.28.9 and 2.29.7 pick ring/LL128.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

TEST_CASE("Blackwell's ring LL128 cap in the tuner follows the release: 73.4, then 34.5 in 2.29.2-2.29.3, then 40") {
  const auto& tab = nccl::load_tables();
  auto row = [&](const char* v) {
    const auto* c = nccl::ring_ll128_tuner_caps(tab, nccl::parse_nccl_version(v));
    return c ? (*c)[static_cast<std::size_t>(nccl::Arch::Blackwell)] : std::array<double, 3>{-1, -1, -1};
  };
  CHECK(row("2.26.2")[0] == doctest::Approx(73.4));
  CHECK(row("2.28.9")[1] == doctest::Approx(34.6));
  CHECK(row("2.28.9")[2] == doctest::Approx(73.4));
  CHECK(row("2.29.2")[0] == doctest::Approx(34.5));
  CHECK(row("2.29.3")[0] == doctest::Approx(34.5));
  CHECK(nccl::ring_ll128_tuner_caps(tab, nccl::parse_nccl_version("2.29.7")) == nullptr);
  CHECK(nccl::ring_ll128_tuner_caps(tab, std::nullopt) == nullptr);
  CHECK((*nccl::ring_ll128_tuner_caps(tab, nccl::parse_nccl_version("2.29.3")))[static_cast<std::size_t>(nccl::Arch::Hopper)][0] ==
        doctest::Approx(36.7));
}

TEST_CASE("8 B200 allgather at 16 MiB: NCCL 2.29.3 weighs ring/LL128 at 53.89 us and picks ring/Simple") {
  const auto t = topology::resolve_topology("machine:gpu=b200,gpus=8");
  const auto cfg = test::packed_rings_config(t, Op::AllGather);
  const auto size = metrics::plan_size(Op::AllGather, 8, Bytes{16} << 20, 4);
  auto pick = [&](const char* release) {
    nccl::Options o;
    o.nccl_version = release;
    nccl::Builder b(t, o);
    return metrics::run(b, cfg, size).choice;
  };
  auto weighed = [](const engine::Choice& c, const char* proto) {
    const auto it = std::find_if(c.weighed.begin(), c.weighed.end(), [&](const auto& w) { return w.algo == "ring" && w.proto == proto; });
    return it == c.weighed.end() ? -1.0 : it->time_us;
  };
  const auto c293 = pick("2.29.3");
  CHECK(c293.algo == "ring");
  CHECK(c293.proto == "Simple");
  CHECK(weighed(c293, "LL128") == doctest::Approx(53.894).epsilon(1e-4));
  CHECK(weighed(c293, "Simple") == doctest::Approx(52.589).epsilon(1e-4));
  const auto c289 = pick("2.28.9");
  CHECK(c289.proto == "LL128");
  CHECK(weighed(c289, "LL128") == doctest::Approx(49.460).epsilon(1e-4));
  const auto c297 = pick("2.29.7");
  CHECK(c297.proto == "LL128");
  CHECK(weighed(c297, "LL128") == doctest::Approx(50.238).epsilon(1e-4));
}
