// NCCL's SHM transport (sim/model/nccl/shm.hpp), worked by hand:
//  * a ring loop runs 2n-1 primitives for allreduce (first send-only, last receive-only) and n for allgather
//    and reducescatter, while 2n-2 (resp. n-1) slices cross each direction: 2 GPUs 2/3 and 1/2, 8 GPUs 14/15
//    and 7/8.
//  * 2 GPUs on PCIe Gen4 with P2P off (GeForce or NCCL_P2P_DISABLE=1): each port carries the Gen4 staged copy
//    speed 19.5 GB/s (models/gpus.json nop2p_bw) per direction, so an allreduce's busbw is 19.5 x 2/3 = 13.0
//    GB/s and an allgather's 19.5 x 1/2 = 9.75 GB/s (NCCL's search, 18 GB/s for the pair, binds neither).
//  * 8 RTX 4090 with P2P off: 19.5 x 14/15 = 18.2 stays above NCCL's 15 GB/s across the sockets, which binds.
//  * broadcast and reduce run one primitive per chunk on every rank of the chain (NCCL src/device/broadcast.h,
//    reduce.h), so a staged port carries its full speed: share 1.
//  * which port is staged is the link's host_staged flag, whatever its speed, or a hop beyond NCCL's P2P level.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/shm.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/topology/topology_json_fast.hpp"

#include <fmt/format.h>

using namespace ccsim;
namespace nccl = model::nccl;
using schedule::Op;

namespace {
double busbw(const topology::Topology& t, Op op, int ranks) {
  nccl::Builder b(t, {});
  const auto row = metrics::run(b, test::packed_rings_config(t, op), metrics::plan_size(op, ranks, Bytes{1} << 30, 4));
  CHECK(row.choice.algo == "ring");
  return row.bw.busbw_GBps;
}
double busbw(const std::string& spec, Op op, int ranks) { return busbw(topology::resolve_topology(spec), op, ranks); }

// `gpus` RTX 4090s on one CPU, each on a Gen4 port drawn at 6 GB/s per direction (one of NCCL's search
// speeds, so the search's quantisation binds no earlier than the port), staged through host memory or not.
topology::Topology box_at_6GBps(int gpus, bool staged) {
  std::string nodes = R"({"name": "cpu", "kind": "cpu"})", links;
  for (int g = 0; g < gpus; ++g) {
    nodes += fmt::format(R"(, {{"name": "gpu{}", "kind": "gpu"}})", g);
    links += fmt::format(R"({}{{"a": "gpu{}", "b": "cpu", "type": "pcie4", "bw": "6GB/s", "latency": "5.5us", "host_staged": {}}})",
                         g ? ", " : "", g, staged);
  }
  return topology::topology_from_json_text(
      fmt::format(R"({{"name": "box6", "gpu": "rtx4090", "nodes": [{}], "links": [{}]}})", nodes, links), "box6.json");
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

TEST_CASE("2 GPUs on Gen4 with P2P off: allreduce 2/3 and allgather 1/2 of the staged copy speed") {
  const std::string box = "machine:gpu=rtx4090,gpus=2,intra=pcie,p2p=off";
  CHECK(busbw(box, Op::AllReduce, 2) == doctest::Approx(13.0).epsilon(0.02));
  CHECK(busbw(box, Op::AllGather, 2) == doctest::Approx(9.75).epsilon(0.02));
  CHECK(busbw(box, Op::ReduceScatter, 2) == doctest::Approx(9.75).epsilon(0.02));
}

TEST_CASE("8 RTX 4090 with P2P off: NCCL's socket figure still binds over the SHM loop share") {
  CHECK(busbw("rtx4090-pcie-8gpu", Op::AllReduce, 8) == doctest::Approx(15.0).epsilon(0.02));
}

TEST_CASE("SHM follows the link's host_staged flag, not its speed") {
  // The 2-GPU Gen4 P2P-off box, its ports at exactly Gen4's staged speed 19.5 GB/s: staged, allreduce
  // 19.5 x 2/3 = 13.0. The same drawing with the flag cleared is P2P at that speed: no SHM share, and NCCL's
  // search speed (the largest of 40, 30, 20, 18, ... GB/s at most 19.5) binds: 18.0.
  auto t = topology::resolve_topology("machine:gpu=rtx4090,gpus=2,intra=pcie,p2p=off");
  CHECK(busbw(t, Op::AllReduce, 2) == doctest::Approx(13.0).epsilon(0.02));
  // Cleared, the pair (two root ports of one CPU: PHB) is still beyond NCCL's default level PXB, so it runs
  // SHM by the level (p2p_level.hpp): 13.0 again. At NCCL_P2P_LEVEL=SYS it is P2P.
  for (auto& l : t.links) l.host_staged = false;
  CHECK(busbw(t, Op::AllReduce, 2) == doctest::Approx(13.0).epsilon(0.02));
  t.p2p_level = static_cast<int>(topology::PathClass::Sys);
  CHECK(busbw(t, Op::AllReduce, 2) == doctest::Approx(18.0).epsilon(0.02));
  // Staged ports at 6 GB/s, a speed that is no generation's staged speed: 6 x 2/3 = 4.0 and 6 x 1/2 = 3.0;
  // unstaged, the allreduce carries the whole 6.
  CHECK(busbw(box_at_6GBps(2, true), Op::AllReduce, 2) == doctest::Approx(4.0).epsilon(0.02));
  CHECK(busbw(box_at_6GBps(2, true), Op::AllGather, 2) == doctest::Approx(3.0).epsilon(0.02));
  auto p2p = box_at_6GBps(2, false);
  p2p.p2p_level = static_cast<int>(topology::PathClass::Sys); // NCCL_P2P_LEVEL=SYS: P2P through the CPU
  CHECK(busbw(p2p, Op::AllReduce, 2) == doctest::Approx(6.0).epsilon(0.02));
}

TEST_CASE("Broadcast and reduce chains carry the full staged speed on SHM") {
  CHECK(nccl::shm_ring_loop_share(Op::Broadcast, nccl::Algo::Ring, 2) == doctest::Approx(1.0));
  CHECK(nccl::shm_ring_loop_share(Op::Reduce, nccl::Algo::Ring, 2) == doctest::Approx(1.0));
  CHECK(nccl::shm_ring_loop_share(Op::Reduce, nccl::Algo::Ring, 8) == doctest::Approx(1.0));
  // One primitive per chunk on every rank (shm.hpp): the root stores, the middle ranks load and store, the
  // last loads, each one slice per primitive, so each staged port direction that has data moves it all the
  // time. 6 GB/s staged ports, 1 GiB (the pipeline's fill of n-2 chunks is lost in 64 loops):
  //   2 GPUs: broadcast/reduce busbw = algbw = 6.0, against allreduce 6 x 2/3 = 4.0 and allgather 6 x 1/2 = 3.0;
  //   4 GPUs: broadcast/reduce 6.0 (gpu1 and gpu2 receive and send 6 GB/s at once over their own ports),
  //           allreduce 6 x 6/7 = 5.14, allgather 6 x 3/4 = 4.5.
  for (const Op op : {Op::Broadcast, Op::Reduce}) {
    CAPTURE(schedule::to_string(op));
    CHECK(busbw(box_at_6GBps(2, true), op, 2) == doctest::Approx(6.0).epsilon(0.02));
    CHECK(busbw(box_at_6GBps(4, true), op, 4) == doctest::Approx(6.0).epsilon(0.02));
  }
  CHECK(busbw(box_at_6GBps(4, true), Op::AllReduce, 4) == doctest::Approx(6.0 * 6 / 7).epsilon(0.02));
  CHECK(busbw(box_at_6GBps(4, true), Op::AllGather, 4) == doctest::Approx(4.5).epsilon(0.02));
}
