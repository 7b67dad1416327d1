// The run configuration the NCCL-model tests start from: one op over the rings ccsim's packer finds.
#pragma once
#include "sim/metrics/sweep.hpp"
#include "sim/model/nccl/builder.hpp"
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
} // namespace ccsim::test
