#include "sim/report/nccl_tests_format.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <sstream>

namespace ccsim::report {

namespace {

// nccl-tests prints with printf; the same format strings give the same widths, rounding and %g.
[[gnu::format(printf, 2, 3)]] void printf_to(std::ostream& out, const char* format, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, format);
  const int n = std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  if (n > 0) out.write(buf, std::min<int>(n, static_cast<int>(sizeof buf) - 1));
}

void write_half(std::ostream& out, const PerfHalf& h, bool report_errors) {
  const std::string t = nccl_time_text(h.time_us);
  if (report_errors) printf_to(out, "  %7s  %6.2f  %6.2f  %5g", t.c_str(), h.algbw, h.busbw, 0.0);
  else printf_to(out, "  %7s  %6.2f  %6.2f  %5s", t.c_str(), h.algbw, h.busbw, "N/A");
}

// Scripts take the lines of 12 or 13 fields for rows (`awk 'NF==12 || NF==13'`), some without skipping
// '#' lines; a note of that many fields gets two more words, so that it is never taken for a row. Words a reader
// can make sense of: a lone "# #" at the end looked like a stray.
std::string not_a_row(const std::string& note) {
  std::istringstream in("# " + note);
  int n = 0;
  for (std::string w; in >> w;) ++n;
  return n == 12 || n == 13 ? " [ccsim note]" : "";
}

} // namespace

std::string nccl_time_text(double us) {
  char buf[64];
  const char* f = us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f";
  std::snprintf(buf, sizeof buf, f, us);
  return buf;
}

double avg_bus_bandwidth(const std::vector<PerfRow>& rows, bool out_of_place) {
  if (rows.empty()) return 0;
  double sum = 0;
  for (const auto& r : rows) sum += (out_of_place ? r.out_of_place.busbw : 0.0) + r.in_place.busbw;
  return sum / ((out_of_place ? 2.0 : 1.0) * static_cast<double>(rows.size()));
}

void write_perf_header(std::ostream& out, const PerfHeader& h) {
  printf_to(out, "# Collective test starting: %s\n", h.program.c_str());
  printf_to(out,
            "# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg iters: %d "
            "validation: %d graph: %d\n",
            h.threads, h.gpus, static_cast<unsigned long long>(h.min_bytes), static_cast<unsigned long long>(h.max_bytes),
            static_cast<unsigned long long>(h.step), h.step_is_factor ? "factor" : "bytes", h.warmup, h.iters, h.agg,
            h.check, h.graph);
  if (h.blocking) out << "# Blocking Enabled: wait for completion and barrier after each collective \n";
  if (h.parallel_init) out << "# Parallel Init Enabled: threads call into NcclInitRank concurrently \n";
  for (const auto& n : h.notes) out << "# " << n << not_a_row(n) << "\n";
  out << "#\n# Using devices\n";
  for (const auto& d : h.devices)
    printf_to(out, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [0x%02x] %s\n", d.rank, 0, 0, d.host.c_str(), d.device,
              0, d.name.c_str());
  const char* time = h.cputime ? "cputime" : "time";
  out << "#\n";
  if (!h.out_of_place) { // rccl-tests' src/common.cu (ROCm/rccl-tests ae3e635), enable_out_of_place == 0
    printf_to(out, "# %10s  %12s  %8s  %6s  %6s           in-place          \n", "", "", "", "", "");
    printf_to(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s\n", "size", "count", "type", "redop", "root", time, "algbw",
              "busbw", "#wrong");
    printf_to(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)",
              "(GB/s)", "");
    return;
  }
  printf_to(out, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "", "", "",
            "", "");
  printf_to(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n", "size", "count", "type", "redop",
            "root", time, "algbw", "busbw", "#wrong", time, "algbw", "busbw", "#wrong");
  printf_to(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n", "(B)", "(elements)", "", "", "",
            "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

void write_perf_row(std::ostream& out, const PerfRow& r, bool report_errors, bool in_place_checked, bool out_of_place) {
  char root[32];
  std::snprintf(root, sizeof root, "%6i", r.root);
  printf_to(out, "%12llu  %12llu  %8s  %6s  %6s", static_cast<unsigned long long>(r.size),
            static_cast<unsigned long long>(r.count), r.type.c_str(), r.redop.c_str(), root);
  if (out_of_place) write_half(out, r.out_of_place, report_errors);
  write_half(out, r.in_place, report_errors && in_place_checked);
  out << "\n";
}

void write_perf_footer(std::ostream& out, const std::vector<PerfRow>& rows, const std::string& program, bool out_of_place) {
  printf_to(out, "# Out of bounds values : %d %s\n", 0, "OK");
  printf_to(out, "# Avg bus bandwidth    : %g %s\n", avg_bus_bandwidth(rows, out_of_place), "");
  out << "#\n";
  printf_to(out, "# Collective test concluded: %s\n", program.c_str());
  out << "#\n";
}

} // namespace ccsim::report
