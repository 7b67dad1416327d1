// MPI side of `ccsim sweep` (built when CMake finds MPI). Rank 0's main thread is the master: it polls
// for requests (sleeping briefly between polls, so it leaves its core to the threads computing points)
// and answers each with the next point indices; a request carries the rows of the asking rank's previous
// points. Batches follow guided self-scheduling: a share of what is left (left / (2 x ranks), at most 64),
// so cheap points early cost one request per batch and the last points still go out one by one to
// whichever rank is free. Only rank 0's main thread calls MPI (MPI_THREAD_FUNNELED).
// The MPI calls themselves live in ccsim_sweep_mpi.so (mpi_module.cpp), dlopened only under a launcher:
// every other run of the binary starts without loading Open MPI.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <vector>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <system_error>
#include <thread>

#include <nlohmann/json.hpp>

#include "sim/cli/mpi/launcher.hpp"
#include "sim/cli/mpi/mpi_module.h"
#include "sim/cli/sweep_mpi.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_io.hpp"

namespace ccsim::cli {
namespace {

constexpr std::int64_t kStop = -1;

const ccsim_mpi_module* g_mpi = nullptr; // set by mpi_start once MPI is initialised

// Under a launcher a missing module must stop the run: N single-process sweeps would each write the table.
const ccsim_mpi_module& load_module() {
  const auto path = shipped_beside(CCSIM_MPI_MODULE_NAME).string();
  // RTLD_GLOBAL: Open MPI's own plugins, dlopened by libmpi, resolve libmpi's symbols globally.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char* err = dlerror(); // names the file when the file is the problem, else the library it needs
    std::string why = err ? err : "unknown error";
    if (why.rfind(path, 0) != 0) why = path + ": " + why;
    fail("MPI: cannot load {}: reinstall ccsim, or run the sweep without mpirun", why);
  }
  using Entry = const ccsim_mpi_module* (*)();
  const auto entry = reinterpret_cast<Entry>(dlsym(lib, CCSIM_MPI_MODULE_ENTRY));
  const ccsim_mpi_module* table = entry ? entry() : nullptr;
  if (!table || table->abi != CCSIM_MPI_MODULE_ABI)
    fail("MPI: {} is not this ccsim's MPI module (no {} of version {}): reinstall ccsim", path, CCSIM_MPI_MODULE_ENTRY,
         static_cast<int>(CCSIM_MPI_MODULE_ABI));
  return *table;
}

// CPU seconds of the calling thread: the master's cost, which wall time on a shared machine would inflate
// by whatever else runs.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

constexpr std::size_t kMaxBatch = 64;

// A request: the rows of the points just run (none on the first request).
struct Done {
  std::int64_t point;
  report::SweepCells cells;
  double seconds;
};
std::string encode(const std::vector<Done>& done) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& d : done) j.push_back({d.point, d.cells, d.seconds});
  return json_dump(j);
}

} // namespace

MpiWorld mpi_start() {
  if (!launched_by_mpi()) return {};
  const ccsim_mpi_module& mpi = load_module();
  MpiWorld w;
  if (mpi.start(&w.rank, &w.size) != 0) fail("MPI: initialisation failed");
  g_mpi = &mpi;
  return w;
}

void mpi_stop() {
  if (g_mpi) g_mpi->stop();
  g_mpi = nullptr;
}

double mpi_serve(const MpiWorld& w, const SweepWork& work) {
  double busy = 0;
  int running = w.size - 1;
  std::string buf;
  std::vector<std::int64_t> reply;
  while (running > 0) {
    int source = 0, len = 0;
    if (!g_mpi->probe_request(&source, &len)) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      continue;
    }
    const double t0 = thread_cpu_seconds();
    buf.assign(static_cast<std::size_t>(len), '\0');
    g_mpi->recv_request(source, buf.data(), len);
    for (const auto& d : json_parse(buf))
      work.finish(d[0].get<std::size_t>(), d[1].get<report::SweepCells>(), d[2].get<double>());
    reply.clear();
    const std::size_t batch = std::clamp<std::size_t>(work.left() / (2 * static_cast<std::size_t>(w.size)), 1, kMaxBatch);
    while (reply.size() < batch)
      if (const auto next = work.take()) reply.push_back(static_cast<std::int64_t>(*next));
      else break;
    if (reply.empty()) reply.push_back(kStop), --running;
    g_mpi->send_points(source, reply.data(), static_cast<int>(reply.size()));
    busy += thread_cpu_seconds() - t0;
  }
  return busy;
}

void mpi_work(const std::function<report::SweepCells(std::size_t)>& run) {
  std::vector<Done> done;
  std::vector<std::int64_t> points;
  for (;;) {
    const std::string request = encode(done);
    g_mpi->send_request(request.data(), static_cast<int>(request.size()));
    const int n = g_mpi->probe_points();
    points.assign(static_cast<std::size_t>(n), kStop);
    g_mpi->recv_points(points.data(), n);
    if (points.empty() || points.front() == kStop) return;
    done.clear();
    for (const auto p : points) {
      const auto t0 = std::chrono::steady_clock::now();
      auto cells = run(static_cast<std::size_t>(p));
      done.push_back({p, std::move(cells), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
    }
  }
}

} // namespace ccsim::cli
