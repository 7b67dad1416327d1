// nccl-tests mode: the flags of nccl-tests' src/common.cu (short and long forms, same defaults), the
// rank count of nccl-tests (processes x threads x GPUs per thread), and its output via report/.
#include "sim/cli/perf_command.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h> // environ

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/cli/common.hpp"
#include "sim/cli/parse_errors.hpp"
#include "sim/model/evidence.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/core/ascii.hpp"
#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"
#include "sim/metrics/sweep.hpp"
#include "sim/model/compare.hpp"
#include "sim/model/nccl/nccl_env.hpp"
#include "sim/report/nccl_tests_format.hpp"
#include "sim/report/report.hpp"
#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/trace/nccl_tests_options.hpp"

namespace ccsim::cli {
namespace {

using schedule::Op;

// nccl-tests binaries ccsim cannot predict yet, so that their names give a clear refusal.
constexpr const char* kUnsupported[] = {"alltoallv_perf"};

// Rows of one run's table (every size x type x reduction x root, times -N and -s): see resolve().
constexpr long long kMaxPerfRows = 1'000'000;

std::optional<Op> op_of_program(const std::string& name) {
  for (auto op : schedule::kAllOps)
    if (schedule::nccl_test_name(op) == name) return op;
  return std::nullopt;
}

bool is_perf_name(const std::string& name) {
  if (op_of_program(name)) return true;
  for (const char* n : kUnsupported)
    if (name == n) return true;
  return false;
}

// nccl-tests' flags as typed; every one is a string so that a value is checked here, naming its flag.
struct PerfFlags {
  RunOptions run; // ccsim's machine and model flags (--topo, --model, --gpus, ...) and --algo
  std::string procs;
  std::string procs_from; // where procs came from when not --procs: the launcher words read (read_launcher)
  std::map<char, std::string> v; // nccl-tests flag letter -> value
  std::map<char, CLI::Option*> given;
  // NCCL's settings read from the environment (apply_nccl_environment): header lines, and the flag each set with
  // the variable it came from, so an error about the flag names the variable nobody typed as a flag.
  std::vector<std::string> env_notes;
  std::vector<std::string> script_notes; // the batch script's line this test is (PerfInvocation::notes)
  std::map<std::string, std::string> env_source; // "--nccl-algo" -> "NCCL_ALGO=Tree"
};

struct FlagSpec {
  char letter;
  const char* names;
  const char* def; // nccl-tests' default
  const char* help;
};

// The getopt table of nccl-tests' src/common.cu, with its defaults.
constexpr FlagSpec kFlags[] = {
    {'t', "-t,--nthreads", "1", "Threads per process; ranks = processes x threads x GPUs per thread"},
    {'g', "-g,--ngpus", "1", "GPUs per thread"},
    {'b', "-b,--minbytes", "32M", "Smallest size (K/M/G = 2^10/2^20/2^30)"},
    {'e', "-e,--maxbytes", "32M", "Largest size"},
    {'i', "-i,--stepbytes", "1M", "Add this many bytes between sizes (when -f is 1)"},
    {'f', "-f,--stepfactor", "1", "Multiply the size by this between sizes (when > 1)"},
    {'n', "-n,--iters", "20", "Timed iterations (no effect on a prediction)"},
    {'m', "-m,--agg_iters", "1", "Operations aggregated per launch (no effect on a prediction)"},
    {'w', "-w,--warmup_iters", "1", "Warm-up iterations (no effect on a prediction)"},
    {'N', "-N,--run_cycles", "1", "Print every size this many times"},
    {'p', "-p,--parallel_init", "0", "Threads initialise NCCL in parallel (no effect on a prediction)"},
    {'c', "-c,--check", "1", "Check results: #wrong is 0 (nothing moves, nothing is wrong); 0 prints N/A"},
    {'o', "-o,--op", "sum", "Reduction: sum prod max min avg mulsum, or all"},
    {'d', "-d,--datatype", "float", "Type: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2, or all"},
    {'r', "-r,--root", "0", "Root of broadcast/reduce/gather/scatter; -1 = every rank in turn"},
    {'z', "-z,--blocking", "0", "Blocking collectives (no effect on a prediction)"},
    {'y', "-y,--stream_null", "0", "Use the NULL stream (no effect on a prediction)"},
    {'T', "-T,--timeout", "0", "Timeout in seconds (no effect on a prediction)"},
    {'G', "-G,--cudagraph", "0", "CUDA graph launches (no effect on a prediction)"},
    {'C', "-C,--report_cputime", "0", "Label the time columns cputime (the prediction is the same)"},
    {'S', "-S,--report_timestamps", "0", "Timestamps per row (not printed by ccsim)"},
    {'J', "-J,--output_file", "", "JSON result file (not written by ccsim)"},
    {'a', "-a,--average", "1", "Rank time averaging 0..3 (every rank predicts the same time)"},
    {'R', "-R,--local_register", "0", "Buffer registration (no effect on a prediction)"},
    {'x', "-x,--cta_policy", "", "NCCL CTA policy (no effect on a prediction)"},
    {'D', "-D,--device_implementation", "0", "Device-side implementation (no effect on a prediction)"},
    {'V', "-V,--device_cta_count", "16", "CTAs of the device implementation (no effect on a prediction)"},
    {'M', "-M,--memory", "0", "GPU memory report (not printed by ccsim)"},
    {'u', "-u,--unalign,--cumask", "0", "Misalign buffers by this many elements; rccl-tests: --cumask d0,d1,d2,d3, hex CU masks (no effect on a prediction)"},
    {'I', "-I,--per_iter_timing", "0", "Per-iteration timing columns (not printed by ccsim)"},
    {'K', "-K,--per_iter_skip", "0", "Leading samples skipped by -I (no effect)"},
    // rccl-tests' own options (its src/common.cu adds them beside nccl-tests'; letters nccl-tests leaves free), so
    // an rccl-tests script runs unchanged. Its -x is --output_file there, nccl-tests' --cta_policy here.
    {'Y', "-Y,--memory_type", "coarse", "rccl-tests: buffer memory coarse/fine/host/managed (no effect on a prediction)"},
    {'q', "-q,--delay", "0", "rccl-tests: microseconds between out-of-place and in-place (no effect on a prediction)"},
    {'F', "-F,--cache_flush", "0", "rccl-tests: iterations between instruction-cache flushes (no effect on a prediction)"},
    {'E', "-E,--rotating_tensor", "0", "rccl-tests: rotate buffers between iterations (no effect on a prediction)"},
    {'Z', "-Z,--output_format", "", "rccl-tests: result file format csv/json (ccsim writes no result file: refused)"},
    {'O', "-O,--out_of_place", "1", "rccl-tests: 0 runs and prints the in-place half only"},
    {'s', "-s,--stress_cycles", "1", "rccl-tests: run the whole sweep this many times (\"# Testing N cycle.\" between)"},
};

std::string flag_name(char c) {
  for (const auto& f : kFlags)
    if (f.letter == c) return std::string(f.names);
  if (c == 'P') return "--procs"; // ccsim's own flag, kept under a letter nccl-tests does not use
  return std::string("-") + c;
}

// A number as nccl-tests reads it (trace::nccl_tests_number, its strtol(…, 0): "8", "0x8" and "8x" are 8), in range
// or a one-line error; text strtol reads no digits from is refused rather than run as nccl-tests' 0.
long long int_flag(const PerfFlags& f, char c, long long lo, long long hi) {
  const std::string& s = f.v.at(c);
  const auto n = trace::nccl_tests_number(s);
  if (!n) fail("{}: '{}' is not a whole number", flag_name(c), s);
  if (n->value < lo || n->value > hi) fail("{}: {} is out of range ({}..{})", flag_name(c), s, lo, hi);
  return n->value;
}

// nccl-tests' parsesize: a number (fractions allowed) with an optional K, M or G (binary units).
Bytes size_flag(const PerfFlags& f, char c) {
  const std::string& s = f.v.at(c);
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(s, &used);
  } catch (...) {
    fail("{}: '{}' is not a size (a number with an optional K, M or G)", flag_name(c), s);
  }
  std::string unit = s.substr(used);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  if (unit.size() > 1 && (unit.substr(1) == "B" || unit.substr(1) == "iB")) unit.resize(1);
  double scale = 1;
  if (unit == "K" || unit == "k") scale = 1024.0;
  else if (unit == "M" || unit == "m") scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "g") scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty()) fail("{}: '{}' has an unknown unit (K, M or G)", flag_name(c), s);
  x *= scale;
  if (!std::isfinite(x) || x < 0) fail("{}: '{}' must be a non-negative size", flag_name(c), s);
  if (x > std::ldexp(1.0, 40)) fail("{}: {} is larger than 1 TiB", flag_name(c), s);
  return static_cast<Bytes>(x);
}

// -u: nccl-tests' --unalign (a number of elements) or rccl-tests' --cumask, the same letter: up to four CU masks
// d0,d1,d2,d3 that rccl-tests reads with strtol(mask, NULL, 16). Neither changes a prediction; anything else is refused.
void check_unalign_or_cumask(const std::string& u) {
  if (const auto n = trace::nccl_tests_number(u); n && n->whole && n->value >= 0 && n->value <= (1 << 30)) return;
  std::size_t masks = 0;
  bool hex = !u.empty() && u.back() != ',';
  for (std::size_t at = 0; hex && at <= u.size(); ++masks) {
    const auto comma = std::min(u.find(',', at), u.size());
    std::string_view m = std::string_view(u).substr(at, comma - at);
    if (m.size() > 2 && m[0] == '0' && (m[1] == 'x' || m[1] == 'X')) m.remove_prefix(2);
    hex = !m.empty() && m.size() <= 8 && m.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
    at = comma + 1;
  }
  if (!hex || masks > 4)
    fail("-u: '{}' is neither nccl-tests' --unalign (a number of elements, 0..{}) nor rccl-tests' --cumask (up to 4 "
         "hexadecimal CU masks, d0,d1,d2,d3)", printable(u, 60), 1 << 30);
}

struct World {
  int procs = 1, rank = 0;
  std::string from; // "" (one process), "--procs", or the launcher's variables
  // nccl-tests' NCCL_TESTS_SPLIT_MASK / NCCL_TESTS_SPLIT: the processes of process 0's communicator (empty: all of
  // them, one communicator) and the variable as set.
  std::vector<int> members;
  std::string split;
  int comm_procs() const { return members.empty() ? procs : static_cast<int>(members.size()); }
  // "16 processes (OMPI_COMM_WORLD_SIZE) x ", "2 of 16 processes (OMPI_COMM_WORLD_SIZE; NCCL_TESTS_SPLIT_MASK=0x7) x "
  std::string text() const {
    if (procs <= 1) return "";
    if (members.empty()) return fmt::format("{} processes ({}) x ", procs, from);
    return fmt::format("{} of {} processes ({}; {}) x ", members.size(), procs, from, split);
  }
};

// nccl-tests' communicator split (src/common.cu run(), NVIDIA/nccl-tests v2.19.6): MPI_Comm_split by a color of the
// process index, NCCL_TESTS_SPLIT_MASK=HEX (proc & mask) or NCCL_TESTS_SPLIT="AND n" / "&n", "OR n" / "|n",
// "MOD n" / "%n", "DIV n" / "/n" (n read by strtoul base 0, or 0b binary; unread, every process keeps color 0).
// Process 0 prints, for its own communicator: the processes whose color is its own.
void split_world(World& w) {
  const char* mask = std::getenv("NCCL_TESTS_SPLIT_MASK");
  const char* split = mask ? nullptr : std::getenv("NCCL_TESTS_SPLIT");
  if (!mask && !split) return;
  // The color of process p: p OP k (the mask is AND); no operator read: every process 0, one communicator.
  char op = 0;
  long long k = 0;
  if (mask) {
    op = '&';
    k = static_cast<long long>(std::strtoull(mask, nullptr, 16));
    w.split = std::string("NCCL_TESTS_SPLIT_MASK=") + printable(mask, 40);
  } else {
    w.split = std::string("NCCL_TESTS_SPLIT=") + printable(split, 40);
    const std::string text = split;
    const std::pair<const char*, char> ops[] = {{"AND", '&'}, {"&", '&'}, {"OR", '|'}, {"|", '|'},
                                                {"MOD", '%'}, {"%", '%'}, {"DIV", '/'}, {"/", '/'}};
    for (const auto& [word, o] : ops) {
      if (ascii_lower(text.substr(0, std::string_view(word).size())) != ascii_lower(word)) continue;
      std::string rest = text.substr(std::string_view(word).size());
      rest.erase(0, rest.find_first_not_of(" \t"));
      const bool binary = ascii_lower(rest.substr(0, 2)) == "0b";
      char* end = nullptr;
      const unsigned long long n = std::strtoull(rest.c_str() + (binary ? 2 : 0), &end, binary ? 2 : 0);
      if (rest.empty() || end == rest.c_str() + (binary ? 2 : 0)) break; // unread: one communicator
      if ((o == '%' || o == '/') && n == 0) fail("environment {}: divides by zero (nccl-tests would fail)", w.split);
      op = o, k = static_cast<long long>(n);
      break;
    }
  }
  const auto color = [op, k](long long p) -> long long {
    switch (op) {
      case '&': return p & k;
      case '|': return p | k;
      case '%': return p % k;
      case '/': return p / k;
      default: return 0;
    }
  };
  for (int p = 0; p < w.procs; ++p)
    if (color(p) == color(0)) w.members.push_back(p);
  if (static_cast<int>(w.members.size()) == w.procs) w.members.clear(); // every process in one communicator
}

// Under mpirun or srun every process runs this; nccl-tests makes one communicator of all of them and
// only process 0 prints. The launchers say how many there are.
World launcher_world(const PerfFlags& f) {
  World w;
  if (!f.procs.empty()) {
    PerfFlags tmp;
    tmp.v['P'] = f.procs;
    w.procs = static_cast<int>(int_flag(tmp, 'P', 1, 100000));
    w.from = f.procs_from.empty() ? "--procs" : f.procs_from;
    split_world(w);
    return w;
  }
  const std::pair<const char*, const char*> vars[] = {
      {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"}, {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID"}};
  for (const auto& [size, rank] : vars) {
    const char* s = std::getenv(size);
    if (!s) continue;
    auto num = [](const char* name, const char* text, int lo) {
      int x = 0;
      const std::string t = text ? text : "";
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
      if (t.empty() || ec != std::errc() || end != t.data() + t.size() || x < lo || x > 100000)
        fail("environment {}: '{}' is not a process count or rank", name, t);
      return x;
    };
    w.procs = num(size, s, 1);
    w.rank = std::getenv(rank) ? num(rank, std::getenv(rank), 0) : 0;
    // A rank past the count (variables of two launches mixed) printed nothing and exited 0, as a process other than 0.
    if (w.rank >= w.procs) fail("environment {}: {} is not below {} {} (ranks count from 0)", rank, w.rank, size, w.procs);
    w.from = size;
    split_world(w);
    return w;
  }
  return w;
}

struct TypeChoice {
  std::string shown, ccsim; // nccl-tests' name and ccsim's
};

std::vector<TypeChoice> types_of(const std::string& d, const topology::Topology& topo) {
  auto one = [](const std::string& s) -> TypeChoice {
    // nccl-tests' fp8 names, and rccl-tests' (its test_typenames: fp8_e4m3, fp8_e5m2), printed as given.
    if (s == "f8e4m3" || s == "f8e5m2" || s == "fp8_e4m3" || s == "fp8_e5m2") return {s, "fp8"};
    auto t = metrics::datatype_from(s);
    if (!t) fail("-d,--datatype: unknown type '{}' (int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2, all)", s);
    return {t->name, t->name};
  };
  if (d != "all") return {one(d)};
  std::vector<TypeChoice> all;
  for (const char* n : {"int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16"})
    all.push_back(one(n));
  // nccl-tests runs the fp8 types only on sm90 and later.
  if (!topo.gpu_kind.empty()) {
    const auto kind = topology::gpu_kind(topo.gpu_kind, "--topo");
    if (!kind.sm.empty() && std::isdigit(static_cast<unsigned char>(kind.sm[0])) && std::atoi(kind.sm.c_str()) >= 90)
      for (const char* n : {"f8e4m3", "f8e5m2"}) all.push_back(one(n));
  }
  return all;
}

std::vector<std::string> redops_of(Op op, const std::string& o) {
  static const std::vector<std::string> all = {"sum", "prod", "max", "min", "avg", "mulsum"};
  // Checked for every test, as -r is: a name no reduction has is refused even where nothing reduces.
  if (o != "all" && std::find(all.begin(), all.end(), o) == all.end())
    fail("-o,--op: unknown reduction '{}' (sum prod max min avg mulsum, all)", o);
  if (op == Op::HyperCube) return {""}; // hypercube.cu passes opName "": the redop column prints blank
  if (!schedule::prints_redop(op)) return {"none"};
  if (o == "all") return all;
  return {o};
}

std::string default_algo(Op op) {
  for (const char* a : {"ring", "direct"})
    if (schedule::find_algorithm(op, a)) return a;
  for (const auto& a : schedule::all_algorithms())
    if (a.op == op) return a.name;
  fail("{}: ccsim has no algorithm for it", schedule::nccl_test_name(op));
}

// Everything the flags resolve to.
struct PerfRun {
  std::string program;
  Op op = Op::AllReduce;
  int threads = 1, gpus = 1, ranks = 1;
  World world;
  Bytes lo = 0, hi = 0;
  std::uint64_t factor = 1, step = 0;
  std::vector<Bytes> sizes;
  int warmup = 1, iters = 20, agg = 1, cycles = 1, check = 1, graph = 0, blocking = 0;
  int stress_cycles = 1;    // rccl-tests -s
  bool out_of_place = true; // rccl-tests -O
  bool parallel_init = false, cputime = false;
  std::vector<TypeChoice> types;
  std::vector<std::string> redops;
  std::vector<int> roots; // printed roots; -1 for collectives without one
};

// nccl-tests' loop: size = stepfactor > 1 ? size * stepfactor : size + stepbytes, while size <= maxbytes.
// The series itself is metrics::size_series; what is checked here are the inputs on which nccl-tests
// itself would never stop.
std::vector<Bytes> size_series_of(const PerfRun& r) {
  if (r.lo > r.hi) fail("-b,--minbytes {} is larger than -e,--maxbytes {}", r.lo, r.hi);
  if (r.factor > 1 && r.lo == 0) fail("-b,--minbytes 0 with -f,--stepfactor {}: the size never grows (nccl-tests would loop forever)", r.factor);
  if (r.factor <= 1 && r.step == 0) fail("-i,--stepbytes 0 with -f,--stepfactor {}: the size never grows (nccl-tests would loop forever)", r.factor);
  if (r.factor > 1) return metrics::size_series(r.lo, r.hi, static_cast<double>(r.factor));
  return metrics::size_series(r.lo, r.hi, 1.0, r.step);
}

PerfRun resolve(const PerfFlags& f, const std::string& program, const topology::Topology& topo) {
  PerfRun r;
  r.program = program;
  const auto op = op_of_program(program);
  if (!op) fail("ccsim cannot predict it yet; the tests it predicts: all_reduce_perf, all_gather_perf, reduce_scatter_perf, "
                "broadcast_perf, reduce_perf, gather_perf, scatter_perf, alltoall_perf, sendrecv_perf, hypercube_perf", program);
  r.op = *op;
  r.threads = static_cast<int>(int_flag(f, 't', 1, 1024));
  r.gpus = static_cast<int>(int_flag(f, 'g', 1, 1024));
  r.world = launcher_world(f);
  const long long ranks = static_cast<long long>(r.world.comm_procs()) * r.threads * r.gpus;
  // A split communicator's GPUs are its processes' (process p drives GPUs p x t x g ... as nccl-tests' ranks count).
  const long long last_gpu =
      r.world.members.empty() ? ranks : (static_cast<long long>(r.world.members.back()) + 1) * r.threads * r.gpus;
  if (!r.world.members.empty() && last_gpu > topo.num_gpus())
    fail("environment {}: process 0's communicator (processes {}, {} GPUs each) reaches GPU {} but topology {} has {} GPUs "
         "(give a larger --topo)", r.world.split, fmt::join(r.world.members, ","), r.threads * r.gpus, last_gpu - 1, topo.name,
         topo.num_gpus());
  if (ranks > topo.num_gpus())
    fail("{} ranks ({}-t {} x -g {}) but topology {} has {} GPUs (give a larger --topo)", ranks, r.world.text(), r.threads, r.gpus,
         topo.name, topo.num_gpus());
  r.ranks = static_cast<int>(ranks);
  r.lo = size_flag(f, 'b');
  r.hi = size_flag(f, 'e');
  r.step = size_flag(f, 'i');
  r.factor = static_cast<std::uint64_t>(int_flag(f, 'f', 0, 1 << 20));
  r.sizes = size_series_of(r);
  r.iters = static_cast<int>(int_flag(f, 'n', 0, 1 << 30));
  r.agg = static_cast<int>(int_flag(f, 'm', 0, 1 << 30));
  r.warmup = static_cast<int>(int_flag(f, 'w', 0, 1 << 30));
  r.cycles = static_cast<int>(int_flag(f, 'N', 0, 1000));
  if (r.cycles == 0) fail("-N,--run_cycles 0 runs forever in nccl-tests; a prediction is the same every cycle, give a count");
  r.check = static_cast<int>(int_flag(f, 'c', 0, 1 << 30));
  r.graph = static_cast<int>(int_flag(f, 'G', 0, 1 << 30));
  r.blocking = static_cast<int>(int_flag(f, 'z', 0, 3));
  r.parallel_init = int_flag(f, 'p', 0, 1) != 0;
  r.cputime = int_flag(f, 'C', 0, 1) != 0;
  for (char c : {'y', 'T', 'S', 'a', 'R', 'D', 'V', 'M', 'I', 'K', 'q', 'F', 'E'}) (void)int_flag(f, c, 0, 1 << 30);
  check_unalign_or_cumask(f.v.at('u'));
  r.out_of_place = int_flag(f, 'O', 0, 1 << 30) != 0; // rccl-tests: strtol, any other number runs it
  r.stress_cycles = static_cast<int>(int_flag(f, 's', 0, 1000));
  if (r.stress_cycles == 0)
    fail("-s,--stress_cycles 0: rccl-tests runs no size at all (its sweep loop ends before the first); give 1 or more");
  if (const auto& y = f.v.at('Y'); y != "coarse" && y != "fine" && y != "host" && y != "managed")
    fail("-Y,--memory_type: '{}' is not coarse, fine, host or managed (rccl-tests' memory types)", printable(y, 40));
  // rccl-tests writes its rows to a file with -x FILE -Z csv|json; ccsim prints the same rows on stdout only.
  const bool rccl_result_file = !f.v.at('Z').empty() || (!f.v.at('x').empty() && !trace::nccl_tests_number(f.v.at('x')));
  if (rccl_result_file)
    fail("-x/-Z: rccl-tests' result file ({}) is not written by ccsim; its rows are in the log on stdout: redirect it "
         "(> log.txt; ccsim compare --trace log.txt reads it)",
         printable(f.v.at('x').empty() ? "-Z " + f.v.at('Z') : "-x " + f.v.at('x'), 60));
  if (!f.v.at('x').empty()) (void)int_flag(f, 'x', 0, 2);
  r.types = types_of(f.v.at('d'), topo);
  r.redops = redops_of(r.op, f.v.at('o'));
  if (schedule::has_root(r.op)) {
    const int root = static_cast<int>(int_flag(f, 'r', -1, r.ranks - 1));
    for (int k = root < 0 ? 0 : root; k <= (root < 0 ? r.ranks - 1 : root); ++k) r.roots.push_back(k);
  } else {
    (void)int_flag(f, 'r', -1, 1 << 30);
    r.roots = {-1};
  }
  // The table is written whole once every row is predicted (no partial output), and -N and -s repeat it: 10000
  // sizes x -N 1000 x -s 1000 asked for 10^10 rows (std::bad_alloc, exit 3, or the machine's memory). A million rows
  // is ~100 MB of output, 450 times what -d all -o all prints for nccl-tests' usual -b 8 -e 8G -f 2 (2232 rows).
  const double rows = static_cast<double>(r.sizes.size()) * static_cast<double>(r.types.size()) *
                      static_cast<double>(r.redops.size()) * static_cast<double>(r.roots.size()) * r.cycles * r.stress_cycles;
  if (rows > static_cast<double>(kMaxPerfRows))
    fail("-N,--run_cycles {} x -s,--stress_cycles {} x {} sizes x {} types x {} reductions x {} roots is {:.0f} rows, more than the "
         "{} one run prints: lower -N or -s, or narrow -b/-e, -d, -o, -r",
         r.cycles, r.stress_cycles, r.sizes.size(), r.types.size(), r.redops.size(), r.roots.size(), rows, kMaxPerfRows);
  return r;
}

// The placement flags as ccsim takes them; with fewer ranks than GPUs, nccl-tests uses devices 0..n-1.
RunOptions base_options(const PerfFlags& f, const PerfRun& r, const topology::Topology& topo) {
  RunOptions o = f.run;
  o.op = std::string(schedule::to_string(r.op));
  if (o.algo.empty()) o.algo = default_algo(r.op);
  const int per_proc = r.threads * r.gpus;
  if (o.gpus.empty() && o.ring.empty() && o.rings.empty() && !r.world.members.empty()) {
    for (int p : r.world.members)
      for (int k = 0; k < per_proc; ++k) o.gpus += fmt::format("{}{}", o.gpus.empty() ? "" : ",", p * per_proc + k);
  } else if (o.gpus.empty() && o.ring.empty() && o.rings.empty() && r.ranks < topo.num_gpus()) {
    for (int g = 0; g < r.ranks; ++g) o.gpus += fmt::format("{}{}", g ? "," : "", g);
  }
  return o;
}

// Host and CUDA device of a GPU: "n1.gpu3" is device 3 of host n1; a one-node topology is its own host.
report::PerfDevice device_of(const topology::Topology& topo, int rank, int gpu) {
  report::PerfDevice d{rank, topo.name, gpu, topo.gpu_kind.empty() ? "simulated GPU" : "simulated " + topo.gpu_kind};
  const std::string& n = topo.nodes[static_cast<std::size_t>(topo.gpu_node(gpu))].name;
  const auto dot = n.rfind('.');
  if (dot != std::string::npos && n.compare(dot + 1, 3, "gpu") == 0) {
    int local = 0;
    const auto [end, ec] = std::from_chars(n.data() + dot + 4, n.data() + n.size(), local);
    if (ec == std::errc() && end == n.data() + n.size()) d.host = n.substr(0, dot), d.device = local;
  }
  for (auto& c : d.host)
    if (c == ' ') c = '_';
  return d;
}

// ccsim's own header lines: what predicted this, and which flags could not change it.
std::vector<std::string> notes_of(const PerfFlags& f, const PerfRun& r, const RunOptions& o, const metrics::RunConfig& cfg,
                                  const topology::Topology& topo, const std::string& model_detail) {
  std::vector<std::string> n;
  n.push_back(fmt::format("ccsim prediction, no GPU ran: {} by model {} on topology {} ({})", r.program, model_label(o),
                          topo.name, topo.origin));
  n.insert(n.end(), f.script_notes.begin(), f.script_notes.end());
  const bool chooses = model::require_model(o.model).chooses_algorithm;
  n.push_back(fmt::format("ccsim: {} ranks = {}nThread {} x nGpus {}; algorithm {}", r.ranks, r.world.text(), r.threads, r.gpus,
                          chooses ? "chosen per size by the model" : cfg.algo + ", the same for every size"));
  // The command of an mpirun -np 16 / srun line run by hand: one process, one GPU, which an allreduce moves nothing
  // for. Said, with the flag that gives the launcher's task count.
  if (r.ranks == 1 && r.world.from.empty())
    n.push_back("ccsim: 1 rank: no launcher seen (mpirun's OMPI_COMM_WORLD_SIZE or PMI_SIZE, srun's SLURM_STEP_NUM_TASKS "
                "unset); --procs N predicts the N tasks of an mpirun -np N or srun line");
  if (!r.world.members.empty())
    n.push_back(fmt::format("ccsim: {}: process 0's communicator is processes {}, predicted alone (the other communicators "
                            "run at the same time on the other GPUs; what they share is not modelled)",
                            r.world.split, fmt::join(r.world.members, ",")));
  for (std::size_t i = 0; i < cfg.placements.size(); ++i)
    n.push_back(fmt::format("ccsim: {} {}: GPUs {}", cfg.placements.size() > 1 ? "ring" : "rank order", i,
                            report::gpu_order_text(cfg.placements[i], ",")));
  if (!model_detail.empty()) n.push_back("ccsim: model sees: " + model_detail);
  // What measured runs of this class ccsim ships (README "Where a prediction is checked"), or that none do.
  if (o.model == "nccl") n.push_back("ccsim: " + model::check_shipped(model::evidence_class(topo, cfg.op, r.ranks)).line);
  n.push_back(r.ranks == 1 ? "ccsim: in-place predicted apart (one rank: NCCL copies only when the buffers differ); #wrong 0: no data moved"
                            : "ccsim: in-place predicted as out-of-place (the model moves the same bytes); #wrong 0: no data moved");
  std::string same, absent;
  for (char c : {'n', 'w', 'm', 'z', 'a', 'G', 'T', 'p', 'y', 'R', 'x', 'D', 'V', 'u', 'C', 'K', 'Y', 'q', 'F', 'E', 'O', 's'})
    if (f.given.at(c)->count()) same += fmt::format("{}-{} {}", same.empty() ? "" : ", ", c, f.v.at(c));
  for (char c : {'S', 'J', 'M', 'I'})
    if (f.given.at(c)->count()) absent += fmt::format("{}-{} {}", absent.empty() ? "" : ", ", c, f.v.at(c));
  std::string partly;
  constexpr std::string_view kNotNumbers = "beiodJYZ"; // sizes (nccl-tests' parsesize) and names
  for (const auto& spec : kFlags)
    if (kNotNumbers.find(spec.letter) == std::string_view::npos && f.given.at(spec.letter)->count() &&
        !(spec.letter == 'u' && f.v.at('u').find(',') != std::string::npos)) // rccl-tests' cumask list
      if (const auto x = trace::nccl_tests_number(f.v.at(spec.letter)); x && !x->whole)
        partly += fmt::format("{}-{} {} as {}", partly.empty() ? "" : ", ", spec.letter, f.v.at(spec.letter), x->value);
  if (!partly.empty()) n.push_back("ccsim: read as nccl-tests' strtol reads them (the number, then nothing): " + partly);
  if (!same.empty()) n.push_back("ccsim: accepted, cannot change a prediction (one steady-state collective): " + same);
  if (!absent.empty()) n.push_back("ccsim: accepted, their output is not produced: " + absent);
  n.insert(n.end(), f.env_notes.begin(), f.env_notes.end());
  return n;
}

report::PerfHeader header_of(const PerfRun& r) {
  report::PerfHeader h;
  h.program = r.program;
  h.threads = r.threads, h.gpus = r.gpus;
  h.min_bytes = r.lo, h.max_bytes = r.hi;
  h.step_is_factor = r.factor > 1;
  h.step = h.step_is_factor ? r.factor : r.step;
  h.warmup = r.warmup, h.iters = r.iters, h.agg = r.agg, h.check = r.check, h.graph = r.graph;
  h.blocking = r.blocking, h.parallel_init = r.parallel_init, h.cputime = r.cputime, h.out_of_place = r.out_of_place;
  return h;
}

std::string run_perf(const PerfFlags& f, const std::string& program) {
  const auto topo = topology::resolve_topology(f.run.topo);
  const PerfRun r = resolve(f, program, topo);
  const RunOptions base = base_options(f, r, topo);
  std::vector<report::PerfRow> rows;
  std::map<std::size_t, std::string> cycle_lines; // rccl-tests -s: "# Testing 2 cycle." before the row at that index
  report::PerfHeader h = header_of(r);
  if (r.op == Op::HyperCube && (r.ranks & (r.ranks - 1)) != 0) { // hypercube.cu's own refusal, exit status 0
    if (r.world.rank != 0) return {};
    std::ostringstream out;
    report::write_perf_header(out, h);
    out << fmt::format("nRanks {} is not a power of 2, skipping\n", r.ranks);
    report::write_perf_footer(out, rows, r.program);
    return out.str();
  }
  for (const auto& type : r.types)
    for (const auto& redop : r.redops)
      for (int root : r.roots) {
        RunOptions o = base;
        o.datatype = type.ccsim;
        o.redop = redop == "none" || redop == "mulsum" || redop.empty() ? "sum" : redop; // mulsum costs what sum does
        o.root = std::max(root, 0);
        const auto cfg = make_run_config(o, topo);
        if (metrics::ranks_of(cfg) != r.ranks)
          fail("--gpus/--ring/--rings place {} ranks but nccl-tests' flags ask for {}", metrics::ranks_of(cfg), r.ranks);
        model::Predictor pred(topo, cfg, o.model, model_options(o, r.gpus));
        if (h.devices.empty()) {
          h.notes = notes_of(f, r, o, cfg, topo, pred.describe());
          auto used = cfg.placements.front();
          std::sort(used.begin(), used.end());
          for (int k = 0; k < r.ranks; ++k) h.devices.push_back(device_of(topo, k, used[static_cast<std::size_t>(k)]));
        }
        std::vector<report::PerfRow> once;
        // Only a one-rank path depends on whether the buffers are the same (NCCL's ncclLaunchOneRank copies
        // only when they differ): there the in-place half is predicted on its own, elsewhere it is the same.
        auto in_place_cfg = cfg;
        in_place_cfg.in_place = true;
        for (Bytes s : r.sizes) {
          const auto plan = metrics::plan_size(r.op, r.ranks, s, cfg.dtype.size);
          const auto row = pred.predict(plan);
          const report::PerfHalf half{to_us(row.time), row.bw.algbw_GBps, row.bw.busbw_GBps};
          report::PerfHalf in_place = half;
          if (r.ranks == 1) {
            const auto ip = pred.predict(in_place_cfg, plan);
            in_place = {to_us(ip.time), ip.bw.algbw_GBps, ip.bw.busbw_GBps};
          }
          once.push_back({row.plan.size, row.plan.count, type.shown, redop, root, half, in_place});
        }
        // nccl-tests -N repeats the sweep of this type/op/root; rccl-tests -s too, saying so before each repeat.
        for (int k = 0; k < r.stress_cycles; ++k) {
          if (k > 0 && !once.empty()) cycle_lines[rows.size()] = fmt::format("# Testing {} cycle.", k + 1);
          for (int c = 0; c < r.cycles; ++c) rows.insert(rows.end(), once.begin(), once.end());
        }
      }
  if (r.world.rank != 0) return {}; // nccl-tests prints from process 0 only
  std::ostringstream out;
  report::write_perf_header(out, h);
  // nccl-tests' sendrecv.cu: "We don't support in-place sendrecv" (reportErrors = 0 in place).
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (const auto it = cycle_lines.find(i); it != cycle_lines.end()) out << it->second << "\n";
    report::write_perf_row(out, rows[i], r.check != 0, r.op != Op::SendRecv, r.out_of_place);
  }
  report::write_perf_footer(out, rows, r.program, r.out_of_place);
  return out.str();
}

void add_perf_flags(CLI::App& app, PerfFlags& f) {
  for (const auto& s : kFlags) {
    f.v[s.letter] = s.def;
    // getopt_long keeps the last of a repeated option ("-b 1M ... --minbytes 2M" runs from 2M), as here.
    f.given[s.letter] = app.add_option(s.names, f.v[s.letter], s.help)->capture_default_str()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  add_topology_options(app, f.run, /*short_t=*/false);
  add_model_options(app, f.run);
  app.add_option("--algo", f.run.algo, "Algorithm for the fifo/store_forward/flow models (default: ring, else the op's first)");
  app.add_option("--procs", f.procs, "Processes, as mpirun -np (default: from OMPI_COMM_WORLD_SIZE, PMI_SIZE or "
                                      "SLURM_STEP_NUM_TASKS, else 1); only process 0 prints");
}

} // namespace

namespace {
bool is_launcher_word(std::string w) {
  if (const auto slash = w.rfind('/'); slash != std::string::npos) w = w.substr(slash + 1);
  return w == "srun" || w == "mpirun" || w == "mpiexec" || w == "mpiexec.hydra" || w == "orterun" || w == "prterun";
}
// The test a launcher word names: "${NCCL_TESTS}/all_reduce_perf" or nccl-tests' MPI build "all_reduce_perf_mpi".
std::string perf_program_of(std::string w) {
  if (const auto slash = w.rfind('/'); slash != std::string::npos) w = w.substr(slash + 1);
  if (w.size() > 4 && w.ends_with("_mpi")) w.resize(w.size() - 4);
  return is_perf_name(w) ? w : std::string();
}
} // namespace

std::optional<PerfInvocation> perf_invocation(int argc, char** argv) {
  if (argc < 1) return std::nullopt;
  std::string self = argv[0];
  if (const auto slash = self.rfind('/'); slash != std::string::npos) self = self.substr(slash + 1);
  const auto at = [](std::string program, int first, int launcher) {
    PerfInvocation inv;
    inv.program = std::move(program), inv.first_arg = first, inv.launcher_first = launcher;
    return inv;
  };
  if (is_perf_name(self)) return at(self, 1, 0);
  if (argc >= 2 && is_perf_name(argv[1])) return at(argv[1], 2, 0);
  if (argc >= 2 && is_launcher_word(argv[1])) {
    for (int i = 2; i < argc; ++i)
      if (auto program = perf_program_of(argv[i]); !program.empty()) return at(program, i + 1, 1);
    fail("{}: starts no nccl-tests program among its words (all_reduce_perf, all_gather_perf, ...): ccsim predicts the test a "
         "launcher line starts, e.g. ccsim srun -N 2 --ntasks-per-node=8 all_reduce_perf -b 8 -e 8G --topo ...",
         printable(argv[1], 60));
  }
  return std::nullopt;
}

// An error about a value the environment gave says where it came from: a script run through a symlink never
// typed the --topo the message names.
std::string from_environment(const PerfFlags& f, const std::string& message) {
  for (const auto& [flag, var] : f.env_source)
    if (message.find(flag + " ") != std::string::npos || message.find(flag + ":") != std::string::npos)
      return fmt::format(" ({} came from the environment: {})", flag, var);
  const std::pair<const char*, const std::string*> vars[] = {
      {"CCSIM_TOPO", &f.run.topo}, {"CCSIM_MODEL", &f.run.model}, {"CCSIM_PARAMS", &f.run.params}};
  const char* flags[] = {"--topo", "--model", "--params"};
  for (std::size_t i = 0; i < std::size(vars); ++i) {
    const char* value = std::getenv(vars[i].first);
    if (value && *vars[i].second == value && message.find(flags[i]) != std::string::npos)
      return fmt::format(" ({} came from the environment: {}={})", flags[i], vars[i].first, value);
  }
  // A topology file from CCSIM_TOPO that does not name its GPU: a script run as it is has no place for --gpu.
  if (const char* t = std::getenv("CCSIM_TOPO"); t && f.run.topo == t && message.find("give --gpu KIND") != std::string::npos)
    return fmt::format(" (the file came from the environment, CCSIM_TOPO={}: CCSIM_GPU=KIND gives its GPU there)", t);
  return {};
}

namespace {

// The words after the program name, with each long option nccl-tests' getopt_long would take as an unambiguous
// prefix ("--ngp 8", "--minb=1M") spelled out in full, so CLI11 reads what nccl-tests reads. ccsim's own long
// flags (--topo, --model, ...) are left as they are; argv[0] first.
std::vector<std::string> getopt_long_words(const CLI::App& app, int argc, char** argv, int first_arg) {
  std::vector<std::string> out{argv[first_arg - 1]};
  for (int i = first_arg; i < argc; ++i) {
    std::string w = argv[i];
    if (w == "--") { // getopt stops reading options there
      for (; i < argc; ++i) out.emplace_back(argv[i]);
      break;
    }
    if (w.size() > 2 && w.starts_with("--")) {
      const auto eq = w.find('=');
      const std::string name = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (!app.get_option_no_throw("--" + name)) {
        if (const auto full = trace::nccl_tests_long_option(name); !full.empty())
          w = "--" + std::string(full) + (eq == std::string::npos ? "" : w.substr(eq));
        else if (const auto all = trace::nccl_tests_long_options_from(name); !name.empty() && all.size() > 1)
          fail("--{}: ambiguous, as nccl-tests' getopt_long finds it: --{}", name, fmt::join(all, ", --"));
      }
    }
    out.push_back(std::move(w));
  }
  return out;
}

// NCCL's own settings as the run's environment gives them (NCCL_ALGO=Tree mpirun ... all_reduce_perf, an sbatch
// script's exports): nccl-tests passes its environment to NCCL, so the prediction takes the --model nccl flags that
// say the same (model::nccl::nccl_env_flags), where the flag itself was not given; the header names each variable
// read, each given flag that won, and the other NCCL_*/RCCL_* variables set, which ccsim does not read.
void apply_nccl_environment(const CLI::App& app, PerfFlags& f, const std::string& program) {
  const auto op = op_of_program(program);
  if (!op) return;
  const auto names = model::nccl::nccl_env_names();
  std::map<std::string, std::string> env;
  std::vector<std::string> other, runtime;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view kv(*e);
    const auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string name(kv.substr(0, eq)), value(kv.substr(eq + 1));
    // The ROCm runtime's own settings that RCCL guides set beside RCCL's (HSA_FORCE_FINE_GRAIN_PCIE=1 for GPUDirect RDMA
    // into fine-grained memory, HSA_NO_SCRATCH_RECLAIM, HSA_ENABLE_SDMA): named as not read, so none is taken as modelled.
    if (name.starts_with("HSA_")) {
      runtime.push_back(name + "=" + printable(value, 40));
      continue;
    }
    if (!name.starts_with("NCCL_") && !name.starts_with("RCCL_")) continue;
    if (name.starts_with("NCCL_TESTS")) continue; // nccl-tests' own (NCCL_TESTS_SPLIT_MASK), README's symlink folder
    if (std::find(names.begin(), names.end(), name) != names.end()) env[name] = value;
    else other.push_back(name + "=" + printable(value, 40));
  }
  std::sort(other.begin(), other.end());
  std::sort(runtime.begin(), runtime.end());
  const auto flags = model::nccl::nccl_env_flags(env, *op); // an Error names the variable
  const bool nccl = f.run.model == "nccl";
  struct Target {
    const char* flag;
    std::optional<std::string> model::nccl::EnvFlags::*from;
    std::string* to; // nullptr: a machine setting (topology::set_p2p_*)
  };
  const Target targets[] = {{"--nccl-algo", &model::nccl::EnvFlags::nccl_algo, &f.run.nccl_algo},
                            {"--nccl-proto", &model::nccl::EnvFlags::nccl_proto, &f.run.nccl_proto},
                            {"--nvls", &model::nccl::EnvFlags::nvls, &f.run.nvls},
                            {"--collnet", &model::nccl::EnvFlags::collnet, &f.run.collnet},
                            {"--msccl", &model::nccl::EnvFlags::msccl, &f.run.msccl},
                            {"--p2p", &model::nccl::EnvFlags::p2p, nullptr},
                            {"--p2p-level", &model::nccl::EnvFlags::p2p_level, nullptr}};
  std::string read, won, unapplied;
  for (const auto& [var, what] : flags.read) read += fmt::format("{}{}={} ({})", read.empty() ? "" : ", ", var, printable(env.at(var), 40), what);
  for (const auto& t : targets) {
    const auto& value = flags.*(t.from);
    if (!value) continue;
    if (const auto* o = app.get_option_no_throw(t.flag); o && o->count()) {
      won += fmt::format("{}{} {}", won.empty() ? "" : ", ", t.flag, o->as<std::string>());
    } else if (t.to && !nccl) {
      unapplied += fmt::format("{}{} {}", unapplied.empty() ? "" : ", ", t.flag, *value);
    } else {
      if (t.to) *t.to = *value;
      else if (std::string(t.flag) == "--p2p") topology::set_p2p_mode(*value);
      else topology::set_p2p_level(*value);
      // The variable a flag's value came from, for an error about that flag.
      const auto& var = flags.source.at(t.flag);
      f.env_source[t.flag] = var + "=" + printable(env.at(var), 40);
    }
  }
  if (!read.empty()) f.env_notes.push_back("ccsim: NCCL settings read from the environment, as NCCL reads them: " + read);
  if (!won.empty()) f.env_notes.push_back("ccsim: given flags win over the environment: " + won);
  if (!unapplied.empty()) f.env_notes.push_back(fmt::format("ccsim: not applied, --model {} has no NCCL tuner: {}", f.run.model, unapplied));
  if (!other.empty())
    f.env_notes.push_back(fmt::format("ccsim: NCCL settings in the environment that ccsim does not read (predicted as if unset): {}",
                                      fmt::join(other, ", ")));
  if (!runtime.empty())
    f.env_notes.push_back(fmt::format("ccsim: ROCm runtime settings in the environment that ccsim does not read (predicted as if unset): {}",
                                      fmt::join(runtime, ", ")));
}

// A launcher's words before the test (an sbatch script's srun line, an mpirun line), read as the launcher reads them
// for what changes a prediction: the task count (srun -n/--ntasks, else -N/--nodes x --ntasks-per-node, each 1 when
// not given, as srun's defaults; mpirun/mpiexec -np/-n/--np/-c, or -H/--host slot counts) and the environment it
// passes (mpirun -x NAME=VALUE, MPICH's -genv NAME VALUE, srun --export=...,NAME=VALUE, NAME=VALUE words). The task
// count becomes --procs unless --procs is given; the variables are set for the test, as the launcher sets them.
// Other words (--mca, --bind-to, --gpus-per-node, ...) change nothing a prediction reads.
void read_launcher(const PerfInvocation& inv, char** argv, PerfFlags& f) {
  if (inv.launcher_first <= 0) return;
  const std::string launcher = argv[inv.launcher_first];
  const bool srun = launcher == "srun" || launcher.ends_with("/srun");
  const int end = inv.first_arg - 1; // the test's own word
  auto count = [&](const std::string& flag, const std::string& v) {
    int x = 0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (v.empty() || ec != std::errc() || p != v.data() + v.size() || x < 1 || x > 100000)
      fail("{} {} {}: not a count of {} (a whole number 1..100000{})", printable(launcher, 40), flag, printable(v, 40),
           flag == "-N" || flag == "--nodes" ? "nodes" : "tasks", srun && (flag == "-N" || flag == "--nodes") ? "; a range such as 2-4 lets Slurm choose: give one" : "");
    return x;
  };
  std::optional<int> tasks, nodes, per_node, host_slots;
  std::vector<std::pair<std::string, std::string>> env;
  std::string read; // the words that set the count, as the header names them
  for (int i = inv.launcher_first + 1; i < end; ++i) {
    const std::string w = argv[i];
    const auto eq = w.find('=');
    const std::string name = w.substr(0, eq), glued = eq == std::string::npos ? std::string() : w.substr(eq + 1);
    const bool has_next = i + 1 < end;
    // One value: "--flag=V", "--flag V", "-fV" (short, glued), "-f V".
    auto value = [&](std::initializer_list<const char*> longs, std::initializer_list<const char*> shorts) -> std::optional<std::string> {
      for (const char* l : longs) {
        if (name == l && eq != std::string::npos) return glued;
        if (w == l) {
          if (!has_next) fail("{} {}: needs a value", printable(launcher, 40), l);
          return std::string(argv[++i]);
        }
      }
      for (const char* s : shorts) {
        if (w == s) {
          if (!has_next) fail("{} {}: needs a value", printable(launcher, 40), s);
          return std::string(argv[++i]);
        }
        // Glued only with a digit after the letter ("-N2"): "-npernode", "-nolocal" are words of their own.
        if (std::string_view(s).size() == 2 && w.size() > 2 && w.starts_with(s) && std::isdigit(static_cast<unsigned char>(w[2])))
          return w.substr(2);
      }
      return std::nullopt;
    };
    if (srun) {
      if (auto v = value({"--ntasks"}, {"-n"})) tasks = count("-n", *v), read += " -n " + *v;
      else if (auto v2 = value({"--nodes"}, {"-N"})) nodes = count("-N", *v2), read += " -N " + *v2;
      else if (auto v3 = value({"--ntasks-per-node"}, {})) per_node = count("--ntasks-per-node", *v3), read += " --ntasks-per-node " + *v3;
      else if (name == "--export" && eq != std::string::npos) {
        std::string_view list = glued;
        while (!list.empty()) {
          const auto comma = list.find(',');
          const auto piece = list.substr(0, comma);
          if (const auto e = piece.find('='); e != std::string_view::npos && e > 0)
            env.emplace_back(std::string(piece.substr(0, e)), std::string(piece.substr(e + 1)));
          list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        }
      }
    } else {
      if (auto v = value({"-np", "--np", "--n"}, {"-n", "-c"})) tasks = count("-np", *v), read += " -np " + *v;
      else if (auto h = value({"--host", "-host", "-H"}, {})) {
        // Open MPI's host list "a:8,b:8": the slots add up (a host without a count has one).
        int slots = 0, hosts = 0;
        std::string_view list = *h;
        while (!list.empty()) {
          const auto comma = list.find(',');
          const auto host = list.substr(0, comma);
          const auto colon = host.rfind(':');
          slots += colon == std::string_view::npos ? 1 : count("-H", std::string(host.substr(colon + 1)));
          ++hosts;
          // Checked as they add up: 21,475 hosts of 100000 slots would pass an int's range.
          if (slots > 100000)
            fail("{} -H {}: more than 100000 slots (the most processes ccsim predicts)", printable(launcher, 40), printable(*h, 40));
          list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        }
        host_slots = slots, nodes = hosts, read += " -H " + *h;
      } else if (auto pn = value({"--npernode", "-npernode", "--N"}, {"-N"})) {
        per_node = count("-N", *pn), read += " -N " + *pn; // Open MPI: processes per node, on each -H host
      } else if (w == "-x" && has_next) {
        const std::string kv = argv[++i];
        if (const auto e = kv.find('='); e != std::string::npos && e > 0) env.emplace_back(kv.substr(0, e), kv.substr(e + 1));
      } else if ((w == "-genv" || w == "-env") && i + 2 < end) {
        env.emplace_back(argv[i + 1], argv[i + 2]);
        i += 2;
      }
    }
    // NAME=VALUE words (`env NCCL_ALGO=Ring` or a shell prefix inside the line).
    if (!w.starts_with("-") && eq != std::string::npos && eq > 0 && std::isupper(static_cast<unsigned char>(w[0])))
      env.emplace_back(name, glued);
  }
  // mpirun without -np runs one process per slot of its hosts (-H a:8,b:8), or -N per host; with neither it takes the
  // machine's own slots, which a pasted line cannot say: refused, naming what to add.
  if (!srun && !tasks && !host_slots && !per_node)
    fail("{}: no process count among its words (-np N, -H host:slots,..., or -N per host with -H): give -np N", printable(launcher, 40));
  // Nodes x tasks a node in 64 bits: two counts of up to 100000 each overflow an int (a wrapped count reached --procs).
  const long long n = tasks ? *tasks : !srun && host_slots && !per_node ? *host_slots : static_cast<long long>(nodes.value_or(1)) * per_node.value_or(1);
  if (n > 100000)
    fail("{}{}: {} processes, more than the 100000 ccsim predicts", printable(launcher, 40), read, n);
  for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
  if (f.procs.empty()) {
    f.procs = std::to_string(n);
    f.procs_from = fmt::format("{}{}", printable(launcher.substr(launcher.rfind('/') + 1), 40), read.empty() ? " with no task count: 1" : read);
  }
}

} // namespace

int perf_main(const PerfInvocation& inv, int argc, char** argv) {
  CLI::App app{inv.program + " as ccsim predicts it: nccl-tests' flags and output shape, no GPU needed"};
  PerfFlags f;
  f.run.model = "nccl"; // NCCL's own tuning model: the closest to what all_reduce_perf measures
  f.run.algo.clear();
  // A script run unchanged through a symlink has no place for ccsim's flags: the environment names the
  // machine and model instead (a flag still wins).
  if (const char* t = std::getenv("CCSIM_TOPO")) f.run.topo = t;
  if (const char* m = std::getenv("CCSIM_MODEL")) f.run.model = m;
  if (const char* p = std::getenv("CCSIM_PARAMS")) f.run.params = p;
  add_perf_flags(app, f);
  f.script_notes = inv.notes;
  const std::string who = "ccsim " + (inv.context.empty() ? "" : inv.context + ": ") + inv.program;
  try {
    // The environment's --gpu (the GPU kind of a CCSIM_TOPO file that does not name it); a given --gpu wins.
    if (const char* g = std::getenv("CCSIM_GPU"); g && *g) try {
        topology::set_default_import_gpu(g);
      } catch (const Error& e) {
        fail("environment CCSIM_GPU={}: {}", printable(g, 40), e.what());
      }
    auto args = getopt_long_words(app, argc, argv, inv.first_arg);
    std::vector<char*> arg_ptrs;
    for (auto& a : args) arg_ptrs.push_back(a.data());
    app.parse(static_cast<int>(arg_ptrs.size()), arg_ptrs.data()); // the name before the flags stands as argv[0]
    read_launcher(inv, argv, f);
    apply_nccl_environment(app, f, inv.program);
    if (inv.out) *inv.out += run_perf(f, inv.program);
    else write_stdout(run_perf(f, inv.program));
    return 0;
  } catch (const CLI::CallForHelp& e) {
    if (inv.out) { // a script's line asking for help: no prediction to print among the others
      std::cerr << who << ": -h/--help on a script's line: remove it to predict the line\n";
      return 2;
    }
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << who << ": " << parse_error_text(app, e) << " (see ccsim " << inv.program << " --help)\n";
    return 2;
  } catch (const ModelHelp&) {
    if (inv.out) {
      std::cerr << who << ": --model help on a script's line: remove it to predict the line\n";
      return 2;
    }
    std::cout << "Prediction models (--model NAME):\n" << model::model_table();
    return 0;
  } catch (const Error& e) {
    std::cerr << who << ": " << e.what() << from_environment(f, e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << who << ": internal error: " << e.what() << "\n";
    return 3;
  }
}

} // namespace ccsim::cli
