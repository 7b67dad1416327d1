#include "sim/core/data_dir.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "sim/core/error.hpp"

namespace ccsim {

namespace {
namespace fs = std::filesystem;

// A binary sits in <prefix>/bin, a Python module a few folders below <prefix>/lib: enough levels for
// <prefix>/lib/python3/dist-packages/ccsim/_ccsim.so, few enough not to wander into unrelated trees.
constexpr int kLevelsUp = 6;

std::string share_above(const fs::path& file) {
  std::error_code ec;
  fs::path dir = file.parent_path();
  for (int i = 0; i < kLevelsUp && !dir.empty(); ++i, dir = dir.parent_path()) {
    const fs::path candidate = dir / "share" / "ccsim";
    // Canonical, so a build tree's link reports the source tree's own paths (shipped-file names in output).
    if (fs::exists(candidate / "topologies", ec)) return fs::canonical(candidate, ec).string();
    if (dir == dir.root_path()) break;
  }
  return {};
}

// The shared object holding this function: the Python module, or the program for a static link.
fs::path this_module() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&share_above), &info) == 0 || !info.dli_fname) return {};
  const fs::path p = info.dli_fname;
  return p.is_absolute() ? p : fs::path{}; // the main program may be named relative to a changed cwd
}

std::string find_data_dir() {
  if (const char* env = std::getenv("CCSIM_DATA_DIR"); env && *env) return env;
  std::error_code ec;
  for (const fs::path& where : {this_module(), fs::read_symlink("/proc/self/exe", ec)}) {
    if (where.empty()) continue;
    if (auto dir = share_above(where); !dir.empty()) return dir;
  }
  fail("cannot find ccsim's data (topologies/, models/): set CCSIM_DATA_DIR to the folder holding them "
       "(an install's <prefix>/share/ccsim)");
}
} // namespace

const std::string& data_dir() {
  static const std::string dir = find_data_dir(); // a throw leaves it unset: the next call looks again
  return dir;
}

} // namespace ccsim
