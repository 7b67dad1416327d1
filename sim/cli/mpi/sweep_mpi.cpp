// MPI side of `ccsim sweep` (built when CMake finds MPI). Rank 0's main thread is the master: it polls
// for requests (sleeping briefly between polls, so it leaves its core to the threads computing points)
// and answers each with the next point indices; a request carries the rows of the asking rank's previous
// points. Batches follow guided self-scheduling: a share of what is left (left / (2 x ranks), at most 64),
// so cheap points early cost one request per batch and the last points still go out one by one to
// whichever rank is free. Only rank 0's main thread calls MPI (MPI_THREAD_FUNNELED).
#include <algorithm>
#include <chrono>
#include <vector>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>

#include <mpi.h>
#include <nlohmann/json.hpp>

#include "sim/cli/sweep_mpi.hpp"
#include "sim/core/error.hpp"

namespace ccsim::cli {
namespace {

constexpr int kTagRequest = 1, kTagPoint = 2;
constexpr std::int64_t kStop = -1;

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

bool g_initialised = false;

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
  return j.dump();
}

} // namespace

MpiWorld mpi_start() {
  if (!launched_by_mpi()) return {};
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) fail("MPI: initialisation failed");
  g_initialised = true;
  MpiWorld w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  return w;
}

void mpi_stop() {
  if (g_initialised) MPI_Finalize();
  g_initialised = false;
}

double mpi_serve(const MpiWorld& w, const SweepWork& work) {
  double busy = 0;
  int running = w.size - 1;
  std::string buf;
  std::vector<std::int64_t> reply;
  while (running > 0) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &flag, &st);
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      continue;
    }
    const double t0 = thread_cpu_seconds();
    int len = 0;
    MPI_Get_count(&st, MPI_CHAR, &len);
    buf.assign(static_cast<std::size_t>(len), '\0');
    MPI_Recv(buf.data(), len, MPI_CHAR, st.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (const auto& d : nlohmann::json::parse(buf))
      work.finish(d[0].get<std::size_t>(), d[1].get<report::SweepCells>(), d[2].get<double>());
    reply.clear();
    const std::size_t batch = std::clamp<std::size_t>(work.left() / (2 * static_cast<std::size_t>(w.size)), 1, kMaxBatch);
    while (reply.size() < batch)
      if (const auto next = work.take()) reply.push_back(static_cast<std::int64_t>(*next));
      else break;
    if (reply.empty()) reply.push_back(kStop), --running;
    MPI_Send(reply.data(), static_cast<int>(reply.size()), MPI_INT64_T, st.MPI_SOURCE, kTagPoint, MPI_COMM_WORLD);
    busy += thread_cpu_seconds() - t0;
  }
  return busy;
}

void mpi_work(const std::function<report::SweepCells(std::size_t)>& run) {
  std::vector<Done> done;
  std::vector<std::int64_t> points;
  for (;;) {
    const std::string request = encode(done);
    MPI_Send(request.data(), static_cast<int>(request.size()), MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Probe(0, kTagPoint, MPI_COMM_WORLD, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_INT64_T, &n);
    points.assign(static_cast<std::size_t>(n), kStop);
    MPI_Recv(points.data(), n, MPI_INT64_T, 0, kTagPoint, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
