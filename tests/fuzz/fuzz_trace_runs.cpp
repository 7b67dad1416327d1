// A file given to `ccsim compare --trace FILE` / `calibrate --trace FILE`, read as they read it (load_trace_runs,
// sim/trace/trace_runs.cpp): ccsim's own output (table, CSV, JSON), an rccl-tests result file (-x/-Z, CSV or JSON), a
// busbw summary, nccl-tests' JSON report (-J), or nccl-tests output split into its runs (a job of several tests, a
// scaling study's markers) and each run's size sweeps. The input is the file; then the second run alone (--run 2).
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h> // mkstemp

#include "sim/trace/trace_runs.hpp"
#include "fuzz_common.hpp"

namespace {

// One file per fuzzing process, rewritten for each input and removed at exit.
const std::string& trace_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    std::string p = std::string(dir && *dir ? dir : "/tmp") + "/ccsim-fuzz-trace-runs-XXXXXX";
    const int fd = ::mkstemp(p.data());
    if (fd < 0) std::abort();
    ::close(fd);
    std::atexit([] { std::remove(trace_path().c_str()); });
    return p;
  }();
  return path;
}

} // namespace

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  {
    std::FILE* f = std::fopen(trace_path().c_str(), "wb");
    if (!f) std::abort();
    if (!input.empty() && std::fwrite(input.data(), 1, input.size(), f) != input.size()) std::abort();
    std::fclose(f);
  }
  const auto runs = trace::load_trace_runs(trace_path());
  for (const auto& t : runs)
    for (const auto& r : t.rows) (void)trace::measured_time_us(r, true);
  if (runs.size() >= 2) (void)trace::load_trace_runs(trace_path(), {}, 2);
})
