// `mpirun -np N ccsim sweep plan.json`: rank 0 hands out point indices to whichever rank asks, in
// shrinking batches (points differ in cost by orders of magnitude, so a static split would leave ranks
// idle) and gathers their rows; the other ranks only compute. Built only when CMake finds MPI (CCSIM_HAVE_MPI);
// otherwise every function here says "one process".
#pragma once
#include <cstddef>
#include <functional>
#include <optional>

#include "sim/report/sweep_table.hpp"

namespace ccsim::cli {

struct MpiWorld {
  int rank = 0, size = 1;
};

// Initialises MPI when this process was started by an MPI launcher (and ccsim was built with MPI).
MpiWorld mpi_start();
void mpi_stop();

// What rank 0 shares with the ranks that ask for work (both functions are thread-safe).
struct SweepWork {
  std::function<std::optional<std::size_t>()> take;                   // the next point, or none left
  std::function<std::size_t()> left;                                   // points not yet handed out
  std::function<void(std::size_t, report::SweepCells, double)> finish; // its rows and seconds spent
};
// Rank 0: answers the other ranks until every one was told to stop. Returns the CPU seconds its thread
// spent serving (receiving and decoding rows, journaling them, handing out points): the master's overhead.
double mpi_serve(const MpiWorld& w, const SweepWork& work);
// Ranks > 0: asks for points, runs them with `run`, sends the rows back, until told to stop.
void mpi_work(const std::function<report::SweepCells(std::size_t)>& run);

} // namespace ccsim::cli
