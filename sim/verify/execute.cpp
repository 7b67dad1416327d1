#include "sim/verify/execute.hpp"

#include <algorithm>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::verify {
using schedule::Action;
using schedule::Op;

namespace {

constexpr std::int64_t kGarbage = -7777777; // what a rank holds where the op gives it no input

std::int64_t apply(RedOp op, std::int64_t a, std::int64_t b) {
  switch (op) {
    // Wrapping arithmetic: scratch that a schedule reduces (padding) holds garbage and may overflow.
    case RedOp::Sum: return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    case RedOp::Prod: return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
    case RedOp::Min: return std::min(a, b);
    case RedOp::Max: return std::max(a, b);
  }
  return 0;
}

// Rank r's input at element idx, chosen so that a missing, doubled or misplaced contribution shows:
// - sum: 1 + h + 1000 r, never 0 and unique per rank (|h| < 1000), varied along the vector;
// - prod: 3 or 5, odd, so dropping or repeating a factor changes the product even modulo 2^64;
// - min/max: the rank holding the extreme value rotates with idx (rank (p-1-idx) mod p holds the max),
//   so with count >= p every rank's contribution decides some element. (A doubled contribution is
//   invisible to min/max by definition; sum and prod catch it.)
std::int64_t input(RedOp op, int rank, std::uint64_t idx, int p) {
  const auto ur = static_cast<std::uint64_t>(rank);
  const auto h = static_cast<std::int64_t>((ur * 2654435761u + idx * 40503u) % 1000);
  switch (op) {
    case RedOp::Sum: return 1 + h + 1000 * static_cast<std::int64_t>(rank);
    case RedOp::Prod: return 3 + 2 * (h % 2);
    case RedOp::Min:
    case RedOp::Max: return h + 1000 * static_cast<std::int64_t>((ur + idx) % static_cast<std::uint64_t>(p));
  }
  return 0;
}

struct RankRun {
  int step = 0;
  bool posted = false, done = false;
  std::vector<Action> acts;
  std::vector<std::vector<std::int64_t>> copy_src; // snapshots for copies
};

void check_range(const schedule::Schedule& s, int rank, int step, std::uint64_t off, std::uint64_t len) {
  if (off + len > s.buffer_elems() || off + len < off)
    fail("schedule error: rank {} step {} touches [{}, {}) beyond its buffer of {} elements", rank, step, off, off + len,
         s.buffer_elems());
}

} // namespace

void execute(const schedule::Schedule& s, Buffers& buf, RedOp op) {
  const int p = s.args().ranks;
  std::vector<RankRun> run(static_cast<std::size_t>(p));
  std::map<std::pair<int, int>, std::deque<std::vector<std::int64_t>>> wire; // (src, dst) -> payloads in order
  int finished = 0;
  for (bool progress = true; progress && finished < p;) {
    progress = false;
    for (int r = 0; r < p; ++r) {
      auto& rr = run[static_cast<std::size_t>(r)];
      if (rr.done) continue;
      auto& b = buf[static_cast<std::size_t>(r)];
      if (!rr.posted) {
        if (!s.step(r, rr.step, rr.acts)) {
          rr.done = true;
          ++finished;
          progress = true;
          continue;
        }
        rr.copy_src.clear();
        for (const auto& a : rr.acts) {
          check_range(s, r, rr.step, a.off, a.len);
          if (a.kind == Action::Kind::Send) {
            if (a.peer < 0 || a.peer >= p || a.peer == r) fail("schedule error: rank {} sends to rank {}", r, a.peer);
            wire[{r, a.peer}].emplace_back(b.begin() + static_cast<long>(a.off), b.begin() + static_cast<long>(a.off + a.len));
          } else if (a.kind == Action::Kind::Copy) {
            check_range(s, r, rr.step, a.src_off, a.len);
            rr.copy_src.emplace_back(b.begin() + static_cast<long>(a.src_off), b.begin() + static_cast<long>(a.src_off + a.len));
          }
        }
        rr.posted = true;
        progress = true;
      }
      // Can every receive of this step be matched?
      std::map<int, std::size_t> need;
      for (const auto& a : rr.acts)
        if (a.kind == Action::Kind::Recv || a.kind == Action::Kind::RecvReduce) {
          if (a.peer < 0 || a.peer >= p || a.peer == r) fail("schedule error: rank {} receives from rank {}", r, a.peer);
          ++need[a.peer];
        }
      bool ready = true;
      for (auto& [src, k] : need) ready = ready && wire[{src, r}].size() >= k;
      if (!ready) continue;
      std::size_t ci = 0;
      for (const auto& a : rr.acts) {
        if (a.kind == Action::Kind::Recv || a.kind == Action::Kind::RecvReduce) {
          auto& q = wire[{a.peer, r}];
          auto payload = std::move(q.front());
          q.pop_front();
          if (payload.size() != a.len)
            fail("schedule error: rank {} step {} receives {} elements from rank {}, which sent {}", r, rr.step, a.len,
                 a.peer, payload.size());
          for (std::uint64_t i = 0; i < a.len; ++i) {
            auto& dst = b[a.off + i];
            dst = a.kind == Action::Kind::Recv ? payload[i] : apply(op, dst, payload[i]);
          }
        }
      }
      for (const auto& a : rr.acts)
        if (a.kind == Action::Kind::Copy) std::copy(rr.copy_src[ci].begin(), rr.copy_src[ci].end(), b.begin() + static_cast<long>(a.off)), ++ci;
      rr.posted = false;
      ++rr.step;
      progress = true;
    }
  }
  if (finished < p) {
    for (int r = 0; r < p; ++r)
      if (!run[static_cast<std::size_t>(r)].done) fail("schedule deadlock: rank {} stuck at step {}", r, run[static_cast<std::size_t>(r)].step);
  }
  for (auto& [k, q] : wire)
    if (!q.empty()) fail("schedule error: {} message(s) from rank {} to rank {} never received", q.size(), k.first, k.second);
}

namespace {

// A barrier moves no data, so what it must guarantee is causal: no rank leaves before every rank has
// arrived. Its messages are replayed carrying what each rank knows (element q = 1: rank q has arrived),
// every receive merged in with max: a rank's final vector is all ones exactly when it heard from all p.
class KnowledgeOf final : public schedule::Schedule {
 public:
  explicit KnowledgeOf(const schedule::Schedule& b) : Schedule(b.args()), barrier_(b) {}
  bool step(int rank, int s, std::vector<Action>& out) const override {
    if (!barrier_.step(rank, s, out)) return false;
    const auto p = static_cast<std::uint64_t>(args_.ranks);
    for (auto& x : out) {
      if (x.kind == Action::Kind::Copy) continue;
      if (x.kind == Action::Kind::Recv) x.kind = Action::Kind::RecvReduce;
      x.off = 0, x.len = p;
    }
    return true;
  }
  std::uint64_t buffer_elems() const override { return static_cast<std::uint64_t>(args_.ranks); }

 private:
  const schedule::Schedule& barrier_;
};

std::string check_barrier(const schedule::Schedule& s) {
  const int p = s.args().ranks;
  const KnowledgeOf k(s);
  Buffers know(static_cast<std::size_t>(p), std::vector<std::int64_t>(static_cast<std::size_t>(p), 0));
  for (int r = 0; r < p; ++r) know[static_cast<std::size_t>(r)][static_cast<std::size_t>(r)] = 1;
  execute(k, know, RedOp::Max);
  for (int r = 0; r < p; ++r)
    for (int q = 0; q < p; ++q)
      if (know[static_cast<std::size_t>(r)][static_cast<std::size_t>(q)] != 1)
        return fmt::format("barrier p={}: rank {} may leave before rank {} has arrived (no chain of messages from it)", p, r, q);
  return "";
}

} // namespace

std::string check(const schedule::Schedule& s, RedOp op) {
  if (s.args().op == Op::Barrier) return check_barrier(s);
  const auto& a = s.args();
  const int p = a.ranks;
  const std::uint64_t c = a.count, pc = static_cast<std::uint64_t>(p) * c;
  Buffers buf(static_cast<std::size_t>(p), std::vector<std::int64_t>(s.buffer_elems(), kGarbage));
  // Inputs, laid out as schedule/collective.hpp describes.
  for (int r = 0; r < p; ++r) {
    auto& b = buf[static_cast<std::size_t>(r)];
    const auto ur = static_cast<std::uint64_t>(r);
    switch (a.op) {
      case Op::AllReduce:
      case Op::Reduce:
      case Op::Scan:
        for (std::uint64_t i = 0; i < c; ++i) b[i] = input(op, r, i, p);
        break;
      case Op::Barrier: break; // checked apart, above
      case Op::Broadcast:
        if (r == a.root)
          for (std::uint64_t i = 0; i < c; ++i) b[i] = input(op, r, i, p);
        break;
      case Op::ReduceScatter:
        for (std::uint64_t i = 0; i < pc; ++i) b[i] = input(op, r, i, p);
        break;
      case Op::AllGather:
      case Op::HyperCube:
      case Op::Gather:
        for (std::uint64_t i = 0; i < c; ++i) b[ur * c + i] = input(op, r, ur * c + i, p);
        break;
      case Op::Scatter:
        if (r == a.root)
          for (std::uint64_t i = 0; i < pc; ++i) b[i] = input(op, r, i, p);
        break;
      case Op::AllToAll:
        for (std::uint64_t i = 0; i < pc; ++i) b[i] = input(op, r, i, p);
        break;
      case Op::SendRecv:
        for (std::uint64_t i = 0; i < c; ++i) b[i] = input(op, r, i, p);
        break;
    }
  }
  execute(s, buf, op);
  auto reduced = [&](std::uint64_t idx, int last = -1) { // ranks 0..last (default: all)
    std::int64_t v = input(op, 0, idx, p);
    for (int q = 1; q <= (last < 0 ? p - 1 : last); ++q) v = apply(op, v, input(op, q, idx, p));
    return v;
  };
  auto expect = [&](int r, std::uint64_t idx, std::int64_t want) -> std::string {
    const auto got = buf[static_cast<std::size_t>(r)][idx];
    if (got == want) return "";
    return fmt::format("{} p={} count={}: rank {} element {} is {}, expected {}", schedule::to_string(a.op), p, c, r, idx,
                       got, want);
  };
  for (int r = 0; r < p; ++r) {
    const auto ur = static_cast<std::uint64_t>(r);
    std::string err;
    switch (a.op) {
      case Op::AllReduce:
        for (std::uint64_t i = 0; i < c && err.empty(); ++i) err = expect(r, i, reduced(i));
        break;
      case Op::Reduce:
        if (r == a.root)
          for (std::uint64_t i = 0; i < c && err.empty(); ++i) err = expect(r, i, reduced(i));
        break;
      case Op::Broadcast:
        for (std::uint64_t i = 0; i < c && err.empty(); ++i) err = expect(r, i, input(op, a.root, i, p));
        break;
      case Op::ReduceScatter:
        for (std::uint64_t i = 0; i < c && err.empty(); ++i) err = expect(r, ur * c + i, reduced(ur * c + i));
        break;
      case Op::AllGather:
      case Op::HyperCube:
        for (std::uint64_t i = 0; i < pc && err.empty(); ++i) err = expect(r, i, input(op, static_cast<int>(i / c), i, p));
        break;
      case Op::Gather:
        if (r == a.root)
          for (std::uint64_t i = 0; i < pc && err.empty(); ++i) err = expect(r, i, input(op, static_cast<int>(i / c), i, p));
        break;
      case Op::Scatter:
        for (std::uint64_t i = 0; i < c && err.empty(); ++i) err = expect(r, ur * c + i, input(op, a.root, ur * c + i, p));
        break;
      case Op::Scan: // inclusive: rank r holds the reduction of ranks 0..r
        for (std::uint64_t i = 0; i < c && err.empty(); ++i) err = expect(r, i, reduced(i, r));
        break;
      case Op::Barrier: break;
      case Op::AllToAll:
        // Block q of rank r's output is block r of rank q's input.
        for (std::uint64_t q = 0; q < static_cast<std::uint64_t>(p) && err.empty(); ++q)
          for (std::uint64_t i = 0; i < c && err.empty(); ++i)
            err = expect(r, pc + q * c + i, input(op, static_cast<int>(q), ur * c + i, p));
        break;
      case Op::SendRecv: // [c, 2c) holds rank r-1's vector
        for (std::uint64_t i = 0; i < c && err.empty(); ++i) err = expect(r, c + i, input(op, (r - 1 + p) % p, i, p));
        break;
    }
    if (!err.empty()) return err;
  }
  return "";
}

} // namespace ccsim::verify
