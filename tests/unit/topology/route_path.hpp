// Test helper shared by the routing tests: a route as the node names it passes, so expected routes are
// written by hand as names.
#pragma once
#include <span>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "sim/topology/topology.hpp"

namespace ccsim::test {
// Node names along a route, both ends included; also checks that the channels chain up from src, and end at
// dst unless dst is -1.
inline std::vector<std::string> route_names(const topology::Topology& t, std::span<const topology::ChannelId> route,
                                            int src, int dst = -1) {
  std::vector<std::string> names{t.nodes[static_cast<std::size_t>(src)].name};
  int at = src;
  for (auto c : route) {
    REQUIRE(t.channel_from(c) == at);
    at = t.channel_to(c);
    names.push_back(t.nodes[static_cast<std::size_t>(at)].name);
  }
  if (dst >= 0) REQUIRE(at == dst);
  return names;
}
} // namespace ccsim::test
