// NCCL's ring broadcast / reduce on one node is a pipelined chain (src/device/broadcast.h, reduce.h at
// v2.29.3-1): each channel forwards its chunk as soon as it arrives, and a connection's NCCL_STEPS (8) slots let
// the sender run ahead of the receiver (prims_simple.h waitPeer: a send waits for a free slot, not for the
// previous chunk to land downstream). The 32 channels of 8 B200 each carry one 512 KiB chunk at 16 MiB, all at
// once, so a chunk's hop latency is paid in parallel with the others' transfers, once per hop on the critical
// path: time = fixed + (p - 1) x (hop latency + wire) + (k - 1) x wire for k chunks of the replayed chain.
// A lockstep replay charges each chunk the hop latency again: (p - 2 + k) x (hop latency + wire).
//
// By hand, 8 B200 under the bare model (NCCL's figures, no fitted corrections), ring/Simple forced, 32 channels,
// one loop up to 32 x 512 KiB = 16 MiB, so 8 MiB is a chain of 16 chunks of 512 KiB and 16 MiB one of 32:
// the fixed part and the fill (p - 1) x (latency + wire) are the same for both, and the difference is the
// 16 more chunks on the wire alone, 16 x 524288 B / 720 GB/s (NCCL's ring graph on 8 B200: 16 search
// channels x 45 GB/s, the rate ccsim's replay carries a ring at) = 11.65 us. Lockstep: 16 x (3.4 us, NCCL's
// hwLat[NVLink][Ring][Simple], + 0.728 us) = 66.0 us.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/core/units.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/proto_list.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

namespace {
constexpr Bytes kChainMiB = Bytes{1} << 20;
metrics::Row chain_bare_ring_simple(const topology::Topology& t, Op op, Bytes size) {
  nccl::Options o;
  o.params = model::ParamSet{};
  o.mode = nccl::AlgoMode::Ring;
  o.protos = nccl::proto_set_from("Simple");
  nccl::Builder b(t, o);
  const auto c = test::packed_rings_config(t, op);
  return metrics::run(b, c, metrics::plan_size(op, metrics::ranks_of(c), size, 4));
}
} // namespace

TEST_CASE("A ring broadcast's chunks pipeline: 16 more chunks add their wire time, not their hop latency") {
  const auto t = topology::resolve_topology("machine:gpu=b200,gpus=8");
  for (const Op op : {Op::Broadcast, Op::Reduce}) {
    CAPTURE(schedule::to_string(op));
    const auto half = chain_bare_ring_simple(t, op, 8 * kChainMiB), full = chain_bare_ring_simple(t, op, 16 * kChainMiB);
    REQUIRE(half.choice.proto == "Simple");
    REQUIRE(full.choice.channels == 32);
    REQUIRE(half.choice.channels == 32);
    REQUIRE(full.choice.loops == 1);
    const double extra_us = to_us(full.time - half.time);
    CHECK(extra_us == doctest::Approx(16.0 * 524288 / 720e3).epsilon(0.03));
  }
}
