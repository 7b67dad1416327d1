// Small text helpers every trace reader shares (one copy: nccl_tests_trace, ring_lines, trace_runs,
// paste_shapes and busbw_summary all read pasted lines the same way).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim::trace::text {

// `s` without leading and trailing whitespace.
std::string_view trimmed(std::string_view s);
// The same, as a string.
inline std::string trim(std::string_view s) { return std::string(trimmed(s)); }
// Whitespace-separated words of `s`.
std::vector<std::string> tokens(std::string_view s);
// Digits only, at least one.
bool is_uint(const std::string& t);
// The whole of `t` is a number strtod reads ("1e3", "-0.5", "inf" too).
bool is_number(const std::string& t);
// A table cell as a count or as a non-negative finite number; throws Error "<where>: <what> '<t>' ..." otherwise.
std::uint64_t to_u64(const std::string& t, const std::string& what, const std::string& where);
double to_double(const std::string& t, const std::string& what, const std::string& where);
inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
// A word that starts an MPI job: mpirun, mpiexec, mpiexec.hydra, orterun or srun, with or without a path.
bool is_launcher(std::string_view word);

} // namespace ccsim::trace::text
