// Helpers shared by the subcommands: GPU lists, ring lists, atomic output.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/output_files.hpp"
#include "sim/schedule/collective.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::cli {

inline constexpr const char* kNcclAlgoHelp =
    "--model nccl: auto (NCCL's own ring/tree/nvls/collnet pick), ring, tree, nvls, collnet_direct or collnet_chain (as NCCL_ALGO), fastest (replay both, keep the faster)";

// "0,3,2,1" or "0 3 2 1" -> GPU indices (0-based after applying one_based); checks range and duplicates.
std::vector<int> parse_gpu_list(const std::string& text, const std::string& flag, const topology::Topology& t,
                                bool one_based);
// A ring order as people write it: like parse_gpu_list, but a closing repeat of the first GPU
// ("1-2-3-4-5-6-7-8-1") is dropped.
std::vector<int> parse_ring_order(const std::string& text, const std::string& flag, const topology::Topology& t,
                                  bool one_based);
// "0 3 2 1|0 1 3 2" -> several rings, each checked as above.
std::vector<std::vector<int>> parse_ring_list(const std::string& text, const std::string& flag,
                                              const topology::Topology& t, bool one_based);
// `op` as a collective, or one line naming the flag and listing every collective (--op allredcue).
schedule::Op require_op(const std::string& op, const std::string& flag = "--op");
// The run's output files: main() publishes them when the command succeeded and removes them otherwise.
OutputSet& outputs();
// Stages `content` for `path` (see OutputSet), so a failed run never leaves a file, whole or half.
// "-" or "" means stdout, written at once.
// `flag` is the option that named the file ("--output"): a refusal names both.
void write_output(const std::string& path, const std::string& content, std::string_view flag);
// The exit status a subcommand that succeeded asks main() for (compare over many files: 1 when a run is below its
// threshold); 0 unless set.
int& command_status();
// Writes to stdout and flushes; a failed write (disk full behind `> file`) throws Error, so the exit status says it.
void write_stdout(std::string_view content);

} // namespace ccsim::cli
