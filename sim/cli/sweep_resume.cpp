#include "sim/cli/sweep_resume.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/core/json_io.hpp"
#include "sim/core/printable.hpp"

namespace ccsim::cli {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  if (in) ss << in.rdbuf();
  return ss.str();
}

// Whole lines only: a last line without its newline was torn by an interruption.
std::vector<std::string> whole_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(text.substr(start, nl - start));
  return lines;
}

// RFC 4180 records (quoted fields may hold commas, quotes and newlines).
std::vector<std::vector<std::string>> csv_records(const std::string& text) {
  std::vector<std::vector<std::string>> recs;
  std::vector<std::string> rec;
  std::string field;
  bool quoted = false, any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"') field += c;
      else if (i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else quoted = false;
    } else if (c == '"') quoted = any = true;
    else if (c == ',') rec.push_back(std::move(field)), field.clear();
    else if (c == '\n') rec.push_back(std::move(field)), field.clear(), recs.push_back(std::move(rec)), rec.clear(), any = false;
    else field += c, any = true;
  }
  (void)any; // a record without its newline is torn and dropped
  return recs;
}

// One table row (column name -> text) added to `out` under its point's key.
using Named = std::map<std::string, std::string>;
void add_row(const SweepPlan& plan, const Named& row, FinishedPoints& out, std::map<std::string, std::size_t>& last) {
  std::vector<std::string> values, cells;
  for (const auto& p : plan.params) values.push_back(row.count(p) ? row.at(p) : "");
  for (const auto& c : report::sweep_output_columns()) {
    if (!row.count(c)) return;
    cells.push_back(row.at(c));
  }
  // A point's rows are consecutive; a key seen again in another run of rows starts over.
  const std::string key = point_key(plan, values);
  const std::size_t point = row.count("point") ? std::hash<std::string>{}(row.at("point")) : 0;
  if (!last.count(key) || last[key] != point) out[key].clear();
  last[key] = point;
  out[key].push_back(std::move(cells));
}

void read_output(const SweepPlan& plan, const std::string& text, FinishedPoints& out) {
  std::map<std::string, std::size_t> last;
  if (!text.empty() && text.front() == '{') {
    for (const auto& line : whole_lines(text)) {
      const auto j = ordered_json_parse_or_discarded(line);
      if (!j.is_object()) continue;
      Named row;
      for (auto it = j.begin(); it != j.end(); ++it)
        row[it.key()] = it->is_string() ? it->get<std::string>() : it->is_null() ? "" : json_dump(*it);
      add_row(plan, row, out, last);
    }
    return;
  }
  const auto recs = csv_records(text);
  if (recs.empty()) return;
  for (std::size_t r = 1; r < recs.size(); ++r) {
    if (recs[r].size() != recs[0].size()) continue;
    Named row;
    for (std::size_t i = 0; i < recs[0].size(); ++i) row[recs[0][i]] = recs[r][i];
    add_row(plan, row, out, last);
  }
}

} // namespace

std::string journal_path(const std::string& output) { return output + ".ccsim-journal"; }

FinishedPoints read_finished(const SweepPlan& plan, const std::string& output) {
  FinishedPoints out;
  if (output.empty() || output == "-") return out;
  read_output(plan, slurp(output), out);
  for (const auto& line : whole_lines(slurp(journal_path(output)))) {
    const auto j = json_parse_or_discarded(line);
    if (!j.is_object() || !j.contains("key") || !j.contains("cells") || !j["key"].is_string()) continue;
    report::SweepCells cells;
    bool ok = j["cells"].is_array() && !j["cells"].empty();
    for (const auto& row : ok ? j["cells"] : nlohmann::json::array()) {
      ok = ok && row.is_array() && row.size() == report::sweep_output_columns().size();
      if (!ok) break;
      cells.emplace_back();
      for (const auto& c : row) ok = ok && c.is_string() && (cells.back().push_back(c.get<std::string>()), true);
    }
    if (ok) out[j["key"].get<std::string>()] = std::move(cells);
  }
  // A point that ended in an error runs again: the error may have been the machine's and since mended (a
  // topology file fixed under the same name, CCSIM_DATA_DIR set, memory), and rerunning the same command is
  // how a user retries; an error that stays costs no simulation. So does a point with a row that cannot be
  // printed again (a word in a number's column of a hand-edited table made the JSON lines writer throw).
  const auto& columns = report::sweep_output_columns();
  const auto error_at = static_cast<std::size_t>(std::find(columns.begin(), columns.end(), "error") - columns.begin());
  std::erase_if(out, [&](const auto& point) {
    return std::any_of(point.second.begin(), point.second.end(), [&](const auto& row) {
      return (error_at < row.size() && !row[error_at].empty()) || !report::sweep_row_readable(row);
    });
  });
  return out;
}

namespace {
// A journal error leads with the flag and the file the user gave, as every other output refusal does
// ("--output /proc/x: cannot open for writing: ..."), then names the journal file itself.
std::string journal_error(const std::string& path, const char* doing, int err) {
  constexpr std::string_view kSuffix = ".ccsim-journal";
  const std::string output = path.ends_with(kSuffix) ? path.substr(0, path.size() - kSuffix.size()) : path;
  return fmt::format("-o/--output {}: cannot {} its resume journal {}: {}", printable(output), doing, printable(path), std::strerror(err));
}
} // namespace

Journal::Journal(const std::string& path) : path_(path) {
  if (path_.empty()) return;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd_ < 0) fail("{}", journal_error(path_, "open", errno));
  // A torn last line from an interrupted run is closed off so the next entry starts on its own line.
  const std::string text = slurp(path_);
  if (!text.empty() && text.back() != '\n' && ::write(fd_, "\n", 1) != 1) fail("{}", journal_error(path_, "write", errno));
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::append(const std::string& key, const report::SweepCells& cells) {
  if (fd_ < 0) return;
  const std::string line = safe_dump(nlohmann::json{{"key", key}, {"cells", cells}}) + "\n";
  std::lock_guard lock(mutex_);
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("{}", journal_error(path_, "write", n < 0 ? errno : ENOSPC));
    done += static_cast<std::size_t>(n);
  }
}

void Journal::remove() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());
}

} // namespace ccsim::cli
