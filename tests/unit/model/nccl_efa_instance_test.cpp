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

#include <string>

#include "sim/core/error.hpp"
#include "sim/model/nccl/proto_list.hpp"
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
