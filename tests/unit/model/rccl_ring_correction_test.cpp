// RCCL's ring across nodes in its own choice (ROCm/rccl src/graph/tuning.cc ncclTopoGetAlgoTime, HIP branch): the
// ring's bandwidth times the tuning model's ringCorrectionFactor[proto][log2i(nBytes >> 6)] when nNodes > 1, 27
// buckets, the last beyond (models/rccl.json rccl.ring_correction_across_nodes; sim/model/nccl/tuning.cpp).
// Expected figures by hand from tuning_model_5's rows; the pick from RCCL's step at 128 -> 256 MiB.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"

#include "sim/model/nccl/tables.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using model::nccl::Algo;
using model::nccl::Proto;

namespace {

const model::nccl::Tables& rccl_tables() { return model::nccl::load_tables(model::nccl::default_rccl_tables_path()); }

// 2 nodes of 8 GPUs, 16 search channels of 40 GB/s on xGMI: bus 640 GB/s for the ring and the tree alike.
model::nccl::Graph two_nodes(int nodes) {
  model::nccl::Graph g;
  g.channels = 16;
  g.bw = 40;
  g.tree_bw = 40;
  g.nodes = nodes;
  g.path = model::nccl::Path::NvLink;
  g.arch = model::nccl::Arch::Hopper;
  g.amd_gpu = true;
  g.amd_cpu = true;
  return g;
}

model::nccl::Candidate find(const std::vector<model::nccl::Candidate>& cs, Algo a, Proto p) {
  for (const auto& c : cs)
    if (c.algo == a && c.proto == p) return c;
  FAIL("no candidate");
  return {};
}

metrics::Row row(const std::string& topo, Bytes size, const std::string& release, const std::string& algo = "auto",
                 const std::string& protos = "") {
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

} // namespace

TEST_CASE("RCCL's ring across nodes: the tuning model's ringCorrectionFactor by size, by hand") {
  const auto& tab = rccl_tables();
  const auto g = two_nodes(2);
  // ring/Simple busBw = 16 x 40 x bwRatio 1.00 = 640 GB/s; algbw = 640 x 16 / 30 = 341.33 GB/s, times
  // tuning_model_5's Simple factor: 64 MiB is log2i(2^26 >> 6) = 20: 0.1; 256 MiB, bucket 22: 1.0; 512 MiB, 23: 0.8;
  // 64 GiB, bucket 30, beyond the 27 entries: the last, 1.0.
  const double algbw = 640.0 * 16 / 30;
  CHECK(find(model::nccl::candidates(tab, g, schedule::Op::AllReduce, 16, Bytes{64} << 20), Algo::Ring, Proto::Simple).algbw ==
        doctest::Approx(algbw * 0.1));
  CHECK(find(model::nccl::candidates(tab, g, schedule::Op::AllReduce, 16, Bytes{256} << 20), Algo::Ring, Proto::Simple).algbw ==
        doctest::Approx(algbw));
  CHECK(find(model::nccl::candidates(tab, g, schedule::Op::AllReduce, 16, Bytes{512} << 20), Algo::Ring, Proto::Simple).algbw ==
        doctest::Approx(algbw * 0.8));
  CHECK(find(model::nccl::candidates(tab, g, schedule::Op::AllReduce, 16, Bytes{64} << 30), Algo::Ring, Proto::Simple).algbw ==
        doctest::Approx(algbw));
  // ring/LL: busBw 640 x bwRatio 0.08 = 51.2; 128 KiB is bucket 11: 1.0; 256 KiB, 12: 0.2; 32 B (nBytes >> 6 = 0,
  // log2i 0): the first entry, 0.1.
  const double ll = 51.2 * 16 / 30;
  CHECK(find(model::nccl::candidates(tab, g, schedule::Op::AllReduce, 16, Bytes{128} << 10), Algo::Ring, Proto::LL).algbw ==
        doctest::Approx(ll));
  CHECK(find(model::nccl::candidates(tab, g, schedule::Op::AllReduce, 16, Bytes{256} << 10), Algo::Ring, Proto::LL).algbw ==
        doctest::Approx(ll * 0.2));
  CHECK(find(model::nccl::candidates(tab, g, schedule::Op::AllReduce, 16, 32), Algo::Ring, Proto::LL).algbw ==
        doctest::Approx(ll * 0.1));
  // One node: no factor (the HIP branch applies it when nNodes > 1 only).
  CHECK(find(model::nccl::candidates(tab, two_nodes(1), schedule::Op::AllReduce, 8, Bytes{64} << 20), Algo::Ring, Proto::Simple)
            .algbw == doctest::Approx(640.0 * 8 / 14));
  // NCCL's own tables carry no such factor.
  const auto& nccl = model::nccl::load_tables();
  auto gn = two_nodes(2);
  gn.amd_gpu = false;
  const auto ring = find(model::nccl::candidates(nccl, gn, schedule::Op::AllReduce, 16, Bytes{64} << 20), Algo::Ring, Proto::Simple);
  CHECK(ring.algbw == doctest::Approx(ring.busbw * 16 / 30));
}

TEST_CASE("RCCL across 2 MI300X nodes runs the tree below 256 MiB and the ring from 256 MiB") {
  // With the factor the ring/Simple estimate at 128 MiB is at a tenth of its bandwidth, so the tree/Simple (bwRatio
  // 0.11, treeCorrectionFactor 1.0 at 4-64 MiB) wins; at 256 MiB the factor is 1.0 and the ring wins, the step the 2 x 8
  // gfx942 runs measure (MI308X RCCL 2.27.7 busbw 167 -> 288 GB/s, MI300X AAC10 2.22.3 174 -> 294). Without the
  // factor ccsim ran the ring at both.
  const std::string topo = "machine:gpu=mi300x,nodes=2,nics=8x400G,kind=roce";
  CHECK(row(topo, Bytes{64} << 20, "2.27.7").choice.algo == "tree");
  CHECK(row(topo, Bytes{128} << 20, "2.22.3").choice.algo == "tree");
  CHECK(row(topo, Bytes{256} << 20, "2.27.7").choice.algo == "ring");
  // One node of 8: the ring (no factor; tree/Simple is not a candidate on one gfx94x node).
  CHECK(row("machine:gpu=mi300x,gpus=8", Bytes{64} << 20, "2.27.7").choice.algo != "tree");
}

TEST_CASE("RCCL's tree/Simple across nodes: a job of w channels moves w chunks a segment") {
  // 2 x 8 MI355X, RCCL 2.27.7: 64 channels (rccl.json multi_node_channels_by_sm) over 8 rings x 2 trees = 16 jobs of 4
  // channels. 128 MiB: 8 MiB a job. RCCL's tree chunk (computeCollChunkInfo; depth 7 + log2i(2) = 8): from the 512 KiB
  // step, halved while 128 MiB / (64 x chunk) < 64 down to 128 KiB (16), then while < 32 down to 64 KiB (32). The
  // job's 4 channels move a 64 KiB chunk each at once: segments of 256 KiB, 8 MiB / 256 KiB = 32 (c79f215: 128 segments
  // of one chunk, 2157.8 us). On RCCL 2.30.4 (16 channels, one a job) 8 MiB in 128 KiB chunks: 64 segments.
  const std::string topo = "machine:gpu=mi355x,nodes=2,nics=8x400G,kind=roce";
  const auto r64 = row(topo, Bytes{128} << 20, "2.27.7", "tree", "Simple");
  CHECK(r64.choice.channels == 64);
  CHECK(r64.choice.loops == 32);
  const auto r16 = row(topo, Bytes{128} << 20, "2.30.4", "tree", "Simple");
  CHECK(r16.choice.channels == 16);
  CHECK(r16.choice.loops == 64);
  // The same links carry the same bytes: 4x the channels does not make the tree slower (c79f215: 2157.8 against 1246.2 us).
  CHECK(r64.time <= r16.time);
  // LL keeps one chunk a segment (its lines forward as they land; the segments stand in for that).
}

TEST_CASE("RCCL's ring correction table is refused unless it has 27 positive factors") {
  const std::string path = "/tmp/ccsim-rccl-ring-correction-bad-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(model::nccl::default_rccl_tables_path()));
  j["rccl"]["ring_correction_across_nodes"]["Simple"].erase(0); // 26 factors
  std::ofstream(path) << j.dump();
  try {
    (void)model::nccl::parse_tables(path);
    FAIL("accepted 26 factors");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("ring_correction_across_nodes") != std::string::npos);
  }
  j = nlohmann::json::parse(std::ifstream(model::nccl::default_rccl_tables_path()));
  j["rccl"]["ring_correction_across_nodes"]["LL"][3] = 0.0;
  std::ofstream(path) << j.dump();
  CHECK_THROWS_AS((void)model::nccl::parse_tables(path), Error);
  std::remove(path.c_str());
}
