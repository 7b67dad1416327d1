// Issue 14, 2 and 4 of a node's 8 AMD GPUs (models/rccl.json one_node_channels and ring_block_GBps_by_sm):
// RCCL's collective channel count on one full xGMI mesh is init.cc's multiplier nc times the node model's S search
// channels, after connect.cc ncclTopoPostset's doubling: max(2 S, min(128 / S, nc) x S). S is 2, 6, 28 on 2, 4, 8
// GPUs (RCCL 2.26.6's graph dumps on MI355X; rome_model_79's 28 rings). gfx950: nc 4 (RCCL 2.26.6, whose logs say
// 8, 24 and 112 coll channels); gfx942 from RCCL 2.20.5: nc 16 on 2 ranks, 4 on 4 (RCCL's README: "32 channels for
// the 2 MI300 GPUs scenario and 24 channels for the 4"), 2 otherwise. And each thread block copies
// 304 / 7 / 8 GB/s over xGMI under Simple (AMD's 8 x MI300X bar over RCCL's 8 blocks a link there), so each xGMI link
// of a ring carries at most its blocks x that. Expected values by hand from those figures.
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
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"
#include "nccl_run_config.hpp"

using namespace ccsim;

namespace {

// The ring/Simple channels RCCL runs for an 8 GiB allreduce (every channel kept: 8 GiB >> nc x 256 x 64 B).
int ring_channels(const std::string& spec, const std::string& release = "") {
  const auto t = topology::resolve_topology(spec);
  model::nccl::Options o;
  o.params = model::ParamSet{};
  o.mode = model::nccl::AlgoMode::Ring;
  o.msccl = model::nccl::MscclMode::Off;
  o.protos = model::nccl::proto_set_from("Simple");
  o.nccl_version = release;
  model::nccl::Builder b(t, o);
  const auto c = test::packed_rings_config(t);
  const auto r = metrics::run(b, c, metrics::plan_size(c.op, metrics::ranks_of(c), Bytes{1} << 33, 4));
  CHECK(r.choice.algo == "ring");
  return r.choice.channels;
}

double busbw_1GiB(const std::string& spec) {
  const auto t = topology::resolve_topology(spec);
  const int p = t.num_gpus();
  const Bytes size = Bytes{1} << 30;
  const double us = test::predict_allreduce_us(t, {}, 1, size);
  return static_cast<double>(size) / (us * 1e3) * 2.0 * (p - 1) / p;
}

} // namespace

TEST_CASE("RCCL channels on 2, 4 and 8 GPUs of an xGMI node: the node model's channels times init.cc's multiplier") {
  // gfx950, nc 4: 4 x 2, 4 x 6, 4 x 28 (RCCL 2.26.6 logs 8, 24, 112 coll channels on MI355X).
  CHECK(ring_channels("machine:gpu=mi355x,gpus=2") == 8);
  CHECK(ring_channels("machine:gpu=mi355x,gpus=4") == 24);
  CHECK(ring_channels("machine:gpu=mi355x") == 112);
  CHECK(ring_channels("machine:gpu=mi350x,gpus=4") == 24);
  // gfx942: 16 x 2 and 4 x 6 (RCCL's README: 32 and 24); 8 GPUs NCCL's doubling of 28 (the source's 56).
  CHECK(ring_channels("machine:gpu=mi300x,gpus=2") == 32);
  CHECK(ring_channels("machine:gpu=mi300x,gpus=4") == 24);
  CHECK(ring_channels("machine:gpu=mi300x") == 56);
  CHECK(ring_channels("machine:gpu=mi325x") == 56);
  // Before RCCL 2.20.5 gfx942's multiplier is NCCL's 2: the doubling alone, 2 x 2 and 2 x 6.
  CHECK(ring_channels("machine:gpu=mi300x,gpus=2", "2.18.6") == 4);
  CHECK(ring_channels("machine:gpu=mi300x,gpus=4", "2.18.6") == 12);
  CHECK(ring_channels("machine:gpu=mi300x", "2.18.6") == 56);
}

TEST_CASE("2 and 4 of 8 MI355X: eight thread blocks a link carry 8 x 304 / 56 GB/s, not the link's 390 / 7") {
  // 24 channels over 6 rings, each directed link in 2 rings: 8 blocks a link; 8 channels over the one pair's link
  // on 2 GPUs. A ring allreduce's busbw is what a GPU sends per unit time over its links: 3 links, 1 link.
  const double block = 304.0 / 7.0 / 8.0;
  CHECK(busbw_1GiB("machine:gpu=mi355x,gpus=4") == doctest::Approx(3 * 8 * block).epsilon(0.015));
  CHECK(busbw_1GiB("machine:gpu=mi355x,gpus=2") == doctest::Approx(1 * 8 * block).epsilon(0.015));
  // 8 x MI355X: 16 blocks a link would carry 86.9 GB/s, above the link's 390 / 7: the link binds, as before.
  CHECK(busbw_1GiB("machine:gpu=mi355x") == doctest::Approx(390.0).epsilon(0.015));
  // 8 x MI300X: 8 blocks a link carry exactly the bar's 304 / 7: unchanged.
  CHECK(busbw_1GiB("machine:gpu=mi300x") == doctest::Approx(304.0).epsilon(0.015));
}

TEST_CASE("RCCL channels: a bad one-node channel rule or block rate is refused naming the entry") {
  const std::string path = "/tmp/ccsim-rccl-partial-mesh-bad-" + std::to_string(::getpid()) + ".json";
  const auto base = nlohmann::json::parse(std::ifstream(model::nccl::default_rccl_tables_path()));
  const auto refused = [&](const nlohmann::json& j, const std::string& names) {
    std::ofstream(path) << j.dump();
    bool threw = false;
    try {
      (void)model::nccl::parse_tables(path);
    } catch (const Error& e) {
      threw = true;
      CHECK(std::string(e.what()).find(names) != std::string::npos);
    }
    CHECK(threw);
  };
  auto j = base;
  j["rccl"]["one_node_channels"]["search_channels_by_ranks"]["four"] = 6;
  refused(j, "four");
  j = base;
  j["rccl"]["one_node_channels"]["search_channels_by_ranks"]["1"] = 6; // one rank has no ring
  refused(j, "search_channels_by_ranks");
  j = base;
  j["rccl"]["one_node_channels"]["max_channels"] = 200; // above RCCL's MAXCHANNELS 128
  refused(j, "max_channels");
  j = base;
  j["rccl"]["one_node_channels"]["multiplier_by_sm"]["gfx942"]["from"] = "soon";
  refused(j, "from");
  j = base;
  j["rccl"]["one_node_channels"]["multiplier_by_sm"]["gfx950"]["nc"] = 0;
  refused(j, "nc");
  j = base;
  j["rccl"]["ring_block_GBps_by_sm"]["gfx950"] = -1;
  refused(j, "ring_block_GBps_by_sm");
  std::remove(path.c_str());
}

TEST_CASE("RCCL channels: the multiplier from its first release, capped at MAXCHANNELS / S, and the doubling up to half") {
  // Mutation pass 4 (scripts/MUTANTS.md). gfx942's nc 16 on 2 ranks holds from RCCL 2.20.5 itself: 16 x 2 = 32.
  CHECK(ring_channels("machine:gpu=mi300x,gpus=2", "2.20.5") == 32);
  // The rule max(2 S, min(128 / S, nc) x S), at most 128, with tables the shipped ones do not reach (a what-if file):
  const auto base = nlohmann::json::parse(std::ifstream(model::nccl::default_rccl_tables_path()));
  // A file of its own per variant: load_tables keeps what it read by path.
  const auto channels_with = [&](const nlohmann::json& j, const std::string& variant) {
    const std::string path = "/tmp/ccsim-rccl-partial-mesh-rule-" + variant + "-" + std::to_string(::getpid()) + ".json";
    std::ofstream(path) << j.dump();
    const auto t = topology::resolve_topology("machine:gpu=mi355x");
    model::nccl::Options o;
    o.tables = path;
    o.mode = model::nccl::AlgoMode::Ring;
    o.msccl = model::nccl::MscclMode::Off;
    o.protos = model::nccl::proto_set_from("Simple");
    model::nccl::Builder b(t, o);
    const auto c = test::packed_rings_config(t);
    const int n = metrics::run(b, c, metrics::plan_size(c.op, metrics::ranks_of(c), Bytes{1} << 33, 4)).choice.channels;
    std::remove(path.c_str());
    return n;
  };
  // gfx950 at nc 16 on 8 GPUs (S 28): the multiplier is cut to 128 / 28 = 4, so 4 x 28 = 112 (not 16 x 28 cut to 128).
  auto j = base;
  j["rccl"]["one_node_channels"]["multiplier_by_sm"]["gfx950"]["nc"] = 16;
  CHECK(channels_with(j, "nc16") == 112);
  // S 64 = half of 128 and nc 1: ncclTopoPostset's doubling still fits (2 x 64 <= 128): 128, not 64.
  j = base;
  j["rccl"]["one_node_channels"]["search_channels_by_ranks"]["8"] = 64;
  j["rccl"]["one_node_channels"]["multiplier_by_sm"]["gfx950"]["nc"] = 1;
  CHECK(channels_with(j, "s64") == 128);
}
