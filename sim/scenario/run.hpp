// Runs a whole scenario: every (topology, strategy, gradient dtype, degree) step, then, if the file asks,
// the multi-iteration sync/async/ssp comparison at each degree above one (sim/report/scenario_report renders it).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/step.hpp"
#include "sim/scenario/training.hpp"

namespace ccsim::scenario {

struct StepRow {
  std::string topology;
  Strategy strategy;
  metrics::DataType dtype;
  int gpus = 1;
  StepResult result;
  std::size_t buckets = 0;
  Bytes grad_bytes = 0;       // gradient bytes per GPU per step
  double samples_per_s = 0;   // gpus * batch / step
  double speedup = 0;         // T_1 / T_n for the same data: gpus * compute / step
  double efficiency = 0;      // speedup / gpus
  double state_bytes = 0;     // model-state bytes on the fullest GPU
  double epoch_s = 0;         // dataset_samples / samples_per_s (0 without a dataset size)
  std::map<std::string, int> algos; // algorithm -> exchanges it ran
};

struct TrainingRow {
  std::string topology;
  Strategy strategy;
  metrics::DataType dtype;
  int gpus = 1;
  Time nominal_step = 0;
  ModeResult mode;
};

struct Report {
  const Scenario* scenario = nullptr;
  std::vector<StepRow> steps;
  std::vector<TrainingRow> training;
};

// `topology_override` (the --topo flag) replaces the file's topology list when not empty. A row whose
// model state (state_bytes) does not fit the memory of the topology's GPU kind is a one-line error unless
// `allow_oversubscribed` (--allow-oversubscribed-memory); without a known GPU kind it is not checked.
Report run_scenario(const Scenario& s, const std::string& topology_override = {}, bool allow_oversubscribed = false);

} // namespace ccsim::scenario
