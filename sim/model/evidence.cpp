#include "sim/model/evidence.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/gpu_catalogue.hpp"

namespace ccsim::model {

namespace {

constexpr const char* kEvidenceName = "models/evidence.json";

std::string ev_upper(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// The network's name as its vendors write it.
std::string ev_network_words(const std::string& n) {
  if (n == "ib") return "IB";
  if (n == "roce") return "RoCE";
  if (n == "efa") return "EFA";
  if (n == "gib") return "gIB";
  if (n == "tcpx" || n == "tcpxo") return ev_upper(n);
  return n.empty() ? "no network" : n;
}

std::string ev_gpu_words(const std::string& g) { return g.empty() ? "an unnamed GPU kind" : ev_upper(g); }

std::string ev_scope_words(int hosts, const std::string& network) {
  return hosts <= 1 ? "one node" : fmt::format("{} nodes over {}", hosts, ev_network_words(network));
}

std::string ev_range(int lo, int hi) { return lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi); }

std::string ev_pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f} %", *v) : std::string("n/a"); }

bool ev_same_class(const EvidenceClass& a, const EvidenceClass& b) {
  if (a.gpu != b.gpu || a.op != b.op || (a.hosts > 1) != (b.hosts > 1)) return false;
  return a.hosts <= 1 || a.network == b.network;
}

// How far a measured run is from the class asked: GPU kind first, then the op, then one node against across
// nodes, then the network, then how many hosts and ranks (log scale: 2 -> 4 racks as far as 4 -> 8).
double ev_distance(const EvidenceClass& want, const EvidenceClass& have) {
  double d = 0;
  if (want.gpu != have.gpu) d += 1000;
  if (want.op != have.op) d += 100;
  if ((want.hosts > 1) != (have.hosts > 1)) d += 50;
  else if (want.hosts > 1 && want.network != have.network) d += 20;
  d += 4 * std::abs(std::log2(std::max(1, want.hosts) / static_cast<double>(std::max(1, have.hosts))));
  d += std::abs(std::log2(std::max(1, want.ranks) / static_cast<double>(std::max(1, have.ranks))));
  return d;
}

std::optional<double> ev_median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

EvidenceClass evidence_class(const topology::Topology& t, schedule::Op op, int ranks) {
  EvidenceClass c;
  c.gpu = t.gpu_kind;
  c.op = std::string(schedule::to_string(op));
  c.ranks = ranks;
  // A generated crossbar or torus is one host (host_map); its links are built only on demand.
  if (t.structure.kind != topology::Structure::Kind::General || t.link_formula()) return c;
  // A preset names no GPU kind: its NVLink generation's SXM part is the kind the model prices it as.
  if (c.gpu.empty()) c.gpu = topology::sxm_kind_of_nvlink(t);
  c.hosts = std::max(1, topology::host_map(t).count);
  if (c.hosts > 1)
    for (const auto& l : t.links)
      if (topology::is_network(l.type)) {
        c.network = std::string(topology::to_string(l.type));
        break;
      }
  return c;
}

std::vector<EvidenceRun> parse_evidence(const std::string& text, const std::string& where) {
  std::vector<EvidenceRun> out;
  try {
    const auto j = nlohmann::json::parse(text);
    auto ev_num = [](const nlohmann::json& v) { return v.is_null() ? std::optional<double>{} : std::optional<double>{v.get<double>()}; };
    // hosts and ranks become ints: a fraction or a number past an int (1e30) is refused, not converted (get<int> of
    // such a double is undefined behaviour, UBSan's float-cast-overflow; a large integer wraps).
    auto ev_count = [&](const nlohmann::json& r, const char* key) {
      const auto& v = r.at(key);
      const double d = v.is_number() ? v.get<double>() : -1.0;
      if (!v.is_number() || !(d >= 0 && d <= (1 << 24)) || d != std::floor(d))
        fail("{}: not ccsim's evidence file ('{}' is not a whole number from 0 to {}); regenerate it with scripts/evidence.py "
             "--write", where, key, 1 << 24);
      return static_cast<int>(d);
    };
    for (const auto& r : j.at("runs")) {
      EvidenceRun e;
      e.table = r.at("table").get<std::string>();
      e.file = r.at("file").get<std::string>();
      e.cls.gpu = r.at("gpu").get<std::string>();
      e.cls.hosts = ev_count(r, "hosts");
      e.cls.network = r.at("network").get<std::string>();
      e.cls.op = r.at("op").get<std::string>();
      e.cls.ranks = ev_count(r, "ranks");
      e.err_ge_1MiB = ev_num(r.at("median_abs_err_pct_ge_1MiB"));
      e.err_all = ev_num(r.at("median_abs_err_pct_all"));
      out.push_back(std::move(e));
    }
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not ccsim's evidence file ({}); regenerate it with scripts/evidence.py --write", where, e.what());
  }
  return out;
}

Checked check(const EvidenceClass& c, const std::vector<EvidenceRun>& runs) {
  Checked k;
  k.cls = c;
  std::vector<const EvidenceRun*> same;
  for (const auto& r : runs)
    if (!c.gpu.empty() && ev_same_class(c, r.cls)) same.push_back(&r);
  // The class's measured range: hosts across nodes, ranks on one node.
  int lo = 0, hi = 0;
  for (const auto* r : same) {
    const int v = c.hosts > 1 ? r->cls.hosts : r->cls.ranks;
    lo = lo == 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  }
  const int at = c.hosts > 1 ? c.hosts : c.ranks;
  if (!same.empty() && at >= lo && at <= hi) {
    std::vector<double> errs;
    for (const auto* r : same) {
      if (r->err_ge_1MiB) errs.push_back(*r->err_ge_1MiB);
      if (std::find(k.tables.begin(), k.tables.end(), r->table) == k.tables.end()) k.tables.push_back(r->table);
    }
    std::sort(k.tables.begin(), k.tables.end());
    k.checked = true;
    k.runs = static_cast<int>(same.size());
    k.median_ge_1MiB = ev_median(errs);
    std::string tables;
    for (const auto& t : k.tables) tables += (tables.empty() ? "" : ", ") + t;
    const std::string span = c.hosts > 1 ? fmt::format("{}, {} nodes over {}, {}", ev_gpu_words(c.gpu), ev_range(lo, hi), ev_network_words(c.network), c.op)
                                         : fmt::format("{}, one node, {}, {} ranks", ev_gpu_words(c.gpu), c.op, ev_range(lo, hi));
    k.line = fmt::format("checked: {} measured run{} of this class ({}): median |err| {} >= 1 MiB ({})", k.runs,
                         k.runs == 1 ? "" : "s", span, ev_pct(k.median_ge_1MiB), tables);
    return k;
  }
  // Under 200 characters (a header line): the nearest run's file is in the JSON field `nearest`, its class in the line.
  const std::string scope = c.hosts > 1 ? "across nodes over " + ev_network_words(c.network) : "on one node";
  std::string why;
  if (c.gpu.empty())
    why = "the description names no GPU kind";
  else if (same.empty())
    why = fmt::format("no measured {} {} run {}", ev_gpu_words(c.gpu), c.op, scope);
  else
    why = fmt::format("no measured {} {} run {} at {} {} (measured: {})", ev_gpu_words(c.gpu), c.op, scope, at,
                      c.hosts > 1 ? "nodes" : (at == 1 ? "rank" : "ranks"), ev_range(lo, hi));
  const EvidenceRun* best = nullptr;
  double best_d = 0;
  for (const auto& r : runs) {
    const double d = ev_distance(c, r.cls);
    if (!best || d < best_d) best = &r, best_d = d;
  }
  std::string near;
  if (best) {
    near = fmt::format("{} {}, {}, {} ranks: |err| {} ({})", ev_gpu_words(best->cls.gpu), best->cls.op,
                       ev_scope_words(best->cls.hosts, best->cls.network), best->cls.ranks, ev_pct(best->err_ge_1MiB), best->table);
    k.nearest = best->file + ": " + near;
  }
  k.line = fmt::format("not checked: {}{}", why, best ? "; nearest: " + near : "");
  return k;
}

Checked check_shipped(const EvidenceClass& c) {
  // Read and parsed once per file, as load_tables does: compare over a folder checks every run against it.
  static std::mutex m;
  static std::map<std::string, std::vector<EvidenceRun>> cache;
  const std::string path = data_dir() + "/" + kEvidenceName;
  std::lock_guard lock(m);
  auto it = cache.find(path);
  if (it == cache.end()) {
    std::ifstream in(path);
    if (!in) {
      Checked k;
      k.cls = c;
      k.line = fmt::format("not checked: {} is missing (scripts/evidence.py --write)", kEvidenceName);
      return k;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    it = cache.emplace(path, parse_evidence(ss.str(), path)).first;
  }
  return check(c, it->second);
}

} // namespace ccsim::model
