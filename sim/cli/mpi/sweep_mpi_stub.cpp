// Builds without MPI: one process, no ranks to serve.
#ifndef CCSIM_HAVE_MPI
#include "sim/cli/sweep_mpi.hpp"

namespace ccsim::cli {

MpiWorld mpi_start() { return {}; }
void mpi_stop() {}
double mpi_serve(const MpiWorld&, const SweepWork&) { return 0; }
void mpi_work(const std::function<report::SweepCells(std::size_t)>&) {}

} // namespace ccsim::cli
#endif
