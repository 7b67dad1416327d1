#include "sim/core/data_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace ccsim {

namespace {
namespace fs = std::filesystem;

std::string find_data_dir() {
  if (const char* env = std::getenv("CCSIM_DATA_DIR"); env && *env) return env;
  // An installed binary sits in <prefix>/bin and its data in <prefix>/share/ccsim.
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "ccsim";
    if (fs::exists(installed / "topologies", ec)) return installed.string();
  }
  // Only this file knows the source tree (so moving it never recompiles the rest).
  return CCSIM_SOURCE_DIR;
}
} // namespace

const std::string& data_dir() {
  static const std::string dir = find_data_dir();
  return dir;
}

} // namespace ccsim
