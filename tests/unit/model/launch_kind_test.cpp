// Issue 14, the small-size floor of an unseen machine: a class-level set carries its launch terms per
// launch kind (runtime x GPUs per launching thread, sim/model/launch_kind.hpp), and the nccl model takes the
// terms of the machine's kind. Expected values by hand: the launch terms add to every row, so two
// predictions of one size differ by exactly the difference of the terms (except hip/gN, whose launches
// overlap the GPU time: launch_overlap.hpp).
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/launch_kind.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"
#include "nccl_run_config.hpp"

using namespace ccsim;

namespace {

model::ParamSet with_kinds() {
  model::ParamSet p;
  p.model = "nccl";
  p.launch_us = 100; // replaced wherever the set has the machine's kind
  p.launch_by_kind["cuda/g1"] = {1.0, 2.0};
  p.launch_by_kind["cuda/gN"] = {5.0, 3.0};
  p.launch_by_kind["hip/gN"] = {0.0, 4.0};
  return p;
}

} // namespace

TEST_CASE("launch kind: runtime from the GPU vendor, mode from the GPUs one thread drives") {
  CHECK(model::launch_kind(false, 1) == "cuda/g1");
  CHECK(model::launch_kind(false, 2) == "cuda/gN");
  CHECK(model::launch_kind(true, 8) == "hip/gN");
  CHECK(model::launch_kind(true, 1) == "hip/g1");
  const auto p = model::for_launch_kind(with_kinds(), "cuda/gN");
  CHECK(p.launch_us == 5.0);
  CHECK(p.launch_per_gpu_us == 3.0);
  // A kind the set lacks keeps the plain terms.
  const auto q = model::for_launch_kind(with_kinds(), "hip/g1");
  CHECK(q.launch_us == 100.0);
  CHECK(q.launch_per_gpu_us == 0.0);
}

TEST_CASE("launch kind: a synthetic -g 8 run against -g 1 on an NVIDIA node differs by the two kinds' terms") {
  const auto t = topology::resolve_topology("hgx-a100");
  const auto p = with_kinds();
  // -g 8: cuda/gN, 5 + 8 x 3 = 29 us; -g 1: cuda/g1, 1 + 1 x 2 = 3 us; everything else is the same model.
  const double g8 = test::predict_allreduce_us(t, p, 8, 8), g1 = test::predict_allreduce_us(t, p, 1, 8);
  CHECK(g8 - g1 == doctest::Approx(26.0).epsilon(1e-6));
  // Against the bare model: -g 1 adds exactly 3 us.
  CHECK(g1 - test::predict_allreduce_us(t, model::ParamSet{}, 1, 8) == doctest::Approx(3.0).epsilon(1e-6));
}

TEST_CASE("launch kind: an AMD node takes the hip terms") {
  const auto t = topology::resolve_topology("machine:gpu=mi300x");
  // hip/gN: 0 + 8 x 4 = 32 us of host launches per iteration (the cuda kinds and the plain 100 us do not
  // apply), pipelined with the bare model's time T over 20 iterations (launch_overlap.hpp):
  // max(32, T) + min(32, T) / 20.
  const double bare = test::predict_allreduce_us(t, model::ParamSet{}, 8, 8);
  CHECK(test::predict_allreduce_us(t, with_kinds(), 8, 8) == doctest::Approx(std::max(32.0, bare) + std::min(32.0, bare) / 20.0).epsilon(1e-6));
}

TEST_CASE("launch kind: a parameter file carries launch_by_kind and refuses an unknown kind in one line") {
  const auto j = nlohmann::json::parse(
      R"({"kind": "ccsim-params", "params": {"launch_by_kind": {"hip/gN": {"launch_per_gpu_us": 4.25}}}})");
  const auto p = model::params_from_json(j, "test.json");
  REQUIRE(p.launch_by_kind.count("hip/gN") == 1);
  CHECK(p.launch_by_kind.at("hip/gN").launch_per_gpu_us == 4.25);
  CHECK(p.launch_by_kind.at("hip/gN").launch_us == 0.0);
  CHECK(model::params_json(p)["launch_by_kind"]["hip/gN"]["launch_per_gpu_us"] == 4.25);
  const auto bad = nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"launch_by_kind": {"rocm/g8": {}}}})");
  CHECK_THROWS_WITH_AS(model::params_from_json(bad, "test.json"), doctest::Contains("unknown launch kind 'rocm/g8'"), Error);
  const auto huge = nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"launch_by_kind": {"cuda/g1": {"launch_us": 1e30}}}})");
  CHECK_THROWS_AS(model::params_from_json(huge, "test.json"), Error);
}
