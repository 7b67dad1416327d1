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
// an allgather 25 % below an allreduce. Public 2-GPU Gen3 measurements with SHM: allreduce 4.00 GB/s busbw
// against a 5.71 GB/s staged copy (x2 RTX 2080 Ti, PCIe switch, P2P "NS": 0.70; Anthony-Hoo/
// Anthony-Hoo.github.io posts/AutoDL_Multi-GPU_Interconnection_Test.md), allgather 3.2-3.4 there (0.80-0.85 of
// the allreduce) and 3.17 vs 3.9 (0.81) with one channel in NVIDIA/nccl issue #384, where NCCL's maintainer
// names the bidirectional traffic of these collectives as what the host handles badly; broadcast and reduce,
// one direction per link, reach 10-11 GB/s in both. Not modelled: the host's own bidirectional shortfall
// (box-specific), broadcast/reduce above the staged copy speed.
#pragma once
#include "sim/model/nccl/tables.hpp"
#include "sim/schedule/collective.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::model::nccl {

// The share of a loop in which each direction of a GPU's host-staged link moves data, for NCCL's ring of
// `ranks` ranks running `op`: (2n-2)/(2n-1) allreduce, (n-1)/n allgather and reducescatter, 1 otherwise
// (trees, chains and sends/receives run their directions in separate warps or blocks at once).
double shm_ring_loop_share(schedule::Op op, Algo algo, int ranks);

// Whether the link is a GPU's PCIe port staged through host memory (NCCL's SHM transport): every producer
// of such links (--p2p off, --p2p-level, machine:...,p2p=off, imported GeForce boxes, the RTX 4090 preset)
// draws it at its generation's host-staged copy speed (models/gpus.json nop2p_bw), a figure no PCIe width
// gives (Gen3 5.7, Gen4 19.5, Gen5 39, Gen6 78 GB/s against 7.9/15.75/31.5/63/121 for x8/x16 line rates).
bool host_staged_link(const topology::Topology& t, const topology::Link& l);

} // namespace ccsim::model::nccl
