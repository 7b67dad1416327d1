#include "sim/topology/cloud_machines.hpp"

#include <array>

#include "sim/core/ascii.hpp"

namespace ccsim::topology {

namespace {
// Google's "Networking and GPU machines" page, per machine series (cloud_machines.hpp has the sentences).
constexpr std::array<CloudMachine, 6> kGcp{{
    {"a3-highgpu-8g", "h100", 8, 4, 200.0, LinkType::Tcpx},
    {"a3-megagpu-8g", "h100", 8, 8, 200.0, LinkType::Tcpxo},
    {"a3-ultragpu-8g", "h200", 8, 8, 400.0, LinkType::Gib},
    {"a4-highgpu-8g", "b200", 8, 8, 400.0, LinkType::Gib},
    {"a4x-highgpu-4g", "gb200", 4, 4, 400.0, LinkType::Gib},
    {"a4x-maxgpu-4g-metal", "gb300", 4, 4, 800.0, LinkType::Gib},
}};
// AWS's instance pages, per instance type (cloud_machines.hpp has the figures' sources).
constexpr std::array<CloudMachine, 7> kAws{{
    {"p4d.24xlarge", "a100", 8, 4, 100.0, LinkType::Efa},
    {"p4de.24xlarge", "a100", 8, 4, 100.0, LinkType::Efa},
    {"p5.48xlarge", "h100", 8, 32, 100.0, LinkType::Efa},
    {"p5e.48xlarge", "h200", 8, 32, 100.0, LinkType::Efa},
    {"p5en.48xlarge", "h200", 8, 16, 200.0, LinkType::Efa},
    {"p6-b200.48xlarge", "b200", 8, 8, 400.0, LinkType::Efa},
    {"p6-b300.48xlarge", "b300", 8, 16, 400.0, LinkType::Efa},
}};

// One table's entry by name, any case.
template <std::size_t N>
const CloudMachine* named(const std::array<CloudMachine, N>& table, std::string_view name) {
  const std::string lower = ascii_lower(std::string(name));
  for (const auto& m : table)
    if (m.name == lower) return &m;
  return nullptr;
}
} // namespace

const CloudMachine* cloud_machine(std::string_view name) { return named(kGcp, name); }
const CloudMachine* aws_machine(std::string_view name) { return named(kAws, name); }

} // namespace ccsim::topology
