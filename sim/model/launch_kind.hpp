// Which launch terms a machine takes from a parameter set (issue 14, the small-size floor of an unseen
// machine). Below ~64 KiB an nccl-tests row is NCCL's latency (models/nccl.json, rccl.json: baseLat + hwLat
// per hop, the network's per hop) plus what it costs the host to launch the kernels, and that cost is set by
// the runtime (CUDA or HIP) and by how many GPUs one launching thread drives (nccl-tests -g): with one GPU
// per process the next iteration's launch overlaps the running kernel, with -g N one thread issues N
// launches in series every iteration. A class-level set carries the terms per kind (launch_by_kind).
#pragma once
#include <string>
#include <string_view>

#include "sim/model/params.hpp"

namespace ccsim::model {

inline constexpr const char* kLaunchKinds = "cuda/g1, cuda/gN, cuda/gN-parallel, hip/g1, hip/gN";

// "hip/gN" for an AMD GPU driven with several GPUs per thread, "cuda/g1" for one NVIDIA GPU per thread, ...
// CUDA -g N comes in two kinds by release (`parallel_launch`, nccl_version.hpp pipelined_launch_in_release):
// "cuda/gN" up to 2.12 (GROUP mode's one cooperative multi-device launch to 2.8.4, PARALLEL's cudaLaunchKernel
// per GPU from 2.9.6: both measured as a sum) or a release not known, "cuda/gN-parallel" from 2.13.4 (the
// launch NCCL rewrote then; still one launch per GPU, hence the kind's name, kept for the parameter files),
// whose launches overlap the GPU time (launch_overlap.hpp).
std::string launch_kind(bool amd, int gpus_per_thread, bool parallel_launch = false);
bool is_launch_kind(std::string_view k);

// `p` with launch_us and launch_per_gpu_us replaced by the terms of `kind` when `p` carries that kind
// (otherwise unchanged: a set fitted on one machine has no kinds).
ParamSet for_launch_kind(ParamSet p, const std::string& kind);

} // namespace ccsim::model
