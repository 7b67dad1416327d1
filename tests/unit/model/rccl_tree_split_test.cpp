// RCCL's tree allreduce under LL and LL128 across nodes (ROCm/rccl 0cbce2a src/device/all_reduce.h runTreeSplit): a
// channel's 256-thread block splits into a reduce-up group of (256 x 7 / (10 x 64)) x 64 = 128 threads and a
// broadcast-down group of 128, both running at once, and the lines forward as they land (prims_ll.h, prims_ll128.h).
// The replay runs the two directions as two pipelines (schedule::TreeSplitAllReduce) in pieces finer than a chunk,
// each xGMI link capped at its groups' share of a block's copy rate (rccl.json ring_block_GBps_by_sm) times the
// protocol's data share (builder.cpp tree_split_view). Expected figures by hand.
#include <doctest/doctest.h>

#include <string>

#include "sim/model/nccl/builder.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

namespace split_test {

metrics::Row split_row(const std::string& topo, Bytes size, const std::string& release, const std::string& algo, const std::string& protos) {
  const auto t = topology::resolve_topology(topo);
  model::ModelOptions o;
  o.nccl_version = release;
  o.nccl_algo = algo;
  o.nccl_proto = protos;
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c;
  c.op = schedule::Op::AllReduce;
  c.model_name = "nccl";
  c.placements = topology::pack_rings(t, {}).rings;
  return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4));
}

double split_us(Time t) { return static_cast<double>(t) / 1e6; }

} // namespace split_test
using namespace split_test;

TEST_CASE("RCCL's runTreeSplit on gfx9: 128 threads up, 128 down") {
  CHECK(model::nccl::rccl_tree_split_block_share(true) == doctest::Approx(0.5));
  CHECK(model::nccl::rccl_tree_split_block_share(false) == doctest::Approx(0.5));
}

TEST_CASE("RCCL's LL128 tree across 2 x 8 MI355X: bound by its thread groups on xGMI, not a hop latency a segment") {
  // RCCL 2.27.7, 64 channels on the 8 search rings x 2 trees: 16 jobs of 4 channels, 16 MiB / 16 = 1 MiB a job. A
  // ring's two trees chain the host's GPUs in the ring's order, so a chain edge carries both trees' 1 MiB up (the
  // ring's 8 channels' up groups: 8 x 0.5 = 4 blocks), and the ring the other way round (the search's rings come in
  // reversed pairs) sends its 2 MiB down the same directed link (4 blocks more): 4 MiB at 8 x 5.428571 x 7/8 = 38.0
  // GB/s, 110.4 us. Main's replay (one chunk a segment, up and down in one lockstep) took 429.3 us.
  const auto r = split_row("machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce", Bytes{16} << 20, "2.27.7", "tree", "");
  REQUIRE(r.choice.algo == "tree");
  REQUIRE(r.choice.proto == "LL128");
  CHECK(r.choice.channels == 64);
  // Pieces of one pass of the up group's 128 threads over a 64-byte line (56 data bytes): ceil(1 MiB / 7168) = 147
  // (main: 42 chunks of 25088 B).
  CHECK(r.choice.loops == 147);
  const double bound = 4.0 * 1048576 / (8 * 5.428571 * 7.0 / 8.0 * 1e3);
  CHECK(bound == doctest::Approx(110.38).epsilon(0.001));
  CHECK(split_us(r.time) >= bound);
  CHECK(split_us(r.time) <= bound + 45.0); // the launch and RCCL's tree latency (~37 us at 16 B) and the pipeline's fill
}

TEST_CASE("RCCL's LL128 tree across 2 x 8 MI300X: 16 channels, 2 blocks a link") {
  // gfx942 keeps the search's 16 channels across nodes: 8 rings x 2 trees, one channel a job, 4 MiB / 16 = 256 KiB a
  // job. A ring's chain edge carries its 2 jobs up (2 up groups: 1 block) and the reversed ring's 2 jobs down (1 block):
  // 1 MiB at 2 x 5.428571 x 7/8 = 9.5 GB/s, 110.4 us. Main's replay took 148.2 us at 2.27.7's LL128 with no such
  // bound (its segments one chunk each, up and down in one lockstep).
  const auto r = split_row("machine:gpu=mi300x,nodes=2,nics=8x400G,kind=roce", Bytes{4} << 20, "2.27.7", "tree", "");
  REQUIRE(r.choice.algo == "tree");
  CHECK(r.choice.channels == 16);
  CHECK(r.choice.loops == 37); // ceil(256 KiB / 7168); main: 11 chunks
  const double bound = 1048576.0 / (2 * 5.428571 * 7.0 / 8.0 * 1e3);
  CHECK(split_us(r.time) >= bound);
  CHECK(split_us(r.time) <= bound + 45.0);
}
