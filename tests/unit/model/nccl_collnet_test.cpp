// CollNet (InfiniBand SHARP in the fabric) in --model nccl. Expectations by hand:
//  * in-network reduction moves the vector once up and once down on every node's NIC link (n out, n in),
//    where a ring allreduce moves 2(p-1)/p n each way: 1.75 n on 8 single-GPU nodes;
//  * NCCL 2.30's CollNet Direct on 4 HGX A100 nodes with 8 x 200G HDR: each NIC's path is min(PCIe Gen4
//    at NCCL's 24 GB/s, HDR 25 GB/s) = 24, so bwInter = 24 (Ampere inter speeds 48, 30, 28, 24, ...);
//    pass 2 raises bwIntra 24 -> 28 -> 30 -> 48 (stops once it is not below 2 x 24); 8 heads (8 NICs, each
//    beside its own GPU): busBw = 8 x 48 / (f = 8/8 -> 1) = 384, algbw = 192 GB/s; latency
//    2 x (3.7 + 7 x 0.4) + 31 = 44 us; Chain 2 x 7 x 2.8 + 30 = 69.2 us.
#include "nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/engine/run_plan.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/collnet.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;

namespace {

// Bytes each NIC sends into the fabric and receives from it for one allreduce of `size` bytes.
std::vector<std::pair<Bytes, Bytes>> nic_bytes(const topology::Topology& t, const std::string& algo, Bytes size) {
  nccl::Options o;
  o.mode = nccl::algo_mode_from(algo);
  nccl::Builder b(t, o);
  const auto cfg = test::packed_rings_config(t);
  auto plans = b.plans(cfg, metrics::plan_size(Op::AllReduce, t.num_gpus(), size, 4));
  const auto ex = engine::execute(plans.front());
  std::vector<std::pair<Bytes, Bytes>> out;
  for (std::size_t l = 0; l < t.links.size(); ++l) {
    const auto& link = t.links[l];
    if (!topology::is_network(link.type)) continue;
    const bool nic_first = t.nodes[static_cast<std::size_t>(link.a)].kind == topology::NodeKind::Nic;
    const Bytes ab = ex.result.channels.bytes[2 * l], ba = ex.result.channels.bytes[2 * l + 1];
    out.emplace_back(nic_first ? ab : ba, nic_first ? ba : ab);
  }
  return out;
}
} // namespace

TEST_CASE("in-network reduction sends each node's vector once and receives the result once") {
  const auto t = topology::resolve_topology("machine:gpu=a100,gpus=1,nodes=8,nics=1x200G,kind=ib,sharp=1");
  const Bytes n = Bytes{64} << 20;
  const auto sharp = nic_bytes(t, "collnet_chain", n);
  REQUIRE(sharp.size() == 8);
  for (const auto& [up, down] : sharp) {
    CHECK(up == n);
    CHECK(down == n);
  }
  // The ring over the same fabric: 2(p-1)/p n = 1.75 n each way on every NIC.
  for (const auto& [up, down] : nic_bytes(t, "ring", n)) {
    CHECK(up == n * 7 / 4);
    CHECK(down == n * 7 / 4);
  }
}

TEST_CASE("CollNet graph and NCCL's CollNet Direct and Chain model on four HGX A100 nodes with SHARP") {
  const auto t = topology::resolve_topology("cluster:nodes=4,node=hgx-a100,nics=8x200G,kind=ib,sharp=1");
  CHECK(t.sharp == "v2");
  const auto& tab = nccl::load_tables();
  const auto cfg = test::packed_rings_config(t);
  const auto g = nccl::make_graph(t, tab, cfg.placements, "");
  const auto cg = nccl::collnet_graph_for(t, tab, g, cfg.placements);
  REQUIRE(cg.heads == 8);
  CHECK(cg.ppn == 8);
  CHECK(cg.bw_inter == doctest::Approx(24.0));
  CHECK(cg.bw_intra == doctest::Approx(48.0));
  const auto cands = nccl::collnet_candidates(nccl::load_collnet_tables(), g, cg, Op::AllReduce, 32, Bytes{1} << 30);
  REQUIRE(cands.size() == 2);
  CHECK(cands[0].algo == nccl::Algo::CollNetDirect);
  CHECK(cands[0].algbw == doctest::Approx(192.0));
  CHECK(cands[0].lat_us == doctest::Approx(44.0));
  CHECK(cands[1].algo == nccl::Algo::CollNetChain);
  CHECK(cands[1].lat_us == doctest::Approx(69.2));
  // No allgather/reducescatter over CollNet here.
  CHECK(nccl::collnet_candidates(nccl::load_collnet_tables(), g, cg, Op::AllGather, 32, Bytes{1} << 30).empty());
}

TEST_CASE("CollNet is refused where the fabric has no SHARP, and turned off by --collnet off") {
  const auto plain = topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=ib");
  nccl::Options o;
  o.mode = nccl::AlgoMode::CollNetDirect;
  nccl::Builder b(plain, o);
  const auto cfg = test::packed_rings_config(plain);
  CHECK_THROWS_WITH(b.plans(cfg, metrics::plan_size(Op::AllReduce, plain.num_gpus(), 1 << 20, 4)),
                    doctest::Contains("no SHARP"));
  CHECK_THROWS_WITH(topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=roce,sharp=1"),
                    doctest::Contains("InfiniBand"));
  const auto t = topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=8x200G,kind=ib,sharp=1");
  nccl::Options off;
  off.collnet = nccl::NvlsMode::Off;
  nccl::Builder b2(t, off);
  const auto row = metrics::run(b2, test::packed_rings_config(t), metrics::plan_size(Op::AllReduce, t.num_gpus(), Bytes{1} << 30, 4));
  CHECK(row.choice.algo.rfind("collnet", 0) != 0);
}

TEST_CASE("SHARP on the fabric survives a topology file round trip") {
  const auto t = topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=8x400G,kind=ib,sharp=1");
  CHECK(t.sharp == "v3");
  const auto back = topology::topology_from_json(topology::topology_to_json(t), "roundtrip.json");
  CHECK(back.sharp == "v3");
}

TEST_CASE("in-network reduction beats the ring by 2(p-1)/p at the fabric for large sizes") {
  // 8 single-GPU nodes, one NIC each: both replays run on the same links (NCCL's Simple view), the NIC
  // links bound both; the ring moves 1.75 n per NIC, SHARP n, so at 1 GiB (latencies ~0.3 ms of ~45 ms,
  // SHARP's pipeline (k+1)/k = 257/256) the ring takes 1.75 x as long, within 3 %.
  const auto t = topology::resolve_topology("machine:gpu=a100,gpus=1,nodes=8,nics=1x200G,kind=ib,sharp=1");
  const auto time_of = [&](const std::string& algo) {
    nccl::Options o;
    o.mode = nccl::algo_mode_from(algo);
    nccl::Builder b(t, o);
    return static_cast<double>(metrics::run(b, test::packed_rings_config(t), metrics::plan_size(Op::AllReduce, 8, Bytes{1} << 30, 4)).time);
  };
  CHECK(time_of("ring") / time_of("collnet_chain") == doctest::Approx(1.75).epsilon(0.03));
}

TEST_CASE("NVLS across H100 nodes is a candidate only with CollNet, and NCCL's pick on four SHARP nodes") {
  // NVLS graph on several HGX H100 nodes with 8 x 400G (nccl_nvls_tree_test.cpp): 8 channels, bwIntra 40,
  // bwInter 48. NVLS over CollNet: busBw = 8 x min(40 x 0.85 x 7/8 x 2 = 59.5, 48) = 384 GB/s, latency
  // hwLatencies NVLINK NVLS 25 + NET NVLS 18 = 43 us. On 4 nodes NVLS-tree gives 364 (perChMaxNVLSTreeBw 45.5),
  // CollNet Direct 8 x 48 x 0.85 = 326.4: NCCL picks NVLS for a large allreduce.
  const auto t = topology::resolve_topology("cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib,sharp=1");
  const auto& tab = nccl::load_tables();
  const auto cfg = test::packed_rings_config(t);
  const auto g = nccl::make_graph(t, tab, cfg.placements, "");
  const auto cg = nccl::collnet_graph_for(t, tab, g, cfg.placements);
  const auto nv = nccl::nvls_collnet_candidates(tab, nccl::load_collnet_tables(), g, cg, Op::AllReduce, 32, Bytes{4} << 30);
  REQUIRE(nv.size() == 1);
  CHECK(nv[0].busbw == doctest::Approx(384.0));
  CHECK(nv[0].lat_us == doctest::Approx(43.0));
  const auto cn = nccl::collnet_candidates(nccl::load_collnet_tables(), g, cg, Op::AllReduce, 32, Bytes{4} << 30);
  REQUIRE(!cn.empty());
  CHECK(cn[0].busbw == doctest::Approx(326.4));
  nccl::Builder b(t, nccl::Options{});
  CHECK(metrics::run(b, cfg, metrics::plan_size(Op::AllReduce, 32, Bytes{4} << 30, 4)).choice.algo == "nvls");
  // Without SHARP the same machine has no NVLS-over-CollNet candidate.
  const auto plain = topology::resolve_topology("cluster:nodes=4,node=hgx-h100,nics=8x400G,kind=ib");
  const auto gp = nccl::make_graph(plain, tab, test::packed_rings_config(plain).placements, "");
  CHECK(nccl::nvls_collnet_candidates(tab, nccl::load_collnet_tables(), gp, nccl::collnet_graph_for(plain, tab, gp, test::packed_rings_config(plain).placements),
                                      Op::AllReduce, 32, Bytes{4} << 30).empty());
}
