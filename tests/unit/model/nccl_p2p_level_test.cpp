// NCCL's P2P level per GPU pair (sim/model/nccl/p2p_level.hpp), worked by hand from NVIDIA/nccl's source:
//  * the default level by release and host (src/graph/paths.cc ncclTopoCheckP2p at v2.23.4-1 .. v2.30.7-1,
//    v2.9.6-1 .. v2.22.3-1, v2.7.3-1 .. v2.9.5, v2.6.4-1; src/transport/p2p.cc p2pCanConnect at v2.5.6-1, v2.4.8-1);
//  * NCCL_P2P_LEVEL as ncclGetLevel reads it: the names of topo.cc topoPathTypeStr up to SYS, or a number through
//    levelsOldToNew (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS, 5 and above SYS);
//  * 8 L40S on 2 AMD sockets (machine:gpu=l40s,gpus=8,cpu=amd: 2 GPUs per PCIe switch, 2 switches per socket,
//    the sockets joined by xGMI), NCCL 2.23.4 on, 8 GPUs: level PXB. A pair under one switch is PIX (P2P), one
//    across the switches of a socket PHB and one across the sockets SYS: both SHM. The ring crosses the sockets
//    twice, over SHM. NCCL's figure for the socket link, AMD_BW 16 GB/s (topo.h), sets the search's speed: the
//    largest of the speed array not above 16 is 15 (1 search channel), so the links carry 15/16 of NCCL's
//    figures: the socket link 16 x 15/16 = 15.0 GB/s. The SHM ports carry Gen4's staged 19.5 GB/s x the SHM
//    loop share 14/15 (8-rank allreduce) = 18.2 and the P2P ports NCCL's Gen4 24 x 15/16 = 22.5: the crossing
//    binds, busbw 15.0. With NCCL_P2P_LEVEL=SYS every hop is P2P and the crossing runs at the drawn xGMI rate
//    (models/README.md), so the ring meets its PCIe ports: 22.5.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/p2p_level.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using topology::PathClass;
using schedule::Op;

TEST_CASE("NCCL's default P2P level by release and host CPU") {
  using nccl::HostCpu;
  const std::optional<nccl::NcclVersion> newest;
  CHECK(nccl::default_p2p_level(newest, HostCpu::Intel, 8, 2) == PathClass::Pxb);
  CHECK(nccl::default_p2p_level(newest, HostCpu::Amd, 8, 2) == PathClass::Pxb);
  CHECK(nccl::default_p2p_level(newest, HostCpu::Amd, 2, 2) == PathClass::Sys); // AMD, at most 2 GPUs
  CHECK(nccl::default_p2p_level(newest, HostCpu::Amd, 3, 1) == PathClass::Pxb);
  CHECK(nccl::default_p2p_level(newest, HostCpu::Arm, 2, 1) == PathClass::Pxb);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 23, 4}, HostCpu::Amd, 8, 2) == PathClass::Pxb);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 22, 3}, HostCpu::Amd, 8, 2) == PathClass::Sys);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 22, 3}, HostCpu::Intel, 2, 1) == PathClass::Pxb);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 9, 6}, HostCpu::Intel, 8, 2) == PathClass::Pxb);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 8, 4}, HostCpu::Intel, 8, 2) == PathClass::Phb);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 8, 4}, HostCpu::Arm, 8, 1) == PathClass::Pxb);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 7, 3}, HostCpu::Amd, 8, 2) == PathClass::Sys);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 6, 4}, HostCpu::Intel, 8, 2) == PathClass::Sys);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 6, 4}, HostCpu::Arm, 8, 2) == PathClass::Pxb);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 5, 6}, HostCpu::Intel, 4, 1) == PathClass::Pxb);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 5, 6}, HostCpu::Intel, 8, 2) == PathClass::Phb);
  CHECK(nccl::default_p2p_level(nccl::NcclVersion{2, 4, 8}, HostCpu::Intel, 4, 1) == PathClass::Phb);
}

TEST_CASE("NCCL_P2P_LEVEL spelled as NCCL reads it") {
  CHECK(topology::p2p_level_from("NVB", "x") == PathClass::Nvb);
  CHECK(topology::p2p_level_from("C2C", "x") == PathClass::C2c);
  CHECK(topology::p2p_level_from("P2C", "x") == PathClass::P2c);
  CHECK(topology::p2p_level_from("PXN", "x") == PathClass::Pxn);
  CHECK(topology::p2p_level_from("3", "x") == PathClass::Phb);
  CHECK(topology::p2p_level_from("7", "x") == PathClass::Sys);
  CHECK(topology::p2p_level_from("12", "x") == PathClass::Sys);
  CHECK(topology::p2p_level_from("02", "x") == PathClass::Pxb);
  CHECK(topology::p2p_level_from("00", "x") == PathClass::Loc);
  CHECK(PathClass::Pxb < PathClass::P2c);
  CHECK(PathClass::Pxn < PathClass::Phb);
  CHECK_THROWS_AS(topology::p2p_level_from("", "--p2p-level"), Error);
  CHECK_THROWS_AS(topology::p2p_level_from("-1", "--p2p-level"), Error);
  CHECK_THROWS_AS(topology::p2p_level_from("NET", "--p2p-level"), Error);
}

namespace {
struct Run {
  double busbw;
  std::string sees;
};
Run allreduce_1g(const topology::Topology& t) {
  nccl::Builder b(t, {});
  const auto cfg = test::packed_rings_config(t, Op::AllReduce);
  const auto row = metrics::run(b, cfg, metrics::plan_size(Op::AllReduce, 8, Bytes{1} << 30, 4));
  CHECK(row.choice.algo == "ring");
  return {row.bw.busbw_GBps, b.describe(cfg)};
}
} // namespace

TEST_CASE("8 GPUs on 2 AMD sockets at NCCL's default level: the crossing hops run SHM at AMD_BW") {
  const auto t = topology::resolve_topology("machine:gpu=l40s,gpus=8,cpu=amd");
  CHECK(topology::path_class(t, 0, 1) == PathClass::Pix);
  CHECK(topology::path_class(t, 1, 2) == PathClass::Phb);
  CHECK(topology::path_class(t, 3, 4) == PathClass::Sys);
  const auto dflt = allreduce_1g(t);
  CAPTURE(dflt.sees);
  CHECK(dflt.busbw == doctest::Approx(15.0).epsilon(0.02));
  CHECK(dflt.sees.find("P2P level PXB (NCCL's default): SHM ") != std::string::npos);
  CHECK(dflt.sees.find("gpu3->gpu4") != std::string::npos); // the crossing pair
  CHECK(dflt.sees.find("gpu0->gpu1") == std::string::npos); // one switch: P2P
  auto sys = t;
  sys.p2p_level = static_cast<int>(PathClass::Sys);
  const auto at_sys = allreduce_1g(sys);
  CAPTURE(at_sys.sees);
  CHECK(at_sys.busbw == doctest::Approx(22.5).epsilon(0.02));
  CHECK(at_sys.sees.find("P2P level SYS (NCCL_P2P_LEVEL): every ring hop P2P") != std::string::npos);
  // An older release: 2.22.3 let AMD hosts run P2P at SYS by default.
  nccl::Options old;
  old.nccl_version = "2.22.3";
  nccl::Builder b(t, old);
  const auto cfg = test::packed_rings_config(t, Op::AllReduce);
  CHECK(metrics::run(b, cfg, metrics::plan_size(Op::AllReduce, 8, Bytes{1} << 30, 4)).bw.busbw_GBps ==
        doctest::Approx(22.5).epsilon(0.02));
}

TEST_CASE("NCCL_P2P_LEVEL on a launch line is the trace's, in a comment it is not") {
  const std::string rows = "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
                           "     1048576        262144     float     sum      -1    100.0   10.49   18.35       0    100.0   10.49   18.35       0\n";
  const auto launch = trace::parse_trace("CUDA_VISIBLE_DEVICES=1,2 NCCL_P2P_LEVEL=SYS ./build/all_reduce_perf -b 8 -e 1M -g 8\n" + rows,
                                         "launch.txt", {schedule::Op::AllReduce, 8, false});
  CHECK(launch.env.at("NCCL_P2P_LEVEL") == "SYS");
  const auto mpi = trace::parse_trace("mpirun -np 8 -x NCCL_P2P_LEVEL=NVL ./all_reduce_perf\n" + rows, "mpi.txt", {schedule::Op::AllReduce, 8, false});
  CHECK(mpi.env.at("NCCL_P2P_LEVEL") == "NVL");
  const auto comment = trace::parse_trace("# caveat: NCCL_P2P_LEVEL=SYS would let NCCL use P2P\n" + rows, "c.txt", {schedule::Op::AllReduce, 8, false});
  CHECK(comment.env.count("NCCL_P2P_LEVEL") == 0);
  const auto info = trace::parse_trace("host:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to PHB\n" + rows, "i.txt", {schedule::Op::AllReduce, 8, false});
  CHECK(info.env.at("NCCL_P2P_LEVEL") == "PHB");
}

TEST_CASE("GPUs on two NVSwitch baseboards joined by NVLink are NVL to each other (DGX-2), so no hop of theirs is SHM") {
  // NCCL's topology of a DGX-2 puts all 16 GPUs behind NVSwitches: every pair NVL. ccsim's drawing has each
  // baseboard's switches and NVLinks between the two sets; the PCIe path between baseboards crosses the sockets.
  const auto t = topology::resolve_topology("dgx2");
  CHECK(topology::path_class(t, 0, 1) == PathClass::Nvl);
  CHECK(topology::path_class(t, 7, 8) == PathClass::Nvl);
  CHECK(topology::path_class(t, 15, 1) == PathClass::Nvl);
}
