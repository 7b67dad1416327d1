#include "sim/scenario/scenario.hpp"

#include "sim/model/registry.hpp"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/ceil_div.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/model/params.hpp"
#include "sim/scenario/reader.hpp"

namespace ccsim::scenario {
using nlohmann::json;

std::string_view to_string(Strategy s) {
  switch (s) {
    case Strategy::AllReduce: return "allreduce";
    case Strategy::PsCpu: return "ps_cpu";
    case Strategy::PsGpu0: return "ps_gpu0";
    case Strategy::PsSharded: return "ps_sharded";
    case Strategy::Zero: return "zero";
  }
  return "?";
}

std::string_view to_string(SyncMode m) {
  switch (m) {
    case SyncMode::Sync: return "sync";
    case SyncMode::Async: return "async";
    case SyncMode::Ssp: return "ssp";
  }
  return "?";
}

bool is_parameter_server(Strategy s) { return s == Strategy::PsCpu || s == Strategy::PsGpu0 || s == Strategy::PsSharded; }

std::uint64_t Scenario::total_params() const {
  std::uint64_t n = 0;
  for (const auto& l : layers) n += l.params;
  return n;
}
Time Scenario::forward_time() const {
  Time t = 0;
  for (const auto& l : layers) t += l.fwd;
  return t;
}
Time Scenario::backward_time() const {
  Time t = 0;
  for (const auto& l : layers) t += l.bwd;
  return t;
}

namespace {

Strategy strategy_from(const Reader& r, const std::string& s) {
  if (s == "allreduce") return Strategy::AllReduce;
  if (s == "ps_cpu") return Strategy::PsCpu;
  if (s == "ps_gpu0") return Strategy::PsGpu0;
  if (s == "ps_sharded") return Strategy::PsSharded;
  if (s == "zero") return Strategy::Zero;
  r.bad("strategy: unknown '{}' (allreduce, ps_cpu, ps_gpu0, ps_sharded, zero)", s);
}

SyncMode mode_from(const Reader& r, const std::string& s) {
  if (s == "sync") return SyncMode::Sync;
  if (s == "async") return SyncMode::Async;
  if (s == "ssp") return SyncMode::Ssp;
  r.bad("training.modes: unknown '{}' (sync, async, ssp)", s);
}

// A ceiling on the model size: 1e13 parameters is 5x the largest models published so far (about 2e12),
// so a larger count is a typo; it also keeps every byte count (parameters x 16 bytes of state) far inside
// 64 bits, and the bucket limit below bounds the run time whatever the count.
constexpr const char* kParamsWhy = "more than 1e13 parameters, the ceiling (5x the largest published models, about 2e12)";

void read_layers(const Reader& r, const json& model, Scenario& s, bool& timed) {
  r.only_keys(model, "model", {"params", "layers"});
  if (!model.contains("layers")) r.bad("model: missing \"layers\" (a count with \"params\", or a list)");
  const json& L = model["layers"];
  timed = false;
  if (L.is_number()) {
    // N equal layers sharing the parameter count (a transformer's blocks are identical).
    if (!model.contains("params")) r.bad("model: \"layers\" is a count, so \"params\" is required");
    const std::uint64_t total = r.count(model["params"], "model.params");
    if (total > kMaxParams) r.bad("model.params: {:.4g} is {}", static_cast<double>(total), kParamsWhy);
    const std::uint64_t n = r.count(L, "model.layers");
    if (n > 100000) r.bad("model.layers: {} layers is more than 100000", n);
    if (n > total) r.bad("model.layers: {} layers but only {} parameters", n, total);
    for (std::uint64_t i = 0; i < n; ++i)
      s.layers.push_back({fmt::format("layer{}", i), total / n + (i < total % n ? 1 : 0), 0, 0});
    return;
  }
  if (!L.is_array() || L.empty()) r.bad("model.layers must be a count or a non-empty list");
  if (L.size() > 100000) r.bad("model.layers: {} layers is more than 100000", L.size());
  std::uint64_t sum = 0;
  if (model.contains("params")) r.bad("model: give \"params\" only with a layer count; a layer list carries its own");
  int with_time = 0;
  for (std::size_t i = 0; i < L.size(); ++i) {
    const std::string where = fmt::format("model.layers[{}]", i);
    r.only_keys(L[i], where, {"name", "params", "forward", "backward", "flops"});
    Layer l;
    l.name = L[i].contains("name") ? r.string(L[i]["name"], where + ".name") : fmt::format("layer{}", i);
    if (!L[i].contains("params")) r.bad("{}: missing \"params\"", where);
    l.params = r.count(L[i]["params"], where + ".params", true);
    sum += std::min(l.params, kMaxParams + 1); // no overflow: at most 100000 x (1e13 + 1)
    if (sum > kMaxParams) r.bad("{}: the layers up to this one hold {}", where, kParamsWhy);
    const bool f = L[i].contains("forward"), b = L[i].contains("backward");
    if (f != b) r.bad("{}: give both \"forward\" and \"backward\" times, or neither", where);
    if (f) {
      l.fwd = r.duration(L[i]["forward"], where + ".forward");
      l.bwd = r.duration(L[i]["backward"], where + ".backward");
      ++with_time;
    }
    s.layers.push_back(l);
  }
  if (with_time != 0 && with_time != static_cast<int>(L.size()))
    r.bad("model.layers: either every layer has forward/backward times or none does");
  timed = with_time > 0;
  if (s.total_params() == 0) r.bad("model: the layers have no parameters");
}

// Layer times from a device rate:
//   forward(step) = batch_per_gpu * flops_per_sample / (device_flops * utilization)
//   backward      = backward_to_forward * forward   (2 for dense layers: grads w.r.t. inputs and weights)
// split over layers in proportion to each layer's "flops" (if every layer gives it) or its parameters.
void derive_times(const Reader& r, const json& model, const json& c, Scenario& s) {
  const double dev = r.positive(c.at("device_flops"), "compute.device_flops");
  const double util = c.contains("utilization") ? r.positive(c["utilization"], "compute.utilization") : 1.0;
  if (util > 1) r.bad("compute.utilization must be at most 1, got {}", util);
  const double ratio = c.contains("backward_to_forward") ? r.positive(c["backward_to_forward"], "compute.backward_to_forward") : 2.0;
  const bool per_sample = c.contains("flops_per_sample"), per_token = c.contains("tokens_per_sample");
  if (per_sample == per_token) r.bad("compute: give exactly one of \"flops_per_sample\" and \"tokens_per_sample\"");
  const auto P = static_cast<double>(s.total_params());
  double fps = 0;
  std::string how;
  if (per_sample) {
    fps = r.positive(c["flops_per_sample"], "compute.flops_per_sample");
    how = fmt::format("{:.4g} FLOP/sample", fps);
  } else {
    // Kaplan et al.: a transformer's forward pass costs ~2 FLOPs per parameter per token (6 with backward).
    const double tokens = static_cast<double>(r.count(c["tokens_per_sample"], "compute.tokens_per_sample"));
    fps = 2.0 * P * tokens;
    how = fmt::format("{:.4g} FLOP/sample (2 x {:.4g} params x {:g} tokens)", fps, P, tokens);
  }
  const double fwd_s = static_cast<double>(s.batch_per_gpu) * fps / (dev * util);
  // Times are 64-bit picoseconds (about 106 days); a step of compute beyond 1e6 s (11.6 days) is a typo.
  if (!(fwd_s * (1 + ratio) <= 1e6))
    r.bad("compute: forward + backward of {:.4g} s per step is more than 1e6 s (check batch_per_gpu, the FLOPs and device_flops)",
          fwd_s * (1 + ratio));
  const Time fwd = static_cast<Time>(std::llround(fwd_s * kPsPerSec));
  // Weights: per-layer "flops" when all layers give them, else parameters.
  std::vector<double> w;
  const json* L = model.contains("layers") && model["layers"].is_array() ? &model["layers"] : nullptr;
  bool all_flops = L != nullptr;
  if (L)
    for (const auto& l : *L) all_flops = all_flops && l.contains("flops");
  double sum = 0;
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    w.push_back(all_flops ? r.positive((*L)[i]["flops"], fmt::format("model.layers[{}].flops", i))
                          : static_cast<double>(s.layers[i].params));
    sum += w.back();
  }
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    s.layers[i].fwd = static_cast<Time>(std::llround(static_cast<double>(fwd) * w[i] / sum));
    s.layers[i].bwd = static_cast<Time>(std::llround(static_cast<double>(fwd) * ratio * w[i] / sum));
  }
  s.compute_note = fmt::format(
      "forward = {} samples x {} / ({:.4g} FLOP/s x {:g} utilization) = {}; backward = {:g} x forward; "
      "split over layers by {}",
      s.batch_per_gpu, how, dev, util, format_duration(s.forward_time()), ratio, all_flops ? "layer FLOPs" : "parameters");
}

void read_network(const Reader& r, const json& j, Scenario& s, const std::string& origin) {
  if (j.contains("network")) {
    const json& n = j["network"];
    r.only_keys(n, "network", {"model", "params", "sw_alpha", "sw_overhead", "semantics", "reduce_bw"});
    if (n.contains("model")) {
      s.model_name = r.string(n["model"], "network.model");
      bool known = false;
      for (const auto& m : model::model_registry()) known = known || m.name == s.model_name;
      if (!known) r.bad("network.model: unknown '{}' ({})", s.model_name, model::model_names());
    }
    if (n.contains("sw_alpha")) s.model.alpha_sw = r.duration(n["sw_alpha"], "network.sw_alpha");
    if (n.contains("sw_overhead")) s.model.overhead = r.duration(n["sw_overhead"], "network.sw_overhead");
    if (n.contains("semantics")) {
      const std::string sem = r.string(n["semantics"], "network.semantics");
      if (sem != "gpu" && sem != "mpi") r.bad("network.semantics: unknown '{}' (gpu, mpi)", sem);
      s.model.semantics = engine::semantics_from(sem, "network.semantics");
    }
    if (s.model.alpha_sw > kPsPerSec) r.bad("network.sw_alpha: more than 1 s per message");
    if (n.contains("reduce_bw")) s.model.reduce_bw = parse_bandwidth(r.string(n["reduce_bw"], "network.reduce_bw"), "scenario " + origin + ": network.reduce_bw");
    // The parameter set, as --params names it (which wins): "none" or a file, a relative path read from the
    // scenario file's folder; read here so that a bad one is named with this file and key before any run.
    if (n.contains("params")) {
      const std::string v = r.string(n["params"], "network.params");
      if (v.empty()) r.bad("network.params: empty (a parameter file, or \"none\")");
      if (v == "none") {
        s.params_file = v;
      } else {
        namespace fs = std::filesystem;
        const fs::path given(v);
        const std::string path = given.is_absolute() ? v : (fs::path(origin).parent_path() / given).lexically_normal().string();
        std::error_code ec;
        if (!fs::is_regular_file(path, ec)) r.bad("network.params: no parameter file {}{}", path, given.is_absolute() ? "" : " (read from the scenario file's folder)");
        try {
          (void)model::params_from_json(read_json_file(path, ""), path);
        } catch (const Error& e) {
          r.bad("network.params: {}", e.what());
        }
        s.params_file = path;
      }
    }
  }

}

// "gpus": the topology's GPUs to run on, each once (both scenario kinds).
void read_gpus(const Reader& r, const json& j, Scenario& s) {
  if (!j.contains("gpus")) return;
  if (!j["gpus"].is_array() || j["gpus"].empty()) r.bad("gpus must be a non-empty list of GPU indices");
  std::set<int> seen;
  for (const auto& g : j["gpus"]) {
    const auto v = static_cast<int>(r.count(g, "gpus", true, 1 << 24));
    if (!seen.insert(v).second) r.bad("gpus: GPU {} appears twice", v);
    s.gpus.push_back(v);
  }
}

// A hybrid-parallel scenario: "parallel" and "transformer" instead of "model", "compute" and "degrees".
Scenario read_hybrid(const Reader& r, const json& j, Scenario s) {
  r.only_keys(j, "the scenario",
              {"name", "description", "sources", "transformer", "parallel", "compute", "topology", "gpus", "bucket_size",
               "grad_dtype", "algorithm", "overlap", "optimizer_bytes_per_param", "network", "allow_oversubscribed_memory"});
  if (!j.contains("transformer")) r.bad("missing \"transformer\" (layers, hidden, heads, seq, ...), which \"parallel\" splits");
  if (!j.contains("parallel")) r.bad("missing \"parallel\" (tp, pp, dp, ...) for the \"transformer\"");
  HybridSpec h = hybrid_from_json(r, j["parallel"], j["transformer"]);
  if (j.contains("compute")) {
    const json& c = j["compute"];
    r.only_keys(c, "compute", {"efficiency", "peak_flops", "gpu"});
    if (c.contains("efficiency")) h.efficiency = r.positive(c["efficiency"], "compute.efficiency");
    if (h.efficiency > 1) r.bad("compute.efficiency must be at most 1, got {}", h.efficiency);
    if (c.contains("peak_flops")) h.peak_flops = r.positive(c["peak_flops"], "compute.peak_flops");
    if (h.peak_flops > 1e18) r.bad("compute.peak_flops: {:.3g} FLOP/s per GPU is absurd", h.peak_flops);
    if (c.contains("gpu")) h.gpu = r.string(c["gpu"], "compute.gpu");
  }
  if (!j.contains("topology")) r.bad("missing \"topology\"");
  s.topologies = r.strings(j["topology"], "topology");
  if (s.topologies.size() != 1) r.bad("topology: a hybrid-parallel scenario runs on one topology");
  read_gpus(r, j, s);
  if (j.contains("bucket_size")) {
    s.bucket_bytes = parse_size(r.string(j["bucket_size"], "bucket_size"), "scenario " + s.origin + ": bucket_size");
    if (s.bucket_bytes == 0) r.bad("bucket_size must be positive");
  }
  if (j.contains("grad_dtype")) {
    const auto dt = metrics::datatype_from(r.string(j["grad_dtype"], "grad_dtype"));
    if (!dt) r.bad("grad_dtype: unknown type '{}' ({})", printable(j["grad_dtype"].get<std::string>()), metrics::datatype_names());
    s.grad_dtypes = {*dt};
    h.grad_bytes = dt->size;
  } else {
    h.grad_bytes = h.model.dtype_bytes;
    s.grad_dtypes = {metrics::DataType{h.grad_bytes == 4 ? "float" : "bfloat16", h.grad_bytes}};
  }
  // A typo such as "bucket_size": "1" would ask for a billion buckets per stage.
  if (total_params(h.model) / static_cast<double>(std::max<Bytes>(1, s.bucket_bytes / h.grad_bytes)) > 1e5)
    r.bad("bucket_size: {} splits the gradients into more than 100000 buckets; use a larger bucket size", format_size(s.bucket_bytes));
  if (j.contains("algorithm")) s.algorithm = r.string(j["algorithm"], "algorithm");
  if (j.contains("overlap")) {
    if (!j["overlap"].is_boolean()) r.bad("overlap must be true or false");
    s.overlap = j["overlap"].get<bool>();
  }
  if (j.contains("optimizer_bytes_per_param")) h.optimizer_bytes = r.number(j["optimizer_bytes_per_param"], "optimizer_bytes_per_param");
  if (h.optimizer_bytes < 0 || h.optimizer_bytes > 64) r.bad("optimizer_bytes_per_param must be in [0, 64]");
  if (j.contains("allow_oversubscribed_memory")) {
    if (!j["allow_oversubscribed_memory"].is_boolean()) r.bad("allow_oversubscribed_memory must be true or false");
    h.allow_oversubscribed = j["allow_oversubscribed_memory"].get<bool>();
  }
  read_network(r, j, s, s.origin);
  s.hybrid = h;
  return s;
}

} // namespace

Scenario scenario_from_json(const json& j, const std::string& origin) {
  Reader r(origin);
  if (j.is_object() && (j.contains("parallel") || j.contains("transformer"))) {
    Scenario s;
    s.origin = origin;
    s.name = j.contains("name") ? r.string(j["name"], "name") : origin;
    if (j.contains("description")) s.description = r.string(j["description"], "description");
    if (j.contains("sources")) s.sources = r.strings(j["sources"], "sources");
    return read_hybrid(r, j, std::move(s));
  }
  r.only_keys(j, "the scenario",
              {"name", "description", "sources", "model", "compute", "dataset_samples", "topology", "gpus", "degrees",
               "bucket_size", "grad_dtype", "algorithm", "strategy", "overlap", "server_node",
               "optimizer_bytes_per_param", "network", "training"});
  Scenario s;
  s.origin = origin;
  s.name = j.contains("name") ? r.string(j["name"], "name") : origin;
  if (j.contains("description")) s.description = r.string(j["description"], "description");
  if (j.contains("sources")) s.sources = r.strings(j["sources"], "sources");

  if (!j.contains("model")) r.bad("missing \"model\"");
  if (!j.contains("compute")) r.bad("missing \"compute\" (at least batch_per_gpu)");
  const json& c = j["compute"];
  r.only_keys(c, "compute", {"batch_per_gpu", "device_flops", "utilization", "flops_per_sample", "tokens_per_sample",
                             "backward_to_forward"});
  if (!c.contains("batch_per_gpu")) r.bad("compute: missing \"batch_per_gpu\"");
  s.batch_per_gpu = r.count(c["batch_per_gpu"], "compute.batch_per_gpu");
  bool timed = false;
  read_layers(r, j["model"], s, timed);
  const bool rated = c.contains("device_flops");
  if (timed && rated) r.bad("compute: layers carry forward/backward times, so drop device_flops (or the times)");
  if (!timed && !rated) r.bad("compute: no compute times: give layer forward/backward times or compute.device_flops");
  if (timed) {
    for (const char* k : {"utilization", "flops_per_sample", "tokens_per_sample", "backward_to_forward"})
      if (c.contains(k)) r.bad("compute.{} applies only with device_flops", k);
    s.compute_note = "forward/backward times given per layer in the file";
  } else {
    derive_times(r, j["model"], c, s);
  }
  if (j.contains("dataset_samples")) s.dataset_samples = r.count(j["dataset_samples"], "dataset_samples");

  if (!j.contains("topology")) r.bad("missing \"topology\"");
  s.topologies = r.strings(j["topology"], "topology");
  read_gpus(r, j, s);
  if (!j.contains("degrees")) r.bad("missing \"degrees\" (data-parallel sizes, e.g. [1, 2, 4, 8])");
  if (!j["degrees"].is_array() || j["degrees"].empty()) r.bad("degrees must be a non-empty list");
  for (const auto& d : j["degrees"]) s.degrees.push_back(static_cast<int>(r.count(d, "degrees", false, 65536)));
  std::sort(s.degrees.begin(), s.degrees.end());
  if (std::adjacent_find(s.degrees.begin(), s.degrees.end()) != s.degrees.end()) r.bad("degrees: a degree appears twice");
  if (s.degrees.back() > 65536) r.bad("degrees: {} is more than 65536", s.degrees.back());

  if (j.contains("bucket_size")) {
    s.bucket_bytes = parse_size(r.string(j["bucket_size"], "bucket_size"), "scenario " + origin + ": bucket_size");
    if (s.bucket_bytes == 0) r.bad("bucket_size must be positive");
  }
  for (const auto& name : j.contains("grad_dtype") ? r.strings(j["grad_dtype"], "grad_dtype") : std::vector<std::string>{"float"}) {
    auto dt = metrics::datatype_from(name);
    if (!dt) r.bad("grad_dtype: unknown type '{}' ({})", name, metrics::datatype_names());
    s.grad_dtypes.push_back(*dt);
  }
  if (j.contains("algorithm")) s.algorithm = r.string(j["algorithm"], "algorithm");
  for (const auto& st : j.contains("strategy") ? r.strings(j["strategy"], "strategy") : std::vector<std::string>{"allreduce"})
    s.strategies.push_back(strategy_from(r, st));
  if (j.contains("overlap")) {
    if (!j["overlap"].is_boolean()) r.bad("overlap must be true or false");
    s.overlap = j["overlap"].get<bool>();
  }
  if (j.contains("server_node")) s.server_node = r.string(j["server_node"], "server_node");
  if (j.contains("optimizer_bytes_per_param"))
    s.optimizer_bytes_per_param = r.number(j["optimizer_bytes_per_param"], "optimizer_bytes_per_param");
  if (s.optimizer_bytes_per_param < 0) r.bad("optimizer_bytes_per_param must not be negative");

  read_network(r, j, s, origin);

  if (j.contains("training")) {
    const json& t = j["training"];
    r.only_keys(t, "training", {"modes", "staleness", "iterations", "variation"});
    TrainingSpec ts;
    for (const auto& m : t.contains("modes") ? r.strings(t["modes"], "training.modes") : std::vector<std::string>{"sync"})
      ts.modes.push_back(mode_from(r, m));
    if (!t.contains("iterations")) r.bad("training: missing \"iterations\"");
    const auto iters = r.count(t["iterations"], "training.iterations");
    if (iters > 100000) r.bad("training.iterations: {} is more than 100000", iters);
    ts.iterations = static_cast<int>(iters);
    if (t.contains("staleness")) {
      const auto st = r.count(t["staleness"], "training.staleness", true);
      if (st > 1000000) r.bad("training.staleness: {} is too large", st);
      ts.staleness = static_cast<int>(st);
    }
    if (std::count(ts.modes.begin(), ts.modes.end(), SyncMode::Ssp) && !t.contains("staleness"))
      r.bad("training: mode ssp needs \"staleness\" (the bound s)");
    // async/ssp exist only with a server; collective strategies (allreduce, zero) run their sync row only.
    const bool any_ps = std::any_of(s.strategies.begin(), s.strategies.end(), is_parameter_server);
    for (auto m : ts.modes)
      if (m != SyncMode::Sync && !any_ps)
        r.bad("training.modes: '{}' needs a parameter-server strategy (ps_cpu, ps_gpu0, ps_sharded); allreduce and "
              "zero are collectives every worker joins, so they are synchronous",
              to_string(m));
    if (t.contains("variation")) {
      const json& v = t["variation"];
      r.only_keys(v, "training.variation", {"distribution", "cv", "seed"});
      if (v.contains("distribution")) ts.variation.distribution = r.string(v["distribution"], "training.variation.distribution");
      static const char* kDists[] = {"none", "normal", "lognormal", "uniform"};
      if (std::find(std::begin(kDists), std::end(kDists), ts.variation.distribution) == std::end(kDists))
        r.bad("training.variation.distribution: unknown '{}' (none, normal, lognormal, uniform)", ts.variation.distribution);
      if (v.contains("cv")) ts.variation.cv = r.number(v["cv"], "training.variation.cv");
      if (ts.variation.cv < 0 || ts.variation.cv > 10) r.bad("training.variation.cv must be in [0, 10], got {}", ts.variation.cv);
      if (ts.variation.distribution == "uniform" && ts.variation.cv > 1 / std::sqrt(3.0))
        r.bad("training.variation.cv: a uniform multiplier with mean 1 has cv at most 0.577, got {}", ts.variation.cv);
      if (v.contains("seed")) ts.variation.seed = r.count(v["seed"], "training.variation.seed", true);
    }
    s.training = ts;
  }
  check_work(s);
  return s;
}

std::uint64_t bucket_count(const Scenario& s, Bytes elt_size) {
  const std::uint64_t cap = std::max<std::uint64_t>(1, s.bucket_bytes / elt_size); // as make_buckets
  const std::uint64_t n = s.total_params();
  return ceil_div(n, cap); // buckets fill across layer boundaries, so only the total matters
}

void check_work(const Scenario& s, const std::string& flag) {
  const std::string in_file = "scenario " + s.origin + ": ";
  const std::string what = flag.empty() ? in_file + "bucket_size" : flag;
  Bytes elt = 0;
  for (const auto& dt : s.grad_dtypes)
    if (elt == 0 || dt.size < elt) elt = dt.size;
  if (elt == 0) elt = 4;
  const std::uint64_t buckets = bucket_count(s, elt);
  if (buckets > kMaxBuckets)
    fail("{}: buckets of {} split {:.4g} parameters ({} B each) into {} buckets per step, more than {}; use a larger bucket size",
         what, format_size(s.bucket_bytes), static_cast<double>(s.total_params()), elt, buckets, kMaxBuckets);
  // With a training block every iteration re-times every worker's step, bucket by bucket: bound the
  // total (about 40 ns each: 2e8 take 8 s) so that no file runs for minutes.
  if (!s.training) return;
  double workers = 0, runs = 0; // step timings per iteration over the degrees; (strategy, mode) pairs that run
  for (int p : s.degrees)
    if (p > 1) workers += static_cast<double>(p + 1);
  for (auto st : s.strategies)
    for (auto m : s.training->modes)
      if (m == SyncMode::Sync || is_parameter_server(st)) runs += st == Strategy::Zero ? 2 : 1; // ZeRO: two exchanges a bucket
  const double work = static_cast<double>(s.training->iterations) * workers * static_cast<double>(buckets) * runs *
                      static_cast<double>(s.grad_dtypes.size() * s.topologies.size());
  if (work > kMaxTrainingWork)
    fail("{}: would time {:.3g} bucket exchanges ({} iterations x workers x {} buckets per step x modes x rows), "
         "more than {:.0e}; use fewer iterations, fewer degrees or a larger bucket size",
         flag.empty() ? in_file + "training" : flag + ": training", work, s.training->iterations, buckets, static_cast<double>(kMaxTrainingWork));
}

Scenario load_scenario_file(const std::string& path) {
  const json j = read_json_file(path, "scenario ");
  try {
    return scenario_from_json(j, path);
  } catch (const json::exception& e) { // a type nlohmann caught before we did
    fail("scenario {}: {}", printable(path), printable(e.what()));
  }
}

} // namespace ccsim::scenario
