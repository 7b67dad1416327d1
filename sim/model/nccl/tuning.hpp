// NCCL's cost model (tuning.cc, reference §3): for each enabled (algorithm, protocol) its bandwidth
// and latency, the time lat + bytes/algbw, and the CUDA channel count for a size. Each formula here is
// written once; the schedule builder (builder.cpp) reuses the latency terms for its per-hop alphas.
#pragma once
#include <vector>

#include "sim/core/units.hpp"
#include "sim/model/nccl/graph.hpp"
#include "sim/schedule/collective.hpp"

namespace ccsim::model::nccl {

// time_us is the estimate NCCL's choice compares; lat_us, busbw and algbw are the tables' own figures, which the
// prediction uses. They agree (time = lat + bytes / algbw) except for NVLS-tree under an older release's tuner.
struct Candidate {
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  double lat_us = 0, busbw = 0, algbw = 0, time_us = 0;
};

// Every enabled (algorithm, protocol) with NCCL's modelled time for nBytes (the nccl-tests size); NVLS
// (Simple only) when the graph has an NVLS graph and `nvls` is true. `nvls_tree_release`: the predicted
// release's NVLS-tree estimate (nvls_tree_tuner_rule) in place of the tables' own, in time_us only.
// `ring_ll128_release`: the predicted release's perChMaxRingLL128Bws (ring_ll128_tuner_caps), in ring/LL128's
// time_us only (the prediction keeps the tables' row).
std::vector<Candidate> candidates(const Tables& tab, const Graph& g, schedule::Op op, int ranks, Bytes nbytes, bool nvls = true,
                                  const Tables::Nvls::TreeTunerRule* nvls_tree_release = nullptr,
                                  const Caps* ring_ll128_release = nullptr);
// NVLS-tree allreduce's estimate (us) as the release of `rule` computes it: latency NVLINK + 2 log2i(nodes) x NET
// hwLatencies; bandwidth per channel min(bwIntra, bwInter, halved beyond 2 nodes) x 5/6 (to 2.27), else the
// tables' NVLS formula with the rule's latencies. 0 where NVLS-tree does not run.
double nvls_tree_release_us(const Tables& tab, const Graph& g, schedule::Op op, int ranks, Bytes nbytes,
                            const Tables::Nvls::TreeTunerRule& rule);
// NCCL's NVLS bus bandwidth (tuning.cc): per channel bw_intra x efficiency x (nch-1)/nch, x2 for allreduce
// (NCCL pipelines its reduce and multicast halves) or x(p-1)/p for allgather/reducescatter, capped by
// bw_inter; times the channels. 0 when NVLS does not run this op here.
double nvls_bus_bandwidth(const Tables& tab, const Graph& g, schedule::Op op, int ranks);
// What the NVLS replay carries: NCCL's figure without the bwInter cap on one NVLink domain, where bwInter
// is a search artefact, not a link (tuning.cpp says why); NCCL's figure everywhere else.
double nvls_replay_bus_bandwidth(const Tables& tab, const Graph& g, schedule::Op op, int ranks);
// What the NVLS-tree prediction carries (allreduce across nodes): the smallest of the node's own NVLS figure,
// the heads' NICs and NCCL's per-channel cap, where NCCL's bwIntra is the NIC-bound search speed (tuning.cpp).
double nvls_tree_replay_bus_bandwidth(const Tables& tab, const Graph& g, schedule::Op op, int ranks);
// Both: inter_cap false drops the min(., bwInter) of a one-domain NVLS graph.
double nvls_bus(const Tables& tab, const Graph& g, schedule::Op op, int ranks, bool inter_cap);
// NCCL's NVLS chunk for one channel's share of the buffer (enqueue.cc calcCollChunking, NVLS, one
// node): NCCL_NVLS_CHUNKSIZE, halved by the table's chunk_shrink rows while the share is below
// loops x heads x the chunk so far. `heads`: the NVLS heads (GPUs of the domain, at most max_arity).
double nvls_chunk_bytes(const Tables::Nvls& n, double channel_bytes, int heads);
// Fill and drain of NCCL's NVLS allreduce kernel on one node (device/all_reduce.h): each channel runs
// its share in loops of heads x chunk through scatter, reduce/multicast and gather warps, stages one
// loop apart, so the first loop waits (stages - 1) loop times before the last stage starts: that many
// loops of every channel at the pipeline's algorithm bandwidth. 0 for a one-stage table.
double nvls_pipeline_fill_us(const Tables::Nvls& n, double nbytes, int channels, int heads, double algbw_GBps);
// The part of that fill the replay does not already hold. The replay (schedule::SwitchAllReduce) moves each
// switch's share in `replay_segments` segments, up to the switch and back down: its first segment's two passes
// run in series, one segment time more than its bytes at the pipeline's rate. NCCL's three stages of one loop
// are (stages - 1) loop times more, so the fill charged is that minus the replay's own segment. At 1-8 MiB on
// Hopper (one or two loops of 16 KiB chunks, the replay's one to four segments) the two were charged on top of
// each other: four loop times for a one-loop call whose kernel runs three.
double nvls_replay_fill_us(const Tables::Nvls& n, double nbytes, int channels, int heads, double algbw_GBps,
                           int replay_segments);
// The per-loop handoff that a chunk smaller than NCCL_NVLS_CHUNKSIZE pays on one node (device/all_reduce.h
// RunWorkColl NVLS: every stage runs one Simple primitive per loop; prims_simple.h ScatterGatherOp waits for
// all its peers' flags, copies to each head in turn, barriers, fences at system scope and posts: a fixed cost
// per step, whatever the chunk). Its size is NCCL's own latency of one Simple step on NVLink (tuning.cc
// hwLatencies NVLINK Ring Simple, 3.4 us). NCCL's NVLS efficiency is its figure at NCCL_NVLS_CHUNKSIZE, so it
// already holds the handoff at the full chunk: a loop of chunk c pays s x (1 - c / NCCL_NVLS_CHUNKSIZE) more,
// over the call's (loops + stages - 1) loop steps. 0 where the table does not list the architecture (Hopper is
// not listed: models/README.md, bwnvls section) or for a one-stage table.
double nvls_step_handoff_us(const Tables& tab, const Graph& g, double nbytes, int channels);
// CUDA channels NCCL runs for this size and protocol (search channels x2, shrunk for small messages).
// `logged` > 0: the channel count an NCCL log reports, the start instead of the graph's.
int channels_used(const Tables& tab, const Graph& g, Algo algo, Proto proto, int ranks, Bytes nbytes, int logged = 0);

// NVLS-tree's chunk for nBytes on nch CUDA channels (NCCL 2.30 enqueue.cc calcCollChunking, nvls.cc
// ncclNvlsTuning): min(NCCL_NVLS_CHUNKSIZE, the tree's max chunk), halved for small sizes.
double nvls_tree_chunk_bytes(const Tables& tab, const Graph& g, int nch, Bytes nbytes);
// NVLS-tree's CUDA channels (nvls.cc: 32 for Blackwell across nodes, 24 where ncclNvlsTreeSm100Tuning says so).
int nvls_tree_cuda_channels(const Tables& tab, const Graph& g);
// NVLS's (algo Nvls) or NVLS-tree's (NvlsTree) CUDA channels: the release's count within NCCL_MIN/MAX_CTAS.
int nvls_cuda_channels(const Tables& tab, const Graph& g, Algo algo);
// NCCL's mid-size factor on NVLS-tree's bandwidth (2.29+ ncclTopoGetAlgoTime): the tree's Simple
// treeCorrectionFactor by log2(nBytes/64) up to 512 MiB, on Blackwell with x86 hosts; 1 elsewhere.
double nvls_tree_size_factor(const Tables& tab, const Graph& g, Bytes nbytes);
// The pipeline fill of NVLS-tree that NCCL's closed form lat + bytes/bw leaves out (us): what the stages of
// one loop (reduce through the switch, network hops up and down the tree of nodes, multicast) take beyond
// the switch pass that bytes/bw already counts; one loop of every channel at once, `ranks` the comm's.
double nvls_tree_fill_us(const Tables& tab, const Graph& g, int nch, Bytes nbytes, int ranks);
// NVLS-tree's per-step handoff beyond NCCL's figure at the default chunk (us; negative for a chunk above it):
// (loops + pipeline_stages - 1) x NCCL's NVLink Simple step x (1 - chunk / NCCL_NVLS_CHUNKSIZE), where the tables
// list it (nvls.tree.step_handoff); `nch` CUDA channels.
double nvls_tree_step_handoff_us(const Tables& tab, const Graph& g, int nch, Bytes nbytes);

// The graph's raw bus bandwidth for ring or tree, nChannels x bw, before NCCL's refinements: the tree's own
// per-channel figure (Graph::tree_bw) on 2 nodes.
double graph_bus(const Graph& g, Algo algo);

// The latency terms, shared by the closed form and the replay:
// NCCL's intra-node hop latency, floored on several nodes by the network overhead (x3 for Simple).
double intra_hop_us(const Tables& tab, const Graph& g, Algo algo, Proto proto);
double net_hop_us(const Tables& tab, Algo algo, Proto proto);
// Network hops on the latency path of NCCL's model: ring 2 (nodes - 1) for allreduce, nodes - 1 otherwise;
// tree 2 log2(nodes); NVLS-tree 2 log2i(nodes); 0 on one node and for the other algorithms.
double network_hops(schedule::Op op, Algo algo, int nodes);
// Multi-node ring allreduce with Simple: latency x1.9 (pre-Ampere) or x1.4 once nBytes/(nChannels*nRanks)
// reaches 64 B (NCCL's "plateau" correction); 1 otherwise.
double ring_plateau(const Tables& tab, const Graph& g, schedule::Op op, Proto proto, int ranks, Bytes nbytes);

} // namespace ccsim::model::nccl
