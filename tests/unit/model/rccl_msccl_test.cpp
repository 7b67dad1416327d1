// MSCCL all-pairs allreduce's un-pipelined local work (sim/model/nccl/rccl.hpp direct_allreduce): the
// receives' copies and the reduce add to the two link phases at the GPU's data-sheet memory rate
// (models/rccl.json hbm_GBps_by_gpu). Expected values are worked by hand below.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/nccl/rccl.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using model::nccl::Proto;

namespace {

metrics::Row predict_allreduce(const topology::Topology& t, Bytes size) {
  auto b = model::make_model("nccl", t, {});
  metrics::RunConfig c;
  c.op = schedule::Op::AllReduce;
  c.model_name = "nccl";
  c.placements = topology::pack_rings(t, {}).rings;
  return metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4));
}

double us(Time t) { return static_cast<double>(t) / 1e6; }

} // namespace

TEST_CASE("MSCCL all-pairs local traffic: receives of both phases plus the reduce, by hand") {
  // 8 ranks, 1 MiB, Simple: each phase receives 7 x 128 KiB, read from the buffer and written once
  // (2 x 917504 B), twice = 3670016 B; the reduce reads 8 x 128 KiB and writes 128 KiB = 1179648 B.
  CHECK(model::nccl::direct_local_bytes(8, 1048576, Proto::Simple) == doctest::Approx(4849664.0));
  // LL reads its buffer's flags too: 2 x 917504 x 3 + 1179648 = 6684672 B.
  CHECK(model::nccl::direct_local_bytes(8, 1048576, Proto::LL) == doctest::Approx(6684672.0));
  // 2 ranks, 1000 B, Simple: receives 2 x 500 x 2 = 2000 B, reduce 2 x 500 + 500 = 1500 B.
  CHECK(model::nccl::direct_local_bytes(2, 1000, Proto::Simple) == doctest::Approx(3500.0));
}

TEST_CASE("MSCCL all-pairs on an MI350X mesh at 16 MiB adds its local work at 8 TB/s, by hand") {
  const auto t = topology::resolve_topology("machine:gpu=mi350x");
  // allreduce-allpairs-8n-simple_2.xml (14680065..16777216 B): Simple, 8 channels. Latency 17 + 2 x 2.1 =
  // 21.2 us; each link carries 2 x 16 MiB / 8 = 4194304 B at gfx950's 50 GB/s = 83.886 us; local work
  // 4.625 x 16777216 = 77594624 B at 8000 GB/s = 9.6993 us. Total 114.786 us.
  const auto r = predict_allreduce(t, Bytes{16} << 20);
  REQUIRE(r.choice.algo == "direct");
  CHECK(r.choice.proto == "Simple");
  CHECK(us(r.time) == doctest::Approx(21.2 + 4194304.0 / 50e3 + 77594624.0 / 8e6).epsilon(1e-4));
}

TEST_CASE("MSCCL all-pairs memory rate: a GPU kind without a data-sheet figure is not charged") {
  const auto& tab = model::nccl::load_tables(model::nccl::default_rccl_tables_path());
  auto t = topology::resolve_topology("machine:gpu=mi300x");
  CHECK(model::nccl::gpu_memory_GBps(t, tab) == doctest::Approx(5300.0));
  t.gpu_kind = "mi325x";
  CHECK(model::nccl::gpu_memory_GBps(t, tab) == doctest::Approx(6000.0));
  t.gpu_kind = "";
  CHECK(model::nccl::gpu_memory_GBps(t, tab) == 0.0);
  // The closed form without a memory rate is the link phases alone: 1 MiB on 8 ranks at 50 GB/s per link.
  model::nccl::Graph g;
  g.nodes = 1;
  const auto bare = model::nccl::direct_allreduce(tab, g, 50.0, 8, Bytes{1} << 20, 262144, 1.0, 0.0, nullptr);
  const auto charged = model::nccl::direct_allreduce(tab, g, 50.0, 8, Bytes{1} << 20, 262144, 1.0, 5300.0, nullptr);
  REQUIRE(bare);
  REQUIRE(charged);
  CHECK(bare->time_us == doctest::Approx(21.2 + 262144.0 / 50e3));
  CHECK(charged->time_us - bare->time_us == doctest::Approx(4849664.0 / 5.3e6));
}

TEST_CASE("RCCL tables: a non-positive memory rate is refused naming the entry") {
  const std::string path = "/tmp/ccsim-rccl-hbm-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(model::nccl::default_rccl_tables_path()));
  j["rccl"]["hbm_GBps_by_gpu"]["mi300x"] = -1;
  std::ofstream(path) << j.dump();
  try {
    (void)model::nccl::parse_tables(path);
    FAIL("accepted a negative memory rate");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("mi300x") != std::string::npos);
  }
  std::remove(path.c_str());
}
