// RCCL's own paths on AMD Instinct meshes that NCCL's tuning model does not have (models/rccl.json,
// ROCm/rccl): MSCCL's all-pairs allreduce for small and mid sizes on 8 fully connected GPUs, and
// alltoall as direct sends over the mesh. Both are closed forms on the mesh's slowest link.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/tuning.hpp"
#include "sim/model/params.hpp"

namespace ccsim::model::nccl {

// The share of a link's bytes that are data under `proto` in RCCL's kernels (ROCm/rccl 0cbce2a src/include/device.h):
// an LL line (ncclLLFifoLine) of 16 bytes carries 8 of data and two 4-byte flags; RCCL's LL128 line is 64 bytes
// (NCCL_LL128_LINESIZE, NVIDIA's 128), 7 data words of 8 (NCCL_LL128_DATAELEMS / NCCL_LL128_LINEELEMS); Simple moves
// data alone. RCCL's replay scales its links by this, not by tuning.cc's bwRatio: RCCL multiplies that ratio into
// the busBw its tuner weighs (src/graph/tuning.cc ncclTopoTuneModel, read by ncclTopoGetAlgoTime only), so it
// steers the pick and does not slow the kernel.
double protocol_data_share(Proto proto);

// The per-direction GB/s (RCCL's effective figure) of the slowest direct link between two of `gpus`,
// or 0 when some pair has no direct link (not a full mesh).
double mesh_link_GBps(const topology::Topology& t, const Tables& tab, const std::vector<int>& gpus);

// The data-sheet memory GB/s of the topology's GPU kind, 0 when unknown: rccl.json hbm_GBps_by_gpu for RCCL,
// nccl.json's for NCCL (a preset without a GPU kind takes its NVLink generation's SXM part).
double gpu_memory_GBps(const topology::Topology& t, const Tables& tab);

// Bytes of local memory traffic per GPU that MSCCL's all-pairs allreduce runs between its two link phases
// and after the second, un-overlapped with the links (see direct_allreduce): each phase's receives read the
// connection buffer (LL: its lines carry a flag per data word, twice the data) and write the data once,
// (p-1)/p of the buffer each; the reduce reads the p shares of this GPU's 1/p and writes it once.
double direct_local_bytes(int ranks, double nbytes, Proto proto);

// MSCCL all-pairs allreduce (tools/msccl-algorithms/allreduce-allpairs-8n-*.xml): when the tables have
// it, one node, exactly its rank count, a full mesh, a size inside one of its ranges and an element
// count that is a multiple of the algorithm's nchunksperloop (msccl_lifecycle.cc: otherwise RCCL's own
// ring or tree runs, e.g. 8-512 B floats on 8 MI300X: 256 chunks per loop). Two phases
// (reduce-scatter, all-gather) of one hop each; every link carries 2*bytes/p; LL moves half the data of
// a Simple line. `efficiency` scales the link (fitted link x protocol efficiency). The shipped XML files
// declare in-place only; measured out-of-place rows show the same small-size times (mi300x trace), so
// both columns get it.
// The steps do not pipeline (RCCL 2.20-2.22 msccl_kernel_impl.h, msccl_setup.cc): a Simple chunk is a 4 MiB
// buffer / 8 steps x 4 = 2 MiB, so every size the XML files take (n / 512 per MSCCL chunk, at most 32 KiB)
// runs as one iteration, and each of the 56 peer thread blocks sends its 8 chunks to its peer and only then
// receives the peer's 8 (send, then recv, in one block); the reduce waits for every receive, the second
// phase for the reduce. So the local copies and the reduce add to the two link transfers: at the GPU's
// data-sheet memory rate `memory_GBps` (0: not charged) they are a floor on that added time.
std::optional<Candidate> direct_allreduce(const Tables& tab, const Graph& g, double link_GBps, int ranks, Bytes nbytes,
                                          std::uint64_t count, double efficiency, double memory_GBps, int* channels);

// Alltoall over a full mesh: each GPU sends bytes/p to every peer at once, each on its own link; one
// step of latency (RCCL's base + one intra-node hop), LL while bytes/p is at most the tables'
// p2p_ll_threshold (enqueue.cc NCCL_P2P_LL_THRESHOLD, 16384), Simple above.
std::optional<Candidate> direct_alltoall(const Tables& tab, const Graph& g, double link_GBps, int ranks, Bytes nbytes,
                                         double efficiency);

// The protocol RCCL runs across nodes in place of its tuner's (ROCm/rccl src/rccl_wrap.cc rcclUpdateCollectiveProtocol,
// releases 2.26-2.27; the ranges in models/rccl.json protocol_ranges_across_nodes). On 2 or more nodes, with NCCL_PROTO
// unset, allreduce, allgather and reducescatter run Simple unless the size per rank (allreduce: the buffer; allgather
// and reducescatter: the buffer / ranks) lies in the tuning model's LL range, (0, ll_max], or, where the node model
// sets ll128Enabled, in its LL128 range, (ll128_min, ll128_max], which wins over LL; allreduce's ll128_max grows by
// the rule's scale beyond 2 nodes. The algorithm stays the tuner's. The tuning model and ll128Enabled come from the
// node model RCCL matches (rome_models.cc), which a trace does not name: the rule is keyed on the GPU generation
// (`sm`: gfx942, gfx950), the GPUs (ranks) and the NICs per node of the node model that carries them. nullopt: no rule for this
// release, machine or collective (then RCCL keeps its tuner's protocol).
std::optional<Proto> rccl_forced_protocol(const Tables& tab, const std::optional<NcclVersion>& release, const std::string& sm, int nodes,
                                          int nics_per_node, schedule::Op op, int ranks, Bytes nbytes);

// The chunk RCCL's tree allreduce moves per step (ROCm/rccl 0cbce2a src/enqueue.cc computeCollChunkInfo; the same
// rules in NVIDIA/nccl, applied here to RCCL only): `step_chunk` is the protocol's data per step (tables' chunk_bytes).
// Simple halves it while nBytes / (channels x chunk) is under 8, 4 and 1 x the tree's depth (floors 128, 64 and
// 32 KiB); LL128 halves it while that quotient is under nstepsLL128 x 64 / ppn (floor 128 KiB) and x 16 / ppn
// (floor 32 KiB), nstepsLL128 = 1 + log2i(nodes) + 0.1 ppn. The depth is ppn - 1 + log2i(nodes) (src/graph/connect.cc).
double rccl_tree_chunk_bytes(Proto proto, double step_chunk, Bytes nbytes, int channels, int nodes, int ranks);

// The per-GPU launch time one thread adds per collective under rccl-tests. The thread queues the next
// iteration while the GPUs run this one, so one GPU's launch (3-6 us) hides under RCCL's smallest
// collective time (its 12 us base latency): 13.7 us measured at 1 KiB on 8 MI300X, one process per GPU,
// is RCCL's all-pairs LL latency alone. One thread driving G GPUs adds G x launch_per_gpu_us here only
// where its launch kind does not overlap (launch_overlap.hpp: hip/gN does, and the builder pipelines the
// G launches with the GPU time instead).
double rccl_launch_us(const ParamSet& p, int gpus_per_thread);

} // namespace ccsim::model::nccl
