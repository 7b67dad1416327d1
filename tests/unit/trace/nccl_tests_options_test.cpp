// One reader of -g in a quoted nccl-tests command (sim/trace/nccl_tests_options.hpp), with nccl-tests' own grammar:
// src/common.cu parses argv with getopt_long (optstring "t:g:b:e:...", long options --ngpus, --nthreads, ...,
// unambiguous prefixes accepted) and reads -g with strtol(optarg, NULL, 0). Each expected value is what that
// grammar gives by hand; the trace cases are the header lines whose rank count changed when the two readers
// (the rank count's "-g N"-only reader and the GPUs-per-thread reader) became this one.
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/model/compare.hpp"
#include "sim/trace/nccl_tests_options.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

using namespace ccsim;

namespace {
long long ngpus(const std::string& line) {
  const auto g = trace::ngpus_option(line);
  return g ? g->value : -1; // -1: the line sets no -g
}

// One allreduce row of n ranks under `head`: 1 GiB in 45 ms is 23.86 GB/s algbw, busbw = algbw x 2(n-1)/n.
std::string allreduce_trace(const std::string& head, int n) {
  const double busbw = 23.86 * 2 * (n - 1) / n;
  const std::string row = "  1073741824     268435456     float     sum      -1    45000   23.86   " + fmt::format("{:.2f}", busbw) +
                          "      0    45000   23.86   " + fmt::format("{:.2f}", busbw) + "      0\n";
  return head + "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" + row;
}
trace::Trace parsed(const std::string& head, int n) { return trace::parse_trace(allreduce_trace(head, n), "excerpt"); }
} // namespace

TEST_CASE("ngpus_option reads -g as getopt_long and strtol do") {
  CHECK(ngpus("./all_reduce_perf -b 8 -e 1G -g 8") == 8);
  CHECK(ngpus("./all_reduce_perf -g8") == 8);
  CHECK(ngpus("./all_reduce_perf --ngpus 8") == 8);
  CHECK(ngpus("./all_reduce_perf --ngpus=8") == 8);
  CHECK(ngpus("./all_reduce_perf --ngp 8") == 8); // an unambiguous prefix of --ngpus
  CHECK(ngpus("./all_reduce_perf --n 8") == -1);  // ambiguous: --nthreads or --ngpus (getopt_long refuses it)
  CHECK(ngpus("./all_reduce_perf -g 8x") == 8);   // strtol stops at the x
  CHECK(ngpus("./all_reduce_perf -g 0x10") == 16); // base 0: hexadecimal
  CHECK(ngpus("./all_reduce_perf -g 010") == 8);   // base 0: octal
  // optarg "=8" or a word: strtol reads no digits (nccl-tests would run 0 GPUs; no output with rows comes from that,
  // and headers quote commands in prose: "whose -g it says is ..."), so they set nothing and an earlier -g stands.
  CHECK(ngpus("./all_reduce_perf -g=8") == -1);
  CHECK(ngpus("./all_reduce_perf -g 4 (the doc's command, whose -g it says is the GPUs of a node)") == 4);
  CHECK(ngpus("./all_reduce_perf -g 2 -b 8 -g 4") == 4); // the later value wins
  CHECK(ngpus("./all_reduce_perf -t -g 4") == -1);       // -t takes "-g" as its value; "4" is a bare word
  CHECK(ngpus("./all_reduce_perf -cg 4") == -1);         // -c takes "g" as its value
  CHECK(ngpus("./all_reduce_perf -hg4") == 4);           // -h takes nothing: the cluster goes on to -g4
  CHECK(ngpus("./all_reduce_perf -b 8 -- -g 4") == -1);  // "--" ends the options
  CHECK(ngpus("./all_reduce_perf -b 8 -g") == -1);       // no value: nccl-tests refuses the command
  CHECK(ngpus("./build/all_gather_perf_mpi -g 2") == 2);
  // Before the program stand the launcher's words, not nccl-tests' options.
  CHECK(ngpus("mpirun -np 16 -x NCCL_DEBUG=INFO -g 3 ./build/all_reduce_perf -b 8") == -1);
  CHECK(ngpus("-b 8 -e 1G -g 4") == 4); // no program named: the whole line is the options
  CHECK(ngpus("./all_reduce_perf -b 8 -e 1G") == -1);
}

TEST_CASE("header lines whose rank count the one -g reader changed") {
  // -g4, --ngpus 4, --ngpus=4, --ngp 4: a rank count now (the old reader knew only "-g 4", and these fell to the rows' ratio).
  for (const char* cmd : {"-g4", "--ngpus 4", "--ngpus=4", "--ngp 4", "-g 0x4"}) {
    CAPTURE(cmd);
    const auto t = parsed(std::string("# command: ./build/all_reduce_perf -b 1G -e 1G ") + cmd + "\n", 4);
    CHECK(t.ranks == 4);
    CHECK(t.ranks_from == "-g flag in the header");
  }
  // -g 010 is 8 GPUs (octal); the old reader read 10.
  auto t = parsed("# command: ./build/all_reduce_perf -b 1G -e 1G -g 010\n", 8);
  CHECK(t.ranks == 8);
  CHECK(t.ranks_from == "-g flag in the header");
  // The later of two -g values, as getopt_long leaves it (the old reader took the first).
  t = parsed("# command: ./build/all_reduce_perf -g 2 -b 1G -e 1G -g 4\n", 4);
  CHECK(t.ranks == 4);
  CHECK(t.ranks_from == "-g flag in the header");
  // A -g before the program belongs to the launcher: the rows' ratio counts the ranks (the old reader took -g 4).
  t = parsed("# command: launcher -g 4 ./build/all_reduce_perf -b 1G -e 1G\n", 4);
  CHECK(t.ranks == 4);
  CHECK(t.ranks_from == "busbw/algbw ratio");
  // -g 0 runs no GPUs: refused, naming what was written.
  CHECK_THROWS_WITH_AS(parsed("# command: ./build/all_reduce_perf -b 1G -e 1G -g 0x0\n", 4),
                       "excerpt: '-g 0x0' in the header is not 1..16777216 GPUs (nccl-tests' strtol reads it as 0)", Error);
  // Unchanged: "-g 4" and "-g 4x" (strtol reads 4 from both).
  for (const char* cmd : {"-g 4", "-g 4x"}) {
    CAPTURE(cmd);
    t = parsed(std::string("# command: ./build/all_reduce_perf -b 1G -e 1G ") + cmd + "\n", 4);
    CHECK(t.ranks == 4);
    CHECK(t.ranks_from == "-g flag in the header");
  }
}

TEST_CASE("GPUs per thread read by the same grammar") {
  // Two ranks: the -g of a "# run as:" line is the GPUs one thread drives when the nThread line is missing.
  CHECK(model::gpus_per_thread(parsed("# run as: all_reduce_perf -b 1G -e 1G -g 2x\n", 2)) == 2); // was refused: 1
  CHECK(model::gpus_per_thread(parsed("# run as: all_reduce_perf -b 1G -e 1G -g 1 -g 2\n", 2)) == 2); // was two values: 1
  CHECK(model::gpus_per_thread(parsed("# run as: all_reduce_perf -b 1G -e 1G -g 0x2\n", 2)) == 2);    // was 0: 1
}

TEST_CASE("the long-option prefixes and numbers the all_reduce_perf front end reads") {
  // getopt_long: an exact name, or the one option a prefix starts (src/common.cu longopts); "n" starts nthreads and ngpus.
  CHECK(trace::nccl_tests_long_option("ngp") == "ngpus");
  CHECK(trace::nccl_tests_long_option("minb") == "minbytes");
  CHECK(trace::nccl_tests_long_option("op") == "op");
  CHECK(trace::nccl_tests_long_option("n").empty());
  CHECK(trace::nccl_tests_long_option("topo").empty());
  CHECK(trace::nccl_tests_long_options_from("n") == std::vector<std::string_view>{"nthreads", "ngpus"});
  // strtol(text, NULL, 0): 0x hex, leading 0 octal, digits up to the first other character.
  const auto n = [](const char* s) { return trace::nccl_tests_number(s); };
  CHECK(n("8")->value == 8);
  CHECK(n("8")->whole);
  CHECK(n("8x")->value == 8);
  CHECK_FALSE(n("8x")->whole);
  CHECK(n("0x10")->value == 16);
  CHECK(n("010")->value == 8);
  CHECK(n("-1")->value == -1);
  CHECK_FALSE(n("x8").has_value());
  CHECK_FALSE(n("").has_value());
}
