// MPI side of `ccsim sweep` in a statically linked ccsim (sim/CMakeLists.txt). A static glibc program
// cannot load Open MPI (dlopen from a static binary crashed in MPI_Init_thread), so under an MPI launcher
// this process hands its whole command line to the dynamically linked build of the same program,
// ccsim-mpi (beside the binary in a build tree, in <prefix>/<libdir>/ccsim once installed), which loads
// the MPI module as sweep_mpi.cpp says. Every other run pays for no dynamic loader at start-up.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "sim/cli/mpi/launcher.hpp"
#include "sim/cli/sweep_mpi.hpp"
#include "sim/core/error.hpp"

namespace ccsim::cli {
namespace {

// This process's argv as the kernel holds it (NUL-separated), so the command runs again unchanged.
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<std::string> args;
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t end = all.find('\0', at);
    args.push_back(all.substr(at, end - at));
    at = end == std::string::npos ? all.size() : end + 1;
  }
  return args;
}

} // namespace

// Returns only without a launcher (one process) or by throwing: under one, the sweep continues in ccsim-mpi.
MpiWorld mpi_start() {
  if (!launched_by_mpi()) return {};
  const std::string path = shipped_beside(CCSIM_MPI_EXE_NAME).string();
  std::vector<std::string> args = own_arguments();
  if (args.empty()) fail("MPI: cannot read this process's arguments (/proc/self/cmdline)");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(path.c_str(), argv.data());
  fail("MPI: cannot run {}: {}: reinstall ccsim, or run the sweep without mpirun", path, std::strerror(errno));
}

void mpi_stop() {}
double mpi_serve(const MpiWorld&, const SweepWork&) { return 0; }
void mpi_work(const std::function<report::SweepCells(std::size_t)>&) {}

} // namespace ccsim::cli
