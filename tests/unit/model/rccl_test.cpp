// RCCL on AMD Instinct meshes (models/rccl.json, sim/model/nccl/rccl.cpp): the default tables on AMD GPU
// kinds, MSCCL all-pairs allreduce and mesh alltoall against hand-computed closed forms, the ring's
// bandwidth on the mesh per GPU generation, multi-node rings that share no xGMI link, and HIP launch overheads.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/proto_list.hpp"
#include "sim/model/nccl/rccl.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;

namespace {

metrics::Row predict(const topology::Topology& t, schedule::Op op, Bytes size) {
  auto b = model::make_model("nccl", t, {});
  metrics::RunConfig c;
  c.op = op;
  c.model_name = "nccl";
  c.placements = topology::pack_rings(t, {}).rings;
  return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4));
}

double us(Time t) { return static_cast<double>(t) / 1e6; }

} // namespace

// RCCL's xGMI figures per generation (rccl.json xgmi_lane_fraction_by_sm, AMD's acceptance busbw / 7 links):
// gfx942 304 / 7 = 43.4286 GB/s, gfx950 350 / 7 = 50.0 GB/s (the MI350X's bar; the MI355X has its own figure,
// xgmi_lane_fraction_by_gpu: 390 / 7 = 55.714 GB/s, ROCm/cvs single_node_mi355_rccl.json).
constexpr double kGfx942Link = 304.0 / 7, kGfx950Link = 350.0 / 7, kMi355xLink = 390.0 / 7;

TEST_CASE("RCCL: MSCCL all-pairs allreduce on an 8x MI300X mesh, by hand") {
  const auto t = topology::resolve_topology("machine:gpu=mi300x");
  // 1 MiB is in allreduce-allpairs-8n-simple.xml's range (524288..11534336 B): Simple, 8 channels.
  // Latency: RCCL base 17 us + 2 hops x 2.1 us (tuning_model_5 xGMI ring Simple) = 21.2 us.
  // Each link carries 2 x 1 MiB / 8 = 262144 B at 43.4286 GB/s = 6.0362 us. The un-overlapped local
  // copies and reduce: 2 phases x 7/8 MiB read + written (3.5 MiB) + 9/8 MiB reduced = 4.625 MiB =
  // 4849664 B at MI300X's 5.3 TB/s = 0.9150 us.
  const auto r = predict(t, schedule::Op::AllReduce, Bytes{1} << 20);
  CHECK(r.choice.algo == "direct");
  CHECK(r.choice.proto == "Simple");
  CHECK(r.choice.channels == 8);
  CHECK(us(r.time) == doctest::Approx(21.2 + 262144.0 / (kGfx942Link * 1e3) + 4849664.0 / 5.3e6).epsilon(1e-4));
  // 4 KiB: the LL range of the 4-channel algorithm; LL moves half the data per line.
  // 12 + 2 x 0.8 = 13.6 us; 2 x 512 B per link at 21.714 GB/s = 0.04716 us; local: LL receives read
  // twice the data, 2 x 3584 x 3 + 4608 = 26112 B at 5.3 TB/s = 0.004927 us.
  const auto s = predict(t, schedule::Op::AllReduce, 4096);
  CHECK(s.choice.proto == "LL");
  CHECK(s.choice.channels == 4);
  CHECK(us(s.time) == doctest::Approx(13.6 + 1024.0 / (kGfx942Link / 2 * 1e3) + 26112.0 / 5.3e6).epsilon(1e-5));
}

TEST_CASE("RCCL: MSCCL all-pairs needs an element count that is a multiple of its chunks per loop") {
  const auto t = topology::resolve_topology("machine:gpu=mi300x");
  // allreduce-allpairs-8n-ll-32tb.xml has nchunksperloop 256: 1 KiB of floats (256) runs it, 512 B
  // (128 floats) does not, and RCCL's tuner picks its ring LL: 12 us + 14 steps x 0.8 us = 23.2 us (the
  // 23.1-23.4 us measured at 128-512 B on 8x MI300X, mi300x-8gpu-allreduce-8B-8G-hisohara-aac8.txt), plus
  // 14 steps of 512 / 8 = 64 B at LL's data share, 8 of a 16-byte line, of the 43.43 GB/s link = 0.0413 us
  // (RCCL's ring LL bwRatio 0.08 weighs its choice only: it made this 0.258 us before the rcclnet branch).
  const auto one_kib = predict(t, schedule::Op::AllReduce, 1024);
  CHECK(one_kib.choice.algo == "direct");
  CHECK(us(one_kib.time) == doctest::Approx(13.6 + 256.0 / (kGfx942Link / 2 * 1e3) + 6528.0 / 5.3e6).epsilon(1e-3));
  const auto half_kib = predict(t, schedule::Op::AllReduce, 512);
  CHECK(half_kib.choice.algo != "direct");
  CHECK(half_kib.choice.proto == "LL");
  CHECK(us(half_kib.time) == doctest::Approx(23.2 + 14 * 64.0 / (kGfx942Link * 0.5 * 1e3)).epsilon(1e-4));
  // 128 KiB = 32768 floats, a multiple of -ll-64tb.xml's 512: all-pairs; 128 KiB + 4 B (32769) is not.
  CHECK(predict(t, schedule::Op::AllReduce, Bytes{128} << 10).choice.algo == "direct");
  CHECK(predict(t, schedule::Op::AllReduce, (Bytes{128} << 10) + 4).choice.algo != "direct");
}

TEST_CASE("RCCL: large allreduce on the MI300X mesh runs rings at 7 links x RCCL's gfx942 figure") {
  const auto t = topology::resolve_topology("machine:gpu=mi300x");
  const auto r = predict(t, schedule::Op::AllReduce, Bytes{1} << 30);
  CHECK(r.choice.algo == "ring");
  CHECK(r.choice.proto == "Simple"); // RCCL enables no LL128 on gfx942
  // 14 steps of 2.1 us + 17 us base; each GPU sends 2 x 7/8 x 1 GiB over 7 links of 43.43 GB/s = 304 GB/s.
  const double hand = 17.0 + 14 * 2.1 + 1.75 * 1073741824.0 / (304.0 * 1e3);
  CHECK(us(r.time) == doctest::Approx(hand).epsilon(0.01));
  CHECK(r.bw.busbw_GBps <= 304.0 * 1.0001);
}

// RCCL's tuner applies no llMaxBw cap on AMD: NCCL's `min(llMaxBw, busBw * .5)` line is in the #else (CUDA) branch of
// ncclTopoTuneModel's #if defined(__HIP_PLATFORM_AMD__) (ROCm/rccl 0cbce2a src/graph/tuning.cc lines 376-414; in
// ROCm/rocm-systems projects/rccl llMaxBw is not computed on AMD at all), so RCCL's ring LL keeps LL's data share of
// the ring, not the 141 GB/s of the Hopper row rccl.json carries for the arrays RCCL inherits.
TEST_CASE("RCCL: ring LL on the MI300X mesh runs at half the 304 GB/s ring, under no llMaxBw cap, by hand") {
  const auto t = topology::resolve_topology("machine:gpu=mi300x");
  model::nccl::Options o;
  o.params = model::ParamSet{};
  o.mode = model::nccl::AlgoMode::Ring;
  o.msccl = model::nccl::MscclMode::Off;
  o.protos = model::nccl::proto_set_from("LL");
  model::nccl::Builder b(t, o);
  metrics::RunConfig c;
  c.op = schedule::Op::AllReduce;
  c.placements = topology::pack_rings(t, {}).rings;
  const auto r = metrics::run(b, c, metrics::plan_size(c.op, metrics::ranks_of(c), Bytes{1} << 30, 4));
  CHECK(r.choice.algo == "ring");
  CHECK(r.choice.proto == "LL");
  // 1 GiB: each GPU sends 2 x 7/8 x 1 GiB at half of 7 links x 304/7 GB/s = 152 GB/s (12362.2 us), plus RCCL's LL
  // latency 12 us + 14 steps x 0.8 us. A 141 GB/s cap would make it 13326.8 + 23.2 us, busbw 141.
  const double hand = 12.0 + 14 * 0.8 + 1.75 * 1073741824.0 / (0.5 * 304.0 * 1e3);
  CHECK(us(r.time) == doctest::Approx(hand).epsilon(0.002));
  CHECK(r.bw.busbw_GBps == doctest::Approx(152.0).epsilon(0.005));
}

TEST_CASE("RCCL: the gfx950 mesh (MI350X) carries its own xGMI figure, 350 GB/s busbw for the ring") {
  const auto r = predict(topology::resolve_topology("machine:gpu=mi350x"), schedule::Op::AllReduce, Bytes{1} << 30);
  CHECK(r.choice.algo == "ring");
  const double hand = 17.0 + 14 * 2.1 + 1.75 * 1073741824.0 / (350.0 * 1e3);
  CHECK(us(r.time) == doctest::Approx(hand).epsilon(0.01));
  // Faster than gfx942 by the links' ratio (76.8 x 0.6510 vs 64 x 0.6786), never above 7 x 76.8.
  const auto m = predict(topology::resolve_topology("machine:gpu=mi300x"), schedule::Op::AllReduce, Bytes{1} << 30);
  CHECK(r.bw.busbw_GBps / m.bw.busbw_GBps == doctest::Approx(350.0 / 304.0).epsilon(0.01));
}

TEST_CASE("RCCL: the MI355X carries AMD's own figure for the product, 390 GB/s busbw for the ring, the MI350X 350") {
  // AMD's Cluster Validation Suite expects 390 GB/s all_reduce_perf busbw at 8 GiB on one node of 8 MI355X
  // (ROCm/cvs single_node_mi355_rccl.json) where the MI350X's bar is 350: both gfx950, the same 7 x 76.8 GB/s
  // links. 1 GiB ring/Simple: 17 + 14 x 2.1 us, then 2 x 7/8 x 1 GiB over 7 links at 390 / 7 GB/s each.
  const auto r = predict(topology::resolve_topology("machine:gpu=mi355x"), schedule::Op::AllReduce, Bytes{1} << 30);
  CHECK(r.choice.algo == "ring");
  const double hand = 17.0 + 14 * 2.1 + 1.75 * 1073741824.0 / (7 * kMi355xLink * 1e3);
  CHECK(us(r.time) == doctest::Approx(hand).epsilon(0.01));
  const auto m = predict(topology::resolve_topology("machine:gpu=mi350x"), schedule::Op::AllReduce, Bytes{1} << 30);
  CHECK(r.bw.busbw_GBps / m.bw.busbw_GBps == doctest::Approx(390.0 / 350.0).epsilon(0.01));
  // Alltoall on the same links: 128 MiB sends 16 MiB to each of 7 peers at 55.714 GB/s, one Simple step.
  const auto a = predict(topology::resolve_topology("machine:gpu=mi355x"), schedule::Op::AllToAll, Bytes{128} << 20);
  CHECK(us(a.time) == doctest::Approx(19.1 + 16777216.0 / (kMi355xLink * 1e3)).epsilon(1e-3));
}

TEST_CASE("RCCL: rings across MI325X nodes are bound by the xGMI hop, not the 400G NIC") {
  // 8 rings, each with one xGMI link per hop inside a node (43.43 GB/s) and one 400G NIC (50 GB/s) out:
  // busbw at most 8 x 43.43 = 347.4 GB/s (measured 347-351 on 2-8 nodes, hisohara aac11 with NCCL_ALGO=Ring).
  const auto t = topology::resolve_topology("machine:gpu=mi325x,nodes=2,nics=8x400G,kind=roce");
  auto b = model::make_model("nccl", t, {});
  metrics::RunConfig c;
  c.op = schedule::Op::AllReduce;
  c.model_name = "nccl";
  c.placements = topology::pack_rings(t, {}).rings;
  const auto r = metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), Bytes{4} << 30, 4));
  CHECK(r.choice.algo == "ring");
  CHECK(r.bw.busbw_GBps <= 8 * kGfx942Link * 1.0001);
  CHECK(r.bw.busbw_GBps >= 8 * kGfx942Link * 0.95);
}

TEST_CASE("RCCL: alltoall over an MI350X mesh sends to every peer at once, by hand") {
  const auto t = topology::resolve_topology("machine:gpu=mi350x");
  // 128 MiB: each GPU sends 16 MiB to each of 7 peers on its own link at 50 GB/s (gfx950);
  // latency one Simple step, 17 + 2.1 us.
  const auto r = predict(t, schedule::Op::AllToAll, Bytes{128} << 20);
  CHECK(r.choice.algo == "direct");
  CHECK(us(r.time) == doctest::Approx(19.1 + 16777216.0 / (kGfx950Link * 1e3)).epsilon(1e-3));
}

TEST_CASE("RCCL: alltoall sends of at most 16 KiB per peer use LL, by hand") {
  const auto t = topology::resolve_topology("machine:gpu=mi350x");
  // 128 KiB over 8 GPUs = 16384 B per peer, at NCCL_P2P_LL_THRESHOLD: LL, 12 + 0.8 us, half of 50 GB/s.
  const auto ll = predict(t, schedule::Op::AllToAll, Bytes{128} << 10);
  CHECK(ll.choice.proto == "LL");
  CHECK(us(ll.time) == doctest::Approx(12.8 + 16384.0 / (kGfx950Link / 2 * 1e3)).epsilon(1e-3));
  // 256 KiB = 32 KiB per peer: Simple, 17 + 2.1 us at 50 GB/s.
  const auto simple = predict(t, schedule::Op::AllToAll, Bytes{256} << 10);
  CHECK(simple.choice.proto == "Simple");
  CHECK(us(simple.time) == doctest::Approx(19.1 + 32768.0 / (kGfx950Link * 1e3)).epsilon(1e-3));
}

TEST_CASE("RCCL: NVIDIA machines keep NCCL's tables") {
  const auto r = predict(topology::resolve_topology("hgx-h100"), schedule::Op::AllReduce, Bytes{1} << 20);
  CHECK(r.choice.algo != "direct");
}

TEST_CASE("Rings across full-mesh hosts share no xGMI link and enter through distinct NICs") {
  const auto t = topology::resolve_topology("machine:gpu=mi325x,nodes=2,nics=8x400G,kind=roce");
  const auto rings = topology::pack_rings(t, {}).rings;
  REQUIRE(rings.size() == 8);
  std::map<std::pair<int, int>, int> use; // directed intra-node hop -> rings on it
  std::set<int> entries;
  for (const auto& r : rings) {
    REQUIRE(r.size() == 16);
    for (std::size_t i = 0; i + 1 < r.size(); ++i)
      if (r[i] / 8 == r[i + 1] / 8) ++use[{r[i], r[i + 1]}];
    entries.insert(r[0]);
  }
  // 8 rings x 7 hops per host x 2 hosts = 112 = every directed pair of both meshes once.
  CHECK(use.size() == 112);
  for (const auto& [hop, n] : use) CHECK(n == 1);
  CHECK(entries.size() == 8);
}

TEST_CASE("RCCL tables: a bad rccl entry is refused naming the file and the entry") {
  const std::string path = "/tmp/ccsim-rccl-bad-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(model::nccl::default_rccl_tables_path()));
  j["rccl"]["xgmi_lane_fraction"] = 2.0;
  std::ofstream(path) << j.dump();
  try {
    (void)model::nccl::parse_tables(path);
    FAIL("accepted a fraction above 1");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("xgmi_lane_fraction") != std::string::npos);
  }
  j["rccl"]["xgmi_lane_fraction"] = 0.75;
  j["rccl"]["xgmi_lane_fraction_by_sm"]["gfx950"] = 1.5;
  std::ofstream(path) << j.dump();
  try {
    (void)model::nccl::parse_tables(path);
    FAIL("accepted a per-generation fraction above 1");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("gfx950") != std::string::npos);
  }
  j["rccl"]["xgmi_lane_fraction_by_sm"]["gfx950"] = 0.65;
  j["rccl"]["xgmi_lane_fraction_by_gpu"]["mi355x"] = 1.2;
  std::ofstream(path) << j.dump();
  try {
    (void)model::nccl::parse_tables(path);
    FAIL("accepted a per-product fraction above 1");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("mi355x") != std::string::npos);
  }
  j["rccl"]["xgmi_lane_fraction_by_gpu"].erase("mi355x");
  j["rccl"]["xgmi_lane_fraction_by_gpu"]["mi999x"] = 0.7;
  std::ofstream(path) << j.dump();
  try {
    (void)model::nccl::parse_tables(path);
    FAIL("accepted a per-product fraction for a GPU kind the catalogue does not have");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("mi999x") != std::string::npos);
  }
  j["rccl"]["xgmi_lane_fraction_by_gpu"].erase("mi999x");
  j["rccl"]["xgmi_lane_fraction_by_gpu"]["mi355x"] = 0.725446;
  j["rccl"]["direct"]["ranges"][0]["chunks_per_loop"] = 0;
  std::ofstream(path) << j.dump();
  CHECK_THROWS_AS((void)model::nccl::parse_tables(path), Error);
  j["rccl"]["direct"]["ranges"][0]["chunks_per_loop"] = 256;
  j["rccl"]["direct"]["ranges"][0]["proto"] = "LL128";
  std::ofstream(path) << j.dump();
  CHECK_THROWS_AS((void)model::nccl::parse_tables(path), Error);
  std::remove(path.c_str());
}

TEST_CASE("RCCL: one GPU's launch per thread is hidden, one thread driving several GPUs is not") {
  model::ParamSet p;
  p.launch_per_gpu_us = 4;
  CHECK(model::nccl::rccl_launch_us(p, 1) == 0.0);
  CHECK(model::nccl::rccl_launch_us(p, 3) == doctest::Approx(12.0));
  CHECK(model::nccl::rccl_launch_us(p, 8) == doctest::Approx(32.0));
}


// RCCL's own xGMI figures for the generations before gfx942 (ROCm/rccl src/graph/topo.h): MI200_XGMI_WIDTH 36 GB/s
// for gfx90a, VEGA_XGMI_WIDTH 24 for older gfx9 (MI100 is gfx908), against the data sheets' 50 and 46 GB/s links.
TEST_CASE("RCCL: MI200 and MI100 xGMI links carry RCCL's own 36 and 24 GB/s") {
  const auto& tab = model::nccl::load_tables(data_dir() + "/models/rccl.json");
  const std::map<std::string, double> expected = {{"machine:gpu=mi210,gpus=4", 36.0},
                                                  {"machine:gpu=mi250x,gpus=8", 36.0},
                                                  {"machine:gpu=mi100,gpus=4", 24.0}};
  for (const auto& entry : expected) {
    CAPTURE(entry.first);
    const auto t = topology::resolve_topology(entry.first);
    int xgmi = 0;
    for (const auto& l : t.links)
      if (l.type == topology::LinkType::Xgmi) {
        ++xgmi;
        CHECK(tab.lane_GBps(t, l) == doctest::Approx(entry.second).epsilon(1e-5));
      }
    CHECK(xgmi > 0);
  }
}

TEST_CASE("RCCL: a logged channel count above 64 is kept up to RCCL's MAXCHANNELS 128, NCCL's stays at 64") {
  // ROCm/rccl src/include/device.h MAXCHANNELS 128 (NCCL's is 64); an MI355X all_gather log prints
  // "112 coll channels" (tests/data/wild_traces/mi355x-8gpu-allgather-...-amddev.txt).
  const auto channels_run = [](const std::string& spec, int logged) {
    const auto t = topology::resolve_topology(spec);
    model::ModelOptions o;
    o.nccl_channels = logged;
    auto b = model::make_model("nccl", t, o);
    metrics::RunConfig c;
    c.op = schedule::Op::AllGather;
    c.model_name = "nccl";
    c.placements = topology::pack_rings(t, {}).rings;
    return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), Bytes{1} << 33, 4)).choice.channels;
  };
  CHECK(channels_run("machine:gpu=mi355x", 112) == 112);
  CHECK(channels_run("machine:gpu=mi355x", 200) == 128);
  CHECK(channels_run("hgx-h100", 112) == 64);
}
