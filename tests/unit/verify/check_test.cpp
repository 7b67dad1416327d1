// The oracle shown wrong schedules: every "schedule is correct" test trusts verify::check, so each kind of
// mistake an algorithm can make must be rejected, with a message that says where.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/schedule/schedule.hpp"
#include "sim/verify/execute.hpp"

using namespace ccsim;
using schedule::Action;
using schedule::Op;
using verify::RedOp;

namespace {

// A schedule written out by hand: steps[rank][step] is that step's actions.
class HandSchedule : public schedule::Schedule {
 public:
  HandSchedule(schedule::CollArgs a, std::vector<std::vector<std::vector<Action>>> steps)
      : Schedule(std::move(a)), steps_(std::move(steps)) {}
  bool step(int rank, int s, std::vector<Action>& out) const override {
    const auto& mine = steps_.at(static_cast<std::size_t>(rank));
    if (s >= static_cast<int>(mine.size())) return false;
    out = mine[static_cast<std::size_t>(s)];
    return true;
  }

 private:
  std::vector<std::vector<std::vector<Action>>> steps_;
};

schedule::CollArgs args(Op op, int p, std::uint64_t count, int root = 0) {
  schedule::CollArgs a;
  a.op = op;
  a.ranks = p;
  a.count = count;
  a.root = root;
  return a;
}

Action send(int peer, std::uint64_t off, std::uint64_t len) { return {Action::Kind::Send, peer, off, len, 0}; }
Action recv(int peer, std::uint64_t off, std::uint64_t len) { return {Action::Kind::Recv, peer, off, len, 0}; }
Action reduce(int peer, std::uint64_t off, std::uint64_t len) { return {Action::Kind::RecvReduce, peer, off, len, 0}; }

// check() either returns a difference or throws Error for a schedule that cannot run; both are rejections.
std::string verdict(const schedule::Schedule& s, RedOp op) {
  try {
    return verify::check(s, op);
  } catch (const Error& e) {
    return e.what();
  }
}

// A correct 3-rank allgather, count 2: every rank sends its own block [2r, 2r+2) to both others in one step.
std::vector<std::vector<std::vector<Action>>> allgather3() {
  std::vector<std::vector<std::vector<Action>>> st(3);
  for (int r = 0; r < 3; ++r) {
    std::vector<Action> step;
    for (int q = 0; q < 3; ++q)
      if (q != r) {
        step.push_back(send(q, 2 * static_cast<std::uint64_t>(r), 2));
        step.push_back(recv(q, 2 * static_cast<std::uint64_t>(q), 2));
      }
    st[static_cast<std::size_t>(r)] = {step};
  }
  return st;
}

// A correct 3-rank allreduce of 1 element: ranks 1 and 2 reduce into rank 0, which sends the result back.
std::vector<std::vector<std::vector<Action>>> allreduce3() {
  return {{{reduce(1, 0, 1), reduce(2, 0, 1)}, {send(1, 0, 1), send(2, 0, 1)}},
          {{send(0, 0, 1)}, {recv(0, 0, 1)}},
          {{send(0, 0, 1)}, {recv(0, 0, 1)}}};
}

} // namespace

TEST_CASE("verify::check accepts hand-written correct schedules (the wrong ones below differ in one action)") {
  for (auto red : {RedOp::Sum, RedOp::Prod, RedOp::Min, RedOp::Max}) {
    CHECK(verdict(HandSchedule(args(Op::AllGather, 3, 2), allgather3()), red) == "");
    CHECK(verdict(HandSchedule(args(Op::AllReduce, 3, 1), allreduce3()), red) == "");
  }
  // Reduce to root 1 over 2 ranks, and broadcast from root 1.
  CHECK(verdict(HandSchedule(args(Op::Reduce, 2, 3, 1), {{{send(1, 0, 3)}}, {{reduce(0, 0, 3)}}}), RedOp::Sum) == "");
  CHECK(verdict(HandSchedule(args(Op::Broadcast, 2, 3, 1), {{{recv(1, 0, 3)}}, {{send(0, 0, 3)}}}), RedOp::Sum) == "");
}

TEST_CASE("verify::check rejects a missing block and names the rank and element") {
  auto st = allgather3();
  // Rank 2 never sends its block to rank 0 (and rank 0 never waits for it).
  std::erase_if(st[2][0], [](const Action& a) { return a.kind == Action::Kind::Send && a.peer == 0; });
  std::erase_if(st[0][0], [](const Action& a) { return a.kind == Action::Kind::Recv && a.peer == 2; });
  const auto msg = verdict(HandSchedule(args(Op::AllGather, 3, 2), st), RedOp::Sum);
  CHECK(msg == "allgather p=3 count=2: rank 0 element 4 is -7777777, expected 2535");
}

TEST_CASE("verify::check rejects a double reduction under sum and prod") {
  // Rank 1's contribution reaches rank 0 twice, rank 2's never.
  auto swapped = allreduce3();
  swapped[0][0] = {reduce(1, 0, 1), reduce(1, 0, 1)};
  swapped[1][0] = {send(0, 0, 1), send(0, 0, 1)};
  swapped[2] = {{}, {recv(0, 0, 1)}};
  // Every contribution arrives, and rank 1's arrives a second time in an extra step.
  auto twice = allreduce3();
  twice[0].insert(twice[0].begin() + 1, std::vector<Action>{reduce(1, 0, 1)});
  twice[1].insert(twice[1].begin() + 1, std::vector<Action>{send(0, 0, 1)});
  for (auto red : {RedOp::Sum, RedOp::Prod}) {
    CAPTURE(static_cast<int>(red));
    CHECK(verdict(HandSchedule(args(Op::AllReduce, 3, 1), swapped), red).find("allreduce p=3 count=1: rank 0 element 0 is") == 0);
    CHECK(verdict(HandSchedule(args(Op::AllReduce, 3, 1), twice), red).find("allreduce p=3 count=1: rank 0 element 0 is") == 0);
  }
}

TEST_CASE("verify::check rejects a reduction to the wrong root and a broadcast from the wrong root") {
  // Args say root 1; the schedule reduces into rank 0.
  const auto msg = verdict(HandSchedule(args(Op::Reduce, 2, 3, 1), {{{reduce(1, 0, 3)}}, {{send(0, 0, 3)}}}), RedOp::Sum);
  CHECK(msg.find("reduce p=2 count=3: rank 1 element 0 is") == 0);
  // Args say root 1; the schedule broadcasts rank 0's buffer, which holds no input.
  const auto b = verdict(HandSchedule(args(Op::Broadcast, 2, 3, 1), {{{send(1, 0, 3)}}, {{recv(0, 0, 3)}}}), RedOp::Sum);
  CHECK(b.find("broadcast p=2 count=3: rank 0 element 0 is -7777777") == 0);
}

TEST_CASE("verify::check rejects a send to the wrong peer, whichever way it fails") {
  // Rank 2 sends its block to rank 1 instead of rank 0: rank 1 receives one message more than it posts.
  auto st = allgather3();
  for (auto& a : st[2][0])
    if (a.kind == Action::Kind::Send && a.peer == 0) a.peer = 1;
  auto msg = verdict(HandSchedule(args(Op::AllGather, 3, 2), st), RedOp::Sum);
  CHECK(msg == "schedule deadlock: rank 0 stuck at step 0");
  // Same, but rank 0 also stops waiting for it: the extra message is left on the wire.
  std::erase_if(st[0][0], [](const Action& a) { return a.kind == Action::Kind::Recv && a.peer == 2; });
  msg = verdict(HandSchedule(args(Op::AllGather, 3, 2), st), RedOp::Sum);
  CHECK(msg == "schedule error: 1 message(s) from rank 2 to rank 1 never received");
  // A send to a rank that does not exist, or to itself.
  CHECK(verdict(HandSchedule(args(Op::Broadcast, 2, 1), {{{send(2, 0, 1)}}, {{}}}), RedOp::Sum) ==
        "schedule error: rank 0 sends to rank 2");
  CHECK(verdict(HandSchedule(args(Op::Broadcast, 2, 1), {{{send(0, 0, 1)}}, {{}}}), RedOp::Sum) ==
        "schedule error: rank 0 sends to rank 0");
}

TEST_CASE("verify::check rejects a receive from a rank that does not exist") {
  CHECK(verdict(HandSchedule(args(Op::Broadcast, 2, 1), {{{}}, {{recv(-1, 0, 1)}}}), RedOp::Sum) ==
        "schedule error: rank 1 receives from rank -1");
  CHECK(verdict(HandSchedule(args(Op::Broadcast, 2, 1), {{{}}, {{recv(1, 0, 1)}}}), RedOp::Sum) ==
        "schedule error: rank 1 receives from rank 1");
}

TEST_CASE("verify::check rejects a wrong offset, a wrong length and a range past the buffer") {
  // Rank 1 stores rank 0's block one element too far right (inside the buffer).
  auto st = allgather3();
  for (auto& a : st[1][0])
    if (a.kind == Action::Kind::Recv && a.peer == 0) a.off = 1;
  CHECK(verdict(HandSchedule(args(Op::AllGather, 3, 2), st), RedOp::Sum).find("allgather p=3 count=2: rank 1 element") == 0);
  // Rank 1 receives 1 element where rank 0 sent 2.
  st = allgather3();
  for (auto& a : st[1][0])
    if (a.kind == Action::Kind::Recv && a.peer == 0) a.len = 1;
  CHECK(verdict(HandSchedule(args(Op::AllGather, 3, 2), st), RedOp::Sum) ==
        "schedule error: rank 1 step 0 receives 1 elements from rank 0, which sent 2");
  // Rank 2 sends from past its buffer of 6 elements.
  st = allgather3();
  st[2][0][0].off = 5;
  CHECK(verdict(HandSchedule(args(Op::AllGather, 3, 2), st), RedOp::Sum) ==
        "schedule error: rank 2 step 0 touches [5, 7) beyond its buffer of 6 elements");
}

TEST_CASE("verify::check under min and max rejects a missing contribution from any rank, not only the extreme one") {
  // Allreduce of 3 elements over 3 ranks through rank 0, where rank `skipped`'s vector is never reduced
  // in. With count >= p each rank holds the extreme of some element, so every omission shows.
  for (int skipped : {1, 2}) {
    std::vector<Action> gather, bcast;
    for (int q = 1; q < 3; ++q) {
      if (q != skipped) gather.push_back(reduce(q, 0, 3));
      bcast.push_back(send(q, 0, 3));
    }
    std::vector<std::vector<std::vector<Action>>> st = {{gather, bcast}, {}, {}};
    for (int q = 1; q < 3; ++q)
      st[static_cast<std::size_t>(q)] = {q == skipped ? std::vector<Action>{} : std::vector{send(0, 0, 3)}, {recv(0, 0, 3)}};
    for (auto red : {RedOp::Sum, RedOp::Prod, RedOp::Min, RedOp::Max}) {
      CAPTURE(skipped);
      CAPTURE(static_cast<int>(red));
      CHECK(verdict(HandSchedule(args(Op::AllReduce, 3, 3), st), red).find("allreduce p=3 count=3: rank 0 element") == 0);
    }
  }
}
