// The generated crossbar is kept as a formula until something reads its node or link list: the formula's
// answers must equal the lists', and the lists must be what the textbook crossbar is (written out here by hand).
#include <doctest/doctest.h>

#include <string>

#include "sim/engine/run_plan.hpp"
#include "sim/schedule/registry.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"

using namespace ccsim;
using namespace ccsim::topology;

namespace {
constexpr Bandwidth GB = 1'000'000'000;
} // namespace

TEST_CASE("implicit crossbar: the formula answers without building lists, and the lists it builds are the textbook crossbar") {
  const Topology t = make_crossbar(5, 10 * GB, 2 * kPsPerUs);
  REQUIRE(t.crossbar_formula() != nullptr);
  CHECK(t.num_gpus() == 5);
  CHECK(t.num_nodes() == 6);
  CHECK(t.num_channels() == 10);
  CHECK(t.gpu_node(3) == 3);
  CHECK(t.gpu_of_node(5) == -1);
  CHECK(t.channel_from(7) == 5); // channel 7: link 3 reversed, switch -> gpu3
  CHECK(t.channel_to(7) == 3);
  CHECK(t.channel_capacity(4) == 10 * GB);
  CHECK(t.channel_latency(4) == kPsPerUs); // half the end-to-end alpha per link
  CHECK(t.channel_name(6) == "gpu3->switch");
  CHECK(t.channel_name(9) == "switch->gpu4");
  CHECK(t.crossbar_formula() != nullptr); // none of the above built a list

  // A copy reads its lists; the original keeps its formula.
  const Topology u = t;
  REQUIRE(u.nodes.size() == 6);
  CHECK(u.crossbar_formula() == nullptr); // answers now come from the lists
  CHECK(t.crossbar_formula() != nullptr);
  for (int g = 0; g < 5; ++g) {
    const auto& n = u.nodes[static_cast<std::size_t>(g)];
    CHECK(n.name == "gpu" + std::to_string(g));
    CHECK(n.kind == NodeKind::Gpu);
    CHECK(n.gpu == g);
    const auto& l = u.links[static_cast<std::size_t>(g)];
    CHECK(l.a == g);
    CHECK(l.b == 5);
    CHECK(l.type == LinkType::Ideal);
    CHECK(l.bw == 10 * GB);
    CHECK(l.latency == kPsPerUs);
    CHECK(l.lanes == 1);
    CHECK(l.source == "generated");
  }
  CHECK(u.nodes[5].name == "switch");
  CHECK(u.nodes[5].kind == NodeKind::NetSwitch);
  CHECK(u.links.size() == 5);
  for (ChannelId c = 0; c < 10; ++c) {
    CHECK(u.channel_from(c) == t.channel_from(c));
    CHECK(u.channel_to(c) == t.channel_to(c));
    CHECK(u.channel_name(c) == t.channel_name(c));
    CHECK(u.channel_capacity(c) == t.channel_capacity(c));
  }
  CHECK(host_map(u).of_node == host_map(t).of_node);
  CHECK(host_map(t).count == 1);
}

TEST_CASE("implicit crossbar: adding a node builds the lists first, then appends") {
  Topology t = make_crossbar(3, 10 * GB, 2 * kPsPerUs);
  const int n = t.add_node("extra", NodeKind::Cpu);
  CHECK(n == 4);
  CHECK(t.crossbar_formula() == nullptr);
  CHECK(t.num_gpus() == 3);
  CHECK(t.nodes[3].name == "switch");
  CHECK(t.links.size() == 3);
  CHECK(t.find_node("gpu2") == 2);
}

TEST_CASE("implicit crossbar: routes and a run are the same on the formula and on the built lists") {
  const Topology t = make_crossbar(8, 10 * GB, 2 * kPsPerUs);
  Topology built = t;
  (void)built.links.size(); // build both lists: the router takes the list path
  (void)built.nodes.size();
  REQUIRE(built.crossbar_formula() == nullptr);
  Router rf(t), rb(built);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      const auto f = rf.route(a, b);
      const std::vector<ChannelId> fv(f.begin(), f.end());
      const auto l = rb.route(a, b);
      CHECK(fv == std::vector<ChannelId>(l.begin(), l.end()));
      if (a != b) CHECK(fv == std::vector<ChannelId>{2 * static_cast<ChannelId>(a), 2 * static_cast<ChannelId>(b) + 1});
    }
  // A binomial broadcast of 8 x 1 MB elements of 1 B: three rounds, each alpha (2 us) + 1 MB / 10 GB/s (100 us).
  auto run = [](const Topology& topo, Router& r) {
    engine::RunPlan plan;
    plan.topo = &topo;
    plan.router = &r;
    plan.network = &engine::fifo_network();
    schedule::CollArgs a;
    a.op = schedule::Op::Broadcast;
    a.ranks = 8;
    a.count = 1'000'000;
    a.elt_size = 1;
    const std::vector<int> gpus{0, 1, 2, 3, 4, 5, 6, 7};
    engine::add_job(plan, schedule::require_algorithm(a.op, "binomial").make(a), gpus, 1);
    return engine::execute(plan);
  };
  const auto ef = run(t, rf), eb = run(built, rb);
  CHECK(ef.time == 3 * (2 * kPsPerUs + 100 * kPsPerUs));
  CHECK(eb.time == ef.time);
  CHECK(ef.result.channels.bytes == eb.result.channels.bytes);
  CHECK(ef.result.channels.busy == eb.result.channels.busy);
  REQUIRE(ef.result.channels.bytes.size() == 16);
  CHECK(ef.result.channels.bytes[0] == 3'000'000); // the root sends three times up its link
  CHECK(ef.result.channels.bytes[1] == 0);         // and receives nothing
}
