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
// to tell the GPU's own time apart. The overlap is applied to the HIP runtime only; CUDA -g N keeps the sum.
#pragma once
#include <string>

namespace ccsim::model {

// nccl-tests' and rccl-tests' default iteration count (-n): the pipeline's fill shows once in that many.
inline constexpr int kNcclTestsIters = 20;

// Whether a launch kind's per-GPU launches overlap the GPU time of earlier iterations (true: "hip/gN").
bool launch_overlaps(const std::string& kind);

} // namespace ccsim::model
