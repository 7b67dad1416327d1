// A ring's last primitive of every chunk copies with no link busy (sim/model/nccl/ring_local.hpp; NVIDIA/nccl
// src/device/all_gather.h, all_reduce.h, reduce_scatter.h: directRecv / directRecvReduceCopy end each chunk).
// By hand: per rank n/p bytes of output; Simple reads the FIFO once (2 x n/p of memory traffic, 3 x n/p for
// reduce-scatter, which reads its input too), LL twice (its lines carry 8 bytes per 4 of data). 2 B200 in one
// process (-g 2), allgather of 8 GiB: the copy is 2 x 4 GiB at the data sheet's 8 TB/s = 1073.74 us, which
// NCCL 2.22.3 does not run (the peer wrote into the output: P2P direct write without registered buffers)
// and 2.23.4 does.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/core/units.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/ring_local.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using schedule::Op;

TEST_CASE("ring_local_bytes: the last primitives' memory traffic per rank") {
  const double n = 8.0 * (1 << 20);
  CHECK(nccl::ring_local_bytes(Op::AllReduce, nccl::Proto::Simple, 8, n) == doctest::Approx(2.0 * n / 8));
  CHECK(nccl::ring_local_bytes(Op::AllGather, nccl::Proto::Simple, 2, n) == doctest::Approx(n));
  CHECK(nccl::ring_local_bytes(Op::ReduceScatter, nccl::Proto::Simple, 4, n) == doctest::Approx(3.0 * n / 4));
  CHECK(nccl::ring_local_bytes(Op::AllReduce, nccl::Proto::LL, 8, n) == doctest::Approx(3.0 * n / 8));
  CHECK(nccl::ring_local_bytes(Op::Broadcast, nccl::Proto::Simple, 8, n) == 0);
  CHECK(nccl::ring_local_bytes(Op::AllReduce, nccl::Proto::Simple, 1, n) == 0);
}

TEST_CASE("The last primitive copies unless the peer wrote into the output directly") {
  const auto v2223 = nccl::parse_nccl_version("2.22.3"), v2234 = nccl::parse_nccl_version("2.23.4");
  CHECK_FALSE(nccl::ring_last_primitive_copies(true, false, v2223)); // one process, write, direct without registration
  CHECK(nccl::ring_last_primitive_copies(true, false, v2234));       // direct needs registration from 2.23.4
  CHECK(nccl::ring_last_primitive_copies(true, true, v2223));        // P2P read (sm80): never direct unregistered
  CHECK(nccl::ring_last_primitive_copies(false, false, v2223));      // a process per GPU: IPC, no direct pointer
  CHECK(nccl::ring_last_primitive_copies(true, false, std::nullopt)); // the tables' release, 2.30.7
}

TEST_CASE("2 B200 in one process: 2.23.4's allgather of 8 GiB takes 2 x 4 GiB / 8 TB/s longer than 2.22.3's") {
  const auto t = topology::resolve_topology("machine:gpu=b200,gpus=2");
  const auto cfg = test::packed_rings_config(t, Op::AllGather);
  const Bytes size = Bytes{8} << 30;
  auto time_us = [&](const char* version) {
    nccl::Options o;
    o.nccl_version = version;
    o.gpus_per_thread = 2;
    nccl::Builder b(t, o);
    const auto row = metrics::run(b, cfg, metrics::plan_size(Op::AllGather, 2, size, 4));
    CHECK(row.choice.algo == "ring");
    CHECK(row.choice.proto == "Simple");
    return to_us(row.time);
  };
  CHECK(time_us("2.23.4") - time_us("2.22.3") == doctest::Approx(8589934592.0 / 8000e3).epsilon(1e-4));
}
