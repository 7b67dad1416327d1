// Binomial trees (reference §1.2, 1.3, 1.4, 1.7) over relative ranks v = (r - root) mod p, built by
// recursive halving: the range [lo, hi) rooted at lo hands [m, hi) to rank m and keeps [lo, m), so
// every subtree is a contiguous range of relative ranks and there are ceil(lg p) rounds.
// For p a power of two the parts are halves and this is the textbook binomial tree. Otherwise the
// split decides when subtrees finish, and the one-port engine makes messages that meet on a link
// queue. The split is chosen so that never happens:
//  - broadcast, scatter (data flows down; every rank receives once, so nothing can meet): the root
//    keeps the bigger part and serves the smaller one first, so scatter's critical path (the root's
//    own sends) moves exactly p-1 blocks;
//  - reduce (data flows up): the child takes the bigger part, so it is never ready before the root's
//    own part is done and its message never queues behind another on the root's link.
// Gather uses MPICH's lowest-set-bit tree instead (see BinomialGather): its critical path moves p-1 blocks.
// Gather and scatter stage blocks in relative order in scratch [p*c, 2p*c) so that a subtree's blocks
// are one message for any root; the root rotates them into rank order with local copies.
#include <algorithm>
#include <array>
#include <utility>

#include "sim/schedule/fixed_step.hpp"
#include "sim/schedule/registry.hpp"

namespace ccsim::schedule {
namespace {

// A node has at most ceil(lg p) <= 31 children: kept inline, since every step of every rank builds its node
// (a heap vector here was a third of a million-rank broadcast's instructions).
struct Children {
  std::array<std::pair<int, int>, 32> at{};
  int count = 0;
  void emplace_back(int child, int hi) { at[static_cast<std::size_t>(count++)] = {child, hi}; }
  std::size_t size() const { return static_cast<std::size_t>(count); }
  const std::pair<int, int>& operator[](std::size_t i) const { return at[i]; }
};

struct Node {
  int parent = -1; // relative rank; -1 at the root
  int hi = 0;      // the subtree is [v, hi)
  Children children; // (child, its hi), in split order: biggest range first
};

Node tree_node(int p, int v, bool root_keeps_bigger) {
  Node n;
  n.hi = p;
  for (int lo = 0, hi = p; hi - lo > 1;) {
    const int size = hi - lo, m = lo + (root_keeps_bigger ? (size + 1) / 2 : size / 2);
    if (v == lo) {
      n.children.emplace_back(m, hi);
      hi = m;
    } else if (v >= m) {
      if (v == m) n.parent = lo, n.hi = hi;
      lo = m;
    } else {
      hi = m;
    }
  }
  return n;
}

// Step s of relative rank v in the broadcast tree (root keeps the bigger part), without building its node:
// the peer's relative rank, receiving from the parent (step 0 of every v > 0) or sending to the next child
// in split order; -1 once v is done. The same walk as tree_node, stopped at the step asked for (and none when p
// is a power of two): the engine asks for every step of every rank, and building a node with its 256-byte child
// list each time was 40% of a 16,384-rank broadcast's instructions.
struct BcastPeer {
  int v = -1;
  bool from_parent = false;
  bool last = false; // v has no step after this one (set where p is a power of two)
};
[[gnu::always_inline]] inline BcastPeer bcast_peer(int p, int v, int s) {
  if ((p & (p - 1)) == 0) { // every split is exact: v's subtree is [v, v + lowbit(v)), its children at halves of it
    const int span = v == 0 ? p : v & -v;
    if (v != 0 && s == 0) return {v - span, true, span == 1};
    const int k = s - (v != 0 ? 1 : 0) + 1; // child k (from 1) sits at v + span / 2^k, the last one at v + 1
    return k < 31 && (span >> k) > 0 ? BcastPeer{v + (span >> k), false, (span >> k) == 1} : BcastPeer{};
  }
  int child = v == 0 ? 0 : 1; // step of v's next child (step 0 is the receive from the parent)
  for (int lo = 0, hi = p; hi - lo > 1;) {
    const int m = lo + (hi - lo + 1) / 2;
    if (v == lo) {
      if (s == child) return {m, false};
      ++child;
      hi = m;
    } else if (v >= m) {
      if (v == m && s == 0) return {lo, true};
      lo = m;
    } else {
      hi = m;
    }
  }
  return {};
}

class TreeBase : public Schedule {
 public:
  using Schedule::Schedule;

 protected:
  int p() const { return args_.ranks; }
  int rel(int r) const { return (r - args_.root + p()) % p(); }
  int abs(int v) const { return (v + args_.root) % p(); }
  Block all() const { return {0, args_.count}; }
  // Relative blocks [u, hi) in scratch, and a rank's own block in the op's layout.
  Block staged(int u, int hi) const {
    const std::uint64_t c = args_.count;
    return {static_cast<std::uint64_t>(p() + u) * c, static_cast<std::uint64_t>(hi - u) * c};
  }
  Block own(int r) const { return {static_cast<std::uint64_t>(r) * args_.count, args_.count}; }
  // Root's local rotation between rank order [0, p*c) and relative order in scratch (own block stays).
  void rotate(std::vector<Action>& out, bool into_scratch) const {
    const int root = args_.root;
    const Block pieces[2][2] = {{staged(1, p() - root), own(root + 1)}, {staged(p() - root, p()), own(0)}};
    for (const auto& [scratch, place] : pieces) {
      if (scratch.len == 0) continue;
      into_scratch ? copy(out, scratch.off, place.off, scratch.len) : copy(out, place.off, scratch.off, scratch.len);
    }
  }
  // One rank's broadcast / reduce steps on tree node `n`, moving block `b`.
  bool bcast_step(const Node& n, int s, Block b, std::vector<Action>& out) const {
    if (n.parent >= 0) {
      if (s == 0) return recv(out, abs(n.parent), b), true;
      --s;
    }
    if (s >= static_cast<int>(n.children.size())) return false;
    send(out, abs(n.children[static_cast<std::size_t>(s)].first), b);
    return true;
  }
  bool reduce_step(const Node& n, int s, Block b, std::vector<Action>& out) const {
    const int nc = static_cast<int>(n.children.size());
    // Smallest subtree first: that is the order the children finish in.
    if (s < nc) return recv_reduce(out, abs(n.children[static_cast<std::size_t>(nc - 1 - s)].first), b), true;
    if (s == nc && n.parent >= 0) return send(out, abs(n.parent), b), true;
    return false;
  }
  static int reduce_steps(const Node& n) { return static_cast<int>(n.children.size()) + (n.parent >= 0 ? 1 : 0); }
};

// Every step is one action, written into the engine's fixed buffer (step_fixed): the engine asks for every
// step of every rank, and a vector to clear and fill plus two divisions for the relative ranks were a third
// of a 16,384-rank broadcast's schedule work.
class BinomialBroadcast final : public TreeBase {
 public:
  explicit BinomialBroadcast(CollArgs a)
      : TreeBase(std::move(a)), mask_(p() > 0 && (p() & (p() - 1)) == 0 && args_.root >= 0 && args_.root < p() ? p() - 1 : -1) {}
  bool fixed_steps() const override { return true; }
  int step_fixed(int r, int s, Action* out) const override {
    if (mask_ >= 0 && static_cast<unsigned>(r) < static_cast<unsigned>(p())) return pow2_step(r, s, out);
    return any_step(r, s, out);
  }
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.resize(1);
    if (step_fixed(r, s, out.data()) < 0) return out.clear(), false;
    return true;
  }

 private:
  // Any p and root. Out of line: the power-of-two path then needs no registers saved.
  [[gnu::noinline]] int any_step(int r, int s, Action* out) const {
    const int p = this->p(), root = args_.root;
    const bool in_range = root >= 0 && root < p && r >= 0 && r < p; // relative ranks without a division
    const BcastPeer peer = bcast_peer(p, !in_range ? rel(r) : r >= root ? r - root : r - root + p, s);
    if (peer.v < 0) return -1;
    const int peer_rank = !in_range ? abs(peer.v) : peer.v + root < p ? peer.v + root : peer.v + root - p;
    out[0] = Action{peer.from_parent ? Action::Kind::Recv : Action::Kind::Send, peer_rank, 0, args_.count, 0};
    return peer.last ? 1 + kLastFixedStep : 1;
  }
  // bcast_peer's power-of-two case written straight into the action (the engine calls this for every step of every
  // rank): v's subtree is [v, v + span), span = lowbit(v) (p for the root); step 0 of v > 0 receives from
  // v - span, then child k = 1, 2, .. sits at v + span / 2^k, the last one at v + 1.
  [[gnu::always_inline]] int pow2_step(int r, int s, Action* out) const {
    const int v = (r - args_.root) & mask_;
    const int span = v == 0 ? mask_ + 1 : v & -v;
    int peer, part; // the peer's relative rank, and what is left of the subtree below it (1: a leaf, no step after)
    if (v != 0 && s == 0) {
      peer = v - span, part = span;
    } else {
      const int k = s + (v == 0); // s - (v != 0) + 1
      part = k < 31 ? span >> k : 0;
      if (part == 0) return -1;
      peer = v + part;
    }
    out[0] = Action{peer < v ? Action::Kind::Recv : Action::Kind::Send, (peer + args_.root) & mask_, 0, args_.count, 0};
    return part == 1 ? 1 + kLastFixedStep : 1;
  }

  int mask_; // p - 1 when p is a power of two and the root one of its ranks, else -1
};

class BinomialReduce final : public TreeBase {
 public:
  using TreeBase::TreeBase;
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    return p() > 1 && reduce_step(tree_node(p(), rel(r), false), s, all(), out);
  }
};

// Allreduce as a binomial reduce to rank 0 followed by a binomial broadcast from it (reference §1.4).
class ReduceBcast final : public TreeBase {
 public:
  explicit ReduceBcast(const CollArgs& a) : TreeBase(with_root0(a)) {}
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (p() == 1) return false;
    const Node up = tree_node(p(), r, false);
    if (s < reduce_steps(up)) return reduce_step(up, s, all(), out);
    return bcast_step(tree_node(p(), r, true), s - reduce_steps(up), all(), out);
  }

 private:
  static CollArgs with_root0(CollArgs a) { return a.root = 0, a; }
};

// MPICH's binomial gather (gather_intra_binomial.c), the mirror of a scatter: relative rank v receives,
// in round k, the blocks [v + 2^k, min(v + 2^(k+1), p)) from v + 2^k for every 2^k below v's lowest set
// bit, then sends its whole range [v, v + lowbit(v)) to v - lowbit(v). The root's round k brings
// min(2^k, p - 2^k) blocks, p-1 in all, and the child it waits for has received, round for round, no
// more than the root has, so it is always ready first: ceil(lg p) alpha + (p-1)/p n beta for every p.
class BinomialGather final : public TreeBase {
 public:
  using TreeBase::TreeBase;
  std::uint64_t buffer_elems() const override { return 2 * op_buffer_elems(args_); }
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (p() == 1) return false;
    const int v = rel(r);
    int low = 1; // v's lowest set bit (p rounded up to a power of two for the root)
    while (low < p() && (v & low) == 0) low <<= 1;
    int nc = 0; // children: v + 2^k for 2^k < low and v + 2^k < p
    while ((1 << nc) < low && v + (1 << nc) < p()) ++nc;
    if (s < nc) {
      const int child = v + (1 << s);
      recv(out, abs(child), staged(child, std::min(child + (1 << s), p())));
      // The own block joins the staged range it will be sent with (copies land after the step).
      if (s == 0 && v != 0 && args_.count > 0) copy(out, staged(v, v + 1).off, own(r).off, args_.count);
      return true;
    }
    if (s != nc || (v == 0 && args_.count == 0)) return false; // nothing to rotate
    if (v == 0) rotate(out, false);
    else send(out, abs(v - low), nc == 0 ? own(r) : staged(v, std::min(v + low, p())));
    return true;
  }
};

class BinomialScatter final : public TreeBase {
 public:
  using TreeBase::TreeBase;
  std::uint64_t buffer_elems() const override { return 2 * op_buffer_elems(args_); }
  bool step(int r, int s, std::vector<Action>& out) const override {
    out.clear();
    if (p() == 1) return false;
    const int v = rel(r);
    const Node n = tree_node(p(), v, true);
    const int nc = static_cast<int>(n.children.size());
    // Step 0 fills the staging area: the root rotates its blocks (unless there are none), others receive.
    const int first_send = v == 0 && args_.count == 0 ? 0 : 1;
    if (s == 0 && first_send == 1) {
      if (v == 0) rotate(out, true);
      else recv(out, abs(n.parent), nc == 0 ? own(r) : staged(v, n.hi)); // a leaf receives in place
      return true;
    }
    const int i = s - first_send;
    if (i >= nc) return false;
    const auto [child, hi] = n.children[static_cast<std::size_t>(i)];
    send(out, abs(child), staged(child, hi));
    if (i == 0 && v != 0 && args_.count > 0) copy(out, own(r).off, staged(v, v + 1).off, args_.count);
    return true;
  }
};

} // namespace

void add_binomial_algorithms(std::vector<AlgorithmInfo>& out) {
  out.push_back({"binomial", Op::Broadcast, "binomial tree, ceil(lg p) rounds of the whole vector",
                 factory_of<BinomialBroadcast>(), false});
  out.push_back({"binomial", Op::Reduce, "binomial tree, ceil(lg p) rounds of the whole vector, reducing on the way up",
                 factory_of<BinomialReduce>(), false});
  out.push_back({"binomial", Op::Gather, "MPICH's binomial tree, ceil(lg p) rounds of growing block ranges (mirror of scatter)",
                 factory_of<BinomialGather>(), false});
  out.push_back({"binomial", Op::Scatter, "binomial tree, ceil(lg p) rounds of shrinking block ranges",
                 factory_of<BinomialScatter>(), false});
  out.push_back({"reduce_bcast", Op::AllReduce, "binomial reduce to rank 0, then binomial broadcast from it",
                 factory_of<ReduceBcast>(), false});
}

} // namespace ccsim::schedule
