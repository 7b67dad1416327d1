// --model nccl against the reference §3.7 worked example (NCCL 2.30 model, DGX-1V, 8 GPUs, allreduce):
// 6 channels x 20 GB/s, LL at 64 KiB, LL128 at 1 MiB, Simple at 16 MiB and 256 MiB with the stated
// latencies and times; and the engine replay agreeing with the closed form on these uniform rings.
#include "../model/nccl_run_config.hpp"
#include <doctest/doctest.h>

#include "sim/core/error.hpp"
#include "sim/model/compare.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/topology_json.hpp"

using namespace ccsim;
using schedule::Op;
namespace nccl = model::nccl;
using nccl::Algo;
using nccl::Proto;

namespace {
nccl::Candidate choose(const nccl::Tables& tab, const nccl::Graph& g, Op op, int p, Bytes n) {
  const auto c = nccl::candidates(tab, g, op, p, n);
  REQUIRE_FALSE(c.empty());
  return *std::min_element(c.begin(), c.end(), [](const auto& a, const auto& b) { return a.time_us < b.time_us; });
}
metrics::Row run(const topology::Topology& t, const metrics::RunConfig& cfg, const std::string& mode, metrics::SizePlan plan,
                 const std::string& arch = "") {
  nccl::Options o;
  o.mode = nccl::algo_mode_from(mode);
  o.gpu_arch = arch;
  nccl::Builder b(t, o);
  return metrics::run(b, cfg, plan);
}
} // namespace

TEST_CASE("NCCL model reproduces the reference 3.7 DGX-1V example") {
  const auto topo = topology::resolve_topology("dgx1-v100");
  const auto& tab = nccl::load_tables();
  const auto cfg = test::packed_rings_config(topo);
  const auto g = nccl::make_graph(topo, tab, cfg.placements, "");
  CHECK(g.channels == 6);
  CHECK(g.bw == doctest::Approx(20.0));
  CHECK(g.arch == nccl::Arch::Volta);
  CHECK(g.path == nccl::Path::NvLink);
  CHECK(g.ll128);
  // Ring latencies and bandwidths of the example's first table.
  for (const auto& c : nccl::candidates(tab, g, Op::AllReduce, 8, 1 << 20)) {
    if (c.algo != Algo::Ring) continue;
    if (c.proto == Proto::LL) {
      CHECK(c.lat_us == doctest::Approx(15.0));
      CHECK(c.busbw == doctest::Approx(39.0));
      CHECK(c.algbw == doctest::Approx(22.29).epsilon(0.001));
    } else if (c.proto == Proto::LL128) {
      CHECK(c.lat_us == doctest::Approx(40.6));
      CHECK(c.busbw == doctest::Approx(110.4));
      CHECK(c.algbw == doctest::Approx(63.09).epsilon(0.001));
    } else {
      CHECK(c.lat_us == doctest::Approx(56.0));
      CHECK(c.busbw == doctest::Approx(120.0));
      CHECK(c.algbw == doctest::Approx(68.57).epsilon(0.001));
    }
  }
  struct Want {
    Bytes size;
    const char* proto;
    double time_us, busbw;
  } want[] = {{64 << 10, "LL", 17.9, 6.4}, {1 << 20, "LL128", 57.2, 32.0}, {16 << 20, "Simple", 301.0, 97.7},
              {256ULL << 20, "Simple", 3971.0, 118.3}};
  for (const auto& w : want) {
    CAPTURE(w.size);
    const auto c = choose(tab, g, Op::AllReduce, 8, w.size);
    CHECK(c.algo == Algo::Ring); // tree is evaluated too and loses at these sizes on one node
    CHECK(nccl::name(c.proto) == w.proto);
    CHECK(c.time_us == doctest::Approx(w.time_us).epsilon(0.005));
    const double busbw = static_cast<double>(w.size) / 1e3 / c.time_us * 2.0 * 7 / 8;
    CHECK(busbw == doctest::Approx(w.busbw).epsilon(0.01));
  }
  // Crossovers stated in the example: LL -> LL128 near 0.88 MB, LL128 -> Simple near 12.1 MB.
  CHECK(choose(tab, g, Op::AllReduce, 8, 800'000).proto == Proto::LL);
  CHECK(choose(tab, g, Op::AllReduce, 8, 960'000).proto == Proto::LL128);
  CHECK(choose(tab, g, Op::AllReduce, 8, 11'500'000).proto == Proto::LL128);
  CHECK(choose(tab, g, Op::AllReduce, 8, 12'700'000).proto == Proto::Simple);
}

TEST_CASE("engine replay of NCCL's choice matches the closed form on the DGX-1V's uniform rings") {
  const auto topo = topology::resolve_topology("dgx1-v100");
  const auto& tab = nccl::load_tables();
  const auto cfg = test::packed_rings_config(topo);
  const auto g = nccl::make_graph(topo, tab, cfg.placements, "");
  for (Bytes size : {Bytes{16} << 20, Bytes{256} << 20}) {
    CAPTURE(size);
    const auto r = run(topo, cfg, "auto", {size / 4, size});
    CHECK(r.choice.simulated);
    CHECK(r.choice.channels == 12); // 6 search channels on 2 CUDA channels each
    // Beyond NCCL's formula the replay charges the ring's un-overlapped last primitive (ring_local.hpp): per rank
    // size/8 written and read once more at the V100's 900 GB/s (the preset's SXM kind), 4.66 us at 16 MiB.
    const double last_primitive_us = 2.0 * static_cast<double>(size) / 8 / 900e3;
    CHECK(to_us(r.time) - last_primitive_us == doctest::Approx(choose(tab, g, Op::AllReduce, 8, size).time_us).epsilon(0.02));
  }
  // Small messages run on fewer channels (per-thread threshold) and are latency-bound.
  const auto small = run(topo, cfg, "auto", {16 << 10, 64 << 10});
  CHECK(small.choice.channels < 12);
  CHECK(to_us(small.time) > 15.0);
}

TEST_CASE("DGX-1 P100: no LL128 (sm60), 4 channels x 18 GB/s") {
  const auto topo = topology::resolve_topology("dgx1-p100");
  const auto& tab = nccl::load_tables();
  const auto g = nccl::make_graph(topo, tab, test::packed_rings_config(topo).placements, "");
  CHECK(g.arch == nccl::Arch::Pascal);
  CHECK_FALSE(g.ll128);
  CHECK(g.channels == 4);
  CHECK(g.bw == doctest::Approx(18.0));
  for (Bytes s : {Bytes{64} << 10, Bytes{1} << 20, Bytes{16} << 20}) CHECK(choose(tab, g, Op::AllReduce, 8, s).proto != Proto::LL128);
  // LL busBw = min(39, 0.5 * 72) = 36 (reference 3.7).
  for (const auto& c : nccl::candidates(tab, g, Op::AllReduce, 8, 1 << 20))
    if (c.algo == Algo::Ring && c.proto == Proto::LL) CHECK(c.busbw == doctest::Approx(36.0));
}

TEST_CASE("NCCL channel duplication: fast NVSwitch channels split in two, DGX-1's 20 GB/s lanes do not") {
  const auto& tab = nccl::load_tables();
  // HGX A100 (sm80): the search settles on 6 x 40 GB/s; bwIntra >= 25 doubles it to 12 x 20 (same total).
  const auto a100 = topology::resolve_topology("hgx-a100");
  const auto g = nccl::make_graph(a100, tab, test::packed_rings_config(a100).placements, "");
  CHECK(g.channels == 12);
  CHECK(g.bw == doctest::Approx(20.0));
  // The LL128 cap follows the doubled count: min(0.92 x 240, 12 x 20) = 220.8 GB/s.
  for (const auto& c : nccl::candidates(tab, g, Op::AllReduce, 8, 1 << 20))
    if (c.algo == Algo::Ring && c.proto == Proto::LL128) CHECK(c.busbw == doctest::Approx(220.8));
  // The same machine seen as Hopper (search speeds 60, 50, ...): 4 x 60 doubles to 8 x 30, as 60 >= 50.
  const auto h = nccl::make_graph(a100, tab, test::packed_rings_config(a100).placements, "hopper");
  CHECK(h.channels == 8);
  CHECK(h.bw == doctest::Approx(30.0));
  const auto dgx1 = topology::resolve_topology("dgx1-v100");
  CHECK(nccl::make_graph(dgx1, tab, test::packed_rings_config(dgx1).placements, "").channels == 6);
}

TEST_CASE("NCCL trees: a chain per node headed at the NIC GPU, the heads in a binary tree, tree 1 mirrored") {
  // Ring positions 0..5 over GPUs of nodes 0,0,0,1,1,1: node runs {0,1,2} and {3,4,5}, heads 2 and 5.
  const std::vector<int> ring{0, 1, 2, 3, 4, 5}, node_of_gpu{0, 0, 0, 1, 1, 1};
  CHECK(nccl::tree_parents(ring, node_of_gpu, 0) == std::vector<int>{1, 2, -1, 4, 5, 2});
  CHECK(nccl::tree_parents(ring, node_of_gpu, 1) == std::vector<int>{1, 2, 5, 4, 5, -1});
  // Four nodes of one GPU: tree 0 is 0 <- 2 <- {1, 3}; tree 1 its mirror 3 <- 1 <- {0, 2}.
  const std::vector<int> four{0, 1, 2, 3}, own{0, 1, 2, 3};
  CHECK(nccl::tree_parents(four, own, 0) == std::vector<int>{-1, 2, 0, 2});
  CHECK(nccl::tree_parents(four, own, 1) == std::vector<int>{1, 3, 1, -1});
}

TEST_CASE("NCCL tree replay across nodes moves half the ring's bytes over the NICs") {
  // 2 x HGX A100 with 4 x 100G NICs: a ring allreduce sends 2(p-1)/p of the data through each node's
  // NICs, the tree about once, so at 1 GiB the replayed tree beats the NIC-bound ring (busbw above the
  // 50 GB/s the NICs carry), while "auto" keeps NCCL's own pick and says nothing about overriding it.
  const auto topo = topology::resolve_topology("cluster:nodes=2,node=hgx-a100,nics=4x100G,kind=efa");
  auto cfg = test::packed_rings_config(topo);
  const metrics::SizePlan plan{Bytes{1} << 28, Bytes{1} << 30};
  const auto rr = run(topo, cfg, "ring", plan, "ampere"), tr = run(topo, cfg, "tree", plan, "ampere");
  CHECK(rr.choice.algo == "ring");
  CHECK(tr.choice.algo == "tree");
  CHECK(tr.choice.simulated);
  const double ring_busbw = metrics::bandwidths(Op::AllReduce, 16, plan.size, rr.time).busbw_GBps;
  const double tree_busbw = metrics::bandwidths(Op::AllReduce, 16, plan.size, tr.time).busbw_GBps;
  CHECK(ring_busbw <= 50.0 * 1.001);
  CHECK(tree_busbw > 60.0);
  const auto fr = run(topo, cfg, "fastest", plan, "ampere");
  CHECK(fr.choice.algo == "tree");
  CHECK(fr.time == tr.time);
  CHECK(run(topo, cfg, "auto", plan, "ampere").choice.note.empty());
  CHECK_THROWS_AS(nccl::algo_mode_from("bogus"), Error);
}
