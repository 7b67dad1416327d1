// The parameter-server schedules leave every rank with the sum of all gradients (an allreduce), checked
// on integer data by the executor; and the shipped scenario files all load and cite their sources.
#include <doctest/doctest.h>

#include <filesystem>

#include "sim/core/data_dir.hpp"
#include "sim/scenario/ps_schedule.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/verify/execute.hpp"

using namespace ccsim;

TEST_CASE("parameter-server push + pull is an allreduce: central server on any rank, and sharded") {
  for (int p : {2, 3, 5, 8})
    for (std::uint64_t count : {1ULL, 7ULL, 64ULL}) {
      schedule::CollArgs a;
      a.ranks = p;
      a.count = count;
      CAPTURE(p);
      CAPTURE(count);
      for (int root : {0, p - 1}) { // GPU0 serves, or the extra CPU rank (the last one) serves
        a.root = root;
        CHECK(verify::check(*scenario::make_ps_central(a), verify::RedOp::Sum) == "");
      }
      CHECK(verify::check(*scenario::make_ps_sharded(a), verify::RedOp::Sum) == "");
    }
}

TEST_CASE("every shipped scenario loads, has compute times, and names its sources") {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(ccsim::data_dir() + "/scenarios")) {
    if (e.path().extension() != ".json") continue;
    CAPTURE(e.path().string());
    const auto s = scenario::load_scenario_file(e.path().string());
    if (s.hybrid) { // a hybrid-parallel step: compute comes from the transformer's shapes
      CHECK(scenario::total_params(s.hybrid->model) > 0);
      CHECK(s.hybrid->par.world() > 1);
    } else {
      CHECK(s.total_params() > 0);
      CHECK(s.forward_time() > 0);
      CHECK(s.backward_time() > s.forward_time());
    }
    CHECK(s.sources.size() >= 3);
    ++n;
  }
  CHECK(n >= 4);
}
