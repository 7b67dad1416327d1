// NCCL's SHM transport (sim/model/nccl/shm.hpp), worked by hand:
//  * a ring loop runs 2n-1 primitives for allreduce (first send-only, last receive-only) and n for allgather
//    and reducescatter, while 2n-2 (resp. n-1) slices cross each direction: 2 GPUs 2/3 and 1/2, 8 GPUs 14/15
//    and 7/8.
//  * 2 GPUs on PCIe Gen4 with P2P off (GeForce or NCCL_P2P_DISABLE=1): each port carries the Gen4 staged copy
//    speed 19.5 GB/s (models/gpus.json nop2p_bw) per direction, so an allreduce's busbw is 19.5 x 2/3 = 13.0
//    GB/s and an allgather's 19.5 x 1/2 = 9.75 GB/s (NCCL's search, 18 GB/s for the pair, binds neither).
//  * 8 RTX 4090 with P2P off: 19.5 x 14/15 = 18.2 stays above NCCL's 15 GB/s across the sockets, which binds.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/shm.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using schedule::Op;

namespace {
double busbw(const std::string& spec, Op op, int ranks) {
  const auto t = topology::resolve_topology(spec);
  nccl::Builder b(t, {});
  const auto row = metrics::run(b, test::packed_rings_config(t, op), metrics::plan_size(op, ranks, Bytes{1} << 30, 4));
  CHECK(row.choice.algo == "ring");
  return row.bw.busbw_GBps;
}
int staged_links(const topology::Topology& t) {
  int n = 0;
  for (const auto& l : t.links) n += nccl::host_staged_link(t, l);
  return n;
}
} // namespace

TEST_CASE("SHM ring loop share by collective and rank count") {
  CHECK(nccl::shm_ring_loop_share(Op::AllReduce, nccl::Algo::Ring, 2) == doctest::Approx(2.0 / 3.0));
  CHECK(nccl::shm_ring_loop_share(Op::AllGather, nccl::Algo::Ring, 2) == doctest::Approx(0.5));
  CHECK(nccl::shm_ring_loop_share(Op::ReduceScatter, nccl::Algo::Ring, 2) == doctest::Approx(0.5));
  CHECK(nccl::shm_ring_loop_share(Op::AllReduce, nccl::Algo::Ring, 8) == doctest::Approx(14.0 / 15.0));
  CHECK(nccl::shm_ring_loop_share(Op::AllGather, nccl::Algo::Ring, 8) == doctest::Approx(7.0 / 8.0));
  CHECK(nccl::shm_ring_loop_share(Op::Broadcast, nccl::Algo::Ring, 8) == doctest::Approx(1.0));
  CHECK(nccl::shm_ring_loop_share(Op::AllReduce, nccl::Algo::Tree, 8) == doctest::Approx(1.0));
}

TEST_CASE("Every producer of host-staged PCIe ports is recognised, a P2P port is not") {
  CHECK(staged_links(topology::resolve_topology("machine:gpu=a40,gpus=2,intra=pcie,p2p=off")) == 2);
  CHECK(staged_links(topology::resolve_topology("rtx4090-pcie-8gpu")) == 8);
  CHECK(staged_links(topology::without_p2p(topology::resolve_topology("hgx-h100"), "test")) == 8);
  const auto pcie = topology::resolve_topology("machine:gpu=a40,gpus=2,intra=pcie");
  CHECK(staged_links(pcie) == 0);
  CHECK(staged_links(topology::with_p2p_level(pcie, topology::PathClass::Loc, "test")) == 2);
}

TEST_CASE("2 GPUs on Gen4 with P2P off: allreduce 2/3 and allgather 1/2 of the staged copy speed") {
  const std::string box = "machine:gpu=rtx4090,gpus=2,intra=pcie,p2p=off";
  CHECK(busbw(box, Op::AllReduce, 2) == doctest::Approx(13.0).epsilon(0.02));
  CHECK(busbw(box, Op::AllGather, 2) == doctest::Approx(9.75).epsilon(0.02));
  CHECK(busbw(box, Op::ReduceScatter, 2) == doctest::Approx(9.75).epsilon(0.02));
}

TEST_CASE("8 RTX 4090 with P2P off: NCCL's socket figure still binds over the SHM loop share") {
  CHECK(busbw("rtx4090-pcie-8gpu", Op::AllReduce, 8) == doctest::Approx(15.0).epsilon(0.02));
}
