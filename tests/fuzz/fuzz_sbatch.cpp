// A Slurm batch script as `ccsim sbatch job.sbatch --topo MACHINE` reads it (sim/cli/sbatch_command.cpp): the #SBATCH
// allocation, the shell words of each line (quotes, variables, ${X:-default}, continuations, redirections), the
// exports, and each srun/mpirun/bare *_perf line handed to nccl-tests' front end with the launcher's words. The input
// is the script, written to a file as the command reads it. sbatch_main catches every ccsim::Error itself (exit 2);
// its exit status 3, an internal error, or any exception it lets through, is a crash here.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h> // environ, mkstemp

#include "sim/cli/sbatch_command.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/p2p.hpp"
#include "fuzz_common.hpp"

namespace {

struct Discard : std::streambuf {
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

// One file per fuzzing process, rewritten for each input and removed at exit.
const std::string& script_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    std::string p = std::string(dir && *dir ? dir : "/tmp") + "/ccsim-fuzz-sbatch-XXXXXX";
    const int fd = ::mkstemp(p.data());
    if (fd < 0) std::abort();
    ::close(fd);
    std::atexit([] { std::remove(script_path().c_str()); });
    return p;
  }();
  return path;
}

// The environment the process started with: sbatch_main sets each test's exports and leaves them set.
const std::vector<std::string>& first_environment() {
  static const std::vector<std::string> saved = [] {
    std::vector<std::string> s;
    for (char** e = environ; e && *e; ++e) s.emplace_back(*e);
    return s;
  }();
  return saved;
}

// Valid tests multiply (every type x reduction x root, GiB sweeps, many lines): keep each input's runs small. A word
// "all" (-d all), "-1" (-r -1), a size of a GiB or more, or more than four test programs is skipped.
bool small_run(std::string_view input) {
  if (input.size() > 4000 || !ccsim::fuzz::numbers_at_most(input, 4096)) return false;
  int programs = 0;
  for (auto at = input.find("_perf"); at != std::string_view::npos; at = input.find("_perf", at + 1))
    if (++programs > 4) return false;
  std::size_t i = 0;
  while (i < input.size()) {
    const auto end = std::min(input.find_first_of(" \t\n\r=\"'", i), input.size());
    const auto w = input.substr(i, end - i);
    i = end + 1;
    if (w.empty()) continue;
    if (w == "all" || w == "-1" || w.ends_with("all")) return false;
    if (w.size() > 1 && w.find_first_not_of("0123456789") == w.size() - 1 && std::string_view("GgTtPp").find(w.back()) != std::string_view::npos)
      return false;
  }
  return true;
}

} // namespace

CCSIM_FUZZ_TARGET({
  using namespace ccsim;
  if (!small_run(input)) return 0;
  (void)first_environment();
  {
    std::FILE* f = std::fopen(script_path().c_str(), "wb");
    if (!f) std::abort();
    if (!input.empty() && std::fwrite(input.data(), 1, input.size(), f) != input.size()) std::abort();
    std::fclose(f);
  }
  std::vector<std::string> args{"ccsim", "sbatch", script_path(), "--topo", "machine:gpu=h100,nodes=2,nics=8x400G"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  static Discard discard;
  std::ostringstream said;
  auto* out = std::cout.rdbuf(&discard);
  auto* err = std::cerr.rdbuf(said.rdbuf());
  int status = 0;
  try {
    status = cli::sbatch_main(static_cast<int>(args.size()), argv.data());
  } catch (...) {
    std::cout.rdbuf(out), std::cerr.rdbuf(err);
    throw;
  }
  std::cout.rdbuf(out), std::cerr.rdbuf(err);
  if (status == 3) std::fputs(said.str().c_str(), stderr);
  // What a run leaves: the tests' exports, the machine settings (NCCL_P2P_DISABLE, CCSIM_GPU).
  ::clearenv();
  for (const auto& kv : first_environment()) {
    const auto eq = kv.find('=');
    if (eq != std::string::npos) ::setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
  }
  topology::set_p2p_mode("on");
  topology::clear_p2p_level();
  topology::set_default_import_gpu("");
  if (status == 3) std::abort();
})
