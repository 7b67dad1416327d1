// How NCCL's ring kernels cut one collective into loops and over channels (issue 14: mid-size
// allgather, reducescatter, broadcast and reduce on NVSwitch boxes), each rule read in NCCL's source:
//   * loops: a ring loop moves nRanks chunks per channel (ring allreduce/allgather/reducescatter), a
//     broadcast/reduce loop one (the chain: enqueue.cc calcCollChunking, v2.30.7-1 lines 2322-2350,
//     ncclPatternPipelineFrom/To nchunksPerLoop = 1; v2.8.4-1 getLoopInfo, broadcast.h loopSize =
//     nChannels*chunkSize);
//   * line pipelining: LL and LL128 forward every line as its flag arrives (device/prims_ll.h LLGenericOp
//     polls readLL per line; prims_ll128.h the same per 128-byte line), so a broadcast/reduce chain does
//     not wait for a whole chunk at each hop; Simple posts a step only when its slice is complete;
//   * the split over channels, which is not even: where one channel carries more than 1/nc of the data,
//     the collective ends with it (NCCL's bandwidth is nChannels x a per-channel figure, tuning.cc).
#pragma once
#include <optional>

#include "sim/core/units.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/schedule/collective.hpp"

namespace ccsim::model::nccl {

// Chunks one channel moves per loop: nRanks for the ring patterns, 1 for broadcast/reduce.
int chunks_per_loop(schedule::Op op, int ranks);
// NCCL's loops for one channel's bytes at `chunk` bytes per chunk (at least 1).
int ring_loops(schedule::Op op, int ranks, double channel_bytes, double chunk);
// Whether a broadcast/reduce chain of this protocol forwards line by line (LL, LL128) rather than chunk by chunk.
bool chain_pipelined_per_line(schedule::Op op, Proto proto);

// Who splits the data over the channels, by release:
//   Cells (v2.22.3 on; read at v2.30.7-1 enqueue.cc scheduleCollTasksToPlan, lines 581-700): the host
//     deals each channel whole cells of MinTrafficPerChannel (32 KiB) of traffic, traffic = count bytes x
//     2 (allreduce), x nRanks (allgather, reducescatter; count is per rank), x1 otherwise, x4 for LL; a
//     channel takes divUp(traffic / nChannels, traffic per cell) cells, the last one the rest;
//   KernelChunks (v2.5.6 to v2.19.x; read at v2.8.4-1 src/collectives/device/{all_reduce,all_gather,
//     reduce_scatter,broadcast,reduce}.h and enqueue.cc computeColl, the same rule at v2.19.4-1
//     src/device/*.h): each kernel loop gives every channel one chunk of min(maxChunk, the rest rounded up
//     to nChannels x a minimum chunk), so the last loop fills the first channels and leaves the others idle;
//     a ring allreduce's nRanks chunks lie side by side on Simple (bid x nRanks x chunk) but interleaved on
//     LL / LL128 (slot chunk x nChannels + bid), which spreads the last loop's tail: channel 0's slots 0, nc, ...;
//     minimum chunk: LL128 nThreads x 60 B (x 1/2 for allreduce, allgather, reducescatter: "should not need
//     the final /2"), LL nThreads x 8 B, Simple (nThreads) x 8 B;
//   None: a release whose split ccsim has not read (2.4.x, 2.20.x-2.21.x): even.
enum class SplitRule { Cells, KernelChunks, None };
SplitRule split_rule(const std::optional<NcclVersion>& v); // no version: the tables' own (v2.30.7: Cells)

// The busiest channel's share of `bytes` (the nccl-tests size) x the channels: 1 for an even split, 1.76
// when the busiest of 24 channels carries 1.76 / 24 of the data. `nc` is the CUDA channels NCCL runs for this
// size (channels_used), `max_chunk` the protocol's chunk (Tables chunk_*).
double channel_imbalance(SplitRule rule, const Tables& tab, schedule::Op op, Proto proto, int ranks, Bytes bytes, int nc,
                         double max_chunk);

// LL128's waves (NVIDIA/nccl v2.16.2-1 src/collectives/device/prims_ll128.h GenericOp, the same loop at v2.8.4-1
// and v2.26.2-1 src/device/prims_ll128.h): one step's data is dealt to the block's warps in slices of
// DataEltPerSlice (32 lanes x NCCL_LL128_SHMEM_ELEMS_PER_THREAD 8 words, 15 of each 16 data: 1920 B), warp w taking
// slices w, w + nWarps, ...; the block barriers before and after each step, so a step lasts as many rounds of
// nWarps x 1920 B (a wave: 38,400 B at 640 threads) as its busiest warp runs: a chunk of 1.5 waves takes two.
// The chunk a step carries is the release's (ring_chunking.cpp): v2.5.6-2.19 the last loop's realChunkSize,
// a multiple of the half-wave minimum chunk, dealt (chunk x nChannels + bid) so channel 0 carries the most
// (all_reduce.h calcOffset for LL/LL128); v2.22.3 on divUp(the channel's cells, nRanks) (allreduce) or the
// channel's cells (allgather, reducescatter). Returns nChannels x the busiest channel's steps in whole waves
// (bytes) / the kernel's count bytes: channel_imbalance's figure with each step rounded up to whole waves;
// channel_imbalance's own outside ring allreduce/allgather/reducescatter and for SplitRule::None. Where a part-filled wave costs a
// whole one is the builder's call (sm80 over NVLink, models/README.md "LL128 waves on A100").
double ll128_wave_imbalance(SplitRule rule, const Tables& tab, schedule::Op op, int ranks, Bytes bytes, int nc,
                            double max_chunk);

} // namespace ccsim::model::nccl
