#include "sim/model/params.hpp"

#include <chrono>
#include <ctime>

#include "sim/model/calibrate.hpp"

#include <cmath>
#include <fstream>

#include "sim/core/error.hpp"

namespace ccsim::model {

double ParamSet::efficiency(topology::LinkType t) const {
  auto it = link_efficiency.find(std::string(topology::to_string(t)));
  return it == link_efficiency.end() ? 1.0 : it->second;
}

double ParamSet::proto_efficiency(const std::string& proto) const {
  auto it = protocol_efficiency.find(proto);
  return it == protocol_efficiency.end() ? 1.0 : it->second;
}

ParamSet load_params(const std::string& path) {
  std::ifstream f(path);
  if (!f) fail("--params {}: cannot open", path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f);
  } catch (const std::exception& e) {
    fail("--params {}: not valid JSON ({})", path, std::string(e.what()).substr(0, 80));
  }
  if (!j.is_object() || j.value("kind", "") != "ccsim-params" || !j.contains("params") || !j["params"].is_object())
    fail("--params {}: not a ccsim parameter file (want \"kind\": \"ccsim-params\" and a \"params\" object)", path);
  ParamSet p;
  p.origin = path;
  p.model = j.value("model", "fifo");
  p.command = j.value("command", "");
  const auto& q = j["params"];
  auto num = [&](const char* k) {
    if (!q.contains(k)) return 0.0;
    if (!q[k].is_number()) fail("--params {}: params.{} must be a number", path, k);
    const double v = q[k].get<double>();
    if (!std::isfinite(v) || v < 0) fail("--params {}: params.{} must be >= 0", path, k);
    return v;
  };
  p.launch_us = num("launch_us");
  p.step_us = num("step_us");
  p.launch_per_gpu_us = num("launch_per_gpu_us");
  if (q.contains("link_efficiency")) {
    if (!q["link_efficiency"].is_object()) fail("--params {}: params.link_efficiency must be an object", path);
    for (auto& [k, v] : q["link_efficiency"].items()) {
      if (!topology::link_type_from(k)) fail("--params {}: unknown link type '{}'", path, k);
      if (!v.is_number() || !(v.get<double>() > 0)) fail("--params {}: efficiency of {} must be > 0", path, k);
      p.link_efficiency[k] = v.get<double>();
    }
  }
  if (q.contains("protocol_efficiency")) {
    if (!q["protocol_efficiency"].is_object()) fail("--params {}: params.protocol_efficiency must be an object", path);
    for (auto& [k, v] : q["protocol_efficiency"].items()) {
      if (k != "LL" && k != "LL128" && k != "Simple") fail("--params {}: unknown protocol '{}' (LL, LL128, Simple)", path, k);
      if (!v.is_number() || !(v.get<double>() > 0)) fail("--params {}: efficiency of {} must be > 0", path, k);
      p.protocol_efficiency[k] = v.get<double>();
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
  return q;
}

topology::Topology scaled_topology(const topology::Topology& t, const ParamSet& p) {
  topology::Topology c = t;
  for (auto& l : c.links) {
    const double e = p.efficiency(l.type);
    if (e != 1.0) l.bw = static_cast<Bandwidth>(std::max(1.0, std::round(static_cast<double>(l.bw) * e)));
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
  return j.dump(2) + "\n";
}

} // namespace ccsim::model
