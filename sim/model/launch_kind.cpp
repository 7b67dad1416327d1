#include "sim/model/launch_kind.hpp"

namespace ccsim::model {

std::string launch_kind(bool amd, int gpus_per_thread, bool parallel_launch) {
  if (gpus_per_thread <= 1) return amd ? "hip/g1" : "cuda/g1";
  return amd ? "hip/gN" : parallel_launch ? "cuda/gN-parallel" : "cuda/gN";
}

bool is_launch_kind(std::string_view k) {
  return k == "cuda/g1" || k == "cuda/gN" || k == "cuda/gN-parallel" || k == "hip/g1" || k == "hip/gN";
}

ParamSet for_launch_kind(ParamSet p, const std::string& kind) {
  if (auto it = p.launch_by_kind.find(kind); it != p.launch_by_kind.end()) {
    p.launch_us = it->second.launch_us;
    p.launch_per_gpu_us = it->second.launch_per_gpu_us;
  }
  return p;
}

} // namespace ccsim::model
