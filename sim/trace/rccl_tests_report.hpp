// rccl-tests' own result files: `all_reduce_perf ... -x results.csv -Z csv` (or `-Z json`) writes every row of
// the run through its Reporter (ROCm/rccl-tests src/common.cu): a CSV whose header is
// "numCycle,collective,nodes,ranks,ranksPerNode,gpusPerRank,size,type,redop,inplace,time,algbw,busbw,#wrong"
// (without MPI: "numCycle,collective,gpus,size,..."; older releases lack numCycle), strings quoted; or a JSON
// list of objects with the same fields ("name", "inPlace", "algBw", "busBw", "wrong"). Each row is one half
// (inplace 0 = out-of-place, 1 = in-place) of an nccl-tests table row.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::trace {

// The runs in `text` when it is an rccl-tests result file (one Trace per collective and cycle, in file order);
// nullopt when it is something else. Throws Error "<origin>:<line>: ..." when it is one but malformed.
std::optional<std::vector<Trace>> parse_rccl_tests_report(std::string_view text, const std::string& origin,
                                                          const Hints& hints = {});

} // namespace ccsim::trace
