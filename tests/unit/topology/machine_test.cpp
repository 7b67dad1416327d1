// `machine:` describes a node in a few words (GPU model, count, how they are joined) and, with nodes
// and nics, a cluster of it; the numbers come from models/gpus.json.
#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {
constexpr Bandwidth GB = 1'000'000'000;
Bandwidth bottleneck(const Topology& t, int a, int b) {
  Router r(t);
  return r.info(r.route(t.gpu_node(a), t.gpu_node(b))).bottleneck;
}
} // namespace

TEST_CASE("machine: NVSwitch boards give every GPU pair all of the GPU's NVLinks") {
  const auto h200 = resolve_topology("machine:gpu=h200");
  CHECK(h200.num_gpus() == 8);
  CHECK(bottleneck(h200, 0, 7) == 450 * GB); // 18 x 25 GB/s
  const auto b200 = resolve_topology("machine:gpu=b200,gpus=4");
  CHECK(b200.num_gpus() == 4);
  CHECK(bottleneck(b200, 1, 3) == 900 * GB); // 18 x 50 GB/s
  const auto a100 = resolve_topology("machine:gpu=a100");
  CHECK(bottleneck(a100, 2, 5) == 300 * GB);
}

TEST_CASE("machine: PCIe with and without peer-to-peer, NVLink bridges, the cube-mesh preset") {
  const auto p2p = resolve_topology("machine:gpu=rtx4090,intra=pcie,p2p=on"); // a patched driver
  CHECK(bottleneck(p2p, 0, 1) == Bandwidth{31'500'000'000}); // same PCIe switch, Gen4 x16
  const auto nop2p = resolve_topology("machine:gpu=rtx4090,intra=pcie,p2p=off");
  CHECK(bottleneck(nop2p, 0, 1) == Bandwidth{19'500'000'000}); // staged through host memory
  // Unsaid, a GeForce card is P2P off as its stock driver has it; a data-centre card on PCIe keeps P2P.
  CHECK(resolve_topology("machine:gpu=rtx4090").name == nop2p.name);
  CHECK(bottleneck(resolve_topology("machine:gpu=rtx5090,gpus=2"), 0, 1) == Bandwidth{39'000'000'000}); // Gen5 host-staged
  CHECK(bottleneck(resolve_topology("machine:gpu=l40s,gpus=2"), 0, 1) == Bandwidth{31'500'000'000});
  const auto bridge = resolve_topology("machine:gpu=rtx3090,gpus=4");
  CHECK(bottleneck(bridge, 0, 1) == Bandwidth{56'250'000'000}); // 4 x 14.0625 GB/s bridge
  CHECK(bottleneck(bridge, 1, 2) == Bandwidth{22'400'000'000}); // across pairs (and sockets): PCIe and UPI
  const auto cube = resolve_topology("machine:gpu=v100,intra=cubemesh");
  const auto dgx1 = resolve_topology("dgx1-v100");
  CHECK(cube.links.size() == dgx1.links.size());
  CHECK(bottleneck(cube, 0, 3) == bottleneck(dgx1, 0, 3));
}

TEST_CASE("machine: with nodes and nics it is a cluster of that node") {
  const auto c = resolve_topology("machine:gpu=h100,nodes=4,nics=8x400G,kind=ib");
  CHECK(c.num_gpus() == 32);
  int nics = 0;
  for (const auto& n : c.nodes) nics += n.kind == NodeKind::Nic;
  CHECK(nics == 32);
  // Across nodes a GPU is bounded by its NIC: 400 Gb/s = 50 GB/s.
  CHECK(bottleneck(c, 0, 8) == 50 * GB);
}

TEST_CASE("machine: bad descriptions are one-line errors") {
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=x100"), doctest::Contains("unknown gpu 'x100' (known:"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=rtx4090,intra=nvswitch"), doctest::Contains("has no NVLink"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h100,intra=cubemesh"), doctest::Contains("DGX-1 board"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h100,p2p=off"), doctest::Contains("p2p=off applies to intra=pcie"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h100,gpus=0"), doctest::Contains("between 1 and 1024"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h100,intra=torus"), doctest::Contains("is not nvswitch, cubemesh, pcie, bridge, mesh or xgmi"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpu=h100,nodes=two,nics=8x400G"), doctest::Contains("nodes 'two' is not a number"), Error);
  CHECK_THROWS_WITH_AS(resolve_topology("machine:gpus=8"), doctest::Contains("missing 'gpu='"), Error);
}
