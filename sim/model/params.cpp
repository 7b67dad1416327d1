#include "sim/model/params.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <chrono>
#include <ctime>

#include "sim/model/calibrate.hpp"
#include "sim/model/protocol_place.hpp"

#include <cmath>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/model/launch_kind.hpp"

namespace ccsim::model {

std::optional<std::string_view> link_family(topology::LinkType t) {
  using topology::LinkType;
  if (topology::is_nvlink(t)) return "nvlink";
  if (topology::is_pcie(t)) return "pcie";
  // Slingshot: RDMA through libfabric's cxi provider (aws-ofi-nccl), as EFA through its efa provider; Google's gIB
  // is RoCEv2. GPUDirect-TCPX/TCPXO are TCP, not RDMA: no family, as ethernet.
  if (t == LinkType::Ib || t == LinkType::Roce || t == LinkType::Efa || t == LinkType::Slingshot || t == LinkType::Gib) return "rdma";
  return std::nullopt;
}

bool is_link_family(std::string_view name) { return name == "nvlink" || name == "pcie" || name == "rdma"; }

double ParamSet::efficiency(topology::LinkType t) const {
  auto it = link_efficiency.find(std::string(topology::to_string(t)));
  if (it != link_efficiency.end()) return it->second;
  if (const auto fam = link_family(t)) {
    it = link_efficiency.find(std::string(*fam));
    if (it != link_efficiency.end()) return it->second;
  }
  return 1.0;
}

double ParamSet::proto_efficiency(const std::string& proto) const {
  auto it = protocol_efficiency.find(proto);
  return it == protocol_efficiency.end() ? 1.0 : it->second;
}

double ParamSet::proto_latency(std::string_view proto) const {
  auto it = protocol_latency.find(std::string(proto));
  return it == protocol_latency.end() ? 1.0 : it->second;
}

// Efficiencies multiply link bandwidths: above 100 a fitted or hand-written figure is a typo, and the
// bound keeps a scaled bandwidth inside the range parse_bandwidth accepts.
constexpr double kMaxEfficiency = 100;

ParamSet load_params(const std::string& path) {
  ParamSet p = params_from_json(read_json_file(path, "--params "), "--params " + printable(path));
  p.origin = path;
  return p;
}

ParamSet params_from_json(const nlohmann::json& doc, const std::string& origin) {
  const JsonValue j(doc, origin);
  if (!j.is_object() || !j.has("kind") || !j["kind"].is_string() || j["kind"].as_string() != "ccsim-params" ||
      !j.has("params") || !j["params"].is_object())
    j.fail("not a ccsim parameter file (want \"kind\": \"ccsim-params\" and a \"params\" object)");
  ParamSet p;
  p.origin = origin;
  if (j.has("model")) p.model = j["model"].as_string();
  if (j.has("command")) p.command = j["command"].as_string();
  const JsonValue q = j["params"];
  // A misspelt or misplaced figure would otherwise be ignored and the run would use 0 or 1 in its place.
  static constexpr std::array<std::string_view, 8> kKnown = {"launch_us",           "step_us",
                                                            "launch_per_gpu_us",   "link_efficiency",
                                                            "protocol_efficiency", "protocol_efficiency_by_library",
                                                            "protocol_latency",    "launch_by_kind"};
  const auto known = [](std::string_view k) { return std::find(kKnown.begin(), kKnown.end(), k) != kKnown.end(); };
  for (const auto& [k, v] : q.items())
    if (!known(k)) v.fail("unknown parameter '{}' (known: launch_us, step_us, launch_per_gpu_us, link_efficiency, protocol_efficiency, protocol_efficiency_by_library, protocol_latency, launch_by_kind)", printable(k));
  for (const auto& [k, v] : j.items())
    if (known(k)) v.fail("'{}' belongs inside the \"params\" object, where it is read", printable(k));
  // Overheads in microseconds: at most one second each (times are 64-bit picoseconds).
  auto num = [&](const char* k) { return q.has(k) ? q[k].as_double(0, 1e6) : 0.0; };
  p.launch_us = num("launch_us");
  p.step_us = num("step_us");
  p.launch_per_gpu_us = num("launch_per_gpu_us");
  if (auto le = q.get("link_efficiency")) {
    if (!le->is_object()) le->fail("must be an object");
    for (const auto& [k, v] : le->items()) {
      if (!topology::link_type_from(k) && !is_link_family(k))
        v.fail("unknown link type or family '{}' (families: nvlink, pcie, rdma)", printable(k));
      const double e = v.as_double(0, kMaxEfficiency);
      if (!(e > 0)) v.fail("efficiency of {} must be > 0", k);
      p.link_efficiency[k] = e;
    }
  }
  if (auto pe = q.get("protocol_efficiency")) {
    if (!pe->is_object()) pe->fail("must be an object");
    for (const auto& [k, v] : pe->items()) {
      if (!is_protocol_key(k)) v.fail("unknown protocol '{}' (LL, LL128, Simple, each also as net:<protocol>)", printable(k));
      const double e = v.as_double(0, kMaxEfficiency);
      if (!(e > 0)) v.fail("efficiency of {} must be > 0", k);
      p.protocol_efficiency[k] = e;
    }
  }
  if (auto pb = q.get("protocol_efficiency_by_library")) {
    if (!pb->is_object()) pb->fail("must be an object");
    for (const auto& [lib, section] : pb->items()) {
      if (!is_protocol_library(lib)) section.fail("unknown library '{}' ({})", printable(lib), kProtocolLibraries);
      if (!section.is_object()) section.fail("must be an object");
      auto& m = p.protocol_by_library[lib];
      for (const auto& [k, v] : section.items()) {
        if (!is_protocol_key(k)) v.fail("unknown protocol '{}' (LL, LL128, Simple, each also as net:<protocol>)", printable(k));
        const double e = v.as_double(0, kMaxEfficiency);
        if (!(e > 0)) v.fail("efficiency of {} must be > 0", k);
        m[k] = e;
      }
    }
  }
  if (auto pl = q.get("protocol_latency")) {
    if (!pl->is_object()) pl->fail("must be an object");
    for (const auto& [k, v] : pl->items()) {
      if (k != "LL" && k != "LL128" && k != "Simple") v.fail("unknown protocol '{}' (LL, LL128, Simple)", printable(k));
      // A multiplier on NCCL's latency figures: bounded like an efficiency (a latency 100 x NCCL's is a typo).
      const double m = v.as_double(0, kMaxEfficiency);
      if (!(m > 0)) v.fail("latency multiplier of {} must be > 0", k);
      p.protocol_latency[k] = m;
    }
  }
  if (auto lk = q.get("launch_by_kind")) {
    if (!lk->is_object()) lk->fail("must be an object");
    for (const auto& [k, v] : lk->items()) {
      if (!is_launch_kind(k)) v.fail("unknown launch kind '{}' ({})", printable(k), kLaunchKinds);
      if (!v.is_object()) v.fail("must be an object");
      const auto& kind = v;  // clang 14 cannot capture a structured binding in a lambda
      for (const auto& [n, x] : kind.items())
        if (n != "launch_us" && n != "launch_per_gpu_us") x.fail("unknown figure '{}' (launch_us, launch_per_gpu_us)", printable(n));
      auto us = [&kind](const char* n) { return kind.has(n) ? kind[n].as_double(0, 1e6) : 0.0; };
      p.launch_by_kind[k] = {us("launch_us"), us("launch_per_gpu_us")};
    }
  }
  return p;
}

nlohmann::ordered_json params_json(const ParamSet& p) {
  nlohmann::ordered_json q;
  q["launch_us"] = p.launch_us;
  q["step_us"] = p.step_us;
  if (p.launch_per_gpu_us != 0) q["launch_per_gpu_us"] = p.launch_per_gpu_us;
  q["link_efficiency"] = nlohmann::ordered_json::object();
  for (auto& [k, v] : p.link_efficiency) q["link_efficiency"][k] = v;
  if (!p.protocol_efficiency.empty()) {
    q["protocol_efficiency"] = nlohmann::ordered_json::object();
    for (auto& [k, v] : p.protocol_efficiency) q["protocol_efficiency"][k] = v;
  }
  for (auto& [lib, m] : p.protocol_by_library) {
    q["protocol_efficiency_by_library"][lib] = nlohmann::ordered_json::object();
    for (auto& [k, v] : m) q["protocol_efficiency_by_library"][lib][k] = v;
  }
  if (!p.protocol_latency.empty()) {
    q["protocol_latency"] = nlohmann::ordered_json::object();
    for (auto& [k, v] : p.protocol_latency) q["protocol_latency"][k] = v;
  }
  for (auto& [k, v] : p.launch_by_kind)
    q["launch_by_kind"][k] = {{"launch_us", v.launch_us}, {"launch_per_gpu_us", v.launch_per_gpu_us}};
  return q;
}

topology::Topology scaled_topology(const topology::Topology& t, const ParamSet& p) {
  topology::Topology c = t;
  for (auto& l : c.links) {
    const double e = p.efficiency(l.type);
    // Capped so that bw x lanes stays inside what Topology::validate accepts.
    const double cap = static_cast<double>(topology::kMaxBandwidth / static_cast<Bandwidth>(l.lanes));
    if (e != 1.0) l.bw = static_cast<Bandwidth>(std::clamp(std::round(static_cast<double>(l.bw) * e), 1.0, cap));
  }
  return c;
}

// The file `calibrate` writes and load_params reads back (plus the fit's record: inputs, residuals,
// cross-validation, and the command that made it).
std::string params_file(const FitResult& f, const std::vector<Holdout>& cv, const std::vector<CalibInput>& in,
                        const std::string& model, const std::vector<std::string>& topologies, const std::string& command) {
  nlohmann::ordered_json j;
  j["kind"] = "ccsim-params";
  j["model"] = model;
  j["command"] = command;
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char when[64];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  j["created"] = when;
  j["source"] = "fitted by ccsim calibrate (least squares on relative time residuals, Levenberg-Marquardt with Eigen LDLT, rank-revealing QR to hold inseparable parameters)";
  j["params"] = model::params_json(f.params);
  j["fitted"] = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < f.names.size(); ++k) j["fitted"][f.names[k]] = f.fitted[k];
  // A value that moved early and was then held (pivoting found it inseparable from another) is fitted but not
  // identified: the class-level construction votes only with the parameters free in the last iteration.
  j["identified"] = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < f.names.size() && k < f.free_at_end.size(); ++k) j["identified"][f.names[k]] = f.free_at_end[k];
  // Whether the fit tells each parameter apart from the others it moved (kSeparability): the class-level
  // construction votes only with a separable one. Every parameter the fit could move is listed.
  j["separation"] = nlohmann::ordered_json::object();
  for (const auto& [name, s] : f.separation) {
    auto& e = j["separation"][name] = {{"separability", std::round(s.separability * 1e4) / 1e4}, {"separable", s.separable()},
                                               {"votes", s.votes()}};
    if (std::isfinite(s.log_se)) e["log_se"] = std::round(s.log_se * 1e4) / 1e4;
    if (!s.closest.empty()) e["closest"] = s.closest;
    if (!s.moved) e["moved"] = false;
  }
  // What the class-level construction (scripts/validate_table.py) needs beside the values: how much the
  // large sizes hang on each link (an efficiency held below kBottleneckSensitivity was not identified)
  // and which family each fitted link type falls back to.
  // Each parameter's largest share of a row's time at the start values; below kIdentifiedShare it was held.
  j["row_share"] = nlohmann::ordered_json::object();
  for (const auto& [name, v] : f.row_share) j["row_share"][name] = v;
  j["bottleneck_sensitivity"] = nlohmann::ordered_json::object();
  for (const auto& [name, v] : f.sensitivity) j["bottleneck_sensitivity"][name] = v;
  // Per protocol factor, the rows behind it (kProtocolRateRows): `rate` when it describes the protocol's
  // speed at its place; the class-level construction takes only those.
  j["protocol_use"] = nlohmann::ordered_json::object();
  for (const auto& [key, u] : f.protocol_use)
  {
    j["protocol_use"][key] = {{"chosen", u.chosen}, {"bandwidth_bound", u.bandwidth_bound}, {"rate", u.rate()}};
    // Each row's share, so the class-level construction can measure another threshold without refitting.
    auto& shares = j["protocol_use"][key]["shares"] = nlohmann::ordered_json::array();
    for (const double s : u.shares) shares.push_back(std::round(s * 1000.0) / 1000.0);
  }
  // Per protocol latency multiplier, the rows behind it: `latency` when enough of them ran the protocol with
  // its latency setting their time (kProtocolRateRows); the class-level construction takes only those.
  if (!f.latency_use.empty()) {
    j["protocol_latency_use"] = nlohmann::ordered_json::object();
    for (const auto& [proto, u] : f.latency_use)
      j["protocol_latency_use"][proto] = {{"chosen", u.chosen}, {"latency_bound", u.latency_bound}, {"latency", u.identified()}};
  }
  j["link_families"] = nlohmann::ordered_json::object();
  for (const auto& [type, e] : f.params.link_efficiency)
    if (const auto t = topology::link_type_from(type))
      if (const auto fam = link_family(*t)) j["link_families"][type] = std::string(*fam);
  j["inputs"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < in.size(); ++i)
    j["inputs"].push_back({{"trace", in[i].label},
                           {"topology", topologies[i]},
                           {"op", schedule::to_string(in[i].cfg.op)},
                           {"ranks", metrics::ranks_of(in[i].cfg)},
                           {"points", in[i].rows.size()}});
  j["fit"] = {{"r2_time", f.r2_time}, {"r2_log_time", f.r2_log_time}, {"rms_rel", f.rms_rel}, {"points", f.points.size()}};
  j["residuals"] = nlohmann::ordered_json::array();
  for (const auto& p : f.points)
    j["residuals"].push_back({{"trace", p.input}, {"size", p.size}, {"measured_us", p.measured_us}, {"predicted_us", p.predicted_us}});
  j["cross_validation"] = nlohmann::ordered_json::array();
  for (const auto& h : cv)
    j["cross_validation"].push_back({{"held_out", h.label},
                                     {"rows", h.n},
                                     {"median_abs_err_pct_ge_1MiB", std::isfinite(h.median_ge_1MiB) ? nlohmann::ordered_json(h.median_ge_1MiB) : nlohmann::ordered_json()},
                                     {"median_abs_err_pct_all", std::isfinite(h.median_all) ? nlohmann::ordered_json(h.median_all) : nlohmann::ordered_json()},
                                     {"note", h.note}});
  return safe_dump(j, 2) + "\n";
}

} // namespace ccsim::model
