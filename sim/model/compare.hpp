// Predicting measured rows and scoring the prediction: one Predictor per (topology, placement, model,
// parameter set), then compare() lays predicted time/algbw/busbw beside a trace's measured rows.
#pragma once
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/metrics/sweep.hpp"
#include "sim/model/evidence.hpp"
#include "sim/model/params.hpp"
#include "sim/model/registry.hpp"
#include "sim/trace/nccl_tests_trace.hpp"

namespace ccsim::model {

// One model (from the registry) on one topology and placement, predicting sizes one after another.
class Predictor {
 public:
  Predictor(const topology::Topology& t, metrics::RunConfig cfg, std::string model, ModelOptions o);
  ~Predictor();
  metrics::Row predict(metrics::SizePlan plan, std::span<engine::Observer* const> observers = {});
  // The same model with a configuration that differs per size (e.g. a pipelined algorithm's segment).
  metrics::Row predict(const metrics::RunConfig& cfg, metrics::SizePlan plan, std::span<engine::Observer* const> observers = {});
  std::vector<engine::RunPlan> plans(metrics::SizePlan plan) { return builder_->plans(cfg_, plan); }
  const metrics::RunConfig& config() const { return cfg_; }
  std::string describe() { return builder_->describe(cfg_); } // e.g. the NCCL graph; "" for plain models

 private:
  metrics::RunConfig cfg_;
  std::unique_ptr<metrics::PlanBuilder> builder_;
};

struct CompareRow {
  int line = 0;
  Bytes size = 0;
  std::uint64_t count = 0;
  double measured_time_us = 0, predicted_time_us = 0;
  double measured_algbw = 0, predicted_algbw = 0, measured_busbw = 0, predicted_busbw = 0;
  double err_pct = 0; // signed, (predicted - measured) / measured busbw
  engine::Choice pred; // what the model ran
};

struct CompareResult {
  std::vector<CompareRow> rows;
  double median_abs_err_ge_1MiB = 0, median_abs_err_all = 0, max_abs_err = 0;
  int n_ge_1MiB = 0, skipped = 0; // skipped: rows with size 0 or time 0
  // The replay of the largest row (its links' busy time), kept for bound_bands; `largest_replayed` false where the
  // model gave a closed form.
  engine::RunResult largest;
  bool largest_replayed = false;
};

double median(std::vector<double> v); // NaN for an empty list
// GPUs per launching thread of a trace: its "nGpus" header value (nccl-tests -g), else the -g its header's command line
// sets (Trace::command_ngpus), else 1.
int gpus_per_thread(const trace::Trace& t);
// Threads per process of a trace: its "nThread" header value (nccl-tests -t), else 1.
int threads_per_process(const trace::Trace& t);
// The plan of a measured row (its own size and count, as printed).
metrics::SizePlan plan_of(const trace::MeasuredRow& r);
CompareResult compare(const trace::Trace& tr, Predictor& p, bool in_place);

// "Why is my measured busbw lower?": per size band, what bounds the prediction (the model's own replay, no new
// numbers; sim/model/compare_bounds.cpp) and what the measured busbw says that resource ran at. The report
// (sim/report/compare_report) turns a band into a line with a check to run.
// A link used this much of its bandwidth over a replay is what holds the replay's rate (a replay's fill and drain
// keep even the bottleneck a few percent under 100).
inline constexpr double kFullLinkPct = 90;

// What kind of link bounds a band (the report words it: sim/report/compare_report.cpp).
enum class BoundKind { None, Network, NicPcie, NVLink, Xgmi, Pcie, Other };

struct BoundBand {
  // The latency band: rows whose predicted busbw is below half the prediction's highest (fixed costs, launch and
  // per-hop latency, still dominate); the bandwidth band: every other row.
  bool latency = false;
  Bytes lo = 0, hi = 0;
  int rows = 0;
  double measured_busbw = 0, predicted_busbw = 0;     // medians over the band's rows (GB/s)
  double measured_time_us = 0, predicted_time_us = 0; // medians over the band's rows
  // The bandwidth band's bottleneck, from the replay of its largest row: the directed link that carried the largest
  // share of what it could over the replay (ties within 0.1% counted in `links`). None where the model replays
  // nothing (a closed form).
  BoundKind kind = BoundKind::None; // NicPcie: a NIC's own PCIe link
  std::string type;  // the link's type (ib, roce, nvlink4, pcie5, ...)
  // The network's link type in the described machine (ib, roce, efa, slingshot, ethernet; empty on one host),
  // for every band: which tools and log lines check that network (not every fabric runs InfiniBand verbs).
  std::string net;
  std::string name;  // e.g. "n0.xnic0->fabric"
  double link_GBps = 0; // that directed link's bandwidth (all lanes)
  int links = 0;        // directed links as used as it
  double used_pct = 0;  // bytes it carried / (its bandwidth x the replay's makespan)
  // Whether those links ran near full (kFullLinkPct). Below it no link holds the replay's rate: per-channel caps
  // (NCCL's channels per peer x the rate of one channel), the protocol's share or the pipeline's fill do.
  bool full = false;
  // The run as the latency band's checks need it (set by the caller, which knows the placement): whether its ranks
  // span hosts (a network's latency is in the floor) and whether its GPUs are AMD's (HIP, rccl-tests).
  bool across_hosts = true;
  bool amd = false;
};

// The bands of `r` (one or two; the latency band first), from the same predictor compare() used.
std::vector<BoundBand> bound_bands(const CompareResult& r, const topology::Topology& topo);

// How a measured run stands against what the described machine should do (compare over many files, a cluster's
// acceptance check): the median, over the bandwidth band's rows (bound_bands' split) of 1 MiB and more, of measured
// busbw / predicted busbw. Launch and latency, which depend on the software stack more than on the machine, are
// left out. rows == 0 where the run has no such row (a sweep of small sizes only): no verdict.
struct Health {
  int rows = 0;
  Bytes lo = 0, hi = 0;
  double ratio = 0; // measured / predicted busbw, 1 = as predicted
};
Health health_of(const CompareResult& r);


struct CompareMeta {
  std::string trace, hardware, topology, topology_origin, model, params, op, op_from, ranks_from;
  int ranks = 0;
  int gpus_per_thread = 1; // the launching thread's GPUs the model charged launches for (gpus_per_thread above)
  std::string launch_kind; // nccl model: whose launch terms it applied (sim/model/launch_kind.hpp), else ""
  bool in_place = false, old_busbw_convention = false;
  std::vector<std::string> notes; // the trace reader's decisions and the facts it read (rows left out, INFO lines)
  std::vector<std::vector<int>> placements;
  std::string model_detail; // what the model derived from the machine (NCCL: its graph), or ""
  std::vector<BoundBand> bands; // bound_bands(): what bounds each size band, for "why lower" lines
  std::optional<Checked> checked; // --model nccl: the measured runs ccsim ships for the machine's class
};
} // namespace ccsim::model
