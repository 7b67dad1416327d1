// Test helper shared by the topology tests: how many nodes of a kind a topology holds.
#pragma once
#include "sim/topology/topology.hpp"

namespace ccsim::test {
inline int count_kind(const topology::Topology& t, topology::NodeKind k) {
  int n = 0;
  for (const auto& node : t.nodes) n += node.kind == k;
  return n;
}
} // namespace ccsim::test
