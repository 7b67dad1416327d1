// The count, size and rank columns of an nccl-tests table checked against each other: element sizes, the
// rank count the busbw/algbw ratio implies, and an edited count column read by its size.
#include "sim/trace/trace_counts.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::trace::counts {

// Bytes of one element of an nccl-tests / rccl-tests type name; 0 when unknown. The names each release prints
// (test_typenames in src/common.cu): nccl-tests "int8 .. double", "bfloat16", fp8 "f8e4m3" / "f8e5m2" (2025,
// e479a8e), NCCL 1's "char" / "int"; rccl-tests "bf16" (2019-2023, 1cda2f5) and fp8 "fp8_e4m3" / "fp8_e5m2".
Bytes elt_bytes(const std::string& type) {
  if (type == "float" || type == "int32" || type == "uint32" || type == "int") return 4;
  if (type == "half" || type == "bfloat16" || type == "bf16") return 2;
  if (type == "double" || type == "int64" || type == "uint64") return 8;
  if (type == "int8" || type == "uint8" || type == "char" || type == "fp8" || type == "f8e4m3" || type == "f8e5m2" ||
      type == "fp8_e4m3" || type == "fp8_e5m2")
    return 1;
  return 0;
}

// The rank count the printed busbw/algbw ratio implies (nccl-tests' bus factor: 2(n-1)/n for allreduce,
// (n-1)/n for allgather/reducescatter/alltoall), read on the row with the largest algbw (printed with two
// decimals, so the ratio is sharpest there); 0 when it names no whole count.
int ranks_from_busbw(const Trace& t, int hint) {
  using schedule::Op;
  if (!t.op) return 0;
  const bool ar = *t.op == Op::AllReduce;
  if (!ar && *t.op != Op::AllGather && *t.op != Op::ReduceScatter && *t.op != Op::AllToAll) return 0;
  double algbw = 0, busbw = 0;
  for (const auto& r : t.rows) {
    const auto& h = r.out_of_place ? r.out_of_place : r.in_place;
    if (h && h->algbw > algbw) algbw = h->algbw, busbw = h->busbw;
  }
  if (algbw < 10.0) return 0;
  const double scale = ar ? 2.0 : 1.0, f = busbw / algbw;
  if (f <= 0 || f >= scale - 1e-3) return 0; // 2019 convention (algbw = busbw) or nonsense
  const double n = scale / (scale - f);
  // Printed to 0.01 GB/s: on many ranks that rounding alone moves n by more than a quarter (n^2/scale x df).
  const double rounding = std::max(0.25, n * n / scale * f * (0.005 / algbw + 0.005 / std::max(busbw, 1e-9)));
  if (n - rounding > static_cast<double>(1L << 20)) return 0;
  // The whole counts inside the rounding that every row's halves agree with (busbw = algbw x factor within
  // the print). Among them: the caller's --ranks (the machine it describes) when it is one of them; else
  // the nearest n of those that divide every row's size by ranks x eltsize, for the tests whose size is
  // count x ranks x eltsize (nccl-tests setupArgs); else the nearest n. 128 ranks print 89.70 / 90.40,
  // n = 129.1, and 129 does not divide 8 GiB / 4 B; a hand-edited 192-rank run agrees with 191-193.
  const bool total = *t.op != Op::AllReduce;
  long best = 0, best_dividing = 0;
  auto nearer = [n](long k, long than) { return than == 0 || std::abs(static_cast<double>(k) - n) < std::abs(static_cast<double>(than) - n); };
  // A window wider than 4096 counts (a print that pins nothing) is not searched: the nearest below.
  const long lo = std::max(2L, static_cast<long>(std::ceil(n - rounding)));
  const long hi = rounding > 2048.0 ? lo - 1 : static_cast<long>(std::floor(n + rounding));
  for (long k = lo; k <= hi; ++k) {
    const double factor = scale * static_cast<double>(k - 1) / static_cast<double>(k);
    bool agrees = true, divides = total;
    for (const auto& r : t.rows) {
      for (const auto& h : {r.out_of_place, r.in_place})
        if (h && h->algbw >= 10.0 && std::abs(h->algbw * factor - h->busbw) > 0.0051 + 0.005 * factor) agrees = false;
      const Bytes elt = elt_bytes(r.type);
      if (elt == 0 || (r.size > 0 && r.size % (elt * static_cast<Bytes>(k)) != 0)) divides = false;
    }
    if (!agrees) continue;
    if (k == hint) return static_cast<int>(k);
    if (nearer(k, best)) best = k;
    if (divides && nearer(k, best_dividing)) best_dividing = k;
  }
  if (best_dividing != 0) best = best_dividing;
  // No count agrees with every row (a noisy or hand-edited one): the nearest to the sharpest row's n.
  if (best == 0 && std::lround(n) >= 2 && std::abs(n - static_cast<double>(std::lround(n))) <= rounding) best = std::lround(n);
  return static_cast<int>(best);
}

bool times_in_ms(const std::vector<MeasuredRow>& rows) {
  int ms = 0, us = 0;
  for (const auto& r : rows)
    for (const auto& h : {r.out_of_place, r.in_place}) {
      if (!h || h->time_us <= 0 || h->algbw < 1.0 || r.size == 0) continue;
      // The two readings differ 1000-fold: a factor of 2 either way is far outside any print's rounding.
      const double per_us = h->algbw * h->time_us * 1e3 / static_cast<double>(r.size);
      if (per_us > 0.5 && per_us < 2) ++us;
      else if (per_us > 0.5e-3 && per_us < 2e-3) ++ms;
    }
  return ms > 0 && us == 0;
}

// size = algbw x time (GB/s x us = 1e3 B) within the printed precision, for every half the row has.
bool size_confirmed_by_row(const MeasuredRow& r) {
  bool any = false;
  for (const auto& h : {r.out_of_place, r.in_place}) {
    // Below 1 GB/s the 0.01 GB/s print alone moves the implied size by more than half the 1 % allowed.
    if (!h || h->time_us <= 0 || h->algbw < 1.0) continue;
    const double implied = h->algbw * h->time_us * 1e3;
    if (std::abs(implied - static_cast<double>(r.size)) > 0.01 * static_cast<double>(r.size)) return false;
    any = true;
  }
  return any;
}

// nccl-tests prints count = size / eltsize for allreduce-like tests and size / (eltsize x ranks) for
// allgather, reducescatter, alltoall, gather, scatter and hypercube (src/common.cu setupArgs: paramCount).
// A row whose count breaks that rule while its own time and algbw confirm the size (algbw = size / time,
// which busbw is computed from) has an edited count column: the size is read, the count becomes the one
// the definition gives, and a note says so. Without that confirmation nothing says which column is wrong.
void read_size_where_count_contradicts(Trace& t, const std::vector<Bytes>& elt_of, const std::vector<int>& ratio_of,
                                              const std::string& origin) {
  using schedule::Op;
  const bool total = *t.op == Op::AllGather || *t.op == Op::ReduceScatter || *t.op == Op::AllToAll || *t.op == Op::HyperCube ||
                     *t.op == Op::Gather || *t.op == Op::Scatter;
  const int want = total ? t.ranks : 1;
  std::string lines;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    auto& r = t.rows[i];
    if (ratio_of[i] == 0 || ratio_of[i] == want) continue;
    const Bytes per = elt_of[i] * static_cast<Bytes>(want);
    if (!size_confirmed_by_row(r) || r.size / per == 0)
      fail("{}: rows have size = {} x count x eltsize, but {} on {} ranks needs {}x", origin, ratio_of[i],
           schedule::to_string(*t.op), t.ranks, want);
    r.count = r.size / per;
    lines += (lines.empty() ? "" : ", ") + std::to_string(r.line);
  }
  if (lines.empty()) return;
  t.notes.push_back(fmt::format("line(s) {} read by size: the count column contradicts {} on {} ranks (nccl-tests prints "
                                "count = size / (eltsize x {}), setupArgs) while time x algbw confirm the size, so the "
                                "count is taken as size / (eltsize x {}), rounded down as setupArgs does",
                                lines, schedule::to_string(*t.op), t.ranks, want, want));
}

} // namespace ccsim::trace::counts
