// GPUs per thread from the header's command line (nccl-tests -g N) where a paste left out the nThread line: one
// thread driving N GPUs launches N kernels in series (the NCCL model's launch terms), so compare and calibrate
// need N. nccl-tests reads it with getopt_long ("g:", long option "ngpus"): "-g 2", "-g2", "--ngpus 2", "--ngpus=2".
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/model/compare.hpp"
#include "sim/trace/nccl_tests_trace.hpp"
#include "sim/trace/trace_runs.hpp"

using namespace ccsim;

namespace {
// Two 2-rank allreduce rows (busbw = algbw at n = 2; 1 GiB in 45 ms is 23.86 GB/s) under the header lines `head`.
std::string ngpus_trace(const std::string& head) {
  return head +
         "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
         "  1073741824     268435456     float     sum      -1    45000   23.86   23.86      0    45000   23.86   23.86      0\n"
         "  2147483648     536870912     float     sum      -1    90000   23.86   23.86      0    90000   23.86   23.86      0\n";
}
int ngpus_of(const std::string& head) { return model::gpus_per_thread(trace::parse_trace(ngpus_trace(head), "excerpt")); }
} // namespace

TEST_CASE("GPUs per thread come from the command line's -g when the nThread line is missing") {
  CHECK(ngpus_of("# command: CUDA_VISIBLE_DEVICES=0,1 ./build/all_reduce_perf -b 1G -e 10G -f 2 -g 2\n") == 2);
  CHECK(ngpus_of("# command: ./build/all_reduce_perf -b 1G -e 10G -f 2 -g2\n") == 2);
  CHECK(ngpus_of("# command: ./build/all_reduce_perf -b 1G -e 10G -f 2 --ngpus 2\n") == 2);
  CHECK(ngpus_of("# command: ./build/all_reduce_perf -b 1G -e 10G -f 2 --ngpus=2\n") == 2);
  CHECK(ngpus_of("# run as: all_reduce_perf -b 1G -e 2G -f 2 -g 2 (one process, 2 GPUs)\n") == 2);
  CHECK(ngpus_of("$ ./build/all_reduce_perf -b 1G -e 2G -f 2 -t 1 -g 2\n") == 2); // the prompt line before the table
  // Under mpirun each process's thread drives -g GPUs: 1 here, as without any command.
  CHECK(ngpus_of("# run as: mpirun -np 2 all_reduce_perf -b 1G -e 2G -f 2 -g 1\n") == 1);
  CHECK(ngpus_of("# hardware: two GPUs\n") == 1);
}

TEST_CASE("the nThread line's nGpus wins over the command line, and an unclear -g sets nothing") {
  // What the binary printed beats what a collector wrote.
  const auto t = trace::parse_trace(ngpus_trace("# command: ./build/all_reduce_perf -g 2\n"
                                                "# nThread 2 nGpus 1 minBytes 1073741824 maxBytes 2147483648 step: 2(factor) warmup iters: 5 "
                                                "iters: 20 agg iters: 1 validation: 1 graph: 0\n"),
                                    "excerpt");
  CHECK(t.command_ngpus == 0);
  CHECK(model::gpus_per_thread(t) == 1);
  // Lines that disagree (-g 2 and -g 1), "-g=2" (nccl-tests' strtol reads "=2" as 0: no run starts so; on the
  // "# command:" line, which also gives the rank count, it is refused) and a -g that does not divide the 2 ranks
  // leave the default of one GPU per thread. "-g 2x" was here too, as no count; nccl-tests' strtol reads it as 2,
  // and since the two -g readers became one (nccl_tests_options_test.cpp) it is 2 here as it always was for the
  // rank count.
  CHECK(ngpus_of("# command: ./build/all_reduce_perf -g 2\n# run as: mpirun -np 2 all_reduce_perf -g 1\n") == 1);
  CHECK(ngpus_of("# run as: ./build/all_reduce_perf -b 1G -e 2G -g=2\n") == 1);
  CHECK(ngpus_of("# command: ./build/all_reduce_perf -b 1G -e 2G -g 4\n") == 1);
}

TEST_CASE("a file of several runs takes no GPUs per thread from its shared header's command") {
  // A scaling study's header names one run's command (-g 2 on one host) before runs made under mpirun -g 1.
  const auto path = (std::filesystem::temp_directory_path() / "ccsim-command-ngpus-runs.txt").string();
  {
    std::ofstream f(path);
    f << "# command: (A) ./build/all_reduce_perf -b 1G -e 2G -f 2 -g 2   (B) under mpirun, not shown\n"
      << "# === RUN A\n" << ngpus_trace("") << "# === RUN B\n" << ngpus_trace("");
  }
  const auto runs = trace::load_trace_runs(path, {});
  std::filesystem::remove(path);
  REQUIRE(runs.size() == 2);
  for (const auto& r : runs) CHECK(model::gpus_per_thread(r) == 1);
  // The same run alone takes the header's -g.
  CHECK(ngpus_of("# command: ./build/all_reduce_perf -b 1G -e 2G -f 2 -g 2\n# === RUN A\n") == 2);
}
