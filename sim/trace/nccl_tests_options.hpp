// What an nccl-tests command line sets, read with nccl-tests' own option grammar: src/common.cu parses argv with
// getopt_long (optstring "t:g:b:e:..." where every option but -h takes a value; long options such as --ngpus,
// --nthreads, which getopt_long also accepts as an unambiguous prefix, "--ngp 4") and reads -g and -t with
// strtol(optarg, NULL, 0). One reader for every header line that quotes a command, so a rank count and a
// GPUs-per-thread count read the same text the same way.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim::trace {

struct NgpusOption {
  long long value = 0; // as nccl-tests reads it: "8", "-g8", "0x8" and "8x" are 8
  std::string text;    // the option as written, e.g. "--ngpus=8", for messages
};

// The long option `name` (without its "--") stands for in nccl-tests' getopt_long table: itself, or the one
// option it is an unambiguous prefix of ("ngp" is "ngpus"); empty when unknown or ambiguous ("n").
std::string_view nccl_tests_long_option(std::string_view name);
// Every long option `name` is a prefix of (several: getopt_long refuses it as ambiguous).
std::vector<std::string_view> nccl_tests_long_options_from(std::string_view name);

// A number as nccl-tests reads its options, strtol(text, NULL, 0): base from the prefix (0x hex, 0 octal), the
// digits up to the first other character ("8x" is 8: `whole` says whether the text was all number), saturating
// beyond long. nullopt where strtol reads no digits ("=8", "it"), which nccl-tests would read as 0.
struct NcclTestsNumber {
  long long value = 0;
  bool whole = true;
};
std::optional<NcclTestsNumber> nccl_tests_number(const std::string& text);

// The GPUs per thread (-g / --ngpus) the command in `line` runs with: the last one given (getopt_long's later
// value wins), read among the words after the *_perf program when the line names one (before it stand the
// launcher's own options: mpirun, srun). A value strtol reads no digits from ("-g=8", which runs 0 GPUs; "-g it" in
// prose) sets nothing. nullopt when the line sets none.
std::optional<NgpusOption> ngpus_option(std::string_view line);

} // namespace ccsim::trace
