// Lines of pasted nccl-tests/rccl-tests output that carry no measurement, and the collective a table's own
// columns name when no line of the paste does (used by parse_trace; tests/data/wild_traces has the shapes).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::trace {

// The line without the prefix Ray puts before a worker's output when it forwards it to the driver: "(pid=45601) "
// (Ray's logging guide, ray-project/ray doc/source/ray-observability/ray-logging.rst: "the process id (pid) and an
// IP address of the node that executes tasks/actors are printed together"), "(head, rank=0, pid=3808) " and
// "(worker1, rank=1, pid=2769, ip=10.100.10.12) " as SkyPilot runs its tasks on Ray. A parenthesis holding a
// "pid=<digits>" field, then a space or the line's end; other lines come back unchanged (mpirun's and srun's own
// prefixes may follow and are the caller's).
std::string_view without_ray_prefix(std::string_view line);

// A documentation page's elision standing for rows it left out: "...", "…", "[...]", "(...)", "<snip>".
bool is_elision(std::string_view line);

// nccl-tests' closing lines ("Out of bounds values : 0 OK", "Avg bus bandwidth : 12.3", "Errors with
// asterisks ...", "Collective test concluded: ...") with or without their '#' (a paste that lost it).
bool is_closing_line(std::string_view body);

// nccl-tests' error report when a run dies ("host: Test NCCL failure common.cu:392 'unhandled cuda error'",
// " .. host pid 5068: Test failure common.cu:590", "Test CUDA failure", rccl-tests' "Test HIP failure",
// -T's "host: Test timeout (5s) common.cu:523").
bool is_test_failure(std::string_view line);

// OpenMPI's aggregated help notices, which mpirun prints wherever the output stream is when they fall due, rows
// included: "8 more processes have sent help message help-mtl-ofi.txt / OFI call fail" (its first word is a
// number, not a size), also behind "[host:pid] ", and their follow-up "Set MCA parameter
// "orte_base_help_aggregate" to 0 to see all help / error messages" ("%d more process%s sent help message %s / %s"
// with "es have" or " has" in OpenMPI's orte/util/show_help.c and PRRTE's and PMIx's show_help, prte_/pmix_ prefixes).
bool is_mpi_help_notice(std::string_view line);

// The collective the columns of an nccl-tests table name (nccl-tests' setupArgs and print of each test):
// a reduction in `redop` with root >= 0 is reduce; with root -1 or no root column, count = size/eltsize is
// allreduce and count = size/(eltsize x n) reducescatter; no reduction but root >= 0 and count = size/eltsize
// is broadcast. nullopt when the columns leave it open (allgather, alltoall, gather, scatter and sendrecv
// print alike) or the rows disagree; `why` says what decided.
std::optional<schedule::Op> op_from_columns(const std::vector<MeasuredRow>& rows, std::string& why);

} // namespace ccsim::trace
