#include "sim/trace/paste_shapes.hpp"

#include <cctype>

#include <fmt/format.h>

#include "sim/trace/trace_counts.hpp"
#include "sim/trace/line_text.hpp"

namespace ccsim::trace {
using text::trimmed;
using text::starts_with;
namespace {

// nccl-tests prints "none" (or, in old alltoall builds, nothing) where a test reduces nothing.
bool is_reduction(const std::string& redop) { return !redop.empty() && redop != "none"; }

} // namespace

std::string_view without_ray_prefix(std::string_view line) {
  const auto s = trimmed(line);
  if (!starts_with(s, "(")) return line;
  const auto close = s.find(')');
  if (close == std::string_view::npos || (close + 1 < s.size() && s[close + 1] != ' ' && s[close + 1] != '\t')) return line;
  const auto inner = s.substr(1, close - 1);
  // "pid=" opening the parenthesis or a field of it, then digits
  for (auto at = inner.find("pid="); at != std::string_view::npos; at = inner.find("pid=", at + 1)) {
    const bool field_start = at == 0 || inner[at - 1] == ' ' || inner[at - 1] == ',';
    const auto digit = at + 4;
    if (field_start && digit < inner.size() && std::isdigit(static_cast<unsigned char>(inner[digit])))
      return trimmed(s.substr(close + 1));
  }
  return line;
}

bool is_elision(std::string_view line) {
  line = trimmed(line);
  if (line == "<snip>" || line == "[...]" || line == "(...)" || line == "\xE2\x80\xA6") return true; // U+2026
  if (line.size() < 3) return false;
  for (char c : line)
    if (c != '.') return false;
  return true;
}

bool is_closing_line(std::string_view body) {
  body = trimmed(body);
  if (!body.empty() && body.front() == '#') body = trimmed(body.substr(1));
  for (std::string_view p : {"Out of bounds values", "Avg bus bandwidth", "Errors with asterisks", "Collective test concluded"})
    if (starts_with(body, p)) return true;
  return false;
}

bool is_test_failure(std::string_view line) {
  // "Test timeout (5s)": -T's limit hit (common.cu testStreamSynchronize), printed on the row being written.
  for (std::string_view w : {"Test NCCL failure", "Test CUDA failure", "Test HIP failure", "Test failure ", "Test timeout ("})
    if (line.find(w) != std::string_view::npos) return true;
  return false;
}

bool is_mpi_help_notice(std::string_view line) {
  const bool aggregated = line.find("sent help message") != std::string_view::npos &&
                          (line.find(" more process has ") != std::string_view::npos ||
                           line.find(" more processes have ") != std::string_view::npos);
  return aggregated || line.find("_base_help_aggregate\" to 0 to see all help") != std::string_view::npos;
}

std::optional<schedule::Op> op_from_columns(const std::vector<MeasuredRow>& rows, std::string& why) {
  using schedule::Op;
  std::optional<Op> op;
  for (const auto& r : rows) {
    const Bytes elt = counts::elt_bytes(r.type);
    if (r.size == 0 || r.count == 0 || elt == 0 || r.count > r.size / elt || r.size % (r.count * elt) != 0) continue;
    const bool whole = r.size == r.count * elt; // count = size / eltsize
    const bool rooted = r.root && *r.root >= 0;
    std::optional<Op> this_row;
    if (is_reduction(r.redop)) this_row = rooted ? Op::Reduce : whole ? Op::AllReduce : Op::ReduceScatter;
    else if (rooted && whole) this_row = Op::Broadcast;
    if (!this_row || (op && *op != *this_row)) return std::nullopt;
    if (!op)
      why = fmt::format("the table's columns (redop {}, root {}, count = size / {} B{})", r.redop.empty() ? "absent" : r.redop,
                        r.root ? std::to_string(*r.root) : "absent", whole ? elt : r.size / r.count,
                        whole ? "" : fmt::format(" = {} B x {} ranks", elt, r.size / r.count / elt));
    op = this_row;
  }
  return op;
}

} // namespace ccsim::trace
