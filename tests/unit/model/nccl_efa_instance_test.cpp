// EFA by instance type (models/nccl.json net_kinds efa instances; aws/aws-ofi-nccl src/platform-aws.cpp
// platform_data_map, read at 2daf7d3): the plugin looks the EC2 instance type up in an ordered list, an exact
// name or a regex, the first match winning, and runs that entry's protocol. Worked by hand from the plugin's
// table, not from ccsim's output:
//  * p5.48xlarge and p5e.48xlarge match "^p5(e?\..*)" (RDMA, 75 us reported); p5en.48xlarge does not (after
//    "p5" neither "e." nor "." follows) and takes "^(p5en|p6-b200).*" (RDMA, 35); p5.4xlarge is its own exact
//    entry before the pattern (SENDRECV, 75); g7e.8xlarge is SENDRECV (35), g7e.48xlarge RDMA;
//    p6e-gb200.36xlarge falls to the p-series pattern "^p([5-9]|[0-9]{2,}).*" (RDMA, 35); g7e.4xlarge and
//    c5n.18xlarge match no entry and are refused.
//  * The transport: a SENDRECV entry charges the kind's 23 us per EFA operation as the hop, twice where the
//    table says gdr_required (the receiver's GDR flush: p4de 46 us), and LL/LL128 are off, whatever the GPU
//    generation (a Blackwell GPU on a g7e.8xlarge, no GDR: 23 us, Simple only, its reported 35 us kept for
//    NCCL's tuner; by generation alone Blackwell is RDMA); an RDMA entry keeps the kind's 23 us hop, even under
//    an A100 (p5.48xlarge named: no SENDRECV row).
//  * A replay: 2 nodes of 1 RTX PRO 6000 and one 100G EFA NIC, allreduce forced to ring/Simple (2 ranks), named
//    g7e.8xlarge (SENDRECV) against g7e.48xlarge (RDMA). The ring crosses the network 2 (nodes - 1) = 2 times;
//    NCCL's NET ring/Simple hop is 14 us, so SENDRECV (no GDR) adds 2 x (23 - 14) and RDMA 2 x (23 - 14): the
//    same at 8 B. At 1 MiB on 2 channels a connection's message (1 MiB / (2 channels x 2 ranks) = 256 KiB) is
//    above the 8192 B eager limit, so RDMA also waits its 23 us rendezvous, once per collective; SENDRECV sends
//    it from host memory (no GDR) through libfabric's long-CTS protocol (above the 64 KiB medium size, below the
//    1 MiB read size), one CTS window of 32 x 8 KiB, one more 23 us round trip on each of the 2 network hops:
//    SENDRECV is 2 x 23 - 23 = 23 us the slower.
//  * The NCCL_BUFFSIZE an entry sets (g7e.8xlarge 8 MiB; g5.48xlarge none: NCCL's 4 MiB) sizes the message: a
//    tree's 64 MiB share goes in steps of buffer / 8: 1 MiB on g7e.8xlarge, a read (23 us), 512 KiB on
//    g5.48xlarge, two long-CTS windows (46 us).
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <cstdio>
#include <fstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/model/nccl/proto_list.hpp"
#include "sim/model/nccl/net_latency.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
namespace nccl = model::nccl;
using topology::LinkType;

namespace {
const nccl::Tables::NetKind::Instance& entry(const std::string& name) {
  const auto* in = nccl::load_tables().instance_of(LinkType::Efa, name);
  REQUIRE(in != nullptr);
  return *in;
}

std::string refusal(const std::string& name) {
  try {
    (void)nccl::load_tables().instance_of(LinkType::Efa, name);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}
} // namespace

TEST_CASE("EFA by instance type: aws-ofi-nccl's platform table, first match wins") {
  CHECK(entry("p5.48xlarge").rdma);
  CHECK(entry("p5.48xlarge").latency_us == doctest::Approx(75.0));
  CHECK(entry("p5e.48xlarge").name == entry("p5.48xlarge").name);
  CHECK(entry("p5en.48xlarge").rdma);
  CHECK(entry("p5en.48xlarge").latency_us == doctest::Approx(35.0));
  CHECK_FALSE(entry("p5.4xlarge").rdma);
  CHECK(entry("p5.4xlarge").latency_us == doctest::Approx(75.0));
  CHECK_FALSE(entry("g7e.8xlarge").rdma);
  CHECK(entry("g7e.8xlarge").latency_us == doctest::Approx(35.0));
  CHECK(entry("g7e.48xlarge").rdma);
  CHECK(entry("p6e-gb200.36xlarge").rdma);
  CHECK(entry("p6e-gb200.36xlarge").latency_us == doctest::Approx(35.0));
  CHECK_FALSE(entry("p4d.24xlarge").rdma);
  CHECK(entry("p3dn.24xlarge").latency_us == doctest::Approx(150.0));
  for (const char* unknown : {"g7e.4xlarge", "c5n.18xlarge"}) {
    const std::string why = refusal(unknown);
    CHECK(why.find(std::string("instance '") + unknown + "'") != std::string::npos);
    CHECK(why.find('\n') == std::string::npos);
  }
  CHECK(nccl::load_tables().instance_of(LinkType::Efa, "") == nullptr); // none named: by the GPU generation
}

TEST_CASE("EFA by instance type: the named entry's transport in place of the GPU generation's") {
  const auto& tab = nccl::load_tables();
  const auto* g7e8 = tab.transport_of(LinkType::Efa, nccl::Arch::Blackwell, "g7e.8xlarge");
  REQUIRE(g7e8 != nullptr);
  CHECK(g7e8->hop_us == doctest::Approx(23.0)); // no GDR: one EFA operation, not the reported 35
  CHECK(g7e8->reported_latency_us == doctest::Approx(35.0));
  CHECK_FALSE(g7e8->gdr);
  const auto* p4de = tab.transport_of(LinkType::Efa, nccl::Arch::Ampere, "p4de.24xlarge");
  REQUIRE(p4de != nullptr);
  CHECK(p4de->hop_us == doctest::Approx(46.0)); // GDR: the send and the receiver's flush
  CHECK(p4de->reported_latency_us == doctest::Approx(75.0));
  CHECK(g7e8->simple_only);
  CHECK(tab.transport_of(LinkType::Efa, nccl::Arch::Blackwell, "") == nullptr);            // Blackwell: RDMA
  CHECK(tab.transport_of(LinkType::Efa, nccl::Arch::Blackwell, "g7e.48xlarge") == nullptr); // RDMA entry
  CHECK(tab.transport_of(LinkType::Efa, nccl::Arch::Ampere, "p5.48xlarge") == nullptr);
  const auto* p5small = tab.transport_of(LinkType::Efa, nccl::Arch::Hopper, "p5.4xlarge");
  REQUIRE(p5small != nullptr);
  CHECK(p5small->hop_us == doctest::Approx(23.0)); // gdr_required false
  CHECK(tab.transport_of(LinkType::Ib, nccl::Arch::Hopper, "p5.4xlarge") == nullptr); // not EFA: no table
}

TEST_CASE("EFA by instance type: the topology words, kind efa by default and kept through JSON") {
  const auto t = topology::resolve_topology("machine:gpu=rtxpro6000,gpus=1,nodes=2,nics=1x100G,instance=G7E.8xlarge");
  CHECK(t.instance == "g7e.8xlarge");
  bool efa = false;
  for (const auto& l : t.links) efa = efa || l.type == LinkType::Efa;
  CHECK(efa);
  CHECK(topology::topology_from_json(topology::topology_to_json(t), "roundtrip.json").instance == "g7e.8xlarge");
  CHECK_THROWS_AS(topology::resolve_topology("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib,instance=p5.48xlarge"), Error);
  CHECK_THROWS_AS(topology::resolve_topology("machine:gpu=h100,nodes=2,nics=8x400G,instance=p5_48xlarge"), Error);
  CHECK_THROWS_AS(topology::resolve_topology("machine:gpu=h100,nodes=2,nics=8x400G,instance="), Error);
}

TEST_CASE("EFA by instance type: g7e.8xlarge's SENDRECV hop (no GDR) against g7e.48xlarge's RDMA rendezvous") {
  const std::string base = "machine:gpu=rtxpro6000,gpus=1,nodes=2,nics=1x100G,instance=";
  const auto sendrecv = topology::resolve_topology(base + "g7e.8xlarge");
  const auto rdma = topology::resolve_topology(base + "g7e.48xlarge");
  auto ring = [](const topology::Topology& t, Bytes n) { return test::bare_forced_allreduce(t, nccl::AlgoMode::Ring, "Simple", n); };
  const auto s8 = ring(sendrecv, 8), r8 = ring(rdma, 8);
  const auto s1m = ring(sendrecv, Bytes{1} << 20), r1m = ring(rdma, Bytes{1} << 20);
  REQUIRE(s8.choice.channels == r8.choice.channels);
  REQUIRE(s1m.choice.channels == r1m.choice.channels);
  CHECK(to_us(s8.time) - to_us(r8.time) == doctest::Approx(0.0).epsilon(1e-3));
  REQUIRE(s1m.choice.channels == 2);
  CHECK(to_us(s1m.time) - to_us(r1m.time) == doctest::Approx(2 * 23.0 - 23.0).epsilon(1e-2));
}

TEST_CASE("EFA by instance type: the entry's NCCL_BUFFSIZE sizes the provider's messages") {
  const auto& tab = nccl::load_tables();
  CHECK(entry("g7e.8xlarge").transport.buffsize_bytes == doctest::Approx(8388608.0));
  CHECK(entry("p4de.24xlarge").transport.buffsize_bytes == doctest::Approx(8388608.0));
  CHECK(entry("g5.48xlarge").transport.buffsize_bytes == doctest::Approx(0.0));
  const double share = 64.0 * (1 << 20);
  const auto g7e = topology::resolve_topology("machine:gpu=rtxpro6000,gpus=1,nodes=2,nics=1x100G,instance=g7e.8xlarge");
  const auto g5 = topology::resolve_topology("machine:gpu=a10g,gpus=1,nodes=2,nics=1x100G,instance=g5.48xlarge");
  CHECK(tab.two_sided_us(g7e, nccl::Arch::Blackwell, share, 1) == doctest::Approx(23.0));
  CHECK(tab.two_sided_us(g5, nccl::Arch::Ampere, share, 1) == doctest::Approx(46.0));
}

TEST_CASE("EFA by instance type: the nccl model refuses an instance its table does not hold") {
  const auto t = topology::resolve_topology("machine:gpu=h100,nodes=2,nics=8x400G,instance=c5n.18xlarge");
  nccl::Options o;
  o.params = model::ParamSet{};
  CHECK_THROWS_AS(nccl::Builder(t, o), Error);
}

TEST_CASE("EFA by instance type: a topology file naming an instance on a fabric that is not EFA is refused naming the file") {
  // An EC2 instance type selects aws-ofi-nccl's transport, which runs over EFA only (topology.cpp validate): a
  // drawing whose network links are InfiniBand with "instance" set would read the name for nothing.
  auto j = topology::topology_to_json(topology::resolve_topology("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib"));
  j["instance"] = "p5.48xlarge";
  try {
    (void)topology::topology_from_json(j, "ib-cluster.json");
    FAIL("an instance over InfiniBand was accepted");
  } catch (const Error& e) {
    const std::string why = e.what();
    CHECK(why.find("ib-cluster.json") != std::string::npos);
    CHECK(why.find("no link is of type efa") != std::string::npos);
  }
  j["instance"] = nullptr;
  j.erase("instance");
  CHECK(topology::topology_from_json(j, "ib-cluster.json").instance.empty()); // without it the drawing is fine
}

TEST_CASE("EFA by instance type: a pattern is searched in the name, as POSIX regexec does, not matched whole") {
  // aws-ofi-nccl compiles each pattern with regcomp and tests the instance type with regexec (platform-aws.cpp
  // get_platform_entry), which finds a match anywhere in the string: an unanchored "48xlarge" takes g7e.48xlarge.
  // The shipped patterns are anchored with ^ and end in .* or the whole name, where a search and a whole-string
  // match agree; this table's entry tells the two apart.
  const std::string path = "/tmp/ccsim-efa-search-" + std::to_string(::getpid()) + ".json";
  auto j = nlohmann::json::parse(std::ifstream(nccl::default_tables_path()));
  j["net_kinds"]["efa"]["instances"]["table"] =
      nlohmann::json::array({{{"name", "any 48xlarge"}, {"pattern", "48xlarge"}, {"protocol", "rdma"}, {"latency_us", 35.0}}});
  std::ofstream(path) << j.dump();
  const auto tab = nccl::parse_tables(path);
  std::remove(path.c_str());
  const auto* in = tab.instance_of(LinkType::Efa, "g7e.48xlarge");
  REQUIRE(in != nullptr);
  CHECK(in->name == "any 48xlarge");
  CHECK_THROWS_AS((void)tab.instance_of(LinkType::Efa, "g7e.8xlarge"), Error); // no 48xlarge in it
}

// The latency a net plugin reports to NCCL in NCCL's tuner (models/README.md "EFA: the plugin's reported latency
// in NCCL's pick"). NVIDIA/nccl src/graph/tuning.cc, v2.18.1-1 to v2.30.7-1:
//   interLat = hwLat[NET][a][p] + graphs[a]->latencyInter;  if (p == NCCL_PROTO_SIMPLE) interLat += latencyInter;
// with graphs[a]->latencyInter the NIC's ncclNetProperties latency (search.cc ncclTopoSearchRecNet, every graph,
// NVLS's too), and interLat counted 2 (nNodes - 1) times on a ring's allreduce, 2 log2i(nNodes) times on a tree
// and on NVLS-tree. aws-ofi-nccl reports 75 us on p5/p5e (src/platform-aws.cpp platform_data_map; the p5 EKS log
// in tests/data/wild_traces prints "Internode latency set at 75.0 us"). By hand, 2 nodes (one network hop each
// way on every algorithm): NCCL's estimate rises by
//   Simple (ring, tree, NVLS-tree): 2 hops x 2 x 75 = 300 us;   LL and LL128: 2 hops x 75 = 150 us
// over the same machine whose plugin reports nothing (kind=efa on Hopper names no instance: by_arch has no
// Hopper row; the replayed transport, RDMA with the kind's 23 us hop, is the same for both). Before 2.18.1 NCCL
// took the figure in place of its hwLat (not modelled): no change there. The replay does not take it, so a pick
// forced to one algorithm and protocol runs the same time on both.
namespace netlat {
engine::Choice choice_of(const std::string& topo, const std::string& release, Bytes bytes, nccl::AlgoMode mode = nccl::AlgoMode::Auto) {
  const auto t = topology::resolve_topology(topo);
  const auto cfg = test::packed_rings_config(t, schedule::Op::AllReduce);
  const auto size = metrics::plan_size(schedule::Op::AllReduce, 16, bytes, 4);
  nccl::Options o;
  o.nccl_version = release;
  o.mode = mode;
  nccl::Builder b(t, o);
  return metrics::run(b, cfg, size).choice;
}

double weighed(const engine::Choice& c, const char* algo, const char* proto) {
  const auto it = std::find_if(c.weighed.begin(), c.weighed.end(), [&](const auto& w) { return w.algo == algo && w.proto == proto; });
  REQUIRE(it != c.weighed.end());
  return it->time_us;
}

const std::string kP5 = "machine:gpu=h100,nodes=2,nics=32x100G,instance=p5.48xlarge";
const std::string kEfaBare = "machine:gpu=h100,nodes=2,nics=32x100G,kind=efa";
} // namespace netlat

TEST_CASE("the net plugin's reported latency by instance and by generation: p5 75, p5en 35, Hopper unnamed 0, A100 75") {
  const auto& tab = nccl::load_tables();
  CHECK(nccl::reported_net_latency_us(tab, topology::resolve_topology(netlat::kP5), nccl::Arch::Hopper) == doctest::Approx(75.0));
  CHECK(nccl::reported_net_latency_us(tab, topology::resolve_topology("machine:gpu=h200,nodes=2,nics=16x200G,instance=p5en.48xlarge"),
                                    nccl::Arch::Hopper) == doctest::Approx(35.0));
  CHECK(nccl::reported_net_latency_us(tab, topology::resolve_topology(netlat::kEfaBare), nccl::Arch::Hopper) == 0.0);
  CHECK(nccl::reported_net_latency_us(tab, topology::resolve_topology("machine:gpu=a100,nodes=2,nics=4x100G,kind=efa"), nccl::Arch::Ampere) ==
        doctest::Approx(75.0));
  CHECK(nccl::reported_net_latency_us(tab, topology::resolve_topology("machine:gpu=h100,nodes=2,nics=8x400G,kind=ib"), nccl::Arch::Hopper) == 0.0);
}

TEST_CASE("2 p5 nodes in NCCL 2.22.3's tuner: Simple weighs 300 us more, LL and LL128 150 us more, than with no reported latency") {
  const Bytes size = Bytes{16} << 20;
  const auto p5 = netlat::choice_of(netlat::kP5, "2.22.3", size);
  const auto bare = netlat::choice_of(netlat::kEfaBare, "2.22.3", size);
  CHECK(netlat::weighed(p5, "nvls_tree", "Simple") - netlat::weighed(bare, "nvls_tree", "Simple") == doctest::Approx(300.0));
  CHECK(netlat::weighed(p5, "tree", "Simple") - netlat::weighed(bare, "tree", "Simple") == doctest::Approx(300.0));
  CHECK(netlat::weighed(p5, "ring", "Simple") - netlat::weighed(bare, "ring", "Simple") == doctest::Approx(300.0));
  CHECK(netlat::weighed(p5, "tree", "LL128") - netlat::weighed(bare, "tree", "LL128") == doctest::Approx(150.0));
  CHECK(netlat::weighed(p5, "ring", "LL") - netlat::weighed(bare, "ring", "LL") == doctest::Approx(150.0));
  // Before 2.18.1 the figure replaced NCCL's hwLat (not modelled): the estimates stay.
  const auto p5_old = netlat::choice_of(netlat::kP5, "2.17.1", size);
  const auto bare_old = netlat::choice_of(netlat::kEfaBare, "2.17.1", size);
  CHECK(netlat::weighed(p5_old, "tree", "Simple") == doctest::Approx(netlat::weighed(bare_old, "tree", "Simple")));
}

TEST_CASE("2 p5 nodes at 4 MiB, NCCL 2.22.3: tree/LL128 within 150 us of NVLS-tree without the reported latency, so it wins with it") {
  const Bytes size = Bytes{4} << 20;
  const auto p5 = netlat::choice_of(netlat::kP5, "2.22.3", size);
  const auto bare = netlat::choice_of(netlat::kEfaBare, "2.22.3", size);
  // NVLS-tree (Simple) takes 300 us more and tree/LL128 150 more: tree/LL128 wins where it was within 150 us.
  const double gap = netlat::weighed(bare, "tree", "LL128") - netlat::weighed(bare, "nvls_tree", "Simple");
  CHECK(gap > 0.0);
  CHECK(gap < 150.0);
  CHECK(bare.algo == "nvls_tree");
  CHECK(p5.algo == "tree");
  CHECK(p5.proto == "LL128");
}

TEST_CASE("the reported latency moves NCCL's pick, not the replay: NVLS-tree forced on 2 p5 nodes runs as without it") {
  const Bytes size = Bytes{16} << 20;
  const auto t_p5 = topology::resolve_topology(netlat::kP5);
  const auto t_bare = topology::resolve_topology(netlat::kEfaBare);
  auto run = [&](const topology::Topology& t) {
    const auto cfg = test::packed_rings_config(t, schedule::Op::AllReduce);
    nccl::Options o;
    o.nccl_version = "2.22.3";
    o.mode = nccl::AlgoMode::Nvls;
    nccl::Builder b(t, o);
    return metrics::run(b, cfg, metrics::plan_size(schedule::Op::AllReduce, 16, size, 4));
  };
  const auto a = run(t_p5);
  const auto b = run(t_bare);
  CHECK(a.choice.algo == "nvls_tree");
  CHECK(b.choice.algo == "nvls_tree");
  CHECK(a.time == b.time);
}

// A zero-count row is not replayed: plan_for times NCCL's closed form from the candidate's estimate (time_us), so the
// builder must take the tuner's reported-latency term back out of it (as_run) as it does for a replayed pick. Both
// machines pick tree/LL at 0 B, whose estimate differs by 2 hops x 75 us = 150 us (LL: once per hop); the row's time
// is the same on both (mutants7 L3: without as_run's subtraction the p5 row ran 150 us longer).
TEST_CASE("the reported latency moves NCCL's pick, not the time: a zero-count row on 2 p5 nodes runs as without it") {
  auto run = [&](const std::string& topo) {
    const auto t = topology::resolve_topology(topo);
    const auto cfg = test::packed_rings_config(t, schedule::Op::AllReduce);
    nccl::Options o;
    o.nccl_version = "2.22.3";
    nccl::Builder b(t, o);
    return metrics::run(b, cfg, metrics::plan_size(schedule::Op::AllReduce, 16, 0, 4));
  };
  const auto a = run(netlat::kP5);
  const auto b = run(netlat::kEfaBare);
  REQUIRE(a.choice.algo == "tree");
  REQUIRE(a.choice.proto == "LL");
  REQUIRE(b.choice.algo == "tree");
  REQUIRE(b.choice.proto == "LL");
  CHECK_FALSE(a.choice.simulated);
  CHECK(netlat::weighed(a.choice, "tree", "LL") - netlat::weighed(b.choice, "tree", "LL") == doctest::Approx(150.0));
  CHECK(a.time == b.time);
}
