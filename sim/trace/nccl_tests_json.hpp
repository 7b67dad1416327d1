// nccl-tests' JSON report (-J FILE, nccl-tests 2.18+, ad956f1: src/util.cu jsonOutputInit ... writeResultFooter):
// {"version", "args": argv, "env", "nccl_version", "config": {nthreads, ngpus, ..., "devices": [...]},
//  "results": [{size, count, type, redop, root, "out_of_place" / "in_place": {time | cpu_time, alg_bw, bus_bw,
//  nwrong}, ...}], ...}. It holds what the stdout table holds, so it is written back as that table (the lines
// nccl-tests prints for the same run) and read by parse_trace: one reading of every fact for both.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ccsim::trace {

// The stdout table of the run an nccl-tests JSON report describes; nullopt when `text` is not one (no
// "results" list and "config" object at its top). Malformed elements fail in one line naming `origin` and the
// element ("results[3].out_of_place.time").
std::optional<std::string> nccl_tests_json_as_table(std::string_view text, const std::string& origin);

} // namespace ccsim::trace
