// A ring's last primitive of every chunk is local work that overlaps no transfer. NCCL's ring kernels run a
// chunk's primitives one after another in the same threads (NVIDIA/nccl src/device/all_reduce.h runRing,
// all_gather.h, reduce_scatter.h, v2.19-v2.30; the same sequence since 2.x): allreduce and allgather end each
// chunk with directRecv (the chunk from the connection's FIFO into the output), reduce-scatter with
// directRecvReduceCopy (FIFO + input into the output); every other primitive sends. All ranks of the ring and
// all its channels reach that primitive together (each waits on its predecessor's step), so while they copy
// no link carries the ring's data: per rank, n/p bytes of output are written and the FIFO read once more
// (LL: its lines carry 8 bytes per 4 of data; LL128: 128 per 120) besides the time the links take.
// Not there when the sender writes straight into the receiver's output: a P2P connection in one process
// (nccl-tests -g N) in write mode with NCCL <= 2.22 (prims_simple.h loadRecvConn took NCCL_DIRECT_WRITE
// without registered buffers until v2.22.3-1; from v2.23.4-1 only with them, which nccl-tests does not
// register); P2P read (sm80 over NVLink, src/graph/paths.cc "Enable P2P Read for Ampere/NVLink only") never
// went direct without registration ("direct read not allowed in non-register case").
// The copy is charged at the GPU's data-sheet memory bandwidth (models/nccl.json hbm_GBps_by_gpu): a floor,
// since a thread block copies below it, as MSCCL's un-pipelined local work on AMD (rccl.hpp direct_allreduce).
#pragma once
#include <optional>

#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/schedule/collective.hpp"

namespace ccsim::model::nccl {

// The first release whose ring primitives write straight into a peer's output only with registered buffers.
inline constexpr NcclVersion kDirectNeedsRegistrationFrom = {2, 23, 4};

// Bytes of memory traffic per rank in the ring's last primitives of a `bytes` collective on `ranks` ranks
// (nccl-tests' size: the buffer for allreduce, the gathered output for allgather, the input for
// reduce-scatter); 0 for an op whose ring NCCL does not run this way.
double ring_local_bytes(schedule::Op op, Proto proto, int ranks, double bytes);

// Does that primitive copy at all? No where the predecessor wrote into the output directly (above).
bool ring_last_primitive_copies(bool one_process, bool p2p_read, const std::optional<NcclVersion>& release);

} // namespace ccsim::model::nccl
