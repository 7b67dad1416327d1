// A training step described as data (scenarios/*.json): the model's layers with their parameter counts
// and compute times, the machine, the data-parallel degrees to sweep, gradient bucketing and dtype, the
// gradient-exchange strategy and, optionally, a multi-iteration run with compute-time variation
// (sync / async / stale-synchronous). The schema is documented in docs/training-scenarios.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/core/units.hpp"
#include "sim/engine/network.hpp"
#include "sim/metrics/nccl_metrics.hpp"
#include "sim/model/registry.hpp"
#include "sim/scenario/hybrid.hpp"

namespace ccsim::scenario {

// One layer in forward order; fwd/bwd are the times for one step at the scenario's batch per GPU.
struct Layer {
  std::string name;
  std::uint64_t params = 0;
  Time fwd = 0, bwd = 0;
};

enum class Strategy { AllReduce, PsCpu, PsGpu0, PsSharded, Zero };
enum class SyncMode { Sync, Async, Ssp };
std::string_view to_string(Strategy s);
std::string_view to_string(SyncMode m);
bool is_parameter_server(Strategy s);

// Per-worker, per-iteration compute-time multiplier with mean 1 (see variation.hpp).
struct Variation {
  std::string distribution = "none"; // none | normal | lognormal | uniform
  double cv = 0;                     // coefficient of variation (std / mean)
  std::uint64_t seed = 1;
};

struct TrainingSpec {
  std::vector<SyncMode> modes;
  int staleness = 0; // ssp's bound s
  int iterations = 0;
  Variation variation;
};

struct Scenario {
  std::string name, description, origin;
  std::vector<std::string> sources;
  std::vector<Layer> layers;      // forward order
  std::string compute_note;       // how the layer times were derived, with the numbers
  std::uint64_t batch_per_gpu = 1;
  std::uint64_t dataset_samples = 0; // 0 = no epoch time
  std::vector<std::string> topologies;
  std::vector<int> gpus;          // GPU order; degree p uses the first p (empty = 0..G-1)
  std::vector<int> degrees;
  Bytes bucket_bytes = 25ULL << 20; // PyTorch DDP bucket_cap_mb = 25 (MiB)
  std::vector<metrics::DataType> grad_dtypes;
  std::string algorithm = "ring"; // or "auto"
  std::vector<Strategy> strategies;
  bool overlap = true;
  std::string server_node;        // ps_cpu: node that hosts the server (default: first CPU)
  double optimizer_bytes_per_param = 12; // mixed-precision Adam (ZeRO paper's K = 12)
  std::string model_name = "fifo"; // from the model registry (fifo, store_forward, flow, nccl)
  engine::ModelParams model;
  // What the model is built with (`ccsim scenario --params ... --nvls off ...`, the main command's flags, made by its
  // model_options: the shipped calibration under --model nccl unless --params says otherwise), the parameter set's
  // name as the main command's header gives it ("" = none) and the given what-ifs in words ("" when none).
  model::ModelOptions model_options;
  std::string params_label;
  // network.params: the parameter set the file names, "none" or a file (a relative one resolved from the scenario
  // file's folder); "" = not named. `ccsim scenario --params` wins over it.
  std::string params_file;
  std::string whatifs;
  std::optional<TrainingSpec> training;
  // Set when the file describes hybrid parallelism ("parallel" + "transformer"): one step of that
  // configuration (sim/scenario/hybrid_step.hpp) instead of the data-parallel sweep.
  std::optional<HybridSpec> hybrid;

  std::uint64_t total_params() const;
  Time forward_time() const;
  Time backward_time() const;
};

// Limits that keep a run small enough to finish in seconds (a typo such as "bucket_size": "1" would
// otherwise ask for 10^9 buckets): at most kMaxBuckets gradient buckets per step, consistent with the
// 100000 caps on layers and iterations, and at most kMaxParams parameters (see scenario.cpp for why).
inline constexpr std::uint64_t kMaxBuckets = 100000;
inline constexpr std::uint64_t kMaxParams = 10'000'000'000'000ULL; // 1e13
inline constexpr double kMaxTrainingWork = 2e8; // bucket exchanges timed by a training block, in all
// Buckets per step for `s` with elements of `elt_size` bytes (what make_buckets returns, without building it).
std::uint64_t bucket_count(const Scenario& s, Bytes elt_size);
// Throws a one-line Error when the bucket size gives more than kMaxBuckets buckets for the smallest
// gradient dtype, or when the training block would time more than kMaxTrainingWork bucket exchanges in
// all. The message names `flag` (e.g. "--bucket-size" after an override) or else the file and its key.
void check_work(const Scenario& s, const std::string& flag = "");

// Both throw Error with a one-line message that names `origin` (the file).
Scenario load_scenario_file(const std::string& path);
Scenario scenario_from_json(const nlohmann::json& j, const std::string& origin);

} // namespace ccsim::scenario
