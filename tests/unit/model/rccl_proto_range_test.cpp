// RCCL 2.26-2.27 across nodes (sim/model/nccl/rccl.hpp rccl_forced_protocol, models/rccl.json
// protocol_ranges_across_nodes): the protocol its tuning model's size ranges force over its tuner's pick on
// 8-GPU, 8-NIC nodes (rome_model_81), and a replay timed by hand from the figures the rule brings in.
#include <doctest/doctest.h>

#include <string>

#include "sim/model/nccl/rccl.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

namespace {

// The bare model (no fitted factor) predicting `release` (and NCCL_PROTO `protos`, "" = unset).
metrics::Row rccl_release_row(const topology::Topology& t, schedule::Op op, Bytes size, const std::string& release,
                              const std::string& protos = "", const std::string& algo = "auto", int logged_channels = 0) {
  model::ModelOptions o;
  o.nccl_channels = logged_channels;
  o.nccl_version = release;
  o.nccl_proto = protos;
  o.nccl_algo = algo;
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c;
  c.op = op;
  c.model_name = "nccl";
  c.placements = topology::pack_rings(t, {}).rings;
  return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4));
}

std::string pair_of(const metrics::Row& r) { return r.choice.algo + "/" + r.choice.proto; }

} // namespace

TEST_CASE("RCCL 2.27 across 2 MI300X nodes with 8 NICs: allreduce is LL to 1 MiB, LL128 to 9 MiB, then Simple") {
  // tuning_model_5 (gfx942) AllReduce llProtoRanges: LL (0, 1048576], LL128 (1048576, 9437184], with rome_model_81's
  // ll128Enabled. The rule sets the protocol only; the algorithm stays the tuner's (the tree at 2-16 MiB since RCCL's
  // ringCorrectionFactor weighs the ring across nodes: rccl_ring_correction_test.cpp), so these checks read the protocol.
  const auto t = topology::resolve_topology("machine:gpu=mi300x,nodes=2,nics=8x400G,kind=roce");
  const auto mib = [](double n) { return static_cast<Bytes>(n * 1048576); };
  CHECK(rccl_release_row(t, schedule::Op::AllReduce, mib(4), "2.27.7").choice.proto == "LL128");
  CHECK(rccl_release_row(t, schedule::Op::AllReduce, mib(2), "2.26.6").choice.proto == "LL128");
  CHECK(rccl_release_row(t, schedule::Op::AllReduce, mib(1), "2.27.7").choice.proto == "LL");
  CHECK(rccl_release_row(t, schedule::Op::AllReduce, 9437184, "2.27.7").choice.proto == "LL128");
  CHECK(rccl_release_row(t, schedule::Op::AllReduce, 9437184 + 4096, "2.27.7").choice.proto == "Simple");
  // Allgather compares the size per rank: 16 ranks x 1 MiB is inside (98304, 5046272], 16 x 64 KiB inside LL's 98304.
  CHECK(pair_of(rccl_release_row(t, schedule::Op::AllGather, mib(16), "2.27.7")) == "ring/LL128");
  CHECK(rccl_release_row(t, schedule::Op::AllGather, mib(1), "2.27.7").choice.proto == "LL");
  // Not this rule: 2.22.3 (its ROCm 6.4.0 build had no ranges), 2.28 (retuned ranges), no release, NCCL_PROTO set.
  CHECK(rccl_release_row(t, schedule::Op::AllReduce, mib(4), "2.22.3").choice.proto == "Simple");
  CHECK(rccl_release_row(t, schedule::Op::AllReduce, mib(4), "2.28.3").choice.proto == "Simple");
  CHECK(rccl_release_row(t, schedule::Op::AllReduce, mib(4), "").choice.proto == "Simple");
  CHECK(rccl_release_row(t, schedule::Op::AllReduce, mib(4), "2.27.7", "LL,Simple").choice.proto == "Simple");
}

TEST_CASE("RCCL 2.27's ranges need the node model's 8 GPUs and 8 NICs per node") {
  const Bytes four_mib = Bytes{4} << 20;
  const auto four_nics = topology::resolve_topology("machine:gpu=mi300x,nodes=2,nics=4x400G,kind=roce");
  CHECK(rccl_release_row(four_nics, schedule::Op::AllReduce, four_mib, "2.27.7").choice.proto == "Simple");
  const auto one_node = topology::resolve_topology("machine:gpu=mi300x,nics=8x400G,kind=roce");
  CHECK(rccl_release_row(one_node, schedule::Op::AllReduce, Bytes{32} << 20, "2.27.7").choice.proto == "Simple");
  // gfx950 (tuning_model_6): AllReduce LL128 (131071, 17660227]: 16 MiB LL128, 32 MiB Simple.
  const auto mi355x = topology::resolve_topology("machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce");
  CHECK(rccl_release_row(mi355x, schedule::Op::AllReduce, Bytes{16} << 20, "2.27.7").choice.proto == "LL128");
  CHECK(rccl_release_row(mi355x, schedule::Op::AllReduce, Bytes{32} << 20, "2.27.7").choice.proto == "Simple");
}

TEST_CASE("RCCL 2.27 allgather of 64 B per rank on 2 x 8 MI355X runs ring/LL128, timed by hand") {
  // tuning_model_6's AllGather ranges: LL (0, 7], LL128 (7, 8388608] per rank; the tuner's ring/LL becomes ring/LL128.
  // 1 KiB over 16 ranks, one channel: 15 steps of 64 B chained around the ring, which crosses the network twice per
  // turn, so the 15 steps hold 2 network hops and 13 hops inside a node. Latency: RCCL's LL128 base 12 us; a hop inside
  // a node is NCCL's net overhead on an Intel host, 1.0 us, over tuning_model_5/6's xGMI ring LL128 0.8; a network hop
  // adds NET ring LL128 4.0 - xGMI 0.8 = 3.2 us: 12 + 13 x 1.0 + 2 x (1.0 + 3.2) = 33.4 us. Data: 64 B per step at
  // LL128's 7/8 of the 50.0 GB/s xGMI link (gfx950's 350 / 7) = 43.75 GB/s, 15 x 1.463 ns = 0.022 us.
  // The tuner's ring/LL (6343717 and 2.22.3) takes 12 + 13 x 1.0 + 2 x (1.0 + 2.7 - 0.8) = 30.8 us.
  const auto t = topology::resolve_topology("machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce");
  const auto r = rccl_release_row(t, schedule::Op::AllGather, 1024, "2.27.7");
  CHECK(pair_of(r) == "ring/LL128");
  CHECK(r.choice.channels == 1);
  CHECK(static_cast<double>(r.time) / 1e6 == doctest::Approx(33.4 + 15 * 64 / 43750.0).epsilon(1e-3));
  const auto before = rccl_release_row(t, schedule::Op::AllGather, 1024, "2.22.3");
  CHECK(pair_of(before) == "ring/LL");
  CHECK(static_cast<double>(before.time) / 1e6 == doctest::Approx(30.8).epsilon(2e-3));
}

TEST_CASE("rccl_forced_protocol: the node model's ll128Enabled, the allreduce scale beyond 2 nodes, the release and node gates") {
  model::nccl::Tables tab;
  tab.rccl = model::nccl::Tables::Rccl{}; // not emplace(): clang judges Rccl not default-constructible inside Tables (its nested default initializers)
  model::nccl::Tables::Rccl::ProtoRangeRule rule;
  rule.from = {2, 26, 0};
  rule.until = {2, 28, 0};
  rule.gpus_per_node = 8;
  rule.nics_per_node = 8;
  rule.by_sm["gfx942"].by_op["allreduce"] = {1048576, 1048576, 9437184};
  tab.rccl->proto_ranges.push_back(rule);
  const auto forced = [&](const char* release, int nodes, int nics, int ranks, Bytes n) {
    return model::nccl::rccl_forced_protocol(tab, model::nccl::parse_nccl_version(release), "gfx942", nodes, nics,
                                             schedule::Op::AllReduce, ranks, n);
  };
  // ll128 off in the node model: the LL128 range gives Simple.
  CHECK(forced("2.27.7", 2, 8, 16, Bytes{4} << 20) == model::nccl::Proto::Simple);
  CHECK(forced("2.27.7", 2, 8, 16, Bytes{1} << 20) == model::nccl::Proto::LL);
  tab.rccl->proto_ranges.front().by_sm["gfx942"].ll128 = true;
  CHECK(forced("2.27.7", 2, 8, 16, Bytes{4} << 20) == model::nccl::Proto::LL128);
  // Beyond 2 nodes allreduce's LL128 ceiling grows by the rule's scale (3.8 in rccl.json, 1 here).
  CHECK(forced("2.27.7", 4, 8, 32, Bytes{16} << 20) == model::nccl::Proto::Simple);
  tab.rccl->proto_ranges.front().allreduce_ll128_scale = 3.8;
  CHECK(forced("2.27.7", 4, 8, 32, Bytes{16} << 20) == model::nccl::Proto::LL128);
  CHECK_FALSE(forced("2.27.7", 1, 8, 8, Bytes{4} << 20));
  CHECK_FALSE(forced("2.25.1", 2, 8, 16, Bytes{4} << 20));
  CHECK_FALSE(forced("2.27.7", 2, 8, 12, Bytes{4} << 20));
}

TEST_CASE("rccl_tree_chunk_bytes: RCCL's tree chunk halving, by hand") {
  using model::nccl::Proto;
  using model::nccl::rccl_tree_chunk_bytes;
  const Bytes mib = Bytes{1} << 20;
  // LL128 on 2 nodes x 8 GPUs, 16 channels: nstepsLL128 = 1 + log2i(2) + 0.1 x 8 = 2.8. The step's data is 50176 B;
  // 2 MiB / (16 x 50176) = 2.6, integer 2 < 2.8 x 16 / 8 = 5.6 and 50176 > 32768: halved once to 25088 (then <= 32768).
  CHECK(rccl_tree_chunk_bytes(Proto::LL128, 50176, 2 * mib, 16, 2, 16) == 25088);
  // 16 MiB / (16 x 50176) = 20 >= 5.6: kept (and 50176 <= 128 KiB, so the first rule never halves it).
  CHECK(rccl_tree_chunk_bytes(Proto::LL128, 50176, 16 * mib, 16, 2, 16) == 50176);
  // Simple, one 512 KiB step, tree depth 8 - 1 + 1 = 8. 16 MiB on 16 channels: 16 MiB / (16 x 512 KiB) = 2 < 64 and
  // 4 < 64 at 256 KiB: halved to 128 KiB (the first rule's floor); 8 < 32 at 128 KiB: halved to 64 KiB (the second's
  // floor); 16 >= 8 at 64 KiB: kept.
  CHECK(rccl_tree_chunk_bytes(Proto::Simple, 524288, 16 * mib, 16, 2, 16) == 65536);
  // 1 GiB: 1 GiB / (16 x 512 KiB) = 128 >= 64: the whole step.
  CHECK(rccl_tree_chunk_bytes(Proto::Simple, 524288, 1024 * mib, 16, 2, 16) == 524288);
  // LL has no rule.
  CHECK(rccl_tree_chunk_bytes(Proto::LL, 16384, 2 * mib, 16, 2, 16) == 16384);
}

TEST_CASE("RCCL 2.27's LL128 across nodes moves RCCL's 50176-byte step, not NVIDIA's 576000") {
  // 2 x 8 MI355X allreduce of 16 MiB: ring/LL128 (tuning_model_6's range), on 16 channels as a log may say (1 MiB per
  // channel). A ring loop moves one chunk per rank, 16 x 50176 = 802816 B of RCCL's LL128 data (its 57344-byte step x
  // 7/8): 2 loops (NVIDIA's 16 x 576000 would hold the whole MiB in one). On RCCL's own 64 channels across gfx950 nodes
  // (rccl.json multi_node_channels_by_sm) each channel has 256 KiB: one loop. The ring is asked for (NCCL_ALGO=Ring):
  // RCCL's own pick there is the tree (its ringCorrectionFactor, rccl_ring_correction_test.cpp).
  const auto t = topology::resolve_topology("machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce");
  const auto r = rccl_release_row(t, schedule::Op::AllReduce, Bytes{16} << 20, "2.27.7", "", "ring", 16);
  CHECK(pair_of(r) == "ring/LL128");
  CHECK(r.choice.channels == 16);
  CHECK(r.choice.loops == 2);
  const auto own = rccl_release_row(t, schedule::Op::AllReduce, Bytes{16} << 20, "2.27.7", "", "ring");
  CHECK(pair_of(own) == "ring/LL128");
  CHECK(own.choice.channels == 64);
  CHECK(own.choice.loops == 1);
}

TEST_CASE("RCCL's tree across nodes replays in RCCL's LL128 tree chunk") {
  // 2 x 8 MI300X allreduce of 2 MiB on the tree (NCCL_ALGO=tree), LL128 by tuning_model_5's range: 16 channels, one
  // (ring, tree) pair each, 128 KiB per channel; RCCL's tree LL128 chunk at this size is 25088 B (the case above), so
  // ceil(131072 / 25088) = 6 segments (NVIDIA's 576000-byte step would send each channel's share whole, 1 segment).
  const auto t = topology::resolve_topology("machine:gpu=mi300x,nodes=2,nics=8x400G,kind=roce");
  const auto r = rccl_release_row(t, schedule::Op::AllReduce, Bytes{2} << 20, "2.27.7", "", "tree");
  CHECK(pair_of(r) == "tree/LL128");
  CHECK(r.choice.channels == 16);
  CHECK(r.choice.loops == 6);
}
