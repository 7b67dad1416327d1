// How the engine matches sends to receives: sends parked before their receive (rendezvous) start in
// the order they were posted, per sender; eager messages that come early wait for their receive; a
// message nobody receives is reported.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/engine/engine.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/routing.hpp"

using namespace ccsim;
using namespace ccsim::engine;

namespace {

// Rank 1 is busy in step 0 (a large message from rank 2), so what ranks 0 and 3 send it in their step 0
// is posted before its receives: rank 3 sends 300 bytes, rank 0 sends 100 then 200. In step 1 rank 1
// receives from 0 (100 bytes expected, then 200) and from 3, unless `drop_last` leaves rank 0's second
// send unreceived.
class Parking final : public schedule::Schedule {
 public:
  explicit Parking(bool drop_last) : Schedule(args()), drop_last_(drop_last) {}
  bool step(int r, int s, std::vector<schedule::Action>& out) const override {
    out.clear();
    if (s > 1) return false;
    if (s == 0) {
      if (r == 0) schedule::send(out, 1, {0, 100}), schedule::send(out, 1, {0, 200});
      if (r == 3) schedule::send(out, 1, {0, 300});
      if (r == 2) schedule::send(out, 1, {0, 1'000'000});
      if (r == 1) schedule::recv(out, 2, {0, 1'000'000});
    } else if (r == 1) {
      schedule::recv(out, 0, {0, 100});
      if (!drop_last_) schedule::recv(out, 0, {0, 200});
      schedule::recv(out, 3, {0, 300});
    }
    return true;
  }

 private:
  static schedule::CollArgs args() {
    schedule::CollArgs a;
    a.ranks = 4;
    a.elt_size = 1;
    return a;
  }
  bool drop_last_;
};

struct Transfers final : Observer {
  std::vector<TransferRecord> seen;
  void on_transfer(const TransferRecord& t) override { seen.push_back(t); }
};

Time run(bool eager, bool drop_last, Transfers* obs = nullptr, Semantics semantics = Semantics::mpi) {
  auto topo = topology::make_crossbar(4, 10'000'000'000ULL, kPsPerUs);
  topology::Router router(topo);
  ModelParams mp;
  mp.eager = eager;
  mp.semantics = semantics;
  Engine eng(topo, router, mp, fifo_network());
  if (obs) eng.add_observer(obs);
  Parking sched(drop_last);
  Job job;
  job.schedule = &sched;
  job.elt_size = 1;
  for (int g = 0; g < 4; ++g) job.node_of_rank.push_back(topo.gpu_node(g));
  return eng.run(std::span<const Job>(&job, 1)).makespan;
}

} // namespace

TEST_CASE("parked sends start in post order once their receives are posted") {
  Transfers obs;
  run(false, false, &obs);
  REQUIRE(obs.seen.size() == 4);
  CHECK(obs.seen[0].src == 2); // the only send whose receive was posted at time 0
  std::vector<std::pair<int, Bytes>> later;
  for (std::size_t i = 1; i < 4; ++i) {
    CHECK(obs.seen[i].post == obs.seen[0].arrive); // all wait for rank 1's step 1
    later.emplace_back(obs.seen[i].src, obs.seen[i].bytes);
  }
  CHECK(later == std::vector<std::pair<int, Bytes>>{{0, 100}, {0, 200}, {3, 300}}); // receive order
}

TEST_CASE("eager messages that come early wait for their receive, and both modes end the same here") {
  Transfers obs;
  const Time eager = run(true, false, &obs);
  REQUIRE(obs.seen.size() == 4);
  for (const auto& t : obs.seen) CHECK(t.post == 0); // eager: every send starts when posted
  CHECK(eager <= run(false, false));
}

TEST_CASE("a message nobody receives is reported: its sender never finishes (rendezvous) or it is left over (eager)") {
  for (bool eager : {false, true}) {
    std::string what;
    try {
      run(eager, true);
    } catch (const Error& e) {
      what = e.what();
    }
    INFO(what);
    CHECK(what.find(eager ? "rank 1 is sent a message from rank 0 that it never receives"
                          : "job 0 rank 0 never finished step 0 (waiting for 1 message(s))") != std::string::npos);
  }
}

TEST_CASE("gpu semantics: sends within the credit window start when posted, and a message nobody receives is left over") {
  Transfers obs;
  run(false, false, &obs, Semantics::gpu);
  REQUIRE(obs.seen.size() == 4);
  for (const auto& t : obs.seen) CHECK(t.post == 0); // 1 or 2 messages per connection, window 8
  std::string what;
  try {
    run(false, true, nullptr, Semantics::gpu);
  } catch (const Error& e) {
    what = e.what();
  }
  CHECK(what.find("rank 1 is sent a message from rank 0 that it never receives") != std::string::npos);
}
