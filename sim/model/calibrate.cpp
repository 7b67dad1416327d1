#include "sim/model/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <Eigen/Dense>

#include "sim/core/error.hpp"
#include "sim/model/protocol_place.hpp"

namespace ccsim::model {
namespace {

struct Layout {
  std::vector<std::string> types;  // link types of the efficiency parameters
  std::vector<std::string> protos; // protocols (nccl model only)
  std::vector<std::string> lats;   // protocols whose latency multiplier is fitted (nccl model only)
  bool per_gpu = false;            // launch_per_gpu_us (traces differ in GPUs per thread, or all drive several)
  bool per_gpu_only = false;       // all traces drive the same G > 1 GPUs per thread: launch_us held
  std::size_t size() const { return 2 + types.size() + protos.size() + lats.size() + (per_gpu ? 1 : 0); }
  std::size_t first_lat() const { return 2 + types.size() + protos.size(); }
  std::size_t per_gpu_index() const { return first_lat() + lats.size(); }
  // An additive time term (launch_us, step_us, launch_per_gpu_us), as against a multiplicative one.
  bool additive(std::size_t j) const { return j <= 1 || (per_gpu && j == per_gpu_index()); }
};

// theta = [launch_us, step_us, 1/eff_type..., 1/eff_proto..., latency multiplier..., launch_per_gpu_us]
ParamSet to_params(const std::vector<double>& th, const Layout& L, const ParamSet& base) {
  ParamSet p = base;
  p.launch_us = th[0];
  p.step_us = th[1];
  for (std::size_t k = 0; k < L.types.size(); ++k) p.link_efficiency[L.types[k]] = 1.0 / th[2 + k];
  for (std::size_t k = 0; k < L.protos.size(); ++k) p.protocol_efficiency[L.protos[k]] = 1.0 / th[2 + L.types.size() + k];
  for (std::size_t k = 0; k < L.lats.size(); ++k) p.protocol_latency[L.lats[k]] = th[L.first_lat() + k];
  if (L.per_gpu) p.launch_per_gpu_us = th[L.per_gpu_index()];
  return p;
}

// Each row's predicted time and the protocol the model ran it with.
struct RowPrediction {
  double us = 0;
  std::string proto;
};

std::vector<RowPrediction> predict_rows(const std::vector<CalibInput>& in, const CalibOptions& o, const ParamSet& p) {
  std::vector<RowPrediction> out;
  for (const auto& ci : in) {
    ModelOptions mo = ci.settings;
    mo.params = p;
    mo.gpus_per_thread = gpus_per_thread(ci.trace);
    auto cfg = ci.cfg;
    cfg.model.semantics = engine::Semantics::mpi; // fitted step costs are lockstep quantities (see trace_setup)
    Predictor pr(*ci.topo, cfg, o.model, mo);
    for (auto r : ci.rows) {
      const auto row = pr.predict(plan_of(ci.trace.rows[r]));
      out.push_back({to_us(row.time), row.choice.proto});
    }
  }
  return out;
}

std::vector<double> predict_all(const std::vector<CalibInput>& in, const CalibOptions& o, const ParamSet& p) {
  std::vector<double> out;
  for (const auto& r : predict_rows(in, o, p)) out.push_back(r.us);
  return out;
}

std::vector<double> measured_all(const std::vector<CalibInput>& in, bool in_place) {
  std::vector<double> m;
  for (const auto& ci : in)
    for (auto r : ci.rows) m.push_back(trace::measured_time_us(ci.trace.rows[r], in_place));
  return m;
}

double cost(const std::vector<double>& pred, const std::vector<double>& meas) {
  double c = 0;
  for (std::size_t i = 0; i < pred.size(); ++i) c += std::pow((pred[i] - meas[i]) / meas[i], 2);
  return c;
}

// How much each row's time hangs on one factor: d ln(time) / d ln(1 / factor), from the predictions at a set
// (`base`) and at the same set with that factor divided by kSensitivityStep (`moved`); about 1 for a row the
// factor's bandwidth bounds, 0 for one it leaves untouched.
constexpr double kSensitivityStep = 1.05;
std::vector<double> row_sensitivity(const std::vector<double>& base, const std::vector<double>& moved) {
  std::vector<double> d(base.size());
  for (std::size_t i = 0; i < base.size(); ++i) d[i] = std::log(moved[i] / base[i]) / std::log(kSensitivityStep);
  return d;
}

// How much the large-size predictions hang on each link type's efficiency, at the start values: per input,
// the median over its rows >= 1 MiB of d ln(time) / d ln(1 / efficiency) (about 1 when the link carries the
// bottleneck, 0 when it has slack), and per type the largest over the inputs. A one-sided step down (the
// efficiency divided by 1.05) also catches a link that shares the bottleneck with another.
std::vector<double> bottleneck_sensitivity(const std::vector<CalibInput>& in, const CalibOptions& o,
                                           const std::vector<std::string>& types) {
  const auto base = predict_all(in, o, o.start);
  std::vector<double> out;
  for (const auto& type : types) {
    ParamSet p = o.start;
    p.link_efficiency[type] = o.start.efficiency(*topology::link_type_from(type)) / kSensitivityStep;
    const auto d = row_sensitivity(base, predict_all(in, o, p));
    double most = 0;
    std::size_t i = 0;
    for (const auto& ci : in) {
      std::vector<double> s;
      for (auto r : ci.rows) {
        if (ci.trace.rows[r].size >= (Bytes{1} << 20)) s.push_back(d[i]);
        ++i;
      }
      if (!s.empty()) most = std::max(most, median(s));
    }
    out.push_back(most);
  }
  return out;
}

// Each parameter's largest share of a row's predicted time at `th` (kIdentifiedShare): the row's relative move
// when the parameter grows by 5 % of its reference value (its value; an additive term's no less than
// kAdditiveReferenceUs), over 5 %: d ln(time) / d ln(parameter) at the reference.
std::vector<double> largest_row_shares(const std::vector<CalibInput>& in, const CalibOptions& o, const Layout& L,
                                       const std::vector<double>& th) {
  const auto base = predict_all(in, o, to_params(th, L, o.start));
  const double step = kSensitivityStep - 1;
  std::vector<double> out;
  for (std::size_t j = 0; j < th.size(); ++j) {
    auto t2 = th;
    t2[j] += step * (L.additive(j) ? std::max(th[j], kAdditiveReferenceUs) : th[j]);
    const auto moved = predict_all(in, o, to_params(t2, L, o.start));
    double most = 0;
    for (std::size_t i = 0; i < base.size(); ++i) most = std::max(most, std::abs(moved[i] / base[i] - 1) / step);
    out.push_back(most);
  }
  return out;
}

// A protocol key's value in a set ("net:LL128" falls back to "LL128", as on a network link).
double start_proto(const ParamSet& p, const std::string& key) {
  const auto k = split_protocol_key(key);
  return proto_efficiency_on(p, k.proto, k.network);
}

// Where each protocol's factor is fitted: on the network ("net:LL128") when the rows that run the protocol
// cross it (slowing the network place's links moves their time), else inside the node ("LL128"). A ring or
// tree that crosses nodes runs every step at the pace of its network hop, where NCCL's net transport puts
// the protocol's steps through the CPU proxy (protocol_place.hpp): that cost is the network's, whether or
// not NCCL's bandwidth figure for the run is bound by the NIC (on 2-node H200 and DGX-1 runs the LL128 rows
// hang on intra-node links, NVLink or the GPU's PCIe, as much as on the NIC's). The
// sensitivity of each place (the median, over the rows whose time moves, of d ln(time) / d ln(1 / factor)
// with one place's factor divided by kSensitivityStep) is recorded. A protocol no row runs stays intra-node (its
// column is empty: held).
std::vector<std::string> protocol_places(const std::vector<CalibInput>& in, const CalibOptions& o,
                                         std::map<std::string, double>& sensitivity) {
  const auto base = predict_all(in, o, o.start);
  auto sens = [&](const std::string& proto, bool net) {
    ParamSet p = o.start;
    const double on_net = proto_efficiency_on(o.start, proto, true), inside = o.start.proto_efficiency(proto);
    p.protocol_efficiency[proto] = net ? inside : inside / kSensitivityStep;
    p.protocol_efficiency[std::string(kNetProtocolPrefix) + proto] = net ? on_net / kSensitivityStep : on_net;
    std::vector<double> s;
    for (const double d : row_sensitivity(base, predict_all(in, o, p)))
      if (std::abs(d) > 1e-6) s.push_back(d);
    return s.empty() ? 0.0 : median(s);
  };
  std::vector<std::string> out;
  for (const char* key : {"LL", "LL128", "Simple"}) {
    const std::string proto = key;
    const double inside = sens(proto, false), net = sens(proto, true);
    sensitivity["proto:" + proto] = inside;
    sensitivity["proto:" + std::string(kNetProtocolPrefix) + proto] = net;
    out.push_back(net > 0 ? std::string(kNetProtocolPrefix) + proto : proto);
  }
  return out;
}

// How the rows use each protocol factor of the fit (kProtocolRateRows): at the fitted parameters, the rows
// whose protocol (NCCL's tuner picks it from its own figures, which no factor changes) is the factor's and
// whose time moves with the factor (they cross its place), and among them the rows whose time hangs on it by
// >= kBottleneckSensitivity. That sensitivity is taken with the factor back at its start value (NCCL's
// figure unless the caller started from a set): at its fitted value a factor driven down to 0.09 inflates
// its own bandwidth term and would look like a rate because the fit made it one.
std::map<std::string, ProtocolUse> protocol_use(const std::vector<CalibInput>& in, const CalibOptions& o,
                                                const ParamSet& fitted, const std::vector<std::string>& keys) {
  const auto picked = predict_rows(in, o, fitted);
  std::map<std::string, ProtocolUse> out;
  for (const auto& key : keys) {
    ParamSet at_start = fitted;
    at_start.protocol_efficiency[key] = start_proto(o.start, key);
    ParamSet slower = at_start;
    slower.protocol_efficiency[key] /= kSensitivityStep;
    const auto d = row_sensitivity(predict_all(in, o, at_start), predict_all(in, o, slower));
    const auto proto = split_protocol_key(key).proto;
    auto& use = out[key];
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (picked[i].proto != proto || std::abs(d[i]) <= 1e-6) continue;
      ++use.chosen;
      use.shares.push_back(d[i]);
      if (d[i] >= kBottleneckSensitivity) ++use.bandwidth_bound;
    }
  }
  return out;
}

// How the rows use each protocol's latency multiplier (LatencyUse): at the fitted parameters with the
// multiplier back at its start value, the rows the tuner ran the protocol on whose time moves when the
// multiplier grows by kSensitivityStep, and those whose time hangs on it by >= kLatencySensitivity.
std::map<std::string, LatencyUse> latency_use(const std::vector<CalibInput>& in, const CalibOptions& o,
                                              const ParamSet& fitted, const std::vector<std::string>& protos) {
  const auto picked = predict_rows(in, o, fitted);
  std::map<std::string, LatencyUse> out;
  for (const auto& proto : protos) {
    ParamSet at_start = fitted;
    at_start.protocol_latency[proto] = o.start.proto_latency(proto);
    ParamSet slower = at_start;
    slower.protocol_latency[proto] *= kSensitivityStep;
    // d ln time / d ln multiplier: the multiplier's step is taken upward, as a factor's 1 / factor is.
    const auto d = row_sensitivity(predict_all(in, o, at_start), predict_all(in, o, slower));
    auto& use = out[proto];
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (picked[i].proto != proto || std::abs(d[i]) <= 1e-6) continue;
      ++use.chosen;
      if (d[i] >= kLatencySensitivity) ++use.latency_bound;
    }
  }
  return out;
}

} // namespace

std::map<std::string, Separation> separation(const std::vector<std::vector<double>>& columns, const std::vector<std::string>& names,
                                             const std::vector<bool>& multiplicative, const std::vector<double>& resid,
                                             std::size_t free_params) {
  std::map<std::string, Separation> out;
  const auto m = static_cast<Eigen::Index>(columns.size());
  const auto n = static_cast<Eigen::Index>(resid.size());
  Eigen::MatrixXd J(n, m);
  for (Eigen::Index j = 0; j < m; ++j) {
    const auto& col = columns[static_cast<std::size_t>(j)];
    if (col.size() != resid.size()) fail("calibrate: a Jacobian column of {} rows for {} residuals", col.size(), resid.size());
    for (Eigen::Index i = 0; i < n; ++i) J(i, j) = col[static_cast<std::size_t>(i)];
  }
  double ssr = 0;
  for (double r : resid) ssr += r * r;
  const auto dof = static_cast<double>(n) - static_cast<double>(free_params);
  const double sigma = dof > 0 ? std::sqrt(ssr / dof) : std::numeric_limits<double>::quiet_NaN();
  for (Eigen::Index j = 0; j < m; ++j) {
    auto& s = out[names[static_cast<std::size_t>(j)]];
    const Eigen::VectorXd c = J.col(j);
    const double norm = c.norm();
    if (norm <= 0) continue; // separability 0: no row moves with it
    if (m == 1) {
      s.separability = 1.0;
    } else {
      // The others' columns; the part of this column none of them can make (least squares, rank-revealing).
      Eigen::MatrixXd O(n, m - 1);
      for (Eigen::Index k = 0, q = 0; k < m; ++k)
        if (k != j) O.col(q++) = J.col(k);
      const Eigen::VectorXd x = O.completeOrthogonalDecomposition().solve(c);
      s.separability = std::min(1.0, (c - O * x).norm() / norm);
      double best = -1;
      for (Eigen::Index k = 0; k < m; ++k) {
        if (k == j || J.col(k).norm() <= 0) continue;
        const double cosine = std::abs(c.dot(J.col(k))) / (norm * J.col(k).norm());
        if (cosine > best) best = cosine, s.closest = names[static_cast<std::size_t>(k)];
      }
    }
    // The standard error of ln(parameter) from the linearised fit: sigma / (|column| x separability), the
    // Schur complement of (J^T J) at this column; NaN for an additive term (its log has no fixed scale).
    if (multiplicative[static_cast<std::size_t>(j)])
      s.log_se = s.separability > 0 ? sigma / (norm * s.separability) : std::numeric_limits<double>::infinity();
  }
  return out;
}

std::vector<bool> fitted_flags(const std::vector<double>& start, const std::vector<double>& end,
                               const std::vector<bool>& free_at_end) {
  std::vector<bool> out(free_at_end);
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = out[k] || end[k] != start[k];
  return out;
}

FitResult fit(const std::vector<CalibInput>& in, const CalibOptions& o_in) {
  CalibOptions o = o_in;
  // Per-protocol factors are many parameters on a piecewise model: start them from the plain fit
  // (launch, step, link efficiencies), which they can only improve on.
  if (o.fit_protocols) {
    CalibOptions plain = o;
    plain.fit_protocols = false;
    o.start = fit(in, plain).params;
  }
  Layout L;
  std::set<std::string> types;
  for (const auto& ci : in)
    for (const auto& l : ci.topo->links) types.insert(std::string(topology::to_string(l.type)));
  L.types.assign(types.begin(), types.end());
  // A link type's efficiency is fitted only where the traces' large sizes are bound by that link: a link
  // with slack (NVLink inside nodes of a network-bound 2-node run) would otherwise soak up what the
  // bottleneck loses and report an efficiency that is no property of the link. Decided once, at the start
  // values the caller gave (also for the protocol pass, which starts from the plain fit).
  const auto sensitivity = bottleneck_sensitivity(in, o_in, L.types);
  std::map<std::string, double> proto_sensitivity;
  if (require_model(o.model).chooses_algorithm && o.fit_protocols) {
    L.protos = protocol_places(in, o, proto_sensitivity);
    if (o.fit_latency) L.lats = {"LL", "LL128", "Simple"}; // a protocol no row runs has an empty column: held
  }
  {
    std::set<int> g;
    for (const auto& ci : in) g.insert(gpus_per_thread(ci.trace));
    L.per_gpu = g.size() >= 2;
    // Every trace from one thread driving G > 1 GPUs (nccl-tests -g G): their launch overhead cannot be told
    // apart from a per-collective one, and it is the G launches that cost it, so it is fitted per GPU.
    L.per_gpu_only = g.size() == 1 && *g.begin() > 1;
    L.per_gpu = L.per_gpu || L.per_gpu_only;
  }
  const auto meas = measured_all(in, o.in_place);
  const std::size_t n = meas.size();
  std::vector<double> th(L.size());
  th[0] = o.start.launch_us;
  th[1] = o.start.step_us;
  for (std::size_t k = 0; k < L.types.size(); ++k) {
    const auto t = topology::link_type_from(L.types[k]);
    th[2 + k] = 1.0 / o.start.efficiency(*t);
  }
  for (std::size_t k = 0; k < L.protos.size(); ++k) th[2 + L.types.size() + k] = 1.0 / start_proto(o.start, L.protos[k]);
  for (std::size_t k = 0; k < L.lats.size(); ++k) th[L.first_lat() + k] = o.start.proto_latency(L.lats[k]);
  if (L.per_gpu) th[L.per_gpu_index()] = o.start.launch_per_gpu_us;
  const auto th_start = th;
  FitResult R;
  R.names = {"launch_us", "step_us"};
  for (const auto& t : L.types) R.names.push_back("eff:" + t);
  for (const auto& pr : L.protos) R.names.push_back("proto:" + pr);
  for (const auto& pr : L.lats) R.names.push_back("lat:" + pr);
  if (L.per_gpu) R.names.push_back("launch_per_gpu_us");
  R.fitted.assign(L.size(), false);
  R.sensitivity = proto_sensitivity;
  for (std::size_t k = 0; k < L.types.size(); ++k) {
    R.sensitivity[R.names[2 + k]] = sensitivity[k];
    if (sensitivity[k] < kBottleneckSensitivity) R.not_bottleneck.insert(R.names[2 + k]);
  }
  // Identifiability (kIdentifiedShare), decided once at the start values as the bottleneck rule is; every
  // parameter's share is recorded, the additive time terms' decides.
  {
    const auto shares = largest_row_shares(in, o, L, th_start);
    for (std::size_t j = 0; j < L.size(); ++j) {
      R.row_share[R.names[j]] = shares[j];
      if (L.additive(j) && shares[j] < kIdentifiedShare) R.unidentified.insert(R.names[j]);
    }
  }
  for (const auto& h : o.hold) {
    if (std::find(R.names.begin(), R.names.end(), h) == R.names.end()) {
      std::string have;
      for (const auto& nm : R.names) have += (have.empty() ? "" : ", ") + nm;
      fail("--hold: no parameter '{}' in this fit (parameters: {})", h, have);
    }
    R.held_by_user.insert(h);
  }
  // The Jacobian of the relative residuals at `at` (predictions `p_at`), one column per parameter.
  const auto jacobian = [&](const std::vector<double>& at, const std::vector<double>& p_at) {
    Eigen::MatrixXd J(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(L.size()));
    for (std::size_t j = 0; j < L.size(); ++j) {
      const bool additive = L.additive(j);
      const double h = j == 0 ? 1.0 : additive ? 0.5 : 0.05 * at[j];
      auto t2 = at;
      t2[j] += h;
      const auto p2 = j == 0 ? std::vector<double>{} : predict_all(in, o, to_params(t2, L, o.start));
      for (std::size_t i = 0; i < n; ++i)
        J(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = (j == 0 ? 1.0 : (p2[i] - p_at[i]) / h) / meas[i];
    }
    return J;
  };
  // The parameters the fit may move: not held by a rule or by --hold, and some row's time moves with them.
  const auto candidates = [&](const Eigen::MatrixXd& J) {
    std::vector<Eigen::Index> out;
    for (std::size_t j = 0; j < L.size(); ++j)
      if (!o.hold.count(R.names[j]) && !R.not_bottleneck.count(R.names[j]) && !R.unidentified.count(R.names[j]) && !(j == 0 && L.per_gpu_only) && J.col(static_cast<Eigen::Index>(j)).norm() > 1e-9 * std::sqrt(static_cast<double>(n)))
        out.push_back(static_cast<Eigen::Index>(j));
    return out;
  };
  auto pred = predict_all(in, o, to_params(th, L, o.start));
  double c = cost(pred, meas);
  double lambda = 1e-3;
  for (int it = 0; it < 40; ++it) {
    R.iterations = it + 1;
    // Which parameters are held is decided afresh each iteration (pivoting may pick a different one of
    // a degenerate pair as the estimate moves); the result reports the last decision, and a parameter
    // that moved from its start in any iteration as fitted (fitted_flags).
    R.not_separable.clear();
    std::fill(R.fitted.begin(), R.fitted.end(), false);
    // Jacobian of relative residuals.
    const Eigen::MatrixXd J = jacobian(th, pred);
    std::vector<Eigen::Index> active = candidates(J);
    if (it == 0 && n < active.size() + 3) {
      std::string names;
      for (auto a : active) names += (names.empty() ? "" : ", ") + R.names[static_cast<std::size_t>(a)];
      fail("calibrate: {} measured points for {} free parameters ({}); need at least {} - add traces or sizes", n,
           active.size(), names, active.size() + 3);
    }
    // Nothing the data can see (every parameter held, or none moves a prediction): keep the start values.
    // Eigen's pivoted QR of a matrix without columns is not defined (it crashed calibrate).
    if (active.empty()) break;
    Eigen::MatrixXd Ja(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(active.size()));
    for (std::size_t a = 0; a < active.size(); ++a) Ja.col(static_cast<Eigen::Index>(a)) = J.col(active[a]);
    // Parameters the data cannot tell apart (e.g. launch vs step when every point has the same step
    // count) are rank-deficient columns: hold the ones the pivoted QR puts last.
    {
      Eigen::MatrixXd Jn = Ja;
      // On an AMD mesh the xGMI link's efficiency and RCCL's Simple protocol efficiency are one column (all
      // Simple traffic crosses xGMI): the link is kept, so that what RCCL loses there stays with AMD links
      // instead of entering the protocol efficiencies that NVIDIA machines share.
      // Likewise a network protocol factor and the link type of a NIC's PCIe path (both hops at NCCL's 12
      // GB/s on a DGX-1 with 100G NICs): the protocol is kept, so that what the network transport loses
      // stays with the network place instead of a PCIe generation's efficiency that PCIe GPU boxes share.
      for (Eigen::Index a = 0; a < Jn.cols(); ++a) {
        const auto j = static_cast<std::size_t>(active[static_cast<std::size_t>(a)]);
        const bool xgmi = j >= 2 && j < 2 + L.types.size() && L.types[j - 2] == "xgmi";
        const std::size_t first_proto = 2 + L.types.size();
        const bool net_proto = j >= first_proto && j < first_proto + L.protos.size() &&
                               split_protocol_key(L.protos[j - first_proto]).network;
        Jn.col(a) *= (xgmi || net_proto ? 1.1 : 1.0) / Jn.col(a).norm();
      }
      Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Jn);
      qr.setThreshold(1e-5);
      if (qr.rank() < Jn.cols()) {
        std::set<Eigen::Index> drop;
        for (Eigen::Index k = qr.rank(); k < Jn.cols(); ++k) drop.insert(qr.colsPermutation().indices()(k));
        std::vector<Eigen::Index> keep;
        for (std::size_t a = 0; a < active.size(); ++a)
          if (drop.count(static_cast<Eigen::Index>(a))) R.not_separable.insert(R.names[static_cast<std::size_t>(active[a])]);
          else keep.push_back(active[a]);
        active = keep;
        Ja.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(active.size()));
        for (std::size_t a = 0; a < active.size(); ++a) Ja.col(static_cast<Eigen::Index>(a)) = J.col(active[a]);
      }
    }
    Eigen::VectorXd r(static_cast<Eigen::Index>(n));
    for (std::size_t i = 0; i < n; ++i) r(static_cast<Eigen::Index>(i)) = (pred[i] - meas[i]) / meas[i];
    for (auto a : active) R.fitted[static_cast<std::size_t>(a)] = true;
    // Levenberg-Marquardt: the prediction is piecewise smooth (protocol and channel choices switch with
    // size), so a plain Gauss-Newton step can overshoot into a worse piece; damping shortens it toward
    // the gradient until the cost falls. Bounds: launch, step >= 0; 1/efficiency within [0.2, 20].
    const Eigen::MatrixXd A = Ja.transpose() * Ja;
    const Eigen::VectorXd g = Ja.transpose() * r;
    bool improved = false;
    for (int k = 0; k < 12 && !improved; ++k, lambda *= 4) {
      Eigen::MatrixXd M = A;
      for (Eigen::Index q = 0; q < M.rows(); ++q) M(q, q) += lambda * std::max(A(q, q), 1e-12);
      const Eigen::VectorXd d = M.ldlt().solve(-g);
      auto t2 = th;
      for (std::size_t a = 0; a < active.size(); ++a) t2[static_cast<std::size_t>(active[a])] += d(static_cast<Eigen::Index>(a));
      t2[0] = std::max(0.0, t2[0]);
      t2[1] = std::max(0.0, t2[1]);
      // Latency multipliers within [0.2, 20] as well.
      for (std::size_t j = 2; j < L.first_lat() + L.lats.size(); ++j) t2[j] = std::clamp(t2[j], 0.2, 20.0);
      if (L.per_gpu) t2[L.per_gpu_index()] = std::max(0.0, t2[L.per_gpu_index()]);
      const auto p2 = predict_all(in, o, to_params(t2, L, o.start));
      const double c2 = cost(p2, meas);
      if (c2 < c) {
        const double rel_change = std::abs(c - c2) / std::max(c, 1e-30);
        th = t2, pred = p2, c = c2, improved = true;
        lambda = std::max(lambda / 16, 1e-9); // net /4 after the loop's *4
        if (rel_change < 1e-7) it = 1000;
      }
    }
    if (!improved) break;
  }
  R.free_at_end = R.fitted;
  R.fitted = fitted_flags(th_start, th, R.fitted);
  R.params = to_params(th, L, o.start);
  {
    // Separability at the fitted values (kSeparability), among the parameters free in the last iteration and
    // those the pivoting held after they had moved: one held at its start value is the model's own figure (the
    // pivoting's convention, e.g. RCCL's Simple factor at 1 beside the xGMI link it cannot be told from, so the
    // link carries Simple's rate), but one held where an earlier step had left it (the DGX-1 2-node run's
    // net:Simple at 1.41, pcie3 beside it on the same Simple rows) fixes its partner at a point of the ridge
    // the rows do not choose, and the partner is no estimate either.
    // Held off its start: moved by more than kIdentifiedShare (nccl-tests' own spread; a factor held within 1 %
    // of NCCL's figure, the DGX-1 konnase run's Simple at 0.99997, is held at it), an additive term by more than
    // that share of kAdditiveReferenceUs.
    const auto held_off_start = [&](std::size_t j) {
      return L.additive(j) ? std::abs(th[j] - th_start[j]) > kIdentifiedShare * kAdditiveReferenceUs
                           : std::abs(std::log(th[j] / th_start[j])) > kIdentifiedShare;
    };
    const Eigen::MatrixXd J = jacobian(th, pred);
    std::vector<Eigen::Index> cand;
    for (std::size_t j = 0; j < L.size(); ++j)
      if (R.free_at_end[j] || held_off_start(j)) cand.push_back(static_cast<Eigen::Index>(j));
    std::vector<std::string> names;
    std::vector<bool> multiplicative;
    for (auto a : cand) {
      names.push_back(R.names[static_cast<std::size_t>(a)]);
      multiplicative.push_back(!L.additive(static_cast<std::size_t>(a)));
    }
    const auto columns = [&](const Eigen::MatrixXd& Jm, const std::vector<double>& at) {
      std::vector<std::vector<double>> Jc(cand.size(), std::vector<double>(n));
      for (std::size_t a = 0; a < cand.size(); ++a) {
        // A multiplicative parameter's column per unit of its logarithm (theta is 1 / factor: the same up to sign).
        const double scale = multiplicative[a] ? at[static_cast<std::size_t>(cand[a])] : 1.0;
        for (std::size_t i = 0; i < n; ++i) Jc[a][i] = Jm(static_cast<Eigen::Index>(i), cand[a]) * scale;
      }
      return Jc;
    };
    std::vector<double> resid(n);
    for (std::size_t i = 0; i < n; ++i) resid[i] = (pred[i] - meas[i]) / meas[i];
    std::size_t free_now = 0;
    for (bool b : R.free_at_end) free_now += b ? 1 : 0;
    R.separation = separation(columns(J, th), names, multiplicative, resid, free_now);
    // And at the start values: two factors in a min() (a NIC path's PCIe and the network protocol, both at NCCL's
    // 12 GB/s on a DGX-1) are one column where the fit starts; the fit then slides one into slack (its column
    // 0 at the end) and the other looks separable there, but which of them binds was the path's choice, not
    // the rows'. A factor votes only when it is separable at both ends.
    const auto pred0 = predict_all(in, o, to_params(th_start, L, o.start));
    const auto at_start = separation(columns(jacobian(th_start, pred0), th_start), names, multiplicative, resid, free_now);
    for (auto& [name, e] : R.separation) {
      const auto& s0 = at_start.at(name);
      if (s0.separability < e.separability) e.separability = s0.separability, e.closest = s0.closest.empty() ? e.closest : s0.closest;
    }
    // A parameter still at its start value made no step (every Levenberg-Marquardt step raised the cost): the
    // start is then the fit's optimum as far as its steps see (the MI300X hisohara run: its cost along LL is
    // lowest near 1.0); recorded, and the precision rule says whether the rows place it.
    for (auto a : cand)
      R.separation[R.names[static_cast<std::size_t>(a)]].moved = th[static_cast<std::size_t>(a)] != th_start[static_cast<std::size_t>(a)];
  }
  R.params.model = o.model;
  R.protocol_use = protocol_use(in, o, R.params, L.protos);
  R.latency_use = latency_use(in, o, R.params, L.lats);
  R.values = {th[0], th[1]};
  for (std::size_t k = 0; k < L.types.size() + L.protos.size(); ++k) R.values.push_back(1.0 / th[2 + k]);
  for (std::size_t k = 0; k < L.lats.size(); ++k) R.values.push_back(th[L.first_lat() + k]);
  if (L.per_gpu) R.values.push_back(th[L.per_gpu_index()]);
  // Residuals and goodness of fit.
  std::size_t i = 0;
  for (std::size_t ci = 0; ci < in.size(); ++ci)
    for (auto row : in[ci].rows) {
      R.points.push_back({ci, in[ci].trace.rows[row].size, meas[i], pred[i]});
      ++i;
    }
  double mean = 0, lmean = 0;
  for (double m : meas) mean += m, lmean += std::log(m);
  mean /= static_cast<double>(n);
  lmean /= static_cast<double>(n);
  double ss_tot = 0, ss_res = 0, ls_tot = 0, ls_res = 0, rel = 0;
  for (std::size_t k = 0; k < n; ++k) {
    ss_tot += std::pow(meas[k] - mean, 2);
    ss_res += std::pow(meas[k] - pred[k], 2);
    ls_tot += std::pow(std::log(meas[k]) - lmean, 2);
    ls_res += std::pow(std::log(meas[k]) - std::log(pred[k]), 2);
    rel += std::pow((pred[k] - meas[k]) / meas[k], 2);
  }
  R.r2_time = ss_tot > 0 ? 1 - ss_res / ss_tot : 0;
  R.r2_log_time = ls_tot > 0 ? 1 - ls_res / ls_tot : 0;
  R.rms_rel = std::sqrt(rel / static_cast<double>(n));
  return R;
}

namespace {
Holdout score(const std::vector<CalibInput>& test, const CalibOptions& o, const ParamSet& p, std::string label) {
  Holdout h;
  h.label = std::move(label);
  const auto pred = predict_all(test, o, p);
  const auto meas = measured_all(test, o.in_place);
  std::vector<double> all, ge;
  std::size_t i = 0;
  for (const auto& ci : test)
    for (auto r : ci.rows) {
      const double e = std::abs((meas[i] / pred[i] - 1.0) * 100.0);
      all.push_back(e);
      if (ci.trace.rows[r].size >= (Bytes{1} << 20)) ge.push_back(e);
      ++i;
    }
  h.n = static_cast<int>(all.size());
  h.median_all = median(all);
  h.median_ge_1MiB = median(ge);
  return h;
}
} // namespace

std::vector<Holdout> cross_validate(const std::vector<CalibInput>& in, const CalibOptions& o) {
  std::vector<Holdout> out;
  if (in.size() >= 2) {
    for (std::size_t k = 0; k < in.size(); ++k) {
      std::vector<CalibInput> train, test{in[k]};
      for (std::size_t j = 0; j < in.size(); ++j)
        if (j != k) train.push_back(in[j]);
      try {
        const auto f = fit(train, o);
        out.push_back(score(test, o, f.params, "held out: " + in[k].label));
      } catch (const Error& e) {
        Holdout h;
        h.label = "held out: " + in[k].label;
        h.median_all = h.median_ge_1MiB = std::numeric_limits<double>::quiet_NaN();
        h.note = e.what();
        out.push_back(h);
      }
    }
    return out;
  }
  for (int fold = 0; fold < 2; ++fold) {
    CalibInput train = in[0], test = in[0];
    train.rows.clear();
    test.rows.clear();
    for (std::size_t i = 0; i < in[0].rows.size(); ++i) (i % 2 == static_cast<std::size_t>(fold) ? test : train).rows.push_back(in[0].rows[i]);
    const auto label = fmt::format("{}: {} rows of the sweep, fitted on the others", in[0].label, fold == 0 ? "even" : "odd");
    try {
      const auto f = fit({train}, o);
      out.push_back(score({test}, o, f.params, label));
    } catch (const Error& e) { // half the rows may be too few for the parameters: say so, keep the fit
      Holdout h;
      h.label = label;
      h.median_all = h.median_ge_1MiB = std::numeric_limits<double>::quiet_NaN();
      h.note = e.what();
      out.push_back(h);
    }
  }
  return out;
}

} // namespace ccsim::model
