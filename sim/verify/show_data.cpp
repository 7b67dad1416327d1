#include "sim/verify/show_data.hpp"

#include "sim/core/error.hpp"

namespace ccsim::verify {
using schedule::Op;

Values values_from(const std::string& s) {
  if (s == "rank") return Values::Rank;
  if (s == "index") return Values::Index;
  fail("--values: unknown '{}' (rank: rank r holds r; index: element i holds i)", s);
}

RedOp red_op_from(const std::string& s) {
  if (s == "sum") return RedOp::Sum;
  if (s == "prod") return RedOp::Prod;
  if (s == "min") return RedOp::Min;
  if (s == "max") return RedOp::Max;
  fail("--redop: unknown '{}' (sum, prod, min, max)", s);
}

DataRun run_on_data(const schedule::Schedule& s, RedOp op, Values v) {
  const auto& a = s.args();
  const int p = a.ranks;
  const std::uint64_t c = a.count, pc = static_cast<std::uint64_t>(p) * c, shown = schedule::op_buffer_elems(a);
  Buffers buf(static_cast<std::size_t>(p), std::vector<std::int64_t>(std::max(s.buffer_elems(), shown), kNoData));
  auto value = [&](int r, std::uint64_t idx) { return v == Values::Rank ? static_cast<std::int64_t>(r) : static_cast<std::int64_t>(idx); };
  for (int r = 0; r < p; ++r) {
    auto& b = buf[static_cast<std::size_t>(r)];
    const auto ur = static_cast<std::uint64_t>(r);
    auto fill = [&](std::uint64_t from, std::uint64_t to) {
      for (std::uint64_t i = from; i < to; ++i) b[i] = value(r, i);
    };
    switch (a.op) {
      case Op::AllReduce:
      case Op::Reduce:
      case Op::Scan:
      case Op::SendRecv: fill(0, c); break;
      case Op::Broadcast:
        if (r == a.root) fill(0, c);
        break;
      case Op::ReduceScatter:
      case Op::AllToAll: fill(0, pc); break;
      case Op::AllGather:
      case Op::HyperCube:
      case Op::Gather: fill(ur * c, ur * c + c); break;
      case Op::Scatter:
        if (r == a.root) fill(0, pc);
        break;
      case Op::Barrier: break;
    }
  }
  DataRun d;
  for (const auto& b : buf) d.before.emplace_back(b.begin(), b.begin() + static_cast<long>(shown));
  execute(s, buf, op);
  for (const auto& b : buf) d.after.emplace_back(b.begin(), b.begin() + static_cast<long>(shown));
  // Only the op's result is shown after: the root's for reduce and gather, a rank's own block for
  // reduce-scatter and scatter, the received half for alltoall.
  for (int r = 0; r < p; ++r) {
    auto& b = d.after[static_cast<std::size_t>(r)];
    const auto ur = static_cast<std::uint64_t>(r);
    for (std::uint64_t i = 0; i < b.size(); ++i) {
      bool defined = true;
      switch (a.op) {
        case Op::Reduce:
        case Op::Gather: defined = r == a.root; break;
        case Op::ReduceScatter:
        case Op::Scatter: defined = i / std::max<std::uint64_t>(c, 1) == ur; break;
        case Op::AllToAll: defined = i >= pc; break;
        case Op::SendRecv: defined = i >= c; break;
        default: break;
      }
      if (!defined) b[i] = kUndefined;
    }
  }
  return d;
}

} // namespace ccsim::verify
