// One run, described once: the topology view the jobs run on, the jobs (one per ring, channel or loop,
// each a schedule placed on GPUs), the network model and its parameters, and the fixed overheads a
// model adds around the replay. Every model family builds one of these; execute() is the only way a
// prediction is made, so observers (timeline, link report, critical path) see every model alike.
#pragma once
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/engine/engine.hpp"

namespace ccsim::engine {

// An algorithm/protocol pair a model weighed for one size, with the model's own estimate of it (NCCL's tuning
// model: ncclTopoGetAlgoTime's figure), so that a user sees why the pick won; the replayed time can differ.
struct Weighed {
  std::string algo, proto;
  double time_us = 0;
};

// What a model chose to run (NCCL: algorithm, protocol, CUDA channels, loops or tree segments).
struct Choice {
  std::string algo, proto; // proto empty for the plain models
  int channels = 1;        // concurrent rings or CUDA channels
  int loops = 1;           // NCCL ring loops, or tree pipeline segments
  bool simulated = true;   // false: the model's closed form, no schedule was replayed
  std::string note;        // e.g. "replayed faster than NCCL's pick"
  std::vector<Weighed> weighed; // every pair the model weighed (NCCL's candidates); empty where it weighed none
  std::string outside_tuner;    // why no tuner weighed this size (RCCL's MSCCL all-pairs runs before it); "" otherwise
};

struct RunPlan {
  // Owned by the builder that made the plan, which outlives it.
  const topology::Topology* topo = nullptr;
  topology::Router* router = nullptr;
  std::vector<std::unique_ptr<schedule::Schedule>> schedules; // the jobs' schedules
  std::vector<Job> jobs;
  std::vector<std::string> job_names; // per job, for timelines ("ring 0 loop 3"); empty = "ring <i>"
  const NetworkEntry* network = nullptr;
  ModelParams params;
  Time fixed = 0;                   // added once to the replayed makespan (launch, base latency)
  std::optional<Time> closed_form;  // set: the model's own time, nothing to replay
  Choice choice;
  // > 0: the time the launching host thread spends issuing one iteration, pipelined with the GPU time
  // (makespan + fixed, or the closed form) over `pipeline_iters` back-to-back iterations: execute()
  // returns pipelined_time's per-iteration figure instead of the GPU time (model/launch_overlap.hpp).
  Time host_issue = 0;
  int pipeline_iters = 1;
};

// Per-iteration time of `iters` iterations through two pipelined stages, the host issuing (`host` each)
// and the GPUs running (`gpu` each), each iteration's GPU stage starting once the host has issued it
// and the previous one has run: the slower stage sets the pace, the faster one shows once (the first
// issue before the GPUs start, or the last run after the host is done): (iters x max + min) / iters.
Time pipelined_time(Time host, Time gpu, int iters);

struct Execution {
  Time time = 0; // makespan + fixed (or the closed form)
  RunResult result;
};

// Replays the plan in a fresh engine with these observers. Throws Error on a schedule that deadlocks.
Execution execute(const RunPlan& plan, std::span<Observer* const> observers = {});

// The one way data is split over concurrent jobs (rings, channels, loops): job i gets
// floor(count * w_i / W) elements, and the elements left over go one each to the first jobs. Equal
// weights give schedule::split_block's shares.
std::vector<std::uint64_t> split_by_weight(std::uint64_t count, std::span<const int> weights);
// Appends a job running `s` with rank i on GPU gpus[i] of plan.topo.
void add_job(RunPlan& plan, std::unique_ptr<schedule::Schedule> s, std::span<const int> gpus, Bytes elt_size);

} // namespace ccsim::engine
