// Issue 14, protocol factors per place (sim/model/protocol_place.hpp): "net:<protocol>" scales a protocol on
// network links, "<protocol>" inside a node (and on the network when no net: value is given), and calibrate
// fits a protocol where its rows hang (calibrate.cpp protocol_places). Expected values by hand: synthetic
// traces are made with known factors, and a factor on links with slack moves nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/calibrate.hpp"
#include "sim/model/protocol_place.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"
#include "synthetic_sweep.hpp"

using namespace ccsim;

namespace {
// Two DGX-1 V100 nodes joined by 2 x 100G RoCE per node: a ring's crossing (the GPU's and the NIC's PCIe
// Gen3 at NCCL's 12 GB/s, the NIC's 12.5) is its bottleneck and NVLink2 (20 GB/s per lane) has slack.
constexpr const char* kTwoNodes = "cluster:nodes=2,node=dgx1-v100,nics=2x100G,kind=roce";

double predict_us(const topology::Topology& topo, const model::ParamSet& p, Bytes size) {
  return to_us(test::nccl_allreduce_row(topo, p, size).time);
}

model::CalibInput nccl_input(const topology::Topology& topo, const model::ParamSet& truth) {
  return test::synthetic_allreduce_sweep(topo, truth, "synthetic " + topo.name);
}

using test::fitted;
} // namespace

TEST_CASE("a protocol factor applies per place: net:<protocol> on network links, <protocol> elsewhere") {
  model::ParamSet p;
  p.protocol_efficiency = {{"LL128", 0.8}, {"net:LL128", 0.4}, {"Simple", 0.9}};
  CHECK(model::proto_efficiency_on(p, "LL128", false) == 0.8);
  CHECK(model::proto_efficiency_on(p, "LL128", true) == 0.4);
  CHECK(model::proto_efficiency_on(p, "Simple", true) == 0.9); // no net: value: the protocol's own, as before
  CHECK(model::proto_efficiency_on(p, "LL", true) == 1.0);     // none at all: NCCL's figure
  CHECK(model::is_protocol_key("net:Simple"));
  CHECK_FALSE(model::is_protocol_key("net:"));
  CHECK_FALSE(model::is_protocol_key("NET:LL"));
  CHECK_FALSE(model::is_protocol_key("nvlink:LL"));
}

TEST_CASE("a parameter file takes net:<protocol> and refuses an unknown protocol in one line") {
  const auto j = nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"protocol_efficiency": {"net:LL128": 0.4, "LL": 0.5}}})");
  const auto p = model::params_from_json(j, "test.json");
  CHECK(model::proto_efficiency_on(p, "LL128", true) == 0.4);
  CHECK(model::proto_efficiency_on(p, "LL128", false) == 1.0);
  const auto bad = nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"protocol_efficiency": {"net:LL256": 0.4}}})");
  CHECK_THROWS_WITH_AS(model::params_from_json(bad, "test.json"), doctest::Contains("unknown protocol 'net:LL256'"), Error);
}

TEST_CASE("a net: protocol factor slows the network links of the replay and nothing on one node") {
  const auto two = topology::resolve_topology(kTwoNodes);
  const auto one = topology::resolve_topology("dgx1-v100");
  const Bytes size = Bytes{1} << 30; // ring/Simple, bandwidth-bound: time ~ bytes / NIC rate
  model::ParamSet half_net;
  half_net.protocol_efficiency = {{"net:Simple", 0.5}};
  // The NICs run at half their rate: the time of the NIC-bound bytes doubles, the latency and the hops
  // inside the nodes do not, so the whole call takes nearly (never more than) twice as long.
  const double bare = predict_us(two, {}, size), slow = predict_us(two, half_net, size);
  CHECK(slow / bare > 1.85);
  CHECK(slow / bare <= 2.0);
  // One node has no network link: the same set changes nothing.
  CHECK(predict_us(one, half_net, size) == predict_us(one, {}, size));
  // Without a net: value the protocol's own factor applies to the network as well (sets fitted before
  // places existed keep their meaning).
  model::ParamSet half_all;
  half_all.protocol_efficiency = {{"Simple", 0.5}};
  CHECK(predict_us(two, half_all, size) >= slow);
}

// The options of the protocol-factor fits below: NCCL's model, protocol factors free, the step cost held (the
// synthetic truths carry a launch cost only).
namespace {
model::CalibOptions protocol_fit_options() {
  model::CalibOptions o;
  o.model = "nccl";
  o.fit_protocols = true;
  o.hold = {"step_us"};
  return o;
}

// A synthetic machine's true parameters: a 20 us launch and one protocol factor away from NCCL's figure.
model::ParamSet truth_with(const std::string& protocol_key, double factor) {
  model::ParamSet truth;
  truth.launch_us = 20.0;
  truth.protocol_efficiency = {{protocol_key, factor}};
  return truth;
}
} // namespace

TEST_CASE("calibrate fits a protocol's factor where its rows hang: on the network for a network-bound run") {
  // Two synthetic machines whose right factors are known: LL128 at 0.4 of NCCL's figure on the network of
  // the 2-node run, at 0.8 inside the one NVLink node. Each fit names the place and finds the value (times
  // the link efficiency it shares a column with: one of link and protocols is held, the products count).
  const auto two = topology::resolve_topology(kTwoNodes);
  const auto one = topology::resolve_topology("dgx1-v100");
  const auto net_truth = truth_with("net:LL128", 0.4);
  const auto node_truth = truth_with("LL128", 0.8);
  const auto o = protocol_fit_options();

  const auto net_in = nccl_input(two, net_truth);
  const auto fn = model::fit({net_in}, o);
  CHECK(fitted(fn, "proto:net:LL128"));
  CHECK_FALSE(fitted(fn, "proto:LL128"));
  REQUIRE(fn.sensitivity.count("proto:net:LL128") == 1);
  CHECK(fn.sensitivity.at("proto:net:LL128") > 0.3); // the LL128 rows cross the NICs
  const double roce = fn.params.efficiency(topology::LinkType::Roce);
  CHECK(roce * model::proto_efficiency_on(fn.params, "LL128", true) == doctest::Approx(0.4).epsilon(0.02));

  const auto node_in = nccl_input(one, node_truth);
  const auto f1 = model::fit({node_in}, o);
  CHECK(f1.sensitivity.at("proto:net:LL128") == 0.0); // no network link on one node
  CHECK(fitted(f1, "proto:LL128"));
  CHECK_FALSE(fitted(f1, "proto:net:LL128"));
  const double nvlink = f1.params.efficiency(topology::LinkType::NvLink2);
  CHECK(nvlink * model::proto_efficiency_on(f1.params, "LL128", false) == doctest::Approx(0.8).epsilon(0.02));
}

// A factor on links with slack moves nothing, also when it is the network's and above 1: before routes
// followed the drawing, a net: factor above the node's made a NIC loopback (GPU -> NIC -> fabric -> NIC ->
// GPU) look wider than the PCIe path between two GPUs of one host, so the ring's intra-host hops shared the
// inter-host hop's NIC port (512 MiB: 70.7 ms at net:Simple 0.95, 61.0 at 1.1; now 37.3 at both). At 0.95
// the NIC path (PCIe 12 x 0.95, IB 25 x 0.95 GB/s) is still wider than the GPUs' PCIe at 12 x 0.9.
TEST_CASE("the network's protocol factor moves nothing while the PCIe path between GPUs binds") {
  const auto topo = topology::resolve_topology("machine:gpu=v100,gpus=2,intra=pcie,nodes=2,nics=2x200G,kind=ib");
  model::ParamSet low, high;
  low.protocol_efficiency = {{"Simple", 0.9}, {"net:Simple", 0.95}};
  high.protocol_efficiency = {{"Simple", 0.9}, {"net:Simple", 1.1}};
  const Bytes size = Bytes{512} << 20;
  const double t_low = predict_us(topo, low, size), t_high = predict_us(topo, high, size);
  CAPTURE(t_low);
  CAPTURE(t_high);
  CHECK(t_high == doctest::Approx(t_low).epsilon(1e-6));
}

// Issue 14: a protocol factor describes the protocol's rate only where rows ran it with its bandwidth
// setting their time (calibrate.hpp kProtocolRateRows). On 2 x DGX-1 over RoCE the bare model picks ring/LL128
// at 512 KiB .. 16 MiB (6 rows of the 4 KiB .. 256 MiB sweep; ring/LL below, ring/Simple above), and its time
// is about a + b x size there: b = (1558.7 - 846.4) us / 8 MiB, a = 134 us, plus the synthetic launch of 20 us.
// The bytes' share b x size / time is 0.22 at 512 KiB, 0.37 at 1 MiB, 0.54 at 2 MiB, 0.70, 0.82, 0.90 at
// 4-16 MiB: four rows bandwidth-bound (>= 0.5), a rate. Cut at 1 MiB, the sweep keeps the two latency-bound
// LL128 rows: the factor bends them and must not count as LL128's speed.
TEST_CASE("a fitted protocol factor is a rate only when its bandwidth sets the time of three or more rows") {
  const auto two = topology::resolve_topology(kTwoNodes);
  const auto truth = truth_with("net:LL128", 0.4);
  const auto o = protocol_fit_options();

  const auto full = nccl_input(two, truth);
  const auto f = model::fit({full}, o);
  REQUIRE(f.protocol_use.count("net:LL128") == 1);
  const auto u = f.protocol_use.at("net:LL128");
  CHECK(u.chosen == 6);
  CHECK(u.bandwidth_bound == 4);
  CHECK(u.rate());
  // Each chosen row's share is recorded (the class-level construction can weigh another threshold): the six
  // bytes' shares above, in size order.
  const double by_hand[] = {0.22, 0.37, 0.54, 0.70, 0.82, 0.90};
  REQUIRE(u.shares.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    CHECK(std::abs(u.shares[i] - by_hand[i]) < 0.03);
  }

  auto cut = full;
  cut.rows.clear();
  for (std::size_t i = 0; i < cut.trace.rows.size(); ++i)
    if (cut.trace.rows[i].size <= (Bytes{1} << 20)) cut.rows.push_back(i);
  const auto fc = model::fit({cut}, o);
  REQUIRE(fc.protocol_use.count("net:LL128") == 1);
  const auto uc = fc.protocol_use.at("net:LL128");
  CHECK(uc.chosen == 2);
  CHECK(uc.bandwidth_bound == 0);
  CHECK_FALSE(uc.rate());
  // The file calibrate writes carries the record the class-level construction reads.
  const auto j = nlohmann::json::parse(model::params_file(fc, {}, {cut}, "nccl", {kTwoNodes}, "test"));
  const auto& written = j.at("protocol_use").at("net:LL128");
  CHECK(written.at("chosen") == 2);
  CHECK(written.at("bandwidth_bound") == 0);
  CHECK(written.at("rate") == false);
  REQUIRE(written.at("shares").size() == 2);
  CHECK(std::abs(written.at("shares")[0].get<double>() - 0.22) < 0.03);
  CHECK(std::abs(written.at("shares")[1].get<double>() - 0.37) < 0.03);
}
