#pragma once
// The latency a net plugin reports to NCCL (ncclNetProperties latency) and NCCL's use of it in its tuner
// (models/README.md "EFA: the plugin's reported latency in NCCL's pick").
#include <algorithm>

#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/tables.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::model::nccl {

// NVIDIA/nccl src/graph/search.cc ncclTopoSearchRecNet sets every graph's latencyInter (NVLS's too) to the NIC's
// reported latency; tuning.cc takes it in place of the NET hwLat in v2.12-v2.17 and from v2.18.1-1 (to v2.30.7-1)
// adds it: interLat = hwLat[NET] + latencyInter, and for Simple once more ("Also add the flush extra latency").
inline constexpr NcclVersion kNetLatencyAddedFrom = {2, 18, 1};

// What the plugin reports for GPUs of `arch` on `t`: the largest over t's network kinds of the named instance's
// table entry (latency_us: aws-ofi-nccl's platform table, RDMA entries too), else the GPU generation's by_arch
// row; 0 where neither states one (NCCL's own IB and socket transports report 0). A figure for NCCL's tuner only.
inline double reported_net_latency_us(const Tables& tab, const topology::Topology& t, Arch arch) {
  double us = 0.0;
  for (const auto& entry : tab.net_kinds) {
    const auto type = entry.first;
    const auto& kind = entry.second;
    const bool present = std::any_of(t.links.begin(), t.links.end(), [type](const topology::Link& l) { return l.type == type; });
    if (!present) continue;
    if (const auto* in = tab.instance_of(type, t.instance)) {
      us = std::max(us, in->latency_us);
      continue;
    }
    const auto tr = kind.by_arch.find(arch);
    if (tr != kind.by_arch.end()) us = std::max(us, tr->second.reported_latency_us);
  }
  return us;
}

} // namespace ccsim::model::nccl
