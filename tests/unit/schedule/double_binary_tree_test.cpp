#include <doctest/doctest.h>
#include <map>

#include "algo_check.hpp"
#include "sim/schedule/algorithms/double_binary_tree.hpp"

using namespace algo_check;
using ccsim::schedule::Op;

TEST_CASE("double_binary_tree allreduce is correct for every p up to 17, any segment") {
  for (int p = 1; p <= 17; ++p)
    for (std::uint64_t count : {std::uint64_t{0}, std::uint64_t{1}, static_cast<std::uint64_t>(p / 2),
                                3 * static_cast<std::uint64_t>(p) + 2})
      for (std::uint64_t seg : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{0}})
        for (auto red : kRedOps) {
          auto a = args(Op::AllReduce, p, count);
          a.segment = seg;
          INFO("p " << p << " count " << count << " segment " << seg);
          CHECK(check(a, "double_binary_tree", red) == "");
        }
}

TEST_CASE("double_binary_tree: each rank is interior in at most one tree, one send and one receive per tick") {
  for (int p = 2; p <= 33; ++p) {
    auto a = args(Op::AllReduce, p, 1000);
    a.segment = 7;
    const ccsim::schedule::DbtStructure st(a);
    std::vector<int> interior(static_cast<std::size_t>(p) * 2, 0);
    for (const auto& e : st.edges()) interior[static_cast<std::size_t>(e.parent) * 2 + static_cast<std::size_t>(e.tree)] = 1;
    for (int r = 0; r < p; ++r) CHECK(interior[static_cast<std::size_t>(r) * 2] + interior[static_cast<std::size_t>(r) * 2 + 1] <= 1);
    CHECK(st.edges().size() == static_cast<std::size_t>(2 * (p - 1))); // two spanning trees
    std::vector<std::vector<int>> sends(static_cast<std::size_t>(st.ticks()), std::vector<int>(static_cast<std::size_t>(p), 0));
    auto recvs = sends;
    for (const auto& e : st.edges())
      for (std::uint64_t j = 0; j < st.segments(e.tree); ++j) {
        ++sends[static_cast<std::size_t>(st.up_tick(e, j))][static_cast<std::size_t>(e.child)];
        ++recvs[static_cast<std::size_t>(st.up_tick(e, j))][static_cast<std::size_t>(e.parent)];
        ++sends[static_cast<std::size_t>(st.down_tick(e, j))][static_cast<std::size_t>(e.parent)];
        ++recvs[static_cast<std::size_t>(st.down_tick(e, j))][static_cast<std::size_t>(e.child)];
      }
    for (std::size_t t = 0; t < sends.size(); ++t)
      for (int r = 0; r < p; ++r) {
        INFO("p " << p << " tick " << t << " rank " << r);
        CHECK(sends[t][static_cast<std::size_t>(r)] <= 1);
        CHECK(recvs[t][static_cast<std::size_t>(r)] <= 1);
      }
  }
}

// The formula is the longest chain through the tick plan (sim/cost/double_binary_tree_formulas.cpp):
// exact for every p, segment and machine, with and without reduction cost.
TEST_CASE("double_binary_tree: engine time equals the formula exactly") {
  for (int p : {2, 3, 4, 5, 7, 8, 13, 16})
    for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t{8}, std::uint64_t{20001}, std::uint64_t{65537}})
      for (std::uint64_t seg : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1000}, std::uint64_t{0}})
        for (const auto& m : machines()) {
          auto a = args(Op::AllReduce, p, count);
          a.segment = seg;
          if (seg == 1 && count > 1000) continue; // 20k-segment chains: covered by seg = 7
          INFO("p " << p << " count " << count << " segment " << seg << " reduce_bw " << m.reduce_bw);
          CHECK(simulate(a, "double_binary_tree", m) == predict(a, "double_binary_tree", m));
        }
}

// Which chain is longest depends on the numbers: a slow reduction favours chains through more
// reducing ticks. The formula keeps each such chain as an alternative and takes the longest.
TEST_CASE("double_binary_tree: the critical chain changes with gamma, and the formula follows it") {
  auto a = args(Op::AllReduce, 7, 20001);
  a.segment = 1000;
  const auto f = *ccsim::cost::formula_for(Op::AllReduce, "double_binary_tree", a, a.elt_size);
  REQUIRE(!f.alternatives.empty());
  const ccsim::cost::Params no_gamma{1'234'566, 23'700'000'000, 0}, slow_gamma{1'234'566, 23'700'000'000, 2'000'000'000};
  CHECK(&ccsim::cost::critical_path(f, no_gamma) != &ccsim::cost::critical_path(f, slow_gamma));
  for (const auto& c : {no_gamma, slow_gamma}) {
    const Machine m{c.alpha, c.bw, c.reduce_bw};
    CHECK(simulate(a, "double_binary_tree", m) == ccsim::cost::evaluate(f, c));
  }
}

TEST_CASE("double_binary_tree on one rank has no steps") {
  CHECK(steps_of_rank0(args(Op::AllReduce, 1, 9), "double_binary_tree") == 0);
}

TEST_CASE("double_binary_tree at p = 2 by hand: the p = 2 ring, 2(a + (n/2)b) + (n/2)g") {
  // p = 2: tree 0 is 1 -> 0, tree 1 (the mirror) is 0 -> 1, each carrying one half (one segment here).
  // Both halves go up at once (each rank sends one, receives and reduces one), then both results come
  // back at once: two half-vector messages on the critical path and one half-vector reduction.
  // 25 GB/s is 40 ps per byte and 50 GB/s 20 ps, so each term is exact in picoseconds.
  const Machine m{1'234'566, 25'000'000'000, 50'000'000'000};
  auto a = args(Op::AllReduce, 2, 1000);
  a.segment = 500;
  const ccsim::Time h = 500 * 4;
  CHECK(simulate(a, "double_binary_tree", m) == 2 * m.alpha + 2 * 40 * h + 20 * h);
}

// The schedule keeps each rank's last step to find the next one fast; the steps must not depend on the
// order they are asked in. Expected: the tick plan itself, each rank's step s = its s-th tick with any
// edge active, holding one action per edge and direction active then (counted from DbtStructure).
TEST_CASE("double_binary_tree: steps asked backwards, in order or repeated match the tick plan") {
  for (int p : {2, 3, 5, 8, 13}) {
    auto a = args(Op::AllReduce, p, 97);
    a.segment = 5;
    const ccsim::schedule::DbtStructure st(a);
    auto s = ccsim::schedule::require_algorithm(Op::AllReduce, "double_binary_tree").make(a);
    for (int r = 0; r < p; ++r) {
      std::map<long, std::size_t> actions_at; // tick -> actions of rank r
      for (int id : st.edges_of(r)) {
        const auto& e = st.edges()[static_cast<std::size_t>(id)];
        for (std::uint64_t j = 0; j < st.segments(e.tree); ++j) ++actions_at[st.up_tick(e, j)], ++actions_at[st.down_tick(e, j)];
      }
      std::vector<std::size_t> want;
      for (const auto& [t, n] : actions_at) want.push_back(n);
      const int steps = static_cast<int>(want.size());
      std::vector<ccsim::schedule::Action> out;
      INFO("p " << p << " rank " << r);
      CHECK_FALSE(s->step(r, steps, out));
      for (int k = steps - 1; k >= 0; --k) { // backwards: every call searches
        REQUIRE(s->step(r, k, out));
        CHECK(out.size() == want[static_cast<std::size_t>(k)]);
      }
      for (int k = 0; k < steps; ++k) { // in order, each step twice
        for (int twice = 0; twice < 2; ++twice) {
          REQUIRE(s->step(r, k, out));
          CHECK(out.size() == want[static_cast<std::size_t>(k)]);
        }
      }
      CHECK_FALSE(s->step(r, steps, out));
    }
  }
}
