// One training step of a hybrid-parallel transformer (tp x cp x pp x dp, ep inside dp) as ONE engine run:
// every tensor-parallel group's program (compute as waits, its collectives as engine jobs, in the
// pipeline schedule's order), the pipeline sends between stages, the expert all-to-alls, the
// context-parallel gathers and the data-parallel gradient buckets are jobs of the same run, linked by
// engine::Job::after. Collectives that share a link (a TP allreduce and a DP reduce-scatter on one
// NVLink or NIC) slow each other down there, whatever the network model (nccl included).
#pragma once
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/scenario/hybrid.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::scenario {

// What the step's communication is for: one row of the breakdown and one timeline track each.
enum class CommKind { Tp, Cp, Ep, Pp, Dp, Zero };
inline constexpr CommKind kCommKinds[] = {CommKind::Tp, CommKind::Cp, CommKind::Ep, CommKind::Pp, CommKind::Dp, CommKind::Zero};
std::string_view to_string(CommKind k);

// A slice of the timeline: compute, a collective, or a wait for the previous pipeline stage.
struct TimelineSlice {
  int stage = 0;          // pipeline stage of the chain (-1: data-parallel stream)
  std::string track;      // "compute", "tp", "pp wait", "dp", ...
  std::string label;      // "F3 layer 5 attn", "allreduce 16 MiB"
  Time begin = 0, end = 0;
};

// The collectives of one kind, operation, group size and buffer size, and how they ran: a step's sizes and, under
// --model nccl, NCCL's algorithm, protocol and channels for each (the model's choice for the first such group;
// "varies" when groups of the same shape got different choices).
struct CollectiveShape {
  int count = 0;
  std::string algo, proto; // empty: nothing replayed (a group of one, or a pipeline send)
  int channels = 0;
  bool simulated = true; // false: the model's closed form (a wait, no link use)
};
using ShapeKey = std::tuple<CommKind, std::string, int, Bytes>; // kind, op, GPUs in the group, buffer bytes

struct HybridResult {
  Time step = 0;
  // Along the first stage's chain of the first replica (pipeline stage 0, every other index 0): time
  // computing, time waiting on each kind of collective it blocks on (exposed), time waiting for the
  // previous or next stage (the pipeline bubble, with the send's own time), and the tail after its last
  // backward until the data-parallel exchange ends.
  Time compute = 0, bubble = 0, tail = 0;
  std::map<CommKind, Time> exposed;
  std::map<CommKind, Bytes> bytes_per_gpu; // bytes one GPU sends per step in each kind (first stage)
  std::map<CommKind, int> collectives;     // collectives per step in the whole machine
  std::map<ShapeKey, CollectiveShape> shapes; // the same, by operation and size, with the model's choice
  Time ideal = 0;        // the first stage's compute with no communication and no bubble
  std::size_t jobs = 0;
  std::uint64_t transfers = 0;
  Memory memory;
  double memory_capacity = 0; // bytes of the GPU kind's memory (0 = unknown)
  double peak_flops = 0;
  double model_flops_per_gpu = 0; // Narayanan et al.'s model FLOPs / (step x GPUs)
  std::string gpu_kind, model_name;
  std::vector<TimelineSlice> timeline; // the first replica's chains and its data-parallel streams
};

// Simulates one step of `s` (which has s.hybrid) on `topo`. Throws Error (one line, naming the file)
// when the machine has too few GPUs, the GPU's peak or memory is unknown, or the configuration does not
// fit in memory and neither the file nor `allow_oversubscribed` allows it.
HybridResult run_hybrid_step(const Scenario& s, const topology::Topology& topo, bool allow_oversubscribed);

} // namespace ccsim::scenario
