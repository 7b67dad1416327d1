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
// A copy that went through a Windows editor, a chat tool or a word processor, made readable as nccl-tests wrote it:
// UTF-16 with its byte order mark (Notepad's "Unicode") decoded to UTF-8; byte order marks (U+FEFF, at the start or where files were joined) dropped; no-break, figure, narrow and thin spaces
// (U+00A0, U+2007, U+202F, U+2009, and a Latin-1 0xA0) turned into plain spaces, which separate table cells; a word
// processor's minus sign (U+2212, "−1" in the root column) into '-'. Other
// bytes are kept, so line numbers stay the file's. CR line ends are trimmed by each reader (trimmed()).
void normalise_pasted_text(std::string& s);
// " (a thousands separator or a decimal comma: ...)" when `t` is a number a locale or a spreadsheet rewrote ("1,024",
// "1.048.576", "68,52"), else "": appended to the refusal of a cell that is not a number.
std::string locale_number_hint(const std::string& t);
// Digits grouped by thousands separators, "1,048,576" or "1.048.576" or "1'048'576": a size a spreadsheet reformatted.
bool is_grouped_uint(const std::string& t);
// A word that starts an MPI job: mpirun, mpiexec, mpiexec.hydra, orterun or srun, with or without a path.
bool is_launcher(std::string_view word);

} // namespace ccsim::trace::text
