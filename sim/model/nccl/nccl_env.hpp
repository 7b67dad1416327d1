// The NCCL settings an nccl-tests run takes from its environment (NCCL_ALGO=Tree mpirun ... all_reduce_perf), as
// the --model nccl flags that say the same: `ccsim all_reduce_perf` reads them so that a script predicts the run it
// describes. How NCCL reads each (v2.29.2-1): NCCL_ALGO and NCCL_PROTO by parseList (src/graph/tuning.cc): entries
// separated by ';', the first for every collective, later ones "prefix:list" for the collective ncclFuncStr names
// (Broadcast Reduce AllGather ReduceScatter AllReduce, case-insensitive); elements comma-separated, case-insensitive,
// ncclAlgoStr (Tree Ring CollNetDirect CollNetChain NVLS NVLSTree PAT) or ncclProtoStr (LL LL128 Simple); a leading
// ^ disables the listed ones; an unknown element or prefix fails the run (ncclInvalidUsage). NCCL_NVLS_ENABLE and
// NCCL_COLLNET_ENABLE are NCCL_PARAMs (src/misc/param.cc ncclLoadParam: strtoll(value, NULL, 0), so "off" reads as
// 0). NCCL_P2P_DISABLE (strtol, 1 disables) and NCCL_P2P_LEVEL (a path class name, or an old number) by
// ncclGetLevel (src/graph/paths.cc). RCCL_MSCCL_ENABLE=0 turns RCCL's MSCCL off (ROCm/rccl msccl_lifecycle.cc).
#pragma once
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/schedule/collective.hpp"

namespace ccsim::model::nccl {

// parseList for one collective `func` (an ncclFuncStr name; "" for a collective NCCL_ALGO/NCCL_PROTO do not
// reach, whose list is still checked): the enabled flag of each of `elems`, starting from all enabled. Throws an
// Error beginning with `where` where NCCL fails the run.
std::vector<bool> parse_nccl_list(std::string_view value, std::span<const std::string_view> elems, std::string_view func,
                                  std::string_view where);

// ncclFuncStr's name of `op` ("AllReduce"), or "" for the collectives NCCL runs on its point-to-point path.
std::string_view nccl_func_name(schedule::Op op);

// What the environment asks of --model nccl: each flag's value where a variable sets one, and a line per variable
// read ("NCCL_ALGO=Tree: --nccl-algo tree"). Variables NCCL would refuse (an unknown algorithm) throw an Error naming
// the variable; what ccsim cannot express (NCCL_ALGO=Ring,NVLS: one algorithm or all of them) throws too, saying
// which flag to give instead.
struct EnvFlags {
  std::optional<std::string> nccl_algo, nccl_proto, nvls, collnet, msccl, p2p, p2p_level;
  std::vector<std::pair<std::string, std::string>> read; // (variable, what it became), in the order below
  // The variable that set each flag above, recorded where it is set: "--nvls" -> "NCCL_ALGO" (the last one read
  // wins, as for the value), so an error about the flag can name the variable nobody typed as a flag.
  std::map<std::string, std::string> source;
};
EnvFlags nccl_env_flags(const std::map<std::string, std::string>& env, schedule::Op op);

// The variables nccl_env_flags reads.
std::span<const std::string_view> nccl_env_names();

} // namespace ccsim::model::nccl
