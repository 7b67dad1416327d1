// LL128's default enable by NCCL release (models/nccl.json ll128_by_version, sim/model/nccl/nccl_version.hpp),
// read at each tag of NVIDIA/nccl src/graph/tuning.cc: none before 2.5.6; 2.5.6-2.6.4 compute capability 7.0
// only; 2.7.3-2.15.1 7.0/8.0; 2.15.5-2.24.3 7.0/8.0/9.0; 2.25.1-2.26.6 adds 10.0/12.0; 2.27.3 on, every
// GPU from 7.0. Worked by hand for 8 V100 (dgx1-v100): NCCL's search finds 6 rings at SM70's 20 GB/s per
// NVLink lane, 120 GB/s; ring/LL128 busbw = min(0.92 x 120, 6 x perChMaxRingLL128Bw[Volta] 20) = 110.4.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;

namespace {
bool ll128(const std::string& version, int sm) {
  return nccl::ll128_in_release(nccl::load_tables(), nccl::parse_nccl_version(version), sm, nccl::Arch::Volta);
}

const nccl::Candidate* find(const std::vector<nccl::Candidate>& cs, nccl::Algo a, nccl::Proto p) {
  const auto it = std::find_if(cs.begin(), cs.end(), [&](const nccl::Candidate& c) { return c.algo == a && c.proto == p; });
  return it == cs.end() ? nullptr : &*it;
}
} // namespace

TEST_CASE("NCCL releases are read as NCCL and nccl-tests print them") {
  using V = nccl::NcclVersion;
  CHECK(nccl::parse_nccl_version("2.4.8") == V{2, 4, 8});
  CHECK(nccl::parse_nccl_version("2.27.3+cuda12.8") == V{2, 27, 3});
  CHECK(nccl::parse_nccl_version("v2.30.7-1") == V{2, 30, 7});
  CHECK(nccl::parse_nccl_version("2.4") == V{2, 4, 0});
  CHECK_FALSE(nccl::parse_nccl_version("2.4.x"));
  CHECK_FALSE(nccl::parse_nccl_version("not stated"));
  CHECK_FALSE(nccl::parse_nccl_version("2019"));
  CHECK_THROWS_AS(nccl::nccl_version_from("two.four"), Error);
  CHECK_FALSE(nccl::nccl_version_from(""));
}

TEST_CASE("A trace's release comes from its NCCL version line or header, never from a guess") {
  CHECK(nccl::nccl_version_in({"# NCCL version 2.27.3+cuda12.8      [printed without '#' in the original output]"}) == "2.27.3+cuda12.8");
  CHECK(nccl::nccl_version_in({"# nccl version: 2.6.4 (companion issue title)"}) == "2.6.4");
  CHECK(nccl::nccl_version_in({"# nccl version: NCCL 2.21.5, OpenMPI 4.1.7a1 (from the container)"}) == "2.21.5");
  CHECK(nccl::nccl_version_in({"# hardware: 2 DGX-1", "# software: NCCL 2.5.6, CUDA 10.1"}) == "2.5.6");
  CHECK_FALSE(nccl::nccl_version_in({"# nccl version: not stated (2019; NCCL 2.4.x era)"}));
  CHECK_FALSE(nccl::nccl_version_in({"# nccl version: presumably 2.16.2 (not restated)"}));
  // RCCL numbers its releases as NCCL's: a header's "rccl version:" and rccl-tests' own "RCCL version :" line.
  CHECK(nccl::nccl_version_in({"# rccl version: 2.27.7-HEAD:0d2c4fd (the log); ROCm 7.2.0"}) == "2.27.7-HEAD");
  CHECK(nccl::nccl_version_in({"RCCL version : 2.22.3-HEAD:7d8d67c"}) == "2.22.3-HEAD");
  CHECK_FALSE(nccl::nccl_version_in({"# rccl version: not printed (ROCm 6.4.1 module)"}));
  // A ROCm package's name and version: RCCL 2.20.5 built for ROCm 6.2.1 (the fourth number, 60201), Ubuntu 20.04.
  CHECK(nccl::nccl_version_in({"# rccl version: RCCL 2.20.5.60201-112~20.04 (issue body); ROCm 6.2.3"}) == "2.20.5");
  CHECK_FALSE(nccl::nccl_version_in({"# rccl version: RCCL 2.20.x (guessed)"}));
}

TEST_CASE("nccl_version_in reads the library code nccl-tests and rccl-tests print") {
  // nccl.h NCCL_VERSION: X*10000 + Y*100 + Z from 2.9, X*1000 + Y*100 + Z before; the library, not the headers.
  CHECK(nccl::nccl_version_in({"# nccl-tests version 2.17.9 nccl-headers=22903 nccl-library=22903"}) == "2.29.3");
  CHECK(nccl::nccl_version_in({"# rccl-tests version 2.17.9-develop:2596ca5f71 rccl-headers=22803 rccl-library=22707"}) ==
        "2.27.7");
  CHECK(nccl::nccl_version_in({"# nccl-tests version 2.0.0 nccl-headers=2804 nccl-library=2708"}) == "2.7.8");
  CHECK(nccl::nccl_version_in({"# nccl version: headers/library 22907 (2.29.7)", "# x nccl-library=21403"}) == "2.14.3");
  CHECK_FALSE(nccl::nccl_version_in({"# nccl-tests version 2.17.9 nccl-headers=22903"}));
  CHECK_FALSE(nccl::nccl_version_in({"# nccl-library=229x3"}));
  CHECK_FALSE(nccl::nccl_version_in({"# nccl-library=123"}));
}

TEST_CASE("LL128 is on where the release's tuning.cc enables it by default") {
  CHECK_FALSE(ll128("2.4.8", 70)); // before the protocol
  CHECK(ll128("2.5.6", 70));
  CHECK_FALSE(ll128("2.6.4", 75)); // RTX 2080 Ti: 'minCompCap == 70 && maxCompCap == 70'
  CHECK_FALSE(ll128("2.6.4", 80));
  CHECK(ll128("2.7.3", 80));
  CHECK_FALSE(ll128("2.15.1", 90));
  CHECK(ll128("2.16.2", 90));
  CHECK_FALSE(ll128("2.16.2", 86)); // A40 / RTX 3090 bridges: no 'case 86'
  CHECK(ll128("2.26.6", 100));
  CHECK_FALSE(ll128("2.26.6", 103)); // B300 / GB300: 'case 100' only
  CHECK(ll128("2.27.3", 75));
  CHECK(ll128("2.30.7", 89));
  CHECK(nccl::ll128_in_release(nccl::load_tables(), std::nullopt, 75, nccl::Arch::Volta)); // the tables' own 2.30.7
}

TEST_CASE("8 V100 on NCCL 2.4 have no LL128 candidate, on the tables' release ring/LL128 runs at 110.4 GB/s") {
  const auto t = topology::resolve_topology("dgx1-v100");
  const auto cfg = test::packed_rings_config(t);
  const Bytes size = Bytes{4} << 20;
  nccl::Builder now(t, {});
  const auto& g = now.graph(cfg);
  REQUIRE(g.ll128);
  CHECK(g.channels * g.bw == doctest::Approx(120.0));
  const auto cs = nccl::candidates(nccl::load_tables(), g, schedule::Op::AllReduce, 8, size);
  const auto* c = find(cs, nccl::Algo::Ring, nccl::Proto::LL128);
  REQUIRE(c != nullptr);
  CHECK(c->busbw == doctest::Approx(110.4));

  nccl::Options o;
  o.nccl_version = "2.4.8";
  nccl::Builder old(t, o);
  const auto& g24 = old.graph(cfg);
  CHECK_FALSE(g24.ll128);
  CHECK(find(nccl::candidates(nccl::load_tables(), g24, schedule::Op::AllReduce, 8, size), nccl::Algo::Ring, nccl::Proto::LL128) == nullptr);
  const auto row = metrics::run(old, cfg, metrics::plan_size(schedule::Op::AllReduce, 8, size, 4));
  CHECK(row.choice.proto != "LL128");
}

TEST_CASE("A malformed --nccl-version is refused when the model is made") {
  const auto t = topology::resolve_topology("dgx1-v100");
  nccl::Options o;
  o.nccl_version = "2.x";
  CHECK_THROWS_AS(nccl::Builder(t, o), Error);
}
