// EFA by GPU generation (models/nccl.json net_kinds efa by_arch; aws/aws-ofi-nccl src/platform-aws.cpp):
// the families before Hopper run the plugin's SENDRECV protocol, report 75 us (p4d/p4de, A100) or 150 us
// (p3dn, V100) of inter-node latency to NCCL, and get NCCL_PROTO=simple (no in-order 128-byte delivery).
// Worked by hand:
//  * the hop: an A100 over EFA 75 us where NCCL's NET hop is smaller (tree/LL 5.0, tree/Simple 14), a V100
//    150, a Hopper GPU the kind's own 23 (RDMA protocol, the plugin's tuner), InfiniBand NCCL's own;
//  * Simple only: on 2 HGX A100 nodes over EFA every size runs Simple, while over InfiniBand 8 B is LL;
//  * the time: 2 HGX A100 nodes, 8 B allreduce, tree/Simple on both sides: the tree crosses the network
//    2 log2(2) = 2 times, so EFA adds 2 x (75 - 14) = 122 us over the same tree/Simple on InfiniBand (forced
//    there with a tables copy whose ib kind is Simple-only at NCCL's own 14 us hop).
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using topology::LinkType;

namespace {
topology::Topology pair_over(LinkType type) {
  topology::Topology t;
  const int a = t.add_node("nic0", topology::NodeKind::Nic), b = t.add_node("nic1", topology::NodeKind::Nic);
  t.add_link(a, b, type, 12'500'000'000, 0);
  return t;
}

metrics::Row allreduce_8B(const topology::Topology& t, const std::string& tables = "") {
  nccl::Options o;
  o.tables = tables;
  o.params = model::ParamSet{};
  nccl::Builder b(t, o);
  return metrics::run(b, test::packed_rings_config(t), metrics::plan_size(schedule::Op::AllReduce, 16, 8, 4));
}
} // namespace

TEST_CASE("EFA by GPU generation: the SENDRECV families' hop is the latency aws-ofi-nccl reports") {
  const auto& tab = nccl::load_tables();
  const auto efa = pair_over(LinkType::Efa), ib = pair_over(LinkType::Ib), nvl = pair_over(LinkType::NvLink3);
  CHECK(tab.net_hop_of(efa.links.front(), 5.0, nccl::Arch::Ampere) == doctest::Approx(75.0));
  CHECK(tab.net_hop_of(efa.links.front(), 14.0, nccl::Arch::Volta) == doctest::Approx(150.0));
  CHECK(tab.net_hop_of(efa.links.front(), 5.0, nccl::Arch::Hopper) == doctest::Approx(23.0));
  CHECK(tab.net_hop_of(ib.links.front(), 5.0, nccl::Arch::Ampere) == doctest::Approx(5.0));
  CHECK(tab.net_hop_of(nvl.links.front(), 5.0, nccl::Arch::Ampere) == doctest::Approx(0.0));
  CHECK(tab.simple_only(efa, nccl::Arch::Ampere));
  CHECK(tab.simple_only(efa, nccl::Arch::Volta));
  CHECK_FALSE(tab.simple_only(efa, nccl::Arch::Hopper));
  CHECK_FALSE(tab.simple_only(ib, nccl::Arch::Ampere));
}

TEST_CASE("Two HGX A100 nodes over EFA run Simple at 8 B, 2 x (75 - 14) us above InfiniBand's tree/Simple") {
  const auto efa = topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=efa");
  const auto ib = topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=ib");
  const auto on_efa = allreduce_8B(efa);
  CHECK(on_efa.choice.algo == "tree");
  CHECK(on_efa.choice.proto == "Simple");
  CHECK(allreduce_8B(ib).choice.proto == "LL"); // InfiniBand keeps NCCL's pick
  // The same tree/Simple on InfiniBand: a tables copy whose ib kind forces Simple at NCCL's own hop.
  const std::string path = "/tmp/ccsim-efa-transport-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(nccl::default_tables_path()));
  j["net_kinds"]["ib"]["by_arch"] = {{"ampere", {{"hop_us", 14.0}, {"simple_only", true}}}};
  std::ofstream(path) << j.dump();
  const auto on_ib = allreduce_8B(ib, path);
  std::remove(path.c_str());
  CHECK(on_ib.choice.algo == "tree");
  CHECK(on_ib.choice.proto == "Simple");
  CHECK(to_us(on_efa.time) - to_us(on_ib.time) == doctest::Approx(2 * (75.0 - 14.0)).epsilon(1e-3));
}

TEST_CASE("NCCL tables: a bad net_kinds by_arch entry is refused naming it") {
  const std::string path = "/tmp/ccsim-efa-by-arch-bad-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(nccl::default_tables_path()));
  for (const auto& entry : {nlohmann::json{{"kepler", {{"hop_us", 75.0}}}}, nlohmann::json{{"ampere", {{"hop_us", -1.0}}}},
                            nlohmann::json{{"ampere", {{"simple_only", true}}}}}) {
    auto bad = j;
    bad["net_kinds"]["efa"]["by_arch"] = entry;
    std::ofstream(path) << bad.dump();
    try {
      (void)nccl::parse_tables(path);
      FAIL("accepted " << entry.dump());
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("net_kinds") != std::string::npos);
    }
  }
  std::remove(path.c_str());
}
