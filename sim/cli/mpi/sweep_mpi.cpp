// MPI side of `ccsim sweep` (built when CMake finds MPI). Rank 0's main thread is the master: it polls
// for requests (sleeping briefly between polls, so it leaves its core to the threads computing points)
// and answers each with the next point index; a request carries the rows of the asking rank's previous
// point. Only rank 0's main thread calls MPI (MPI_THREAD_FUNNELED).
#include <chrono>
#include <cstdint>
#include <cstdlib>
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

// "<point>\n<json rows>\n<seconds>" or "" for a first request.
std::string encode(std::int64_t point, const report::SweepCells& cells, double seconds) {
  return std::to_string(point) + "\n" + nlohmann::json(cells).dump() + "\n" + std::to_string(seconds);
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
  while (running > 0) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &flag, &st);
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    int len = 0;
    MPI_Get_count(&st, MPI_CHAR, &len);
    buf.assign(static_cast<std::size_t>(len), '\0');
    MPI_Recv(buf.data(), len, MPI_CHAR, st.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!buf.empty()) {
      const auto nl1 = buf.find('\n'), nl2 = buf.rfind('\n');
      const auto point = static_cast<std::size_t>(std::stoll(buf.substr(0, nl1)));
      auto cells = nlohmann::json::parse(buf.substr(nl1 + 1, nl2 - nl1 - 1)).get<report::SweepCells>();
      work.finish(point, std::move(cells), std::stod(buf.substr(nl2 + 1)));
    }
    const auto next = work.take();
    const std::int64_t reply = next ? static_cast<std::int64_t>(*next) : kStop;
    MPI_Send(&reply, 1, MPI_INT64_T, st.MPI_SOURCE, kTagPoint, MPI_COMM_WORLD);
    if (!next) --running;
    busy += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return busy;
}

void mpi_work(const std::function<report::SweepCells(std::size_t)>& run) {
  std::string request;
  for (;;) {
    MPI_Send(request.data(), static_cast<int>(request.size()), MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD);
    std::int64_t point = kStop;
    MPI_Recv(&point, 1, MPI_INT64_T, 0, kTagPoint, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (point == kStop) return;
    const auto t0 = std::chrono::steady_clock::now();
    const auto cells = run(static_cast<std::size_t>(point));
    request = encode(point, cells, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
}

} // namespace ccsim::cli
