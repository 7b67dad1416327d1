// EFA by GPU generation (models/nccl.json net_kinds efa by_arch; aws/aws-ofi-nccl src/platform-aws.cpp):
// the families before Hopper run the plugin's SENDRECV protocol, report 75 us (p4d/p4de, A100) or 150 us
// (p3dn, V100) of inter-node latency to NCCL, and get NCCL_PROTO=simple (no in-order 128-byte delivery).
// The reported latency is what NCCL's tuner weighs; the replay charges the wire (models/README.md "EFA's
// SENDRECV floor"): the kind's 23 us per EFA operation (aws-ofi-nccl's tuner: 20 us network + 3 us
// completion), one more where the family runs GPUDirect RDMA (the table's gdr_required: p4d/p4de yes, p3dn
// no), the receiver's flush (an fi_read through the NIC after each receive). Worked by hand:
//  * the hop: an A100 over EFA 2 x 23 = 46 us where NCCL's NET hop is smaller (tree/LL 5.0, tree/Simple 14),
//    a V100 23 (no GDR), a Hopper GPU the kind's own 23 (RDMA protocol), InfiniBand NCCL's own;
//  * Simple only: on 2 HGX A100 nodes over EFA every size runs Simple, while over InfiniBand 8 B is LL;
//  * the time: 2 HGX A100 nodes, 8 B allreduce, tree/Simple on both sides: the tree crosses the network
//    2 log2(2) = 2 times, so EFA adds 2 x (46 - 14) = 64 us over the same tree/Simple on InfiniBand (forced
//    there with a tables copy whose ib kind is Simple-only at NCCL's own 14 us hop).
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/nccl/proto_list.hpp"
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

TEST_CASE("EFA by GPU generation: the SENDRECV hop is EFA's 23 us per operation, twice with the GDR flush, not the reported latency") {
  const auto& tab = nccl::load_tables();
  const auto efa = pair_over(LinkType::Efa), ib = pair_over(LinkType::Ib), nvl = pair_over(LinkType::NvLink3);
  CHECK(tab.net_hop_of(efa.links.front(), 5.0, nccl::Arch::Ampere) == doctest::Approx(46.0));
  CHECK(tab.net_hop_of(efa.links.front(), 14.0, nccl::Arch::Volta) == doctest::Approx(23.0));
  CHECK(tab.net_hop_of(efa.links.front(), 5.0, nccl::Arch::Hopper) == doctest::Approx(23.0));
  CHECK(tab.net_hop_of(ib.links.front(), 5.0, nccl::Arch::Ampere) == doctest::Approx(5.0));
  CHECK(tab.net_hop_of(nvl.links.front(), 5.0, nccl::Arch::Ampere) == doctest::Approx(0.0));
  CHECK(tab.simple_only(efa, nccl::Arch::Ampere));
  CHECK(tab.simple_only(efa, nccl::Arch::Volta));
  CHECK_FALSE(tab.simple_only(efa, nccl::Arch::Hopper));
  CHECK_FALSE(tab.simple_only(ib, nccl::Arch::Ampere));
  // What the plugin reports to NCCL stays beside the wire, for NCCL's tuner.
  const auto* a100 = tab.transport_of(LinkType::Efa, nccl::Arch::Ampere, "");
  const auto* v100 = tab.transport_of(LinkType::Efa, nccl::Arch::Volta, "");
  REQUIRE(a100 != nullptr);
  REQUIRE(v100 != nullptr);
  CHECK(a100->reported_latency_us == doctest::Approx(75.0));
  CHECK(a100->gdr);
  CHECK(v100->reported_latency_us == doctest::Approx(150.0));
  CHECK_FALSE(v100->gdr);
}

TEST_CASE("Two HGX A100 nodes over EFA run Simple at 8 B, 2 x (46 - 14) us above InfiniBand's tree/Simple") {
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
  CHECK(to_us(on_efa.time) - to_us(on_ib.time) == doctest::Approx(2 * (46.0 - 14.0)).epsilon(1e-3));
}

TEST_CASE("NCCL tables: a bad net_kinds by_arch entry is refused naming it") {
  const std::string path = "/tmp/ccsim-efa-by-arch-bad-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(nccl::default_tables_path()));
  for (const auto& entry : {nlohmann::json{{"kepler", {{"hop_us", 75.0}}}}, nlohmann::json{{"ampere", {{"hop_us", -1.0}}}},
                            nlohmann::json{{"ampere", {{"simple_only", true}}}}, nlohmann::json{{"ampere", {{"gdr", "yes"}}}},
                            nlohmann::json{{"ampere", {{"gdr", true}, {"latency_us", -1.0}}}}}) {
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

// aws-ofi-nccl's RDMA protocol (Hopper and later over EFA): a message above EAGER_MAX_SIZE (8192 B) waits for the
// receiver's control message, one network trip per collective (models/nccl.json net_kinds efa
// rdma_eager_max_bytes). Worked by hand from the table entries: the wait is the kind's 23 us hop where a
// connection's largest message is above 8192 B, 0 at or below it, 0 for a SENDRECV family (A100: two-sided sends
// through libfabric, whose own protocols are not modelled) and 0 off EFA.
TEST_CASE("EFA RDMA protocol: a message above the 8192 B eager limit waits one control-message hop") {
  const auto& tab = nccl::load_tables();
  const auto efa = pair_over(LinkType::Efa), ib = pair_over(LinkType::Ib);
  CHECK(tab.rendezvous_us(efa, nccl::Arch::Hopper, 8192.0) == doctest::Approx(0.0));
  CHECK(tab.rendezvous_us(efa, nccl::Arch::Hopper, 8193.0) == doctest::Approx(23.0));
  CHECK(tab.rendezvous_us(efa, nccl::Arch::Blackwell, 1 << 20) == doctest::Approx(23.0));
  CHECK(tab.rendezvous_us(efa, nccl::Arch::Ampere, 1 << 20) == doctest::Approx(0.0));
  CHECK(tab.rendezvous_us(ib, nccl::Arch::Hopper, 1 << 20) == doctest::Approx(0.0));
}

// The same on a replay: 2 HGX H100 nodes, allreduce forced to tree/Simple (16 ranks, nccl-tests sizes). Over
// EFA against the same tree over InfiniBand, the difference is the per-hop one at every size (both sides pick
// the same channels) plus, once a channel's share is above 8192 B, 23 us more. At 8 B one channel carries 8 B
// (eager); at 4 MiB each of the 16 channels carries 256 KiB, one segment a job. So the 4 MiB gap exceeds the 8 B gap
// by 23 us. (One segment: past it the tree over InfiniBand pipelines its segments and EFA's keeps the lockstep,
// builder.cpp tree_plan, so the gap also holds a per-segment latency.)
TEST_CASE("Two HGX H100 nodes over EFA: tree at 4 MiB pays the rendezvous hop that 8 B does not") {
  const auto efa = topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=efa");
  const auto ib = topology::resolve_topology("cluster:nodes=2,node=hgx-h100,nics=8x400G,kind=ib");
  auto tree = [](const topology::Topology& t, Bytes n) { return test::bare_forced_allreduce(t, nccl::AlgoMode::Tree, "Simple", n); };
  const auto small_efa = tree(efa, 8), small_ib = tree(ib, 8);
  const auto big_efa = tree(efa, Bytes{4} << 20), big_ib = tree(ib, Bytes{4} << 20);
  REQUIRE(small_efa.choice.channels == small_ib.choice.channels);
  REQUIRE(big_efa.choice.channels == big_ib.choice.channels);
  const double small_gap = to_us(small_efa.time) - to_us(small_ib.time);
  const double big_gap = to_us(big_efa.time) - to_us(big_ib.time);
  CHECK(big_gap - small_gap == doctest::Approx(23.0).epsilon(0.02));
}

// libfabric's EFA provider under aws-ofi-nccl's SENDRECV protocol (models/nccl.json net_kinds efa two_sided;
// prov/efa at v2.3.0). Worked by hand from the provider's thresholds, each added round trip one 23 us operation:
//  * GPU memory (A100 over EFA: GDR): eager up to one packet (8192 B): 0; above it the receiver's RDMA read: 23;
//    a 64 MiB tree share is sent in 512 KiB steps (NCCL's 4 MiB buffer / 8 steps): still one read, 23;
//  * host memory (V100: no GDR): eager/medium up to 65536 B: 0; long-CTS above it, one CTS window per 32 packets
//    of 8 KiB (262144 B): 65537 and 262144 B one window, 23; 262145 B two, 46; a read from 1 MiB: 23. A tree's
//    64 MiB share goes in 512 KiB steps (two windows, 46), a ring's in slices of 2 steps (1 MiB: the read, 23);
//  * the RDMA protocol (Hopper) and InfiniBand: 0.
TEST_CASE("EFA two-sided protocols: a SENDRECV message above the provider's eager size adds a round trip of 23 us") {
  const auto& tab = nccl::load_tables();
  const auto efa = pair_over(LinkType::Efa), ib = pair_over(LinkType::Ib);
  const double MiB = 1 << 20;
  CHECK(tab.two_sided_us(efa, nccl::Arch::Ampere, 8192.0, 1) == doctest::Approx(0.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Ampere, 8193.0, 1) == doctest::Approx(23.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Ampere, 64 * MiB, 1) == doctest::Approx(23.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Volta, 65536.0, 1) == doctest::Approx(0.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Volta, 65537.0, 1) == doctest::Approx(23.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Volta, 262144.0, 1) == doctest::Approx(23.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Volta, 262145.0, 1) == doctest::Approx(46.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Volta, MiB - 1, 2) == doctest::Approx(92.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Volta, MiB, 2) == doctest::Approx(23.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Volta, 64 * MiB, 1) == doctest::Approx(46.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Volta, 64 * MiB, 2) == doctest::Approx(23.0));
  CHECK(tab.two_sided_us(efa, nccl::Arch::Hopper, 64 * MiB, 2) == doctest::Approx(0.0));
  CHECK(tab.two_sided_us(ib, nccl::Arch::Ampere, 64 * MiB, 2) == doctest::Approx(0.0));
}

// The same on a replay: 2 HGX A100 nodes, allreduce forced to tree/Simple. Over EFA against the same tree over
// InfiniBand the gap is the per-hop one at every size (both pick the same channels) plus, once a channel's
// message is above 8192 B, the read's 23 us on each of the tree's 2 log2(2) = 2 network hops: 46 us more at
// 4 MiB (8 channels of 512 KiB, one segment a job, as in the H100 case above) than at 8 B.
TEST_CASE("Two HGX A100 nodes over EFA: tree at 4 MiB pays the provider's read on both network hops") {
  const auto efa = topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=efa");
  const auto ib = topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=ib");
  auto tree = [](const topology::Topology& t, Bytes n) { return test::bare_forced_allreduce(t, nccl::AlgoMode::Tree, "Simple", n); };
  const auto small_efa = tree(efa, 8), small_ib = tree(ib, 8);
  const auto big_efa = tree(efa, Bytes{4} << 20), big_ib = tree(ib, Bytes{4} << 20);
  REQUIRE(small_efa.choice.channels == small_ib.choice.channels);
  REQUIRE(big_efa.choice.channels == big_ib.choice.channels);
  const double small_gap = to_us(small_efa.time) - to_us(small_ib.time);
  const double big_gap = to_us(big_efa.time) - to_us(big_ib.time);
  CHECK(big_gap - small_gap == doctest::Approx(46.0).epsilon(0.02));
}

TEST_CASE("NCCL tables: a bad net_kinds two_sided entry is refused naming it") {
  const std::string path = "/tmp/ccsim-efa-two-sided-bad-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(nccl::default_tables_path()));
  const auto good = j["net_kinds"]["efa"]["two_sided"];
  for (const auto& [key, value] : {std::pair<std::string, nlohmann::json>{"device_eager_max_bytes", 0}, {"host_medium_max_bytes", -1},
                                   {"host_read_min_bytes", 1024}, {"cts_window_bytes", "big"}}) {
    auto bad = j;
    bad["net_kinds"]["efa"]["two_sided"][key] = value;
    std::ofstream(path) << bad.dump();
    try {
      (void)nccl::parse_tables(path);
      FAIL("accepted " << key << " = " << value.dump());
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find(key) != std::string::npos);
    }
  }
  auto missing = j;
  missing["net_kinds"]["efa"]["two_sided"].erase("cts_window_bytes");
  std::ofstream(path) << missing.dump();
  CHECK_THROWS_AS((void)nccl::parse_tables(path), Error);
  std::remove(path.c_str());
  CHECK(good.is_object());
}
