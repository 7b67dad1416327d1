#include "sim/trace/rccl_tests_report.hpp"

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_io.hpp"
#include "sim/trace/line_text.hpp"
#include "sim/trace/trace_counts.hpp"

namespace ccsim::trace {
namespace {

// One Reporter record: field name -> text as written (quotes removed).
using Record = std::map<std::string, std::string>;

std::string unquoted(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string> fields(std::string_view line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',') out.emplace_back();
    else out.back() += c;
  }
  for (auto& f : out) f = unquoted(f);
  return out;
}

// A field as written, failing in one line where the record has none.
const std::string& field(const Record& r, const std::string& key, const std::string& where) {
  const auto it = r.find(key);
  if (it == r.end()) fail("{}: no '{}' field", where, key);
  return it->second;
}

std::uint64_t whole(const Record& r, const std::string& key, const std::string& where) {
  return text::to_u64(field(r, key, where), key, where);
}

double number(const Record& r, const std::string& key, const std::string& where) {
  return text::to_double(field(r, key, where), key, where);
}

// The records of the CSV form, each with the line it came from; nullopt when the header is not the Reporter's.
std::optional<std::vector<std::pair<int, Record>>> csv_records(std::string_view text, const std::string& origin) {
  std::vector<std::string> lines(1);
  for (char c : text) {
    if (c == '\n') lines.emplace_back();
    else lines.back() += c;
  }
  const auto head = fields(lines.front());
  // The JSON's names for the CSV's columns, so both forms are read alike.
  const std::map<std::string, std::string> as_json{{"collective", "name"}, {"inplace", "inPlace"}, {"algbw", "algBw"},
                                                   {"busbw", "busBw"},     {"#wrong", "wrong"}};
  const bool reporter = (head.size() > 2 && head[0] == "numCycle" && head[1] == "collective") ||
                        (!head.empty() && head[0] == "collective");
  if (!reporter) return std::nullopt;
  std::vector<std::pair<int, Record>> out;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (unquoted(lines[i]).empty()) continue;
    const auto f = fields(lines[i]);
    const std::string where = fmt::format("{}:{}", origin, i + 1);
    if (f.size() != head.size()) fail("{}: {} fields but the rccl-tests header names {}", where, f.size(), head.size());
    Record r;
    for (std::size_t k = 0; k < head.size(); ++k) r[as_json.count(head[k]) ? as_json.at(head[k]) : head[k]] = f[k];
    out.emplace_back(static_cast<int>(i + 1), std::move(r));
  }
  return out;
}

// The records of the JSON form (a list of flat objects with "name" and "inPlace"); nullopt when it is not that.
std::optional<std::vector<std::pair<int, Record>>> json_records(std::string_view text) {
  const auto j = json_parse_or_discarded(text);
  if (!j.is_array() || j.empty() || !j.front().is_object() || !j.front().contains("name") || !j.front().contains("inPlace"))
    return std::nullopt;
  std::vector<std::pair<int, Record>> out;
  for (const auto& o : j) {
    Record r;
    if (o.is_object())
      for (auto it = o.begin(); it != o.end(); ++it) r[it.key()] = it->is_string() ? it->get<std::string>() : json_dump(*it);
    out.emplace_back(static_cast<int>(out.size() + 1), std::move(r)); // the record's place in the list
  }
  return out;
}

// nccl-tests' count column: the whole buffer's elements, or a rank's share where the size is the total buffer.
bool per_rank_share(schedule::Op op) {
  using schedule::Op;
  return op == Op::AllGather || op == Op::ReduceScatter || op == Op::AllToAll || op == Op::Gather || op == Op::Scatter;
}

} // namespace

std::optional<std::vector<Trace>> parse_rccl_tests_report(std::string_view text, const std::string& origin, const Hints& hints) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::nullopt;
  const bool json = text[first] == '[';
  const auto records = json ? json_records(text) : csv_records(text.substr(first), origin);
  if (!records) return std::nullopt;
  if (records->empty()) fail("{}: an rccl-tests result file without rows", origin);
  std::vector<Trace> runs;
  std::string run_key;
  for (const auto& [line, r] : *records) {
    const std::string where = json ? fmt::format("{}: record {}", origin, line) : fmt::format("{}:{}", origin, line);
    const auto name = r.count("name") ? r.at("name") : "";
    const auto key = (r.count("numCycle") ? r.at("numCycle") : "") + "/" + name;
    if (runs.empty() || key != run_key) { // a new collective (or -N cycle) is a run of its own, as compare shows runs
      run_key = key;
      runs.emplace_back();
      Trace& t = runs.back();
      t.origin = origin;
      auto base = name;
      if (base.size() > 5 && base.compare(base.size() - 5, 5, "_perf") == 0) base.resize(base.size() - 5);
      t.op = schedule::op_from(base);
      if (!t.op) fail("{}: collective '{}' is not one ccsim predicts", where, name);
      t.op_from = "rccl-tests result file";
      // "ranks" under MPI; without MPI the one process drives "gpus" GPUs (nThreads x nGpus).
      const std::uint64_t ranks = r.count("ranks") ? whole(r, "ranks", where) : whole(r, "gpus", where);
      if (ranks == 0 || ranks > (1U << 24)) fail("{}: {} ranks is not a rank count (1..16777216)", where, ranks);
      t.ranks = static_cast<int>(ranks);
      t.ranks_from = "rccl-tests result file";
      if (hints.op && hints.force) t.op = hints.op, t.op_from = "--op";
      if (hints.ranks > 0 && hints.force) t.ranks = hints.ranks, t.ranks_from = "--ranks";
      t.has_redop_column = true;
      t.notes.push_back("rccl-tests result file (-x/-Z): each record one half of a row (inplace 0 out-of-place, 1 in-place)");
    }
    Trace& t = runs.back();
    const Bytes size = whole(r, "size", where);
    const std::string type = r.count("type") ? r.at("type") : "float";
    const std::string redop = r.count("redop") ? r.at("redop") : "none";
    const Half half{number(r, "time", where), number(r, "algBw", where), number(r, "busBw", where),
                    r.count("wrong") ? r.at("wrong") : ""};
    const bool in_place = whole(r, "inPlace", where) != 0;
    // The two halves of one size are consecutive records; anything else starts a row.
    auto* row = t.rows.empty() ? nullptr : &t.rows.back();
    if (!row || row->size != size || row->type != type || row->redop != redop || (in_place ? row->in_place : row->out_of_place)) {
      MeasuredRow m;
      m.line = line, m.size = size, m.type = type, m.redop = redop;
      const Bytes elt = counts::elt_bytes(type);
      m.count = elt > 0 ? size / elt / (per_rank_share(*t.op) ? static_cast<Bytes>(t.ranks) : 1) : size;
      t.rows.push_back(std::move(m));
      row = &t.rows.back();
    }
    (in_place ? row->in_place : row->out_of_place) = half;
  }
  return runs;
}

} // namespace ccsim::trace
