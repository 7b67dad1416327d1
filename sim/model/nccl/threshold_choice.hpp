// NCCL's algorithm and protocol choice before its tuning model (NCCL 2.4.x; models/nccl.json
// threshold_choice_by_version): LL while the size stays under a threshold worked from the threads and
// channels LL would run, on only the channels that size fills, Simple on all of them above; the tree for
// allreduce across nodes up to a crossover of fixed ring and tree latency and bandwidth figures. From
// NCCL 2.5.6 on, src/graph/tuning.cc's model (tuning.hpp) decides instead.
#pragma once
#include <cstdint>
#include <optional>

#include "sim/core/units.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/schedule/collective.hpp"

namespace ccsim::model::nccl {

// The rule of release `v` (the one whose [from, until) holds it); nullptr without a version or one.
const Tables::ThresholdRule* threshold_rule(const Tables& tab, const std::optional<NcclVersion>& v);

// comm->threadThreshold: per-thread bytes before LL gives way (pre-Volta lower), doubled across nodes.
int thread_threshold(const Tables::ThresholdRule& r, int sm, int nodes);
// comm->treeThreshold (bytes): the tree for allreduce up to it. 0 on one node; INT64_MAX where the tree's
// bandwidth figure beats the ring's (2 nodes with NVLink).
std::int64_t tree_threshold(const Tables::ThresholdRule& r, bool nvlink, int nodes, int ranks, int channels);

struct LlPick {
  bool ll = false;
  int threads = 0, channels = 0;  // what NCCL launches: LL's threads and channels, or Simple's all
  std::int64_t threshold = 0;     // the LL threshold this size computed (bytes)
};
// getKernelInfo for nBytes with `chunks_per_loop` chunks (nRanks for ring patterns, 1 for tree/pipeline).
LlPick ll_pick(const Tables::ThresholdRule& r, std::int64_t nbytes, int chunks_per_loop, bool tree_pattern, int thread_thr, int channels);

struct ThresholdChoice {
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  int channels = 1;
};
// The release's pick for one collective: `channels` is comm->nChannels (capped at the rule's maximum);
// `only` Ring/Tree restrict the algorithm (NCCL_TREE_THRESHOLD 0 / unbounded). nullopt: an op the rule
// does not cover (NCCL's P2P paths).
std::optional<ThresholdChoice> threshold_choice(const Tables::ThresholdRule& r, schedule::Op op, int ranks, int nodes, bool nvlink,
                                                int sm, int channels, Bytes nbytes, std::optional<Algo> only);

} // namespace ccsim::model::nccl
