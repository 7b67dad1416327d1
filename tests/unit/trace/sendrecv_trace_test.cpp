// sendrecv_perf output read back (tests/data/sendrecv-2gpu-crossbar-SYNTHETIC.txt, written by hand in
// nccl-tests' format) and the NCCL model's sendrecv on the P2P path against a hand value.
#include <doctest/doctest.h>

#include "sim/core/data_dir.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/registry.hpp"
#include "sim/trace/nccl_tests_trace.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;

TEST_CASE("a sendrecv_perf file: op from the file, 2 ranks, size = count x 4, in-place #wrong N/A") {
  const auto t = trace::load_trace(ccsim::data_dir() + "/tests/data/sendrecv-2gpu-crossbar-SYNTHETIC.txt");
  REQUIRE(t.op);
  CHECK(*t.op == Op::SendRecv);
  CHECK(t.ranks == 2);
  REQUIRE(t.rows.size() == 6);
  CHECK(t.rows[3].size == 262144);
  CHECK(t.rows[3].count == 65536);
  CHECK(t.rows[3].redop == "sum");
  REQUIRE(t.rows[3].root);
  CHECK(*t.rows[3].root == -1);
  REQUIRE(t.rows[3].in_place);
  CHECK(t.rows[3].in_place->wrong == "N/A");
  CHECK(t.rows[3].out_of_place->time_us == doctest::Approx(15.49)); // 5 us + 262144 B / 25 GB/s
  CHECK_FALSE(t.old_busbw_convention);
}

TEST_CASE("NCCL model: sendrecv of 1 GiB between 2 H100 on NVSwitch on 32 channels binds at the port (hand)") {
  const auto topo = topology::resolve_topology("hgx-h100");
  auto m = model::make_model("nccl", topo, {}); // bare: no fitted efficiencies or launch costs
  metrics::RunConfig c;
  c.op = Op::SendRecv;
  c.model_name = "nccl";
  c.placements = {{0, 1}};
  const auto row = metrics::run(*m, c, metrics::plan_size(Op::SendRecv, 2, Bytes{1} << 30, 4));
  // NCCL's ring base latency (Simple 8.4 us) and one NVLink hop (3.4 us), then 1 GiB on 32 P2P channels at
  // the write block's 20.05 GB/s each (641.6 GB/s, above the 18-lane port's 370.8, which binds; p2p_plan.hpp):
  // 11.8 + 2895.74 = 2907.54 us, busbw = algbw = 369.30 GB/s.
  CHECK(static_cast<double>(row.time) / 1e6 == doctest::Approx(2907.54).epsilon(1e-4));
  CHECK(row.bw.busbw_GBps == doctest::Approx(369.30).epsilon(1e-3));
  CHECK(row.bw.busbw_GBps == row.bw.algbw_GBps);
  CHECK(row.choice.algo == "p2p");
  CHECK(row.choice.proto == "Simple");
  // 8 ranks in a ring shift: every GPU sends and receives one vector through its own port, on 32 channels
  // too (nChannelsMin 4, doubled while a part exceeds 16 MiB, up to the 32 per peer): the same time.
  c.placements = {{0, 1, 2, 3, 4, 5, 6, 7}};
  const auto eight = metrics::run(*m, c, metrics::plan_size(Op::SendRecv, 8, Bytes{1} << 30, 4));
  CHECK(static_cast<double>(eight.time) / 1e6 == doctest::Approx(2907.54).epsilon(1e-4));
  // A small send: LL on one channel (64 B <= 16 KiB per channel, NCCL_P2P_LL_THRESHOLD).
  CHECK(metrics::run(*m, c, metrics::plan_size(Op::SendRecv, 8, 64, 4)).choice.proto == "LL");
}
