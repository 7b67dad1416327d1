// Issue 14, a latency per protocol (ParamSet::protocol_latency): a multiplier on NCCL's own latency figures for a
// protocol (baseLat once, hwLat per hop, the network hop across nodes), fitted by calibrate --fit-latency and
// identified as a latency only where the protocol's rows take their time from it (calibrate.hpp LatencyUse).
// Expected values by hand from NCCL's figures (models/nccl.json, v2.30.7): ring/LL baseLat 6.6 us, NVLink
// hwLat 0.6 us per hop.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/calibrate.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"
#include "synthetic_sweep.hpp"

using namespace ccsim;

namespace {
double ring_us(const topology::Topology& topo, const model::ParamSet& p, Bytes size) {
  const auto row = test::nccl_allreduce_row(topo, p, size);
  CHECK(row.choice.proto == "LL"); // the sizes below are LL's on one DGX-1 (NCCL's tuner, no factor changes it)
  return to_us(row.time);
}

model::CalibInput latency_sweep(const topology::Topology& topo, const model::ParamSet& truth) {
  return test::synthetic_allreduce_sweep(topo, truth, "synthetic latency " + topo.name);
}

double value_of(const model::FitResult& f, const std::string& name) {
  const auto it = std::find(f.names.begin(), f.names.end(), name);
  REQUIRE(it != f.names.end());
  return f.values[static_cast<std::size_t>(it - f.names.begin())];
}

} // namespace

TEST_CASE("a parameter file takes a latency multiplier per protocol and refuses bad ones in one line") {
  const auto j = nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"protocol_latency": {"LL": 2.5}}})");
  const auto p = model::params_from_json(j, "test.json");
  CHECK(p.proto_latency("LL") == 2.5);
  CHECK(p.proto_latency("LL128") == 1.0); // absent: NCCL's own figure
  // A file without the key (every set made before it existed) has no multiplier at all, and writes none back.
  const auto old = model::params_from_json(nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"step_us": 1}})"), "old.json");
  CHECK(old.protocol_latency.empty());
  CHECK_FALSE(model::params_json(old).contains("protocol_latency"));
  CHECK(model::params_json(p)["protocol_latency"]["LL"] == 2.5);
  auto bad = [](const char* body) {
    return nlohmann::json::parse(fmt::format(R"({{"kind": "ccsim-params", "params": {{"protocol_latency": {}}}}})", body));
  };
  CHECK_THROWS_WITH_AS(model::params_from_json(bad(R"({"net:LL": 2})"), "t.json"), doctest::Contains("unknown protocol 'net:LL'"), Error);
  CHECK_THROWS_WITH_AS(model::params_from_json(bad(R"({"LL": 0})"), "t.json"), doctest::Contains("must be > 0"), Error);
  CHECK_THROWS_AS(model::params_from_json(bad(R"({"LL": -1})"), "t.json"), Error);
  CHECK_THROWS_AS(model::params_from_json(bad(R"({"LL": 1000})"), "t.json"), Error);
  CHECK_THROWS_AS(model::params_from_json(bad(R"({"LL": "x"})"), "t.json"), Error);
  CHECK_THROWS_WITH_AS(model::params_from_json(bad("[2]"), "t.json"), doctest::Contains("t.json"), Error);
}

TEST_CASE("a parameter file refuses a misspelt or misplaced figure by name instead of running without it") {
  auto load = [](const char* body) { return model::params_from_json(nlohmann::json::parse(body), "mine.json"); };
  // At the top level a figure was ignored: the run used the shipped default's step cost of 0 in its place.
  CHECK_THROWS_WITH_AS(load(R"({"kind": "ccsim-params", "step_us": 5, "params": {}})"),
                       doctest::Contains("'step_us' belongs inside the \"params\" object"), Error);
  CHECK_THROWS_WITH_AS(load(R"({"kind": "ccsim-params", "params": {"stepus": 5}})"), doctest::Contains("unknown parameter 'stepus'"), Error);
  CHECK_THROWS_WITH_AS(load(R"({"kind": "ccsim-params", "params": {"link_eficiency": {"nvlink": 0.9}}})"),
                       doctest::Contains("unknown parameter 'link_eficiency'"), Error);
  CHECK_THROWS_WITH_AS(load(R"({"kind": "ccsim-params", "params": {"launch_by_kind": {"cuda/g1": {"launch_u": 3}}}})"),
                       doctest::Contains("unknown figure 'launch_u'"), Error);
  // The record a fit writes beside its figures (command, residuals, ...) stays outside "params" and is not a figure.
  const auto ok = load(R"({"kind": "ccsim-params", "command": "ccsim calibrate ...", "residuals": [], "params": {"step_us": 5,
                           "launch_by_kind": {"cuda/g1": {"launch_us": 3, "launch_per_gpu_us": 1}}}})");
  CHECK(ok.step_us == 5);
  CHECK(ok.launch_by_kind.at("cuda/g1").launch_us == 3);
}

TEST_CASE("a protocol's latency multiplier scales NCCL's latency of the protocol and nothing else") {
  // 8 GPUs of one DGX-1 run a small allreduce as ring/LL: NCCL's latency is baseLat + 2 (8 - 1) hops x hwLat
  // = 6.6 + 14 x 0.6 = 15.0 us, so each unit of the multiplier adds 15.0 us to the row.
  const auto topo = topology::resolve_topology("dgx1-v100");
  const Bytes size = 4096;
  model::ParamSet x2, x3, ll128;
  x2.protocol_latency = {{"LL", 2.0}};
  x3.protocol_latency = {{"LL", 3.0}};
  ll128.protocol_latency = {{"LL128", 3.0}, {"Simple", 3.0}}; // other protocols' multipliers: no LL row moves
  const double t1 = ring_us(topo, {}, size), t2 = ring_us(topo, x2, size), t3 = ring_us(topo, x3, size);
  CHECK(t2 - t1 == doctest::Approx(15.0).epsilon(0.01));
  CHECK(t3 - t2 == doctest::Approx(15.0).epsilon(0.01));
  CHECK(ring_us(topo, ll128, size) == t1);
}

// A synthetic DGX-1 whose LL steps take twice NCCL's latency figures (and a 20 us launch): its LL rows (4 KiB
// up to the LL128 switch) take their time from that latency, so the fit must find the multiplier (2) as a
// latency and must not carry it in LL's bandwidth factor, which those rows cannot identify as a rate.
TEST_CASE("calibrate identifies a protocol's latency from latency-bound rows and does not vote them a rate") {
  const auto topo = topology::resolve_topology("dgx1-v100");
  model::ParamSet truth;
  truth.launch_us = 20.0;
  truth.protocol_latency = {{"LL", 2.0}};
  const auto in = latency_sweep(topo, truth);
  model::CalibOptions o;
  o.model = "nccl";
  o.fit_protocols = true;
  o.fit_latency = true;
  o.hold = {"step_us"}; // the truth has no step cost: held, the launch and the LL latency separate
  const auto f = model::fit({in}, o);
  CHECK(test::fitted(f, "lat:LL"));
  CHECK(value_of(f, "lat:LL") == doctest::Approx(2.0).epsilon(0.02));
  CHECK(f.params.launch_us == doctest::Approx(20.0).epsilon(0.02));
  REQUIRE(f.latency_use.count("LL") == 1);
  CHECK(f.latency_use.at("LL").identified());
  CHECK(f.latency_use.at("LL").latency_bound >= 3);
  REQUIRE(f.protocol_use.count("LL") == 1);
  CHECK_FALSE(f.protocol_use.at("LL").rate()); // LL's rows are latency-bound: no rate
  CHECK(f.rms_rel < 1e-2);
  // The file calibrate writes carries the record the class-level construction reads.
  const auto j = nlohmann::json::parse(model::params_file(f, {}, {in}, "nccl", {"dgx1-v100"}, "test"));
  CHECK(j.at("protocol_latency_use").at("LL").at("latency") == true);
  CHECK(j.at("params").at("protocol_latency").at("LL").get<double>() == doctest::Approx(2.0).epsilon(0.02));
  // Without --fit-latency there is no latency parameter (the fit calibrate made before it existed).
  o.fit_latency = false;
  const auto g = model::fit({in}, o);
  CHECK(std::find(g.names.begin(), g.names.end(), "lat:LL") == g.names.end());
  CHECK(g.latency_use.empty());
}

// calibrate's `fitted` flag: a parameter whose value moved in any iteration was fitted, even when the last
// iteration's pivoting held it (the flag used to be only the last iteration's decision).
TEST_CASE("calibrate reports a parameter fitted when its value moved from its start in any iteration") {
  const std::vector<double> start = {5.0, 1.0, 0.8, 1.0};
  const std::vector<double> end = {7.5, 1.0, 0.8, 1.2};
  const std::vector<bool> free_at_end = {true, true, false, false};
  // launch free and moved, step free but unmoved (its bound), an efficiency never moved and held, a
  // multiplier moved early and held at the end.
  CHECK(model::fitted_flags(start, end, free_at_end) == std::vector<bool>{true, true, false, true});
}
