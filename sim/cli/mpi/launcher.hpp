// Shared by the two MPI front ends of `ccsim sweep` (sweep_mpi.cpp loads the MPI module; sweep_mpi_exec.cpp,
// in a static binary, hands the run to the dynamic one that can): was this process started by an MPI
// launcher, and where does a file that ships beside the binary live.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace ccsim::cli {

inline bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

// `name` sits beside the binary in a build tree, in <prefix>/<libdir>/ccsim for an install
// (CCSIM_MPI_MODULE_DIR: that folder relative to the binary's, set by sim/CMakeLists.txt).
inline std::filesystem::path shipped_beside(const char* name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  if (const fs::path beside = dir / name; fs::exists(beside, ec)) return beside;
  return (dir / CCSIM_MPI_MODULE_DIR / name).lexically_normal();
}

} // namespace ccsim::cli
