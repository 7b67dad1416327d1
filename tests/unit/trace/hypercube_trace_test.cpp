// hypercube_perf output read back (tests/data/hypercube-4gpu-crossbar-SYNTHETIC.txt, written outside ccsim
// in nccl-tests' format: an empty redop, so one word fewer per row) and the NCCL model's hypercube on the
// P2P path against hand values.
#include <doctest/doctest.h>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/registry.hpp"
#include "sim/trace/nccl_tests_trace.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;

TEST_CASE("a hypercube_perf file: op from the banner, 4 ranks, rows without a redop word") {
  const auto t = trace::load_trace(ccsim::data_dir() + "/tests/data/hypercube-4gpu-crossbar-SYNTHETIC.txt");
  REQUIRE(t.op);
  CHECK(*t.op == Op::HyperCube);
  CHECK(t.ranks == 4);
  REQUIRE(t.rows.size() == 5);
  CHECK(t.rows[2].size == 1048576);
  CHECK(t.rows[2].count == 65536);
  CHECK(t.rows[2].redop == "");
  REQUIRE(t.rows[2].root);
  CHECK(*t.rows[2].root == -1);
  CHECK(t.rows[2].out_of_place->time_us == doctest::Approx(41.46)); // 2 x 5 us + 3 x 262144 B / 25 GB/s
  CHECK(t.rows[2].out_of_place->busbw == doctest::Approx(18.97));
  CHECK_FALSE(t.old_busbw_convention); // algbw = (n-1)/n size/time is hypercube's definition, not 2019's
}

TEST_CASE("a row one word short is hypercube_perf's shape only: in another test it is an error") {
  const std::string text =
      "# Collective test starting: all_gather_perf\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
      "        1024            64     float              -1    10.03    0.08    0.06      0    10.03    0.08    0.06      0\n";
  CHECK_THROWS_AS(trace::parse_trace(text, "short.txt", {}), Error);
}

TEST_CASE("NCCL model: hypercube on 2 and 4 H100 on NVSwitch, one group per step (hand)") {
  const auto topo = topology::resolve_topology("hgx-h100");
  auto m = model::make_model("nccl", topo, {}); // bare: no fitted efficiencies or launch costs
  metrics::RunConfig c;
  c.op = Op::HyperCube;
  c.model_name = "nccl";
  c.placements = {{0, 1}};
  // 2 ranks, 2 GiB: one group sending the 1 GiB block, as sendrecv of 1 GiB: NCCL's ring base latency
  // (Simple 8.4 us) and one NVLink hop (3.4 us), then 1 GiB on the send's 32 P2P channels at the write
  // block's 20.05 GB/s each (641.6 GB/s, above the port's 18 x 20.6 = 370.8, which binds; p2p_plan.hpp):
  // 11.8 + 2895.74 = 2907.54 us; algbw = busbw = 1 GiB / t = 369.30 GB/s.
  const auto two = metrics::run(*m, c, metrics::plan_size(Op::HyperCube, 2, Bytes{2} << 30, 4));
  CHECK(static_cast<double>(two.time) / 1e6 == doctest::Approx(2907.54).epsilon(1e-4));
  CHECK(two.bw.busbw_GBps == doctest::Approx(369.30).epsilon(1e-3));
  CHECK(two.choice.algo == "p2p");
  // 4 ranks, 4 GiB (1 GiB blocks): two groups, each with its own 8.4 + 3.4 us, moving 1 then 2 GiB at
  // the port's 370.8 GB/s: 23.6 + 3 x 2895.74 = 8710.83 us; algbw = 3 GiB / t = 369.80 GB/s.
  c.placements = {{0, 1, 2, 3}};
  const auto four = metrics::run(*m, c, metrics::plan_size(Op::HyperCube, 4, Bytes{4} << 30, 4));
  CHECK(static_cast<double>(four.time) / 1e6 == doctest::Approx(8710.83).epsilon(1e-4));
  CHECK(four.bw.busbw_GBps == doctest::Approx(369.80).epsilon(1e-3));
}
