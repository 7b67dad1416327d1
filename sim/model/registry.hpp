// The one table of prediction models: name, one-line description, and the factory that makes its plan
// builder. Every command resolves --model here (and `ccsim --model help` prints this table).
#pragma once
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/metrics/sweep.hpp"
#include "sim/model/params.hpp"

namespace ccsim::model {

struct ModelOptions {
  ParamSet params;              // a fitted parameter set (--params); defaults change nothing
  std::string nccl_tables;      // nccl: "" = models/nccl.json
  std::string gpu_arch;         // nccl: override the GPU generation
  std::string nccl_algo = "auto"; // nccl: auto | ring | tree | fastest
  std::string nvls = "auto";      // nccl: auto | on | off (NVLink SHARP)
  std::string collnet = "auto";   // nccl: auto | on | off (CollNet, SHARP in the fabric; NCCL_COLLNET_ENABLE)
  std::string msccl = "auto";     // nccl on RCCL: auto | off (RCCL_MSCCL_ENABLE=0, or RCCL built without MSCCL)
  int gpus_per_thread = 1;      // GPUs one launching thread drives (nccl-tests -g); scales launch_per_gpu_us
  std::vector<int> relay_gpus;  // only these GPUs may relay a route (NCCL cannot forward through others); empty = any
  int nccl_channels = 0;        // nccl: CUDA channels as an NCCL log reports them (0 = NCCL's own count)
  int nccl_min_channels = 0, nccl_max_channels = 0; // nccl: NCCL_MIN/MAX_NCHANNELS (or _CTAS) a run states (0 = not stated)
  int nccl_min_ctas = 0, nccl_max_ctas = 0; // nccl: NCCL_MIN/MAX_CTAS a run states, bounds on NVLS channels too (0 = not stated)
  int nvls_channels = 0;        // nccl: NVLS CUDA channels as an NCCL log reports them (0 = NCCL's own count)
  bool nvls_nchannels_set = false; long long nvls_nchannels = 0; // nccl: NCCL_NVLS_NCHANNELS a run states
  std::string nccl_proto;       // nccl: NCCL_PROTO list (LL, LL128, Simple; ^ excludes; "" = all)
  std::string nccl_version;     // nccl: the NCCL release predicted ("2.4.8"; "" = the tables' own)
  long long nvls_chunk_bytes = 0;          // nccl: NCCL_NVLS_CHUNKSIZE a run states (0 = NCCL's)
  long long nvls_tree_max_chunk_bytes = 0; // nccl: NCCL_NVLSTREE_MAX_CHUNKSIZE a run states (0 = NCCL's)
};

// A factory's builder refers to the topology it was given: that topology must outlive the builder.
struct ModelEntry {
  std::string_view name, description;
  bool chooses_algorithm; // picks algorithm and protocol per size (--algo is ignored; rows carry the choice)
  std::unique_ptr<metrics::PlanBuilder> (*make)(const topology::Topology& t, const ModelOptions& o);
};

std::span<const ModelEntry> model_registry();
// Throws Error naming --model and listing the models when `name` is unknown.
const ModelEntry& require_model(std::string_view name);
std::unique_ptr<metrics::PlanBuilder> make_model(std::string_view name, const topology::Topology& t, const ModelOptions& o);
std::string model_names();  // "fifo, store_forward, flow, nccl"
std::string model_table();  // one line per model, for --model help and every command's help

} // namespace ccsim::model
