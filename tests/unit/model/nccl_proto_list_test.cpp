// NCCL_PROTO (--nccl-proto): NCCL's parseList syntax (src/graph/tuning.cc, 2.2x: comma-separated,
// case-insensitive names of LL, LL128, Simple; a leading ^ excludes the listed ones) and the tuner never
// picking a protocol the list leaves out. Expected sets by reading the list; the picks are checked against
// the default run so the restriction is seen to change something.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/metrics/nccl_metrics.hpp"
#include "sim/model/nccl/proto_list.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;

namespace {
std::string refusal(const std::string& list) {
  try {
    nccl::proto_set_from(list);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

metrics::Row allreduce(nccl::Builder& b, const topology::Topology& t, Bytes bytes) {
  const auto cfg = test::packed_rings_config(t);
  return metrics::run(b, cfg, metrics::plan_size(schedule::Op::AllReduce, metrics::ranks_of(cfg), bytes, 4));
}

nccl::Options with_protos(const std::string& list) {
  nccl::Options o;
  o.params = model::ParamSet{};
  o.protos = nccl::proto_set_from(list);
  return o;
}
} // namespace

TEST_CASE("NCCL_PROTO lists: names, case and the leading caret as NCCL reads them") {
  CHECK_FALSE(nccl::proto_set_from("").restricted());
  CHECK(nccl::proto_set_from("").allowed_names() == "LL,LL128,Simple");
  CHECK(nccl::proto_set_from("Simple").allowed_names() == "Simple");
  CHECK(nccl::proto_set_from("simple").allowed_names() == "Simple");
  CHECK(nccl::proto_set_from("SIMPLE,ll").allowed_names() == "LL,Simple");
  CHECK(nccl::proto_set_from("^LL128").allowed_names() == "LL,Simple");
  CHECK(nccl::proto_set_from("^ll,LL128").allowed_names() == "Simple");
  CHECK(nccl::proto_set_from("^LL128").stated == "^LL128");
}

TEST_CASE("NCCL_PROTO lists: unknown names, empty lists and lists leaving nothing are refused naming the flag") {
  CHECK(refusal("LL256").find("--nccl-proto: unknown protocol 'll256'") == 0);
  CHECK(refusal("^").find("--nccl-proto: ") == 0);
  CHECK(refusal("^").find("empty") != std::string::npos);
  CHECK(refusal(",").find("empty") != std::string::npos);
  CHECK(refusal("^LL,LL128,Simple").find("leaves no protocol") != std::string::npos);
  CHECK(refusal("allreduce:simple").find("per-collective") != std::string::npos);
  CHECK(refusal("Simple").empty());
}

TEST_CASE("--nccl-proto Simple: every pick on one HGX A100 is Simple, where NCCL's default picks LL at 8 B") {
  const auto t = topology::resolve_topology("hgx-a100");
  nccl::Options all;
  all.params = model::ParamSet{};
  nccl::Builder free(t, all), simple(t, with_protos("Simple"));
  CHECK(allreduce(free, t, 8).choice.proto == "LL"); // so the restriction below changes the pick
  for (Bytes b = 8; b <= (Bytes{1} << 30); b *= 8) CHECK(allreduce(simple, t, b).choice.proto == "Simple");
  CHECK(simple.describe(test::packed_rings_config(t)).find("NCCL_PROTO=Simple (Simple)") != std::string::npos);
  CHECK(free.describe(test::packed_rings_config(t)).find("NCCL_PROTO") == std::string::npos);
}

TEST_CASE("--nccl-proto ^LL128 never picks LL128 where NCCL's default does") {
  const auto t = topology::resolve_topology("hgx-a100");
  nccl::Options all;
  all.params = model::ParamSet{};
  nccl::Builder free(t, all), no_ll128(t, with_protos("^LL128"));
  bool default_picks_ll128 = false;
  for (Bytes b = 8; b <= (Bytes{1} << 30); b *= 2) {
    default_picks_ll128 = default_picks_ll128 || allreduce(free, t, b).choice.proto == "LL128";
    CHECK(allreduce(no_ll128, t, b).choice.proto != "LL128");
  }
  CHECK(default_picks_ll128);
}

TEST_CASE("--nccl-proto LL where the network runs Simple only (A100 over EFA) is refused naming the flag") {
  const auto efa = topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=efa");
  nccl::Builder ll(efa, with_protos("LL"));
  std::string why;
  try {
    allreduce(ll, efa, 8);
  } catch (const Error& e) {
    why = e.what();
  }
  CHECK(why.find("--nccl-proto LL: none of LL runs here") == 0);
}
