// nccl-tests' command line as `ccsim all_reduce_perf -b 8 -e 128M -f 2 -g 8` takes it: one argument per input line,
// the first the program; a line NAME=VALUE naming a variable the front end reads (NCCL_*, RCCL_*, CCSIM_*, the
// launchers' process counts) is set in the environment for the run instead. perf_main catches every ccsim::Error
// itself (exit 2); its exit status 3, an internal error, is a crash here.
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <streambuf>
#include <vector>

#include <unistd.h> // environ

#include "sim/cli/perf_command.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/p2p.hpp"
#include "fuzz_common.hpp"

namespace {

struct Discard : std::streambuf {
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

bool read_variable(std::string_view line) {
  const auto eq = line.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  const auto name = line.substr(0, eq);
  if (name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string_view::npos) return false;
  for (const char* prefix : {"NCCL_", "RCCL_", "CCSIM_TOPO", "CCSIM_MODEL", "CCSIM_PARAMS", "CCSIM_GPU", "OMPI_COMM_WORLD_",
                             "PMI_", "SLURM_"})
    if (name.starts_with(prefix)) return true;
  return false;
}

} // namespace

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  // Valid runs multiply (every type x reduction x root, thousands of GPUs): keep numbers small, no "all", no root -1.
  if (input.size() > 2000 || !fuzz::numbers_at_most(input, 4096)) return 0;
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < input.size();) {
    const auto end = std::min(input.find('\n', at), input.size());
    lines.push_back(input.substr(at, end - at));
    at = end + 1;
    if (lines.size() > 1 && (lines.back().ends_with("all") || lines.back().ends_with("-1"))) return 0;
    // A size of a GiB or more with a small step (-i) is a valid sweep of ~1,000 replayed rows (3 s in a release
    // build, past libFuzzer's 25 s under ASan): slow by design, not a parser bug. Sizes stay below 1 GiB here.
    if (const auto l = lines.back(); l.size() > 1 && l.find_first_not_of("0123456789") == l.size() - 1 &&
                                     std::string_view("GgTtPp").find(l.back()) != std::string_view::npos)
      return 0;
  }
  std::vector<std::string> args{"ccsim"}, set;
  for (const auto line : lines) {
    if (!read_variable(line)) {
      args.emplace_back(line);
      continue;
    }
    const std::string name(line.substr(0, line.find('=')));
    ::setenv(name.c_str(), std::string(line.substr(name.size() + 1)).c_str(), 1);
    set.push_back(name);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int status = 0;
  std::optional<cli::PerfInvocation> found;
  try {
    found = cli::perf_invocation(static_cast<int>(argv.size()), argv.data());
  } catch (const Error&) { // a launcher line that starts no test: main() says so in one line, exit 2
    status = 2;
  }
  if (const auto& inv = found) {
    static Discard discard;
    std::ostringstream said;
    auto* out = std::cout.rdbuf(&discard);
    auto* err = std::cerr.rdbuf(said.rdbuf());
    status = cli::perf_main(*inv, static_cast<int>(argv.size()), argv.data());
    std::cout.rdbuf(out), std::cerr.rdbuf(err);
    if (status == 3) std::fputs(said.str().c_str(), stderr);
  }
  for (const auto& name : set) ::unsetenv(name.c_str());
  // The variables a pasted launcher line passed (mpirun -x NAME=VALUE, srun --export=...): the test's environment,
  // set by perf_main for its run; gone before the next input.
  std::vector<std::string> passed;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view kv(*e);
    if (kv.starts_with("NCCL_") || kv.starts_with("RCCL_") || kv.starts_with("HSA_")) passed.emplace_back(kv.substr(0, kv.find('=')));
  }
  for (const auto& name : passed) ::unsetenv(name.c_str());
  // The machine settings a run leaves (NCCL_P2P_DISABLE, CCSIM_GPU), as the Python module resets them between calls.
  topology::set_p2p_mode("on");
  topology::clear_p2p_level();
  topology::set_default_import_gpu("");
  if (status == 3) std::abort();
})
