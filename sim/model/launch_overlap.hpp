// Whether the host's serial kernel launches of an nccl-tests iteration overlap the GPU time of the
// iterations before it (issue 14: what a row costs when one thread drives N GPUs, nccl-tests -g N).
//
// What the public sources say:
// - nccl-tests (src/common.cu BenchTime, the same loop since 2019; rccl-tests is that code) times `iters`
//   iterations (20 unless -n) issued back to back: each startColl is ncclGroupStart, one collective per
//   GPU, ncclGroupEnd, with no stream synchronisation unless -z (blocking); completeColl synchronises once
//   after the loop. So the host may run ahead of the GPUs by up to `iters` iterations.
// - NCCL's and RCCL's launch never waits for the GPU in such a loop: the host waits only for a free work
//   FIFO slot (NCCL 2.4 enqueue.cc: NCCL_MAX_OPS 2048 per channel; 2.12+ waitWorkFifoAvailable, depth
//   64 K works; RCCL 256 K), far more than 20 iterations use; the launch itself is cudaLaunchKernel /
//   cudaLaunchCooperativeKernelMultiDevice (NCCL <= 2.12, GROUP mode by default up to 2.8.4, with the
//   NoPreSync/NoPostSync flags) or hipExtLaunchKernel (RCCL), asynchronous; stream events order the
//   GPU side only.
// So an iteration costs what the slower of two pipelined stages costs, the host issuing the N launches
// or the GPUs running the collective (engine::pipelined_time), not their sum.
//
// What the traces say (models/README.md, "Launch cost per launch kind: -g N overlap"): on HIP the pipeline
// is what is measured. Every rccl-tests -g 8 run (MI300X on Azure, RCCL 2.20; MI350X, RCCL 2.27, ROCm 7)
// stays at its launch floor (40-51 us) up to ~4 MiB, and from 8 MiB meets the one-process-per-GPU time of
// the same collective (8x MI300X, -g 1: 84.8 us at 8 MiB, 149.9 at 16 MiB; -g 8: 83-90, 140-153), where a
// sum would add the 40-50 us floor again. On CUDA the -g N runs (NCCL 2.4 GROUP/CGMD on DGX-1 and DGX-2,
// an HGX A100, an RTX 4090 box) rise with the transfer from ~64 KiB by about their floor, as a sum would;
// NCCL's source shows no wait that makes it one, and no one-process-per-GPU run of those machines exists
// to tell the GPU's own time apart. Those CUDA runs are NCCL 2.4 (GROUP mode: one
// cudaLaunchCooperativeKernelMultiDevice for the thread's GPUs), name no release, or print NCCL's own `Launch
// mode Parallel` (the SuperBench A100 runs: PARALLEL, one cudaLaunchKernel per GPU, the default from v2.9.6-1
// src/init.cc, printed up to v2.12.12-1), so PARALLEL mode alone is not the pipeline. The CUDA runs that name
// a release from 2.18.3 show the pipeline as HIP does: one H100 node, NCCL 2.26.2, -g 8 (Together AI) stays at
// its 35-37 us floor up to 16 KiB and at 41-42 us for reduce_scatter from 1 to 4 MiB (a sum would need 4 MiB
// in 22 us of GPU time, under NCCL's own LL128 latency); 2 H200 nodes, NCCL 2.30.4, -g 8 per process, meet
// their bare ring time from 1 MiB; the H800 (2.18.3) broadcast and thanos's A100 -g 8 (pip cu12, 2.18 or
// later: 52.6 us at 1 MiB where its own -g 1 run takes 37.9 and its floor is 39.1) as well. So the overlap
// applies to HIP -g N and to CUDA -g N under a known release from 2.13.4, NCCL's launch rewrite
// (nccl_version.hpp kPipelinedLaunchFrom, "cuda/gN-parallel"); CUDA -g N up to 2.12 or without a release
// keeps the sum.
#pragma once
#include <string>

namespace ccsim::model {

// nccl-tests' and rccl-tests' default iteration count (-n): the pipeline's fill shows once in that many.
inline constexpr int kNcclTestsIters = 20;

// Whether a launch kind's per-GPU launches overlap the GPU time of earlier iterations (true: "hip/gN",
// "cuda/gN-parallel").
bool launch_overlaps(const std::string& kind);

} // namespace ccsim::model
