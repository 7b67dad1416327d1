#include "sim/scenario/ps_schedule.hpp"

namespace ccsim::scenario {
namespace {
using schedule::Action;
using schedule::Block;

// Step 0 = push (workers send, server receives and sums), step 1 = pull (server sends to each worker).
class PsCentral final : public schedule::Schedule {
 public:
  using Schedule::Schedule;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (s >= 2) return false;
    const int server = args_.root;
    const Block all{0, args_.count};
    if (r != server) {
      if (s == 0) schedule::send(out, server, all);
      else schedule::recv(out, server, all);
      return true;
    }
    for (int w = 0; w < args_.ranks; ++w) {
      if (w == server) continue;
      if (s == 0) schedule::recv_reduce(out, w, all);
      else schedule::send(out, w, all);
    }
    return true;
  }
};

class PsSharded final : public schedule::Schedule {
 public:
  using Schedule::Schedule;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (s >= 2) return false;
    const auto p = static_cast<std::uint64_t>(args_.ranks);
    const Block mine = schedule::split_block(args_.count, p, static_cast<std::uint64_t>(r));
    for (int j = 0; j < args_.ranks; ++j) {
      if (j == r) continue;
      const Block theirs = schedule::split_block(args_.count, p, static_cast<std::uint64_t>(j));
      if (s == 0) { // push shard j to its owner; take everyone's copy of mine
        schedule::send(out, j, theirs);
        schedule::recv_reduce(out, j, mine);
      } else { // pull: owners hand out their updated shard
        schedule::send(out, j, mine);
        schedule::recv(out, j, theirs);
      }
    }
    return true;
  }
};

} // namespace

std::unique_ptr<schedule::Schedule> make_ps_central(const schedule::CollArgs& args) {
  return std::make_unique<PsCentral>(args);
}
std::unique_ptr<schedule::Schedule> make_ps_sharded(const schedule::CollArgs& args) {
  return std::make_unique<PsSharded>(args);
}

} // namespace ccsim::scenario
