// Issue 14, the class-level calibration: link efficiencies fall back from a link type to its family
// (params.cpp), and calibrate identifies a link's efficiency only where that link carries the bottleneck
// at >= 1 MiB (calibrate.cpp). Expected values by hand: the synthetic traces are made with known values.
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/calibrate.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using topology::LinkType;

TEST_CASE("a link takes its type's efficiency, else its family's, else 1") {
  model::ParamSet p;
  p.link_efficiency = {{"nvlink", 0.9}, {"nvlink3", 0.8}, {"rdma", 0.7}};
  CHECK(p.efficiency(LinkType::NvLink3) == 0.8); // its own generation's value wins
  CHECK(p.efficiency(LinkType::NvLink2) == 0.9); // any other NVLink generation: the family's
  CHECK(p.efficiency(LinkType::NvLink5) == 0.9);
  CHECK(p.efficiency(LinkType::Ib) == 0.7);
  CHECK(p.efficiency(LinkType::Roce) == 0.7);
  CHECK(p.efficiency(LinkType::Efa) == 0.7);
  CHECK(p.efficiency(LinkType::Pcie4) == 1.0); // no pcie value: raw rate
  CHECK(p.efficiency(LinkType::Xgmi) == 1.0);  // xGMI has no family: only "xgmi" applies
  CHECK(p.efficiency(LinkType::Ethernet) == 1.0); // TCP sockets are not RDMA
  CHECK(model::link_family(LinkType::Pcie5) == "pcie");
  CHECK_FALSE(model::link_family(LinkType::Upi).has_value());
}

TEST_CASE("a parameter file takes link families and refuses an unknown name in one line") {
  const auto j = nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"link_efficiency": {"nvlink": 0.5, "pcie": 0.25}}})");
  const auto p = model::params_from_json(j, "test.json");
  CHECK(p.efficiency(LinkType::NvLink4) == 0.5);
  CHECK(p.efficiency(LinkType::Pcie3) == 0.25);
  const auto bad = nlohmann::json::parse(R"({"kind": "ccsim-params", "params": {"link_efficiency": {"nvlinks": 0.5}}})");
  CHECK_THROWS_WITH_AS(model::params_from_json(bad, "test.json"), doctest::Contains("unknown link type or family 'nvlinks'"), Error);
}

namespace {
// A 2-node allreduce made by ccsim's fifo model with known parameters, in nccl-tests format (as
// tests/unit/trace/calibrate_test.cpp's synthetic traces).
model::CalibInput network_bound_input(const topology::Topology& topo, const model::ParamSet& truth) {
  model::CalibInput in;
  in.cfg.placements = topology::pack_rings(topo, {}).rings;
  in.cfg.model.semantics = engine::Semantics::mpi;
  in.label = "2-node synthetic";
  model::ModelOptions mo;
  mo.params = truth;
  model::Predictor pr(topo, in.cfg, "fifo", mo);
  std::string s = "# command: ./build/all_reduce_perf -b 1K -e 256M -f 2 -g 1\n#  size  count  type  redop  root  time  algbw  busbw  #wrong\n";
  for (Bytes size = 1024; size <= (Bytes{256} << 20); size *= 2)
    s += fmt::format("{} {} float sum -1 {:.4f} 0 0 0\n", size, size / 4, to_us(pr.predict({size / 4, size}).time));
  in.trace = trace::parse_trace(s, in.label);
  in.topo = &topo;
  for (std::size_t i = 0; i < in.trace.rows.size(); ++i) in.rows.push_back(i);
  return in;
}
} // namespace

TEST_CASE("calibrate leaves a link with slack unidentified and fits the bottleneck link") {
  // Two DGX-1 V100 nodes joined by 2 x 100G RoCE NICs per node at half speed (truth). At the start values
  // (every efficiency 1) a NIC carries 12.5 GB/s against NVLink2's 25 GB/s per lane inside the nodes, so a
  // 5 % slower NVLink changes no large-size time (sensitivity ~0) while a 5 % slower NIC slows them by
  // nearly 5 % (0.87 here, where 0 is no effect and 1 the whole 5 %); the rule's line is 0.5.
  const auto topo = topology::resolve_topology("cluster:nodes=2,node=dgx1-v100,nics=2x100G,kind=roce");
  model::ParamSet truth;
  truth.launch_us = 10.0;
  truth.link_efficiency["roce"] = 0.5;
  const auto in = network_bound_input(topo, truth);
  model::CalibOptions o;
  o.hold = {"step_us"};
  const auto f = model::fit({in}, o);
  REQUIRE(f.sensitivity.count("eff:roce") == 1);
  REQUIRE(f.sensitivity.count("eff:nvlink2") == 1);
  CHECK(f.sensitivity.at("eff:roce") > model::kBottleneckSensitivity);
  CHECK(f.sensitivity.at("eff:nvlink2") < 0.1);
  CHECK(f.not_bottleneck.count("eff:nvlink2") == 1);
  CHECK(f.not_bottleneck.count("eff:roce") == 0);
  for (std::size_t k = 0; k < f.names.size(); ++k) {
    CAPTURE(f.names[k]);
    if (f.names[k] == "eff:roce") CHECK(f.fitted[k]);
    if (f.names[k] == "eff:nvlink2") CHECK_FALSE(f.fitted[k]);
  }
  CHECK(f.params.link_efficiency.at("roce") == doctest::Approx(0.5).epsilon(0.01));
  CHECK(f.params.efficiency(LinkType::NvLink2) == 1.0); // held at its start value, not wandered off
  CHECK(f.params.launch_us == doctest::Approx(10.0).epsilon(0.02));
}
