// Predicting measured rows and scoring the prediction: one Predictor per (topology, placement, model,
// parameter set), then compare() lays predicted time/algbw/busbw beside a trace's measured rows.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl_model.hpp"
#include "sim/model/params.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::model {

struct PredictOptions {
  std::string model = "fifo"; // fifo | store_forward (alpha-beta engine) | nccl (NCCL tables + engine)
  ParamSet params;
  std::string nccl_tables;    // "" = models/nccl.json
  std::string gpu_arch;       // nccl: override the GPU generation
  int gpus_per_thread = 1;    // GPUs one launching thread drives (nccl-tests nGpus); scales launch_per_gpu_us
  std::string nccl_algo = "auto"; // nccl: auto (NCCL's pick) | ring | tree (as NCCL_ALGO) | fastest (replay both)
};

struct Prediction {
  Time time = 0;
  std::string algo, proto; // nccl: NCCL's choice; fifo: the --algo name and ""
  int channels = 0, loops = 1;
  bool simulated = true;   // false when the time is NCCL's closed form only
  bool overrides_nccl = false; // nccl, several nodes: the other of ring/tree replayed faster than NCCL's pick
};

class Predictor {
 public:
  Predictor(const topology::Topology& t, metrics::RunConfig cfg, PredictOptions o);
  ~Predictor();
  Prediction predict(metrics::SizePlan plan);
  const metrics::RunConfig& config() const { return cfg_; }
  const PredictOptions& options() const { return opt_; }
  const NcclGraph* nccl_graph() const;

 private:
  PredictOptions opt_;
  metrics::RunConfig cfg_;
  std::unique_ptr<topology::Topology> topo_;
  std::unique_ptr<topology::Router> router_;
  std::unique_ptr<NcclTables> tables_;
  std::unique_ptr<NcclSimulator> nccl_;
};

struct CompareRow {
  int line = 0;
  Bytes size = 0;
  std::uint64_t count = 0;
  double measured_time_us = 0, predicted_time_us = 0;
  double measured_algbw = 0, predicted_algbw = 0, measured_busbw = 0, predicted_busbw = 0;
  double err_pct = 0; // signed, (predicted - measured) / measured busbw
  Prediction pred;
};

struct CompareResult {
  std::vector<CompareRow> rows;
  double median_abs_err_ge_1MiB = 0, median_abs_err_all = 0, max_abs_err = 0;
  int n_ge_1MiB = 0, skipped = 0; // skipped: rows with size 0 or time 0
};

double median(std::vector<double> v); // NaN for an empty list
// GPUs per launching thread of a trace: its "nGpus" header value (nccl-tests -g), else 1.
int gpus_per_thread(const trace::Trace& t);
// The plan of a measured row (its own size and count, as printed).
metrics::SizePlan plan_of(const trace::MeasuredRow& r);
CompareResult compare(const trace::Trace& tr, Predictor& p, bool in_place);

struct CompareMeta {
  std::string trace, hardware, topology, topology_origin, model, params, op, op_from, ranks_from;
  int ranks = 0;
  bool in_place = false, old_busbw_convention = false;
  std::vector<std::vector<int>> placements;
  std::string nccl_graph; // one-line description of the NCCL graph (--model nccl)
};
nlohmann::ordered_json compare_json(const CompareResult& r, const CompareMeta& m);
std::string compare_table(const CompareResult& r, const CompareMeta& m);
std::string compare_csv(const CompareResult& r, const CompareMeta& m);

} // namespace ccsim::model
