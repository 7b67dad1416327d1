// The 4-rank examples of MindSpore's collective documentation, on hand-built buffers, for every
// algorithm of each op (the existing ring ones included).
#include "crossbar_run.hpp"

using namespace ccsim;
using namespace ccsim::testing;
using schedule::Op;

namespace {
constexpr std::int64_t kJunk = -99; // where a rank holds no input

verify::Buffers run(Op op, const std::string& algo, verify::Buffers b, std::uint64_t count, int root = 0) {
  const auto s = schedule::require_algorithm(op, algo).make(args_of(op, 4, count, root));
  for (auto& rank : b) rank.resize(s->buffer_elems(), kJunk);
  verify::execute(*s, b, verify::RedOp::Sum);
  return b;
}

std::vector<std::string> algos_for(Op op) {
  std::vector<std::string> names;
  for (const auto& a : schedule::all_algorithms())
    if (a.op == op) names.push_back(a.name);
  return names;
}
} // namespace

TEST_CASE("MindSpore AllReduce(sum) of [[rank]] gives [[6]] on every rank") {
  for (const auto& algo : algos_for(Op::AllReduce)) {
    const auto out = run(Op::AllReduce, algo, {{0}, {1}, {2}, {3}}, 1);
    for (int r = 0; r < 4; ++r) CHECK_MESSAGE(out[static_cast<std::size_t>(r)][0] == 6, algo, " rank ", r);
  }
}

TEST_CASE("MindSpore AllGather of [[rank]] gives [[0],[1],[2],[3]] on every rank") {
  for (const auto& algo : algos_for(Op::AllGather)) {
    // Rank r's input sits in its own slot of the output buffer.
    verify::Buffers in(4, std::vector<std::int64_t>(4, kJunk));
    for (int r = 0; r < 4; ++r) in[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] = r;
    const auto out = run(Op::AllGather, algo, in, 1);
    for (int r = 0; r < 4; ++r)
      CHECK_MESSAGE((std::vector<std::int64_t>(out[static_cast<std::size_t>(r)].begin(), out[static_cast<std::size_t>(r)].begin() + 4) ==
                     std::vector<std::int64_t>{0, 1, 2, 3}),
                    algo, " rank ", r);
  }
}

TEST_CASE("MindSpore ReduceScatter(sum) of [[0],[1],[2],[3]] on every rank gives rank r [[4r]]") {
  for (const auto& algo : algos_for(Op::ReduceScatter)) {
    const auto out = run(Op::ReduceScatter, algo, verify::Buffers(4, {0, 1, 2, 3}), 1);
    for (int r = 0; r < 4; ++r)
      CHECK_MESSAGE(out[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] == 4 * r, algo, " rank ", r);
  }
}

TEST_CASE("MindSpore Broadcast from rank 0 of [[0]] gives [[0]] on every rank") {
  for (const auto& algo : algos_for(Op::Broadcast)) {
    const auto out = run(Op::Broadcast, algo, {{0}, {kJunk}, {kJunk}, {kJunk}}, 1);
    for (int r = 0; r < 4; ++r) CHECK_MESSAGE(out[static_cast<std::size_t>(r)][0] == 0, algo, " rank ", r);
  }
}

TEST_CASE("the rooted and alltoall counterparts on the same four ranks") {
  for (const auto& algo : algos_for(Op::Reduce)) {
    const auto out = run(Op::Reduce, algo, {{0}, {1}, {2}, {3}}, 1, 2);
    CHECK_MESSAGE(out[2][0] == 6, algo);
  }
  for (const auto& algo : algos_for(Op::Gather)) {
    verify::Buffers in(4, std::vector<std::int64_t>(4, kJunk));
    for (int r = 0; r < 4; ++r) in[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] = 10 * r;
    const auto out = run(Op::Gather, algo, in, 1, 3);
    CHECK_MESSAGE((std::vector<std::int64_t>(out[3].begin(), out[3].begin() + 4) == std::vector<std::int64_t>{0, 10, 20, 30}), algo);
  }
  for (const auto& algo : algos_for(Op::Scatter)) {
    verify::Buffers in(4, std::vector<std::int64_t>(4, kJunk));
    in[1] = {5, 6, 7, 8};
    const auto out = run(Op::Scatter, algo, in, 1, 1);
    for (int r = 0; r < 4; ++r) CHECK_MESSAGE(out[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] == 5 + r, algo, " rank ", r);
  }
  for (const auto& algo : algos_for(Op::AllToAll)) {
    // Rank r sends 10r+q to rank q; rank q then holds 10r+q in its output slot r.
    verify::Buffers in(4);
    for (int r = 0; r < 4; ++r)
      for (int q = 0; q < 4; ++q) in[static_cast<std::size_t>(r)].push_back(10 * r + q);
    const auto out = run(Op::AllToAll, algo, in, 1);
    for (int q = 0; q < 4; ++q)
      CHECK_MESSAGE((std::vector<std::int64_t>(out[static_cast<std::size_t>(q)].begin() + 4, out[static_cast<std::size_t>(q)].begin() + 8) ==
                     std::vector<std::int64_t>{q, 10 + q, 20 + q, 30 + q}),
                    algo, " rank ", q);
  }
}
