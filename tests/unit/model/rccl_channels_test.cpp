// RCCL's channel count on one node (models/rccl.json threads and one_node_channels): 256 threads per
// channel on AMD (ROCm/rccl src/include/device.h NCCL_MAX_NTHREADS 256, tuning.cc ncclTopoTuneModel's HIP branch),
// so NCCL's shrink `nc` while nBytes < nc x threads x threshold keeps twice NCCL's channels at the same size; and
// RCCL 2.26.6's default of 112 collective channels on one node of 8 gfx950 GPUs (its CHANGELOG). Every expected
// count below is RCCL's own choice as its NCCL_DEBUG=TRACE log printed it on 8 x MI355X (RCCL 2.26.6,
// tests/data/wild_traces/mi355x-8gpu-allreduce-4B-8G-mpirun-debugfile-rccl2266-amddev.txt header), or the rule by hand.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/proto_list.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

namespace {

// The channels of RCCL's ring for one allreduce or allgather of `bytes` under protocol `proto`, MSCCL off (its
// all-pairs algorithms would take 1 KiB-16 MiB on 8 GPUs).
int rccl_ring_channels(const std::string& spec, schedule::Op op, Bytes bytes, const char* proto) {
  const auto t = topology::resolve_topology(spec);
  model::nccl::Options o;
  o.params = model::ParamSet{};
  o.mode = model::nccl::AlgoMode::Ring;
  o.msccl = model::nccl::MscclMode::Off;
  o.protos = model::nccl::proto_set_from(proto);
  model::nccl::Builder b(t, o);
  metrics::RunConfig c;
  c.op = op;
  c.placements = topology::pack_rings(t, {}).rings;
  const auto r = metrics::run(b, c, metrics::plan_size(c.op, metrics::ranks_of(c), bytes, 4));
  CHECK(r.choice.algo == "ring");
  return r.choice.channels;
}

} // namespace

TEST_CASE("RCCL channels: 8 x gfx950 on one node opens 112 collective channels, as RCCL 2.26.6 logs") {
  // Large sizes keep every channel (8 GiB / (112 x 256 x 64 B) >> 1): the default itself.
  CHECK(rccl_ring_channels("machine:gpu=mi355x", schedule::Op::AllReduce, Bytes{1} << 33, "Simple") == 112);
  CHECK(rccl_ring_channels("machine:gpu=mi350x", schedule::Op::AllGather, Bytes{1} << 33, "Simple") == 112);
  // gfx942 on 8 GPUs: NCCL's doubling of the node model's 28 channels, 56 (rccl.json one_node_channels; the
  // multiplier on 2 and 4 GPUs: rccl_partial_mesh_test.cpp). Not 8 GPUs, or not one node: not 112.
  CHECK(rccl_ring_channels("machine:gpu=mi300x", schedule::Op::AllReduce, Bytes{1} << 33, "Simple") == 56);
  CHECK(rccl_ring_channels("machine:gpu=mi355x,gpus=4", schedule::Op::AllReduce, Bytes{1} << 33, "Simple") != 112);
  CHECK(rccl_ring_channels("machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce", schedule::Op::AllReduce, Bytes{1} << 33,
                           "Simple") != 112);
}

TEST_CASE("RCCL channels: 2 x 8 gfx950 run 64 channels across nodes, as RCCL 2.26.6 logs, until 2.30.4") {
  // connect.cc caps several nodes at 64; RCCL 2.26.6 on 2 x 8 MI355X: RING/SIMPLE and TREE/SIMPLE on 64 channels.
  const std::string two = "machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce";
  CHECK(rccl_ring_channels(two, schedule::Op::AllReduce, Bytes{1} << 33, "Simple") == 64);
  // Below 64 x 256 threads x 64 B = 1 MiB the thread threshold shrinks it: 512 KiB keeps 32.
  CHECK(rccl_ring_channels(two, schedule::Op::AllReduce, Bytes{512} << 10, "Simple") == 32);
  // RCCL 2.30.4 lowered the default to 48: that release is not this rule's (the search's 8 x 2 = 16 then).
  const auto t = topology::resolve_topology(two);
  model::nccl::Options o;
  o.params = model::ParamSet{};
  o.mode = model::nccl::AlgoMode::Ring;
  o.protos = model::nccl::proto_set_from("Simple");
  o.nccl_version = "2.30.4";
  model::nccl::Builder b(t, o);
  metrics::RunConfig c;
  c.op = schedule::Op::AllReduce;
  c.placements = topology::pack_rings(t, {}).rings;
  CHECK(metrics::run(b, c, metrics::plan_size(c.op, metrics::ranks_of(c), Bytes{1} << 33, 4)).choice.channels == 16);
  // gfx942 across nodes keeps the search's count (no node model known): 8 x 2.
  CHECK(rccl_ring_channels("machine:gpu=mi300x,nodes=2,nics=8x400G,kind=roce", schedule::Op::AllReduce, Bytes{1} << 33,
                           "Simple") == 16);
}

TEST_CASE("RCCL channels: 256 threads per channel halve the bytes that keep a channel, as RCCL's log shows") {
  // Ring LL: threshold 8 B x 8 ranks = 64 B per thread, x 256 threads = 16 KiB per channel.
  // RCCL 2.26.6 on 8 x MI355X: 1 channel to 16 KiB, 2 at 32 KiB, 16 at 256 KiB (NCCL's 512 threads: 1, 1, 8).
  const std::string mi355x = "machine:gpu=mi355x";
  CHECK(rccl_ring_channels(mi355x, schedule::Op::AllReduce, Bytes{16} << 10, "LL") == 1);
  CHECK(rccl_ring_channels(mi355x, schedule::Op::AllReduce, Bytes{32} << 10, "LL") == 2);
  CHECK(rccl_ring_channels(mi355x, schedule::Op::AllReduce, Bytes{256} << 10, "LL") == 16);
  // Ring Simple: 64 B per thread x 256 = 16 KiB per channel: 32 at 512 KiB, 64 at 1 MiB (logged; NCCL's: 16, 32).
  CHECK(rccl_ring_channels(mi355x, schedule::Op::AllReduce, Bytes{512} << 10, "Simple") == 32);
  CHECK(rccl_ring_channels(mi355x, schedule::Op::AllReduce, Bytes{1} << 20, "Simple") == 64);
  // gfx942 alike (256 threads is every AMD target's): 128 KiB of Simple keeps 8 of the mesh's 56 channels (NCCL's 4).
  CHECK(rccl_ring_channels("machine:gpu=mi300x", schedule::Op::AllReduce, Bytes{128} << 10, "Simple") == 8);
}

TEST_CASE("RCCL channels: a bad multi-node channel entry is refused naming the entry") {
  const std::string path = "/tmp/ccsim-rccl-channels-bad-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(model::nccl::default_rccl_tables_path()));
  j["rccl"]["multi_node_channels_by_sm"]["gfx950"]["until"] = "soon";
  std::ofstream(path) << j.dump();
  try {
    (void)model::nccl::parse_tables(path);
    FAIL("accepted a release that is none");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("until") != std::string::npos);
  }
  std::remove(path.c_str());
}

TEST_CASE("RCCL channels: gfx950's own counts are for 8 GPUs a node only") {
  // RCCL 2.26.6 CHANGELOG: 112 for "a single node with 8 * gfx950"; the 64 across nodes is what RCCL 2.26.6 logs on
  // 2 x 8 MI355X. 16 gfx950 on one PCIe node, or 2 nodes of 4, are neither: the search's count stays.
  CHECK(rccl_ring_channels("machine:gpu=mi355x,gpus=16,intra=pcie", schedule::Op::AllReduce, Bytes{1} << 33, "Simple") != 112);
  CHECK(rccl_ring_channels("machine:gpu=mi355x,gpus=4,nodes=2,nics=4x400G,kind=roce", schedule::Op::AllReduce, Bytes{1} << 33,
                           "Simple") != 64);
}
