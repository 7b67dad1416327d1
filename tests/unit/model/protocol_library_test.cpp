// Issue 14, protocol factors per collective library (sim/model/protocol_place.hpp for_library): a class-level set
// carries a protocol's factor per library ("protocol_efficiency_by_library": nccl, rccl), because NCCL's replay and
// RCCL's base a protocol's bandwidth differently (LL: NCCL's min(llMaxBw, busBw x 0.5) against RCCL's data share
// 0.5), so a factor measured over one is no factor for the other. Expected values by hand: the section a machine
// takes follows the tables its replay runs, and a factor the set gives for every machine wins.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/params.hpp"
#include "sim/model/protocol_place.hpp"
#include "sim/topology/topology_json.hpp"
#include "nccl_run_config.hpp"

using namespace ccsim;

TEST_CASE("for_library adds the library's protocol factors where the set gives none for every machine") {
  model::ParamSet p;
  p.protocol_efficiency = {{"net:Simple", 0.99}};
  p.protocol_by_library = {{"nccl", {{"LL", 0.92}, {"net:Simple", 0.5}}}, {"rccl", {{"LL", 0.4}}}};
  const auto n = model::for_library(p, "nccl");
  CHECK(n.proto_efficiency("LL") == 0.92);
  CHECK(n.proto_efficiency("net:Simple") == 0.99); // the set's own key for every machine stays
  const auto r = model::for_library(p, "rccl");
  CHECK(r.proto_efficiency("LL") == 0.4);
  CHECK(r.proto_efficiency("net:Simple") == 0.99);
  // A set with no section for the library (a fit of one machine, or a library no three classes voted for): as it was.
  model::ParamSet one;
  one.protocol_efficiency = {{"LL", 0.7}};
  CHECK(model::for_library(one, "rccl").protocol_efficiency == one.protocol_efficiency);
  // A factor given for every machine wins over the library's: a calibrate fit that starts from a class-level set
  // moves the flat key, and that must be what the replay sees.
  one.protocol_by_library = {{"rccl", {{"LL", 0.1}, {"LL128", 0.8}}}};
  const auto both = model::for_library(one, "rccl");
  CHECK(both.proto_efficiency("LL") == 0.7);
  CHECK(both.proto_efficiency("LL128") == 0.8);
}

TEST_CASE("a parameter file's protocol_efficiency_by_library reads back and refuses an unknown library in one line") {
  const auto j = nlohmann::json::parse(
      R"({"kind": "ccsim-params", "params": {"protocol_efficiency_by_library": {"nccl": {"LL": 0.92}, "rccl": {"net:LL128": 0.5}}}})");
  const auto p = model::params_from_json(j, "test.json");
  CHECK(p.protocol_by_library.at("nccl").at("LL") == 0.92);
  CHECK(p.protocol_by_library.at("rccl").at("net:LL128") == 0.5);
  CHECK(p.protocol_efficiency.empty());
  const auto back = model::params_from_json({{"kind", "ccsim-params"}, {"params", model::params_json(p)}}, "back.json");
  CHECK(back.protocol_by_library == p.protocol_by_library);
  const auto hip = nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"protocol_efficiency_by_library": {"hip": {"LL": 0.5}}}})");
  CHECK_THROWS_WITH_AS(model::params_from_json(hip, "test.json"), doctest::Contains("unknown library 'hip' (nccl, rccl)"), Error);
  const auto proto = nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"protocol_efficiency_by_library": {"rccl": {"LL64": 0.5}}}})");
  CHECK_THROWS_WITH_AS(model::params_from_json(proto, "test.json"), doctest::Contains("unknown protocol 'LL64'"), Error);
  const auto zero = nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"protocol_efficiency_by_library": {"nccl": {"LL": 0}}}})");
  CHECK_THROWS_WITH_AS(model::params_from_json(zero, "test.json"), doctest::Contains("must be > 0"), Error);
}

TEST_CASE("the replay takes the section of the library whose tables it runs: RCCL's on AMD GPUs, NCCL's otherwise") {
  // 64 KiB allreduce: LL on 8 MI300X (MSCCL all-pairs LL, RCCL's tables) and on a DGX-1 (ring/LL, NCCL's), a size
  // whose LL time hangs on the protocol's bandwidth, so a factor 0.25 moves it.
  const auto amd = topology::resolve_topology("machine:gpu=mi300x");
  const auto nv = topology::resolve_topology("dgx1-v100");
  const Bytes size = Bytes{64} << 10;
  model::ParamSet flat, nccl_only, rccl_only;
  flat.protocol_efficiency = {{"LL", 0.25}};
  nccl_only.protocol_by_library = {{"nccl", {{"LL", 0.25}}}};
  rccl_only.protocol_by_library = {{"rccl", {{"LL", 0.25}}}};
  for (const auto* t : {&amd, &nv}) {
    CAPTURE(t->name);
    const double bare = test::predict_allreduce_us(*t, {}, 1, size);
    const double slow = test::predict_allreduce_us(*t, flat, 1, size);
    CHECK(slow > bare * 1.05); // the factor is felt at this size
    const bool rccl = t == &amd;
    CHECK(test::predict_allreduce_us(*t, nccl_only, 1, size) == (rccl ? bare : slow));
    CHECK(test::predict_allreduce_us(*t, rccl_only, 1, size) == (rccl ? slow : bare));
  }
}
