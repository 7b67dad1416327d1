// GB200 NVL72 racks as NCCL nodes (MNNVL), alltoall across them: the replay (up to 1,024 ranks) and the closed form
// above it against one bound worked by hand. Each GPU sends size/p to each of the p ranks; the (p - p/nodes) on other
// racks leave the rack through NICs. PXN (NCCL_P2P_PXN_LEVEL 2, src/transport/net.cc) sends to remote GPU j through
// the NIC of local GPU j: in a uniform alltoall every NIC still carries one GPU's remote share, (nodes - 1)/nodes of
// the size, at its rate: 50 GB/s at the 400G line, 48 as NCCL carries it (models/nccl.json net_kinds ib). So algbw
// <= 50 x nodes / (nodes - 1): 100 GB/s on 2 racks (96 at 48), 53.3 on 16 (51.2 at 48) (NCCL's maintainer,
// nccl-tests issue 130: "On 2 nodes ... BusBW = 2x network bandwidth per GPU").
#include <doctest/doctest.h>

#include <numeric>

#include "sim/model/registry.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

namespace {

metrics::Row rack_alltoall(int racks, Bytes size) {
  const auto t = topology::resolve_topology("machine:gpu=gb200,gpus=72,nodes=" + std::to_string(racks) + ",nics=72x400G,kind=ib");
  model::ModelOptions o; // the bare model
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c;
  c.op = schedule::Op::AllToAll;
  c.model_name = "nccl";
  std::vector<int> all(static_cast<std::size_t>(72 * racks));
  std::iota(all.begin(), all.end(), 0);
  c.placements = {all};
  return metrics::run(*b, c, metrics::plan_size(c.op, 72 * racks, size, 4));
}

} // namespace

TEST_CASE("GB200 NVL72 alltoall across 2 racks: the replay meets the NICs' bound, 100 GB/s algbw") {
  const auto row = rack_alltoall(2, Bytes{256} << 20);
  CHECK(row.choice.simulated);
  CHECK(row.bw.algbw_GBps <= 100.0 * 1.001);
  CHECK(row.bw.algbw_GBps > 0.95 * 96.0); // at NCCL's 48 GB/s a NIC
}

TEST_CASE("GB200 NVL72 alltoall across 16 racks: the closed form meets the same bound, 53.3 GB/s algbw") {
  const auto row = rack_alltoall(16, Bytes{256} << 20); // 1,152 ranks: above kP2pReplayMaxRanks
  CHECK_FALSE(row.choice.simulated);
  CHECK(row.bw.algbw_GBps <= 50.0 * 16 / 15 * 1.001);
  CHECK(row.bw.algbw_GBps > 0.95 * 51.2); // at NCCL's 48 GB/s a NIC
}
