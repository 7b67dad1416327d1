// NCCL's SHM transport: the path two GPUs of one host take when peer-to-peer is off (NCCL_P2P_DISABLE=1,
// a pair farther than NCCL_P2P_LEVEL, GeForce cards whose driver refuses P2P).
//
// The mechanism (NVIDIA/nccl v2.16.2 .. v2.23.4 src/transport/shm.cc; the newest master keeps only the
// default path):
//  * The FIFO buffers live in pinned host memory on the receiver's side (NCCL_SHM_LOCALITY default 2,
//    SHM_RECV_SIDE); src/graph/paths.cc routes the pair through the receiver's CPU (addInterStep(CPU,
//    local CPU of the receiving GPU)), which is where NCCL's search sees PATH_PHB or PATH_SYS.
//  * By default no copy engine and no proxy move the data (NCCL_SHM_USE_CUDA_MEMCPY 0; the CE path,
//    NCCL_SHM_MEMCPY_MODE 1 sender / 2 receiver / 3 both, has the proxy thread cudaMemcpyAsync between a
//    device FIFO and the host buffer and is off unless asked for): the sender's kernel stores into the host
//    buffer over its own PCIe link (posted writes), the receiver's kernel loads from it over its own link
//    (non-posted reads). Each byte crosses two PCIe links, at two different ring steps: the sender's link
//    when it is sent, the receiver's link when the receiver's next primitive reads it.
//  * One thread block per channel runs the ring's primitives one after the other (src/collectives/device
//    all_reduce.h, all_gather.h, reduce_scatter.h). Per loop allreduce does send, (n-2) recvReduceSend,
//    recvReduceCopySend, (n-2) recvCopySend, recv: 2n-1 primitives, of which the first stores only and the
//    last loads only, while 2n-2 slices leave and 2n-2 arrive. Allgather (copySend, (n-2) recvCopySend,
//    recv) and reducescatter (send, (n-2) recvReduceSend, recvReduceCopy) run n primitives for n-1 slices.
//    Over P2P (writes) a receive reads the GPU's own memory and costs next to nothing; over SHM it is a full
//    PCIe transfer, so each direction of a GPU's link is busy in all primitives but one per loop.
// The host-staged link rate per direction (models/gpus.json nop2p_bw) therefore carries, over a ring loop,
// (2n-2)/(2n-1) of itself for allreduce and (n-1)/n for allgather and reducescatter: 2/3 and 1/2 on 2 GPUs,
// an allgather 25 % below an allreduce.
// Broadcast and reduce run NCCL's ring as a chain from the root (src/device/broadcast.h, reduce.h, v2.23.4
// and master): every rank runs ONE primitive per chunk, the same one for the whole collective: the root
// send (broadcast; reduce: the rank after the root), the middle ranks recvCopySend (reduce: recvReduceSend),
// the last recv (reduce: the root's recvReduceCopy). A middle rank loads one slice from its host buffer and
// stores one slice into the next rank's in every primitive, both directions of its port at once; the root's
// port has nothing to receive and the last rank's nothing to send, so no direction that has data idles in
// any primitive, and BROADCAST/REDUCE_CHUNKSTEPS = SLICESTEPS = 1 of NCCL_STEPS = 8 FIFO slots
// (src/include/collectives.h) keep up to 8 chunks in flight between neighbours. The chain's steady state
// therefore carries the full staged speed: share 1 (the fill, n-2 chunk steps, is the engine's pipeline).
// Public 2-GPU Gen3 SHM runs measure broadcast/reduce at 10-11 GB/s busbw, above the 5.71 GB/s staged copy
// of p2pBandwidthLatencyTest (same sources): one-way SM stores into host memory outrun the driver's staged
// cudaMemcpyPeer. Not modelled: the host's own bidirectional shortfall (box-specific), that one-way speed.
#pragma once
#include "sim/model/nccl/tables.hpp"
#include "sim/schedule/collective.hpp"

namespace ccsim::model::nccl {

// The share of a loop in which each direction of a GPU's host-staged link (topology::Link::host_staged)
// moves data, for NCCL's ring of `ranks` ranks running `op`: (2n-2)/(2n-1) allreduce, (n-1)/n allgather and
// reducescatter, 1 for broadcast and reduce (the chain above) and for everything else (trees and
// sends/receives run their directions in separate warps or blocks at once).
double shm_ring_loop_share(schedule::Op op, Algo algo, int ranks);

// Whether NCCL's schedule of `op` on `ranks` ranks loads both directions of a GPU's port at once, for a port held
// to a duplex budget (topology::Link::duplex): false only for a 2-rank broadcast or reduce (the chain's one hop
// moves one way); a ring's every GPU sends to its next while it receives from its previous one, a longer chain's
// middle GPUs too, and sendrecv / alltoall exchange both ways.
bool duplex_both_ways(schedule::Op op, int ranks);

} // namespace ccsim::model::nccl
