#include "sim/trace/nccl_tests_options.hpp"

#include <algorithm>
#include <cstdlib>

#include "sim/trace/line_text.hpp"

namespace ccsim::trace {
namespace {

// nccl-tests' long options (src/common.cu longopts, NCCL_TESTS_VERSION 2.19.6): all take a value but --help.
// Listed only so a prefix resolves as getopt_long resolves it ("--n" is ambiguous: nthreads, ngpus).
constexpr std::string_view kLongOptions[] = {
    "nthreads",    "ngpus",          "minbytes",         "maxbytes",     "stepbytes", "stepfactor",      "iters",
    "agg_iters",   "warmup_iters",   "run_cycles",       "parallel_init", "check",    "op",              "datatype",
    "root",        "blocking",       "stream_null",      "timeout",      "cudagraph", "report_cputime",  "report_timestamps",
    "output_file", "average",        "local_register",   "cta_policy",   "device_implementation", "device_cta_count",
    "memory",      "unalign",        "per_iter_timing",  "per_iter_skip", "help",
    // rccl-tests' additions (its src/common.cu), read too so its scripts run unchanged
    "memory_type", "delay",          "cache_flush",      "rotating_tensor", "output_format", "cumask", "out_of_place",
    "stress_cycles"};

// The short options that take a value (src/common.cu's optstring without its colons and 'h').
constexpr std::string_view kShortWithValue = "tgbeifnmwNpIKcodrzyTGCaRxDVJSMuYqFEZ"; // the last five: rccl-tests

} // namespace

std::vector<std::string_view> nccl_tests_long_options_from(std::string_view name) {
  std::vector<std::string_view> out;
  for (const auto o : kLongOptions)
    if (o.starts_with(name)) out.push_back(o);
  return out;
}

std::string_view nccl_tests_long_option(std::string_view name) {
  const auto from = nccl_tests_long_options_from(name);
  if (std::find(from.begin(), from.end(), name) != from.end()) return name; // an exact name wins over longer ones
  return from.size() == 1 ? from.front() : std::string_view{};
}

std::optional<NcclTestsNumber> nccl_tests_number(const std::string& text) {
  char* end = nullptr;
  const long long n = std::strtol(text.c_str(), &end, 0);
  if (end == text.c_str()) return std::nullopt;
  return NcclTestsNumber{n, *end == '\0'};
}

std::optional<NgpusOption> ngpus_option(std::string_view line) {
  auto words = text::tokens(line);
  // The program's own argv starts after the *_perf word (a path such as ./build/all_reduce_perf, or all_reduce_perf_mpi).
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string_view w = words[i];
    const auto slash = w.rfind('/');
    const std::string_view base = slash == std::string_view::npos ? w : w.substr(slash + 1);
    if (base.ends_with("_perf") || base.ends_with("_perf_mpi")) {
      words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      break;
    }
  }
  std::optional<NgpusOption> out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") break; // getopt stops reading options
    if (w.starts_with("--")) {
      const auto eq = w.find('=');
      const std::string_view name = nccl_tests_long_option(std::string_view(w).substr(2, eq == std::string::npos ? std::string::npos : eq - 2));
      if (name.empty() || name == "help") continue;
      std::string value;
      if (eq != std::string::npos) value = w.substr(eq + 1);
      else if (i + 1 < words.size()) value = words[++i];
      else break; // a missing value: getopt_long refuses the command
      if (name == "ngpus")
        if (const auto n = nccl_tests_number(value)) out = NgpusOption{n->value, eq != std::string::npos ? w : w + " " + value};
      continue;
    }
    if (w.size() < 2 || w[0] != '-') continue; // a word getopt_long permutes past
    // A cluster of short options: a letter taking a value takes the rest of the word, else the next word.
    for (std::size_t j = 1; j < w.size(); ++j) {
      if (kShortWithValue.find(w[j]) == std::string_view::npos) continue; // -h, or a letter getopt refuses
      std::string value;
      std::string written = w;
      if (j + 1 < w.size()) value = w.substr(j + 1);
      else if (i + 1 < words.size()) value = words[++i], written += " " + value;
      else break;
      if (w[j] == 'g')
        if (const auto n = nccl_tests_number(value)) out = NgpusOption{n->value, written};
      break;
    }
  }
  return out;
}

} // namespace ccsim::trace
