#include "sim/trace/nccl_tests_trace.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "sim/core/error.hpp"

namespace ccsim::trace {
namespace {

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::istringstream ss{std::string(s)};
  std::string t;
  while (ss >> t) out.push_back(t);
  return out;
}

bool is_uint(const std::string& t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool is_number(const std::string& t) {
  if (t.empty()) return false;
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// nccl-tests binary names and bare collective names, longest first so "reduce" never matches inside
// "all_reduce" or "reduce_scatter".
const std::vector<std::pair<std::string, schedule::Op>>& op_words() {
  using schedule::Op;
  static const std::vector<std::pair<std::string, Op>> w{
      {"reduce_scatter", Op::ReduceScatter}, {"all_reduce", Op::AllReduce}, {"all_gather", Op::AllGather},
      {"alltoall", Op::AllToAll},           {"broadcast", Op::Broadcast},  {"reduce", Op::Reduce},
      {"gather", Op::Gather},               {"scatter", Op::Scatter}};
  return w;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The earliest "<name>_perf" in `text`, else the earliest bare collective name standing as a word.
std::optional<schedule::Op> find_op(const std::string& text) {
  std::size_t best = std::string::npos;
  std::optional<schedule::Op> op;
  for (const auto& [w, o] : op_words()) {
    const auto pos = text.find(w + "_perf");
    if (pos != std::string::npos && (pos < best || best == std::string::npos) && (pos == 0 || !word_char(text[pos - 1])))
      best = pos, op = o;
  }
  if (op) return op;
  for (const auto& [w, o] : op_words()) {
    for (std::size_t pos = text.find(w); pos != std::string::npos; pos = text.find(w, pos + 1)) {
      const bool left = pos == 0 || !word_char(text[pos - 1]);
      const bool right = pos + w.size() >= text.size() || !word_char(text[pos + w.size()]);
      if (left && right) {
        if (pos < best || best == std::string::npos) best = pos, op = o;
        break;
      }
    }
  }
  return op;
}

std::optional<int> find_g_flag(const std::string& text) {
  static const std::regex re(R"((^|\s)-g\s+(\d+))");
  std::smatch m;
  if (std::regex_search(text, m, re)) return std::stoi(m[2].str());
  return std::nullopt;
}

// "3[3]" -> (3, 3); "15" -> (15, -1)
bool parse_rank_dev(const std::string& t, int& rank, int& dev) {
  static const std::regex re(R"((\d+)(\[(\d+)\])?)");
  std::smatch m;
  if (!std::regex_match(t, m, re)) return false;
  rank = std::stoi(m[1].str());
  dev = m[3].matched ? std::stoi(m[3].str()) : -1;
  return true;
}

// NCCL INFO "Ring 00 : 3[3] -> 2[2] via P2P/IPC", "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0",
// or the ring listing "Channel 00/02 :    0   1   2   3". Returns false when the line is something else.
bool parse_ring_line(const std::string& line, std::vector<RingHop>& out) {
  static const std::regex head(R"(NCCL INFO (Ring|Channel) (\d+)(/\d+)? :(.*)$)");
  std::smatch m;
  if (!std::regex_search(line, m, head)) return false;
  const int channel = std::stoi(m[2].str());
  const auto rest = tokens(m[4].str());
  const auto arrow = std::find(rest.begin(), rest.end(), "->");
  if (arrow == rest.end()) {
    if (rest.empty() || !std::all_of(rest.begin(), rest.end(), is_uint)) return false;
    for (std::size_t i = 0; i < rest.size(); ++i)
      out.push_back({channel, std::stoi(rest[i]), std::stoi(rest[(i + 1) % rest.size()]), -1, -1, ""});
    return true;
  }
  if (arrow == rest.begin() || arrow + 1 == rest.end()) return false;
  RingHop h;
  h.channel = channel;
  if (!parse_rank_dev(*(arrow - 1), h.src, h.src_dev) || !parse_rank_dev(*(arrow + 1), h.dst, h.dst_dev)) return false;
  const auto via = std::find(rest.begin(), rest.end(), "via");
  if (via != rest.end() && via + 1 != rest.end()) h.transport = *(via + 1);
  out.push_back(h);
  return true;
}

struct Columns {
  std::vector<std::string> names; // header tokens, e.g. size count type redop root time algbw busbw #wrong ...
};

std::uint64_t to_u64(const std::string& t, const std::string& what, const std::string& where) {
  if (!is_uint(t)) fail("{}: {} '{}' is not a whole number", where, what, t);
  try {
    return std::stoull(t);
  } catch (...) {
    fail("{}: {} '{}' is out of range", where, what, t);
  }
}

double to_double(const std::string& t, const std::string& what, const std::string& where) {
  if (!is_number(t)) fail("{}: {} '{}' is not a number", where, what, t);
  const double v = std::strtod(t.c_str(), nullptr);
  if (!std::isfinite(v) || v < 0) fail("{}: {} '{}' must be a finite non-negative number", where, what, t);
  return v;
}

MeasuredRow row_from_header(const std::vector<std::string>& tk, const Columns& cols, const std::string& where) {
  if (tk.size() != cols.names.size())
    fail("{}: row has {} columns but the header names {}", where, tk.size(), cols.names.size());
  MeasuredRow r;
  int half = -1;
  Half cur;
  auto flush = [&] {
    if (half == 0) r.out_of_place = cur;
    if (half == 1) r.in_place = cur;
    cur = Half{};
  };
  for (std::size_t i = 0; i < tk.size(); ++i) {
    const auto& n = cols.names[i];
    if (n == "size") r.size = to_u64(tk[i], "size", where);
    else if (n == "count") r.count = to_u64(tk[i], "count", where);
    else if (n == "type") r.type = tk[i];
    else if (n == "redop") r.redop = tk[i];
    else if (n == "root") r.root = static_cast<int>(std::strtol(tk[i].c_str(), nullptr, 10));
    else if (n == "time") {
      flush();
      ++half;
      if (half > 1) fail("{}: more than two time columns in the header", where);
      cur.time_us = to_double(tk[i], "time", where);
    } else if (n == "algbw") cur.algbw = to_double(tk[i], "algbw", where);
    else if (n == "busbw") cur.busbw = to_double(tk[i], "busbw", where);
    else if (n == "#wrong" || n == "error" || n == "wrong") cur.wrong = tk[i];
  }
  flush();
  return r;
}

// No header seen (partial copies): size count type [redop] [root] time algbw busbw err [time algbw busbw err].
MeasuredRow row_by_shape(const std::vector<std::string>& tk, const std::string& where, bool& redop_col, bool& root_col) {
  if (tk.size() < 6) fail("{}: a row needs at least size, count, type, time, algbw, busbw (got {} columns)", where, tk.size());
  Columns c;
  c.names = {"size", "count", "type"};
  std::size_t i = 3;
  redop_col = !is_number(tk[3]);
  if (redop_col) c.names.push_back("redop"), ++i;
  const std::size_t rest = tk.size() - i;
  root_col = rest == 9 || rest == 5;
  if (root_col) c.names.push_back("root");
  const std::size_t halves = (rest == 8 || rest == 9) ? 2 : (rest == 4 || rest == 5) ? 1 : 0;
  if (halves == 0)
    fail("{}: cannot tell the columns of a {}-column row without a '#  size  count ...' header line", where, tk.size());
  for (std::size_t h = 0; h < halves; ++h)
    for (const char* n : {"time", "algbw", "busbw", "#wrong"}) c.names.push_back(n);
  return row_from_header(tk, c, where);
}

// The rank count the printed busbw/algbw ratio implies (nccl-tests' bus factor: 2(n-1)/n for allreduce,
// (n-1)/n for allgather/reducescatter/alltoall), read on the row with the largest algbw (printed with two
// decimals, so the ratio is sharpest there); 0 when it names no whole count.
int ranks_from_busbw(const Trace& t) {
  using schedule::Op;
  if (!t.op) return 0;
  const bool ar = *t.op == Op::AllReduce;
  if (!ar && *t.op != Op::AllGather && *t.op != Op::ReduceScatter && *t.op != Op::AllToAll) return 0;
  double algbw = 0, busbw = 0;
  for (const auto& r : t.rows) {
    const auto& h = r.out_of_place ? r.out_of_place : r.in_place;
    if (h && h->algbw > algbw) algbw = h->algbw, busbw = h->busbw;
  }
  if (algbw < 10.0) return 0;
  const double scale = ar ? 2.0 : 1.0, f = busbw / algbw;
  if (f <= 0 || f >= scale - 1e-3) return 0; // 2019 convention (algbw = busbw) or nonsense
  const double n = scale / (scale - f);
  const long k = std::lround(n);
  if (k < 2 || k > (1L << 20) || std::abs(n - static_cast<double>(k)) > 0.25) return 0;
  return static_cast<int>(k);
}

} // namespace

double measured_time_us(const MeasuredRow& r, bool in_place) {
  if (in_place && r.in_place) return r.in_place->time_us;
  if (r.out_of_place) return r.out_of_place->time_us;
  return r.in_place ? r.in_place->time_us : 0.0;
}

Trace parse_trace(std::string_view text, const std::string& origin, const Hints& hints) {
  Trace t;
  t.origin = origin;
  std::optional<Columns> cols;
  std::string op_line, command_line, banner_line, all_header; // banner: nccl-tests' own "Collective test starting: X_perf"
  int device_ranks = 0;
  std::optional<int> g_flag;
  bool table_started = false, shape_redop = false, shape_root = false, shaped = false;
  std::istringstream in{std::string(text)};
  std::string raw;
  int lineno = 0;
  while (std::getline(in, raw)) {
    ++lineno;
    const std::string where = fmt::format("{}:{}", origin, lineno);
    if (raw.find('\0') != std::string::npos) fail("{}: binary data, not an nccl-tests output", where);
    std::string line = trim(raw);
    if (line.empty()) continue;
    // mpirun --tag-output prefix "[1,0]<stdout>:" (before the srun one)
    if (line[0] == '[') {
      const auto close = line.find("]<std");
      const auto colon = close == std::string::npos ? close : line.find(">:", close);
      if (colon != std::string::npos) line = trim(line.substr(colon + 2));
      if (line.empty()) continue;
    }
    // a bare srun task prefix on an empty line ("0:")
    if (line.size() >= 2 && line.back() == ':' && is_uint(line.substr(0, line.size() - 1))) continue;
    // srun/mpirun task prefix "0: "
    {
      const auto sp = line.find_first_of(" \t");
      if (sp != std::string::npos && sp >= 2 && line[sp - 1] == ':' && is_uint(line.substr(0, sp - 1)))
        line = trim(line.substr(sp));
    }
    if (line[0] == '#') {
      const std::string body = trim(std::string_view(line).substr(1));
      if (!table_started) t.provenance.push_back(line);
      all_header += body + "\n";
      const auto tk = tokens(body);
      if (tk.empty()) continue;
      if (starts_with(body, "hardware:") && t.hardware.empty()) t.hardware = trim(body.substr(9));
      else if (starts_with(body, "Collective test starting:") && banner_line.empty()) banner_line = body;
      else if (starts_with(body, "op:") && op_line.empty()) op_line = body;
      else if (starts_with(body, "command:") && command_line.empty()) command_line = body;
      else if (tk[0] == "nThread") {
        for (std::size_t i = 0; i + 1 < tk.size(); i += 2) {
          std::string k = tk[i];
          if (!k.empty() && k.back() == ':') k.pop_back();
          t.header_values[k] = tk[i + 1];
        }
      } else if (tk[0] == "Rank" && tk.size() > 1 && is_uint(tk[1]) && body.find(" device ") != std::string::npos) {
        device_ranks = std::max(device_ranks, std::stoi(tk[1]) + 1);
      } else if (tk[0] == "size" && std::find(tk.begin(), tk.end(), "count") != tk.end()) {
        Columns c;
        c.names = tk;
        for (const auto& n : c.names)
          if (n != "size" && n != "count" && n != "type" && n != "redop" && n != "root" && n != "time" && n != "algbw" &&
              n != "busbw" && n != "#wrong" && n != "error" && n != "wrong")
            fail("{}: unknown column '{}' in the table header", where, n);
        if (std::count(c.names.begin(), c.names.end(), "time") == 0) fail("{}: table header has no time column", where);
        cols = c;
        t.has_redop_column = std::find(tk.begin(), tk.end(), "redop") != tk.end();
        t.has_root_column = std::find(tk.begin(), tk.end(), "root") != tk.end();
      }
      continue;
    }
    if (line.find("NCCL INFO") != std::string::npos) { // NCCL log lines (commented-out ones are provenance)
      parse_ring_line(line, t.ring_hops);
      continue;
    }
    const auto tk = tokens(line);
    if (!is_uint(tk[0])) {
      // Free text (warnings, banners) is allowed only before the table; inside it is a broken row.
      if (table_started) fail("{}: expected a table row (size count type ...), got '{}'", where, line.substr(0, 40));
      continue;
    }
    table_started = true;
    MeasuredRow r;
    if (cols) {
      r = row_from_header(tk, *cols, where);
    } else {
      bool rc = false, ro = false;
      r = row_by_shape(tk, where, rc, ro);
      if (shaped && (rc != shape_redop || ro != shape_root)) fail("{}: row shape differs from the rows above", where);
      shaped = true, shape_redop = rc, shape_root = ro;
      t.has_redop_column = rc, t.has_root_column = ro;
    }
    if (!r.out_of_place && !r.in_place) fail("{}: row has no time column", where);
    r.line = lineno;
    if (!t.rows.empty() && r.size < t.rows.back().size)
      fail("{}: size {} is smaller than the row above ({}); sizes must not decrease", where, r.size, t.rows.back().size);
    t.rows.push_back(std::move(r));
  }

  // The collective.
  if (hints.force && hints.op) t.op = hints.op, t.op_from = "--op";
  if (!t.op && !banner_line.empty()) { // what the binary printed beats what a collector wrote about it
    if (auto o = find_op(banner_line)) t.op = o, t.op_from = "nccl-tests banner";
  }
  if (!t.op && !op_line.empty()) {
    if (auto o = find_op(op_line)) t.op = o, t.op_from = "op: header line";
  }
  if (!t.op && !command_line.empty()) {
    if (auto o = find_op(command_line)) t.op = o, t.op_from = "command: header line";
  }
  if (!t.op) {
    static const std::regex perf(R"(\b(all_reduce|all_gather|reduce_scatter|alltoall|broadcast|reduce|gather|scatter)_perf\b)");
    std::smatch m;
    if (std::regex_search(all_header, m, perf)) t.op = find_op(m[0].str()), t.op_from = "header mentions " + m[0].str();
  }
  if (!t.op && hints.op) t.op = hints.op, t.op_from = "--op";

  // The rank count.
  for (const auto* s : {&op_line, &command_line})
    if (!g_flag) g_flag = find_g_flag(*s);
  // size/count ratio of the rows: 1 for allreduce-like tests, n for allgather/reducescatter/alltoall
  int ratio = 0;
  for (const auto& r : t.rows) {
    if (r.count == 0 || r.size == 0) continue;
    Bytes elt = 0;
    if (r.type == "float" || r.type == "int32" || r.type == "uint32") elt = 4;
    else if (r.type == "half" || r.type == "bfloat16") elt = 2;
    else if (r.type == "double" || r.type == "int64" || r.type == "uint64") elt = 8;
    else if (r.type == "int8" || r.type == "uint8" || r.type == "fp8" || r.type == "char") elt = 1;
    if (elt == 0) fail("{}:{}: unknown data type '{}'", origin, r.line, r.type);
    if (r.size % (r.count * elt) != 0)
      fail("{}:{}: size {} is not a multiple of count {} x {} B", origin, r.line, r.size, r.count, elt);
    const int q = static_cast<int>(r.size / (r.count * elt));
    if (ratio != 0 && q != ratio) fail("{}:{}: size/count ratio {} differs from the rows above ({})", origin, r.line, q, ratio);
    ratio = q;
  }
  if (hints.force && hints.ranks > 0) t.ranks = hints.ranks, t.ranks_from = "--ranks";
  else if (device_ranks > 0) t.ranks = device_ranks, t.ranks_from = "device list";
  else if (g_flag) t.ranks = *g_flag, t.ranks_from = "-g flag in the header";
  else if (ratio > 1) t.ranks = ratio, t.ranks_from = "size/count ratio";
  else if (t.header_values.count("nGpus") && t.header_values.count("nThread") && command_line.find("mpirun") == std::string::npos &&
           command_line.find("srun") == std::string::npos && hints.ranks <= 0) {
    t.ranks = std::stoi(t.header_values["nGpus"]) * std::stoi(t.header_values["nThread"]);
    t.ranks_from = "nThread*nGpus (single process)";
  } else if (const int n = ranks_from_busbw(t); n > 1) t.ranks = n, t.ranks_from = "busbw/algbw ratio";
  else if (hints.ranks > 0) t.ranks = hints.ranks, t.ranks_from = "--ranks";

  if (t.op && t.ranks > 0 && ratio > 0) {
    using schedule::Op;
    const bool total = *t.op == Op::AllGather || *t.op == Op::ReduceScatter || *t.op == Op::AllToAll ||
                       *t.op == Op::Gather || *t.op == Op::Scatter;
    const int want = total ? t.ranks : 1;
    if (ratio != want)
      fail("{}: rows have size = {} x count x eltsize, but {} on {} ranks needs {}x", origin, ratio,
           schedule::to_string(*t.op), t.ranks, want);
  }
  // 2019 all_gather/reduce_scatter builds printed algbw = size*(n-1)/n/time.
  if (t.ranks > 1) {
    int old_votes = 0, new_votes = 0;
    const double f = static_cast<double>(t.ranks - 1) / t.ranks;
    for (const auto& r : t.rows) {
      if (!r.out_of_place || r.out_of_place->time_us <= 0) continue;
      const double s_over_t = static_cast<double>(r.size) / 1e3 / r.out_of_place->time_us;
      if (s_over_t < 1.0) continue; // printed with 2 decimals: too coarse below 1 GB/s
      const double rel = r.out_of_place->algbw / s_over_t;
      if (std::abs(rel - f) < 0.02 && std::abs(rel - 1.0) >= 0.02) ++old_votes;
      else if (std::abs(rel - 1.0) < 0.02) ++new_votes;
    }
    t.old_busbw_convention = old_votes > 0 && new_votes == 0;
  }
  if (t.rows.empty() && t.ring_hops.empty()) fail("{}: no nccl-tests rows and no NCCL ring lines found", origin);
  return t;
}

Trace load_trace(const std::string& path, const Hints& hints) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("--trace {}: cannot open", path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse_trace(ss.str(), path, hints);
}

std::vector<RingChain> ring_chains(const std::vector<RingHop>& hops) {
  std::map<int, std::map<int, int>> next; // channel -> src -> dst (duplicates from send/receive lines merge)
  for (const auto& h : hops) next[h.channel][h.src] = h.dst;
  std::vector<RingChain> out;
  for (auto& channel_next : next) { // not a structured binding: `walk` uses both (clang 14)
    const int ch = channel_next.first;
    auto& nx = channel_next.second;
    std::set<int> has_pred;
    for (auto& [s, d] : nx) has_pred.insert(d);
    std::set<int> seen;
    auto walk = [&](int start) {
      RingChain c;
      c.channel = ch;
      int cur = start;
      while (!seen.count(cur)) {
        seen.insert(cur);
        c.ranks.push_back(cur);
        auto it = nx.find(cur);
        if (it == nx.end()) break;
        if (it->second == start) {
          c.closed = true;
          break;
        }
        cur = it->second;
      }
      out.push_back(std::move(c));
    };
    for (auto& [s, d] : nx)
      if (!has_pred.count(s) && !seen.count(s)) walk(s);
    for (auto& [s, d] : nx)
      if (!seen.count(s)) walk(s);
  }
  return out;
}

} // namespace ccsim::trace
