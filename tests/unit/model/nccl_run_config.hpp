// The run configuration the NCCL-model tests start from: one op over the rings ccsim's packer finds.
#pragma once
#include <numeric>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/model/nccl/proto_list.hpp"
#include "sim/model/registry.hpp"
#include "sim/schedule/collective.hpp"
#include "sim/topology/ring_search.hpp"

namespace ccsim::test {
inline metrics::RunConfig packed_rings_config(const topology::Topology& t, schedule::Op op = schedule::Op::AllReduce) {
  metrics::RunConfig c;
  c.op = op;
  c.placements = topology::pack_rings(t, {}).rings;
  return c;
}

// NCCL's graph of a topology over those rings, with the shipped tables and no channel overrides.
inline model::nccl::Graph packed_graph(const topology::Topology& t) {
  return model::nccl::make_graph(t, model::nccl::load_tables(), packed_rings_config(t).placements, "");
}

// Issue 14's invariant: for one algorithm and protocol, predicted busbw never falls (beyond rounding) as the
// size doubles from `from` to `to`; a change of pick may go either way.
inline void check_busbw_never_falls(metrics::PlanBuilder& b, const metrics::RunConfig& cfg, int gpus, Bytes from, Bytes to) {
  std::string last_choice;
  double last_busbw = 0;
  for (Bytes size = from; size <= to; size *= 2) {
    const auto row = metrics::run(b, cfg, metrics::plan_size(cfg.op, gpus, size, 4));
    const std::string choice = row.choice.algo + "/" + row.choice.proto;
    CAPTURE(size);
    CAPTURE(choice);
    if (choice == last_choice) CHECK(row.bw.busbw_GBps >= last_busbw * (1 - 1e-6));
    last_choice = choice;
    last_busbw = row.bw.busbw_GBps;
  }
}

// One allreduce of `size` bytes under --model nccl with parameter set `p`, one launching thread driving
// `gpus_per_thread` GPUs, in us; lockstep replays as calibrate does (engine::Semantics::mpi).
inline double predict_allreduce_us(const topology::Topology& t, const model::ParamSet& p, int gpus_per_thread, Bytes size,
                                   bool lockstep = false) {
  model::ModelOptions o;
  o.params = p;
  o.gpus_per_thread = gpus_per_thread;
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c = packed_rings_config(t);
  c.model_name = "nccl";
  if (lockstep) c.model.semantics = engine::Semantics::mpi;
  return to_us(metrics::run(*b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4)).time);
}

// Sendrecv (rank r to r + 1) over every GPU of `t` in GPU order, under the bare --model nccl (NCCL's figures, no
// fitted efficiencies) of NCCL release `version` ("" = the tables').
inline metrics::Row bare_sendrecv(const topology::Topology& t, const std::string& version, Bytes size) {
  model::ModelOptions o;
  o.nccl_version = version;
  auto b = model::make_model("nccl", t, o);
  metrics::RunConfig c;
  c.op = schedule::Op::SendRecv;
  c.model_name = "nccl";
  std::vector<int> all(static_cast<std::size_t>(t.num_gpus()));
  std::iota(all.begin(), all.end(), 0);
  c.placements = {all};
  return metrics::run(*b, c, metrics::plan_size(c.op, t.num_gpus(), size, 4));
}
// One allreduce of `size` bytes under the bare --model nccl (NCCL's figures, no fitted efficiencies) with the
// algorithm and protocols forced (`protos` as NCCL_PROTO), over the packed rings of every GPU.
inline metrics::Row bare_forced_allreduce(const topology::Topology& t, model::nccl::AlgoMode mode, const std::string& protos, Bytes size) {
  model::nccl::Options o;
  o.params = model::ParamSet{};
  o.mode = mode;
  o.protos = model::nccl::proto_set_from(protos);
  model::nccl::Builder b(t, o);
  const auto c = packed_rings_config(t);
  return metrics::run(b, c, metrics::plan_size(c.op, metrics::ranks_of(c), size, 4));
}
} // namespace ccsim::test
