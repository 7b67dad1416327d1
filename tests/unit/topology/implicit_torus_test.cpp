// The generated torus is kept as a formula until something reads its node or link list: its answers and
// routes must equal those of the built lists, the lists must be what make_torus listed (the loop it used
// is written out here again), and a few routes are worked out by hand.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/engine/run_plan.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {
constexpr Bandwidth GB = 1'000'000'000;

// make_torus's former loop: for each GPU, for each dimension, the link to the + neighbour; none for an
// extent of 1, one per pair for an extent of 2 (from coordinate 0).
std::vector<std::pair<int, int>> listed_links(const std::vector<int>& dims) {
  long total = 1;
  for (int d : dims) total *= d;
  std::vector<long> stride(dims.size());
  long s = 1;
  for (std::size_t d = dims.size(); d-- > 0;) stride[d] = s, s *= dims[d];
  std::vector<std::pair<int, int>> out;
  for (long i = 0; i < total; ++i)
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const long n = dims[d], c = (i / stride[d]) % n;
      if (n == 1 || (n == 2 && c == 1)) continue;
      out.emplace_back(static_cast<int>(i), static_cast<int>(i + (((c + 1) % n) - c) * stride[d]));
    }
  return out;
}

std::vector<ChannelId> route_of(Router& r, int a, int b) {
  const auto s = r.route(a, b);
  return {s.begin(), s.end()};
}

Topology built_copy(const Topology& t) {
  Topology u = t;
  (void)u.nodes.size(); // build both lists: every answer now comes from them, and the router takes its table
  (void)u.links.size();
  return u;
}
} // namespace

TEST_CASE("implicit torus: a 3x3 torus answers from the formula, and its lists are make_torus's") {
  const Topology t = make_torus({3, 3}, 10 * GB, kPsPerUs);
  REQUIRE(t.torus_formula() != nullptr);
  CHECK(t.num_gpus() == 9);
  CHECK(t.num_nodes() == 9);
  CHECK(t.num_links() == 18); // each GPU owns a link down (dim 0) and right (dim 1)
  CHECK(t.gpu_node(7) == 7);
  CHECK(t.gpu_of_node(8) == 8);
  // Link 5 is GPU 2's link in dimension 1: the wrap from (0,2) to (0,0); link 14 GPU 7's down, (2,1) -> (0,1).
  CHECK(t.channel_from(10) == 2);
  CHECK(t.channel_to(10) == 0);
  CHECK(t.channel_from(11) == 0);
  CHECK(t.channel_to(11) == 2);
  CHECK(t.channel_name(28) == "gpu7->gpu1");
  CHECK(t.channel_name(29) == "gpu1->gpu7");
  CHECK(t.channel_capacity(17) == 10 * GB);
  CHECK(t.channel_latency(17) == kPsPerUs);
  CHECK(host_map(t).count == 1);
  CHECK(t.torus_formula() != nullptr); // none of the above built a list

  const Topology u = built_copy(t);
  CHECK(u.torus_formula() == nullptr);
  CHECK(t.torus_formula() != nullptr);
  REQUIRE(u.nodes.size() == 9);
  for (int g = 0; g < 9; ++g) {
    CHECK(u.nodes[static_cast<std::size_t>(g)].name == "gpu" + std::to_string(g));
    CHECK(u.nodes[static_cast<std::size_t>(g)].kind == NodeKind::Gpu);
    CHECK(u.nodes[static_cast<std::size_t>(g)].gpu == g);
  }
  const auto expected = listed_links({3, 3});
  REQUIRE(u.links.size() == expected.size());
  for (std::size_t l = 0; l < expected.size(); ++l) {
    CHECK(u.links[l].a == expected[l].first);
    CHECK(u.links[l].b == expected[l].second);
    CHECK(u.links[l].type == LinkType::Ideal);
    CHECK(u.links[l].bw == 10 * GB);
    CHECK(u.links[l].latency == kPsPerUs);
    CHECK(u.links[l].lanes == 1);
    CHECK(u.links[l].source == "generated");
  }
  CHECK(host_map(u).of_node == host_map(t).of_node);

  // 0 -> 8, i.e. (0,0) -> (2,2): the last dimension first, each the short way round: left over the wrap
  // (link 5 backwards, channel 11), then up over the wrap (GPU 8's link 16 to GPU 2, backwards: 33).
  Router rf(t), rb(u);
  CHECK(route_of(rf, 0, 8) == std::vector<ChannelId>{11, 33});
  CHECK(route_of(rb, 0, 8) == std::vector<ChannelId>{11, 33});
  // 4 -> 5, (1,1) -> (1,2): one step right on GPU 4's own link 9.
  CHECK(route_of(rf, 4, 5) == std::vector<ChannelId>{18});
  CHECK(route_of(rf, 4, 5) == std::vector<ChannelId>{18}); // again, from the cache
  CHECK(route_of(rf, 3, 3).empty());
  const RouteInfo ri = rf.info(rf.route(0, 8));
  CHECK(ri.hops == 2);
  CHECK(ri.latency == 2 * kPsPerUs);
  CHECK(ri.bottleneck == 10 * GB);
}

TEST_CASE("implicit torus: 4x2x2 with extent-2 pairs, wrap-around and a tie going the + way") {
  const Topology t = make_torus({4, 2, 2}, 10 * GB, kPsPerUs);
  REQUIRE(t.torus_formula() != nullptr);
  // 16 links in dimension 0, 8 in each extent-2 dimension (one per pair).
  CHECK(t.num_links() == 32);
  // GPU 12 = (3,0,0) owns links 24 (to GPU 0, the wrap), 25 (to 14) and 26 (to 13); GPU 13 owns 27 and 28.
  CHECK(t.channel_from(48) == 12);
  CHECK(t.channel_to(48) == 0);
  CHECK(t.channel_to(50) == 14);
  CHECK(t.channel_to(52) == 13);
  CHECK(t.channel_from(54) == 13);
  CHECK(t.channel_to(54) == 1);
  CHECK(t.channel_to(56) == 15);
  CHECK(t.channel_name(63) == "gpu3->gpu15"); // link 31, GPU 15's only one, backwards
  Router rf(t);
  // 0 -> 8, (0,0,0) -> (2,0,0): two steps either way round; the tie goes + (links 0 and 8).
  CHECK(route_of(rf, 0, 8) == std::vector<ChannelId>{0, 16});
  // 15 -> 0: dimension 2 (GPU 14's link 30, backwards), dimension 1 (GPU 12's link 25, backwards), then
  // the wrap of dimension 0 (GPU 12's link 24, forwards).
  CHECK(route_of(rf, 15, 0) == std::vector<ChannelId>{61, 51, 48});
  // 1 -> 12, (0,0,1) -> (3,0,0): dimension 2 back to GPU 0 on its link 2, then dimension 0 the short way,
  // backwards over the wrap link 24.
  CHECK(route_of(rf, 1, 12) == std::vector<ChannelId>{5, 49});
  CHECK(t.torus_formula() != nullptr);

  const Topology u = built_copy(t);
  const auto expected = listed_links({4, 2, 2});
  REQUIRE(u.links.size() == expected.size());
  for (std::size_t l = 0; l < expected.size(); ++l) {
    CHECK(u.links[l].a == expected[l].first);
    CHECK(u.links[l].b == expected[l].second);
  }
}

TEST_CASE("implicit torus: every route, channel and link equals the built lists' on assorted shapes") {
  const std::vector<std::vector<int>> shapes{{3, 3}, {4, 2, 2}, {2, 2}, {5}, {1, 4}, {2, 3, 2}, {1}, {4, 4, 4}, {2}, {3, 1, 2}};
  for (const auto& dims : shapes) {
    const Topology t = make_torus(dims, 10 * GB, kPsPerUs);
    const Topology u = built_copy(t);
    REQUIRE(t.torus_formula() != nullptr);
    REQUIRE(u.torus_formula() == nullptr);
    INFO("torus " << t.name);
    CHECK(t.num_gpus() == u.num_gpus());
    CHECK(t.num_nodes() == u.num_nodes());
    CHECK(t.num_links() == u.num_links());
    CHECK(u.num_links() == listed_links(dims).size());
    for (ChannelId c = 0; c < t.num_channels(); ++c) {
      CHECK(t.channel_from(c) == u.channel_from(c));
      CHECK(t.channel_to(c) == u.channel_to(c));
      CHECK(t.channel_name(c) == u.channel_name(c));
      CHECK(t.channel_capacity(c) == u.channel_capacity(c));
      CHECK(t.channel_latency(c) == u.channel_latency(c));
    }
    CHECK(host_map(t).of_node == host_map(u).of_node);
    CHECK(host_map(t).count == host_map(u).count);
    Router rf(t), rb(u);
    for (int a = 0; a < t.num_gpus(); ++a)
      for (int b = 0; b < t.num_gpus(); ++b) {
        const auto f = route_of(rf, a, b);
        CHECK(f == route_of(rb, a, b));
        // The route is a walk from a to b over neighbour links.
        int at = a;
        for (ChannelId c : f) {
          CHECK(u.channel_from(c) == at);
          at = u.channel_to(c);
        }
        CHECK(at == b);
      }
    CHECK(t.torus_formula() != nullptr);
  }
}

TEST_CASE("implicit torus: a run is the same on the formula and on the built lists, and builds no list") {
  const Topology t = make_torus({4, 4}, 10 * GB, kPsPerUs);
  const Topology u = built_copy(t);
  Router rf(t), rb(u);
  auto run = [](const Topology& topo, Router& r, schedule::Op op, const char* algo) {
    engine::RunPlan plan;
    plan.topo = &topo;
    plan.router = &r;
    plan.network = &engine::fifo_network();
    schedule::CollArgs a;
    a.op = op;
    a.ranks = 16;
    a.count = 1'000'000;
    a.elt_size = 1;
    std::vector<int> gpus(16);
    for (int g = 0; g < 16; ++g) gpus[static_cast<std::size_t>(g)] = g;
    engine::add_job(plan, schedule::require_algorithm(a.op, algo).make(a), gpus, 1);
    return engine::execute(plan);
  };
  const auto ef = run(t, rf, schedule::Op::Broadcast, "binomial"), eb = run(u, rb, schedule::Op::Broadcast, "binomial");
  // Rounds of 8, 4, 2, 1 ranks apart on a ring of 16 laid over rows of 4: 8 apart is (2,0), two hops down
  // (tie: + way); 4 apart one hop down; 2 apart two hops right; 1 apart one hop right. Each round pays its
  // hops' latency and 1 MB / 10 GB/s = 100 us once (cut-through): 6 us + 400 us in all.
  CHECK(ef.time == 6 * kPsPerUs + 4 * 100 * kPsPerUs);
  CHECK(eb.time == ef.time);
  CHECK(ef.result.channels.bytes == eb.result.channels.bytes);
  CHECK(ef.result.channels.busy == eb.result.channels.busy);
  const auto hf = run(t, rf, schedule::Op::AllReduce, "halving_doubling"), hb = run(u, rb, schedule::Op::AllReduce, "halving_doubling");
  CHECK(hf.time == hb.time);
  CHECK(hf.result.channels.bytes == hb.result.channels.bytes);
  CHECK(t.torus_formula() != nullptr); // the runs read no list
}
