// nccl-tests' text output, so that scripts written for all_reduce_perf & co. read a ccsim prediction:
// the `# nThread ...` line, `# Using devices`, the two-line column header with out-of-place and in-place
// triples and #wrong, rows with nccl-tests' widths and time precision, and the footer with
// `# Out of bounds values` and `# Avg bus bandwidth`. The layout is that of nccl-tests 2.13-2.17
// (src/common.cu before the JSON writer moved printing to util.cu), the one most parsers were written for.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/units.hpp"

namespace ccsim::report {

struct PerfDevice { // one `#  Rank  0 Group  0 Pid ... on host device  0 [0x00] name` line
  int rank = 0;
  std::string host;
  int device = 0;
  std::string name;
};

struct PerfHeader {
  std::string program; // "all_reduce_perf"
  int threads = 1, gpus = 1;
  Bytes min_bytes = 0, max_bytes = 0;
  std::uint64_t step = 0;
  bool step_is_factor = false; // `step: 2(factor)` or `step: 1048576(bytes)`
  int warmup = 1, iters = 20, agg = 1, check = 1, graph = 0;
  int blocking = 0;
  bool parallel_init = false;
  bool cputime = false;              // -C 1: the time columns are labelled "cputime"
  bool out_of_place = true;          // rccl-tests -O 0: only the in-place half runs, and only it is printed
  std::vector<std::string> notes;    // ccsim's own lines (without "# "): what made this prediction
  std::vector<PerfDevice> devices;
};

struct PerfHalf {
  double time_us = 0, algbw = 0, busbw = 0;
};

struct PerfRow {
  Bytes size = 0;
  std::uint64_t count = 0;
  std::string type, redop;
  int root = -1;
  PerfHalf out_of_place, in_place;
};

// Time as nccl-tests prints it: "%7.2f" below 100 us, "%7.1f" below 10 ms, "%7.0f" from there on.
std::string nccl_time_text(double us);
// nccl-tests' "Avg bus bandwidth": the mean busbw over every out-of-place and every in-place measurement (the
// in-place ones only where the out-of-place half did not run, rccl-tests -O 0).
double avg_bus_bandwidth(const std::vector<PerfRow>& rows, bool out_of_place = true);

void write_perf_header(std::ostream& out, const PerfHeader& h);
// `report_errors` = -c != 0: #wrong is 0 (a prediction moves no data to check), else N/A.
// in_place_checked false: the in-place #wrong is "N/A" even with -c 1 (sendrecv_perf checks no in-place run).
// out_of_place false (rccl-tests -O 0): the in-place half only.
void write_perf_row(std::ostream& out, const PerfRow& r, bool report_errors, bool in_place_checked = true, bool out_of_place = true);
void write_perf_footer(std::ostream& out, const std::vector<PerfRow>& rows, const std::string& program, bool out_of_place = true);

} // namespace ccsim::report
