#include "sim/model/nccl/rings_v24.hpp"

#include <algorithm>
#include <cstddef>

#include <fmt/format.h>

namespace ccsim::model::nccl {
using topology::NodeKind;

namespace {
using Matrix = std::vector<std::vector<int>>;

// Every directed Hamiltonian cycle from rank 0 over hops with a lane, as rank orders.
void all_cycles(const Matrix& lanes, std::vector<int>& path, std::vector<bool>& used, std::vector<std::vector<int>>& out) {
  const std::size_t n = lanes.size();
  const auto last = static_cast<std::size_t>(path.back());
  if (path.size() == n) {
    if (lanes[last][0] > 0) out.push_back(path);
    return;
  }
  for (std::size_t j = 1; j < n; ++j)
    if (!used[j] && lanes[last][j] > 0) {
      used[j] = true;
      path.push_back(static_cast<int>(j));
      all_cycles(lanes, path, used, out);
      path.pop_back();
      used[j] = false;
    }
}

struct Packer {
  const std::vector<std::vector<int>>& cycles;
  Matrix left; // lanes not yet taken
  int limit = 0;
  long budget = 0; // visits left
  std::vector<int> taken, best_taken;

  bool fits(const std::vector<int>& c) const {
    for (std::size_t i = 0; i < c.size(); ++i)
      if (left[static_cast<std::size_t>(c[i])][static_cast<std::size_t>(c[(i + 1) % c.size()])] <= 0) return false;
    return true;
  }
  void take(const std::vector<int>& c, int d) {
    for (std::size_t i = 0; i < c.size(); ++i) left[static_cast<std::size_t>(c[i])][static_cast<std::size_t>(c[(i + 1) % c.size()])] -= d;
  }
  // A ring leaves every rank once: no rank can start more rings than the lanes it has left.
  int bound() const {
    int b = limit;
    for (const auto& row : left) {
      int out = 0;
      for (int l : row) out += l;
      b = std::min(b, out);
    }
    return b;
  }
  // Multisets of cycles (index never decreasing), largest kept.
  void search(std::size_t from) {
    if (taken.size() > best_taken.size()) best_taken = taken;
    if (static_cast<int>(best_taken.size()) >= limit || --budget <= 0) return;
    if (static_cast<int>(taken.size()) + bound() <= static_cast<int>(best_taken.size())) return;
    for (std::size_t k = from; k < cycles.size(); ++k) {
      if (!fits(cycles[k])) continue;
      take(cycles[k], 1);
      taken.push_back(static_cast<int>(k));
      search(k);
      taken.pop_back();
      take(cycles[k], -1);
      if (static_cast<int>(best_taken.size()) >= limit || budget <= 0) return;
    }
  }
};

// getNvlinkGpu: the NVLinks of a GPU that end on another GPU of the set, or on an NVSwitch.
struct Lanes {
  Matrix direct;
  std::vector<int> to_switch;
};
Lanes lanes_of(const topology::Topology& t, const std::vector<int>& gpus) {
  const std::size_t n = gpus.size();
  Lanes out{Matrix(n, std::vector<int>(n, 0)), std::vector<int>(n, 0)};
  std::vector<int> rank_of_node(t.nodes.size(), -1);
  for (std::size_t r = 0; r < n; ++r) rank_of_node[static_cast<std::size_t>(t.gpu_node(gpus[r]))] = static_cast<int>(r);
  for (const auto& l : t.links) {
    if (!topology::is_nvlink(l.type)) continue;
    const int ra = rank_of_node[static_cast<std::size_t>(l.a)], rb = rank_of_node[static_cast<std::size_t>(l.b)];
    const auto kind_a = t.nodes[static_cast<std::size_t>(l.a)].kind, kind_b = t.nodes[static_cast<std::size_t>(l.b)].kind;
    if (ra >= 0 && rb >= 0 && ra != rb) {
      out.direct[static_cast<std::size_t>(ra)][static_cast<std::size_t>(rb)] += l.lanes;
      out.direct[static_cast<std::size_t>(rb)][static_cast<std::size_t>(ra)] += l.lanes;
    } else if (ra >= 0 && kind_b == NodeKind::NvSwitch) {
      out.to_switch[static_cast<std::size_t>(ra)] += l.lanes;
    } else if (rb >= 0 && kind_a == NodeKind::NvSwitch) {
      out.to_switch[static_cast<std::size_t>(rb)] += l.lanes;
    }
  }
  return out;
}

std::vector<int> rank_order(std::size_t n) {
  std::vector<int> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = static_cast<int>(i);
  return r;
}
} // namespace

int max_ring_packing(const std::vector<std::vector<int>>& lanes, int limit, std::vector<std::vector<int>>* orders, bool* complete) {
  if (orders) orders->clear();
  if (complete) *complete = true;
  if (lanes.size() < 2 || limit <= 0) return 0;
  std::vector<std::vector<int>> cycles;
  std::vector<int> path{0};
  std::vector<bool> used(lanes.size(), false);
  used[0] = true;
  all_cycles(lanes, path, used, cycles);
  // Every subset of a DGX-1 (V100 or P100) settles well inside the budget; a dense mesh (8 GPUs all
  // linked, one pair doubled) does not settle in minutes, nor would 2.4's own search.
  constexpr long kBudget = 50'000;
  Packer p{cycles, lanes, limit, kBudget, {}, {}};
  p.search(0);
  if (complete) *complete = p.budget > 0;
  if (orders)
    for (int k : p.best_taken) orders->push_back(cycles[static_cast<std::size_t>(k)]);
  return static_cast<int>(p.best_taken.size());
}

std::optional<ReleaseRings> release_rings(const Tables::ThresholdRule& rule, const std::vector<std::vector<int>>& lanes,
                                          const std::vector<int>& switch_lanes) {
  const std::size_t n = lanes.size();
  if (rule.ring_dup <= 0 || n < 2 || switch_lanes.size() != n) return std::nullopt;
  ReleaseRings out;
  const auto on_switch = std::count_if(switch_lanes.begin(), switch_lanes.end(), [](int l) { return l > 0; });
  if (on_switch > 0) {
    // rings = min(MAXCHANNELS, the switch NVLinks), all in rank order (p2pComputeRingsSeqNew).
    const int links = *std::min_element(switch_lanes.begin(), switch_lanes.end());
    if (static_cast<std::size_t>(on_switch) != n || links != *std::max_element(switch_lanes.begin(), switch_lanes.end()))
      return std::nullopt; // 2.4 expects the same switch lanes on every GPU ("NVswitch links mismatch")
    out.kind = ReleaseRings::Kind::NvSwitch;
    out.rings = std::min(rule.max_channels, links);
    out.orders.assign(static_cast<std::size_t>(out.rings), rank_order(n));
  } else {
    // p2pGetRings takes the NVLink search only when every rank has an NVLink into the set.
    const bool all_nvlink = std::all_of(lanes.begin(), lanes.end(), [](const std::vector<int>& row) {
      return std::any_of(row.begin(), row.end(), [](int l) { return l > 0; });
    });
    if (!all_nvlink) {
      out.kind = ReleaseRings::Kind::Pci; // p2pComputeRingsPci / shm: one ring when nothing is to connect
      out.rings = out.channels = 1;
      return out;
    }
    if (static_cast<int>(n) > rule.ring_search_max_ranks) return std::nullopt; // "cannot work for >8 GPUs"
    out.kind = ReleaseRings::Kind::NvLink;
    out.rings = max_ring_packing(lanes, rule.max_channels, &out.orders, &out.search_complete);
    if (out.rings > 0 && out.rings < rule.max_channels && static_cast<int>(n) <= rule.oversubscribe_max_ranks) {
      Matrix twice = lanes;
      for (auto& row : twice)
        for (int& l : row) l *= 2;
      std::vector<std::vector<int>> orders2;
      bool complete2 = true;
      if (const int more = max_ring_packing(twice, rule.max_channels, &orders2, &complete2); more > 2 * out.rings) {
        out.search_complete = complete2;
        out.rings = more;
        out.orders = std::move(orders2);
        out.oversubscribed = true;
      }
    }
    if (out.rings == 0) {
      out.kind = ReleaseRings::Kind::NoRing; // "Could not create rings, falling back on simple ring"
      out.channels = 1;
      return out;
    }
  }
  out.channels = std::min(rule.max_channels, out.rings * rule.ring_dup);
  return out;
}

std::optional<ReleaseRings> release_rings_for(const topology::Topology& t, const Tables::ThresholdRule& rule, const std::vector<int>& gpus) {
  if (gpus.size() < 2) return std::nullopt;
  const auto hosts = topology::host_map(t);
  for (int g : gpus)
    if (hosts.of_gpu(t, g) != hosts.of_gpu(t, gpus.front())) return std::nullopt;
  const Lanes l = lanes_of(t, gpus);
  return release_rings(rule, l.direct, l.to_switch);
}

std::string describe(const ReleaseRings& r) {
  switch (r.kind) {
    case ReleaseRings::Kind::NvSwitch:
      return fmt::format("NCCL 2.4 rings: {} (one per NVSwitch NVLink), each run twice = {} channel(s)", r.rings, r.channels);
    case ReleaseRings::Kind::NvLink:
      return fmt::format("NCCL 2.4 rings: {}{} found on direct NVLink{}, each run twice = {} channel(s)", r.search_complete ? "" : "at least ",
                         r.rings, r.oversubscribed ? " (lanes shared twice)" : "", r.channels);
    case ReleaseRings::Kind::NoRing:
      return "NCCL 2.4 rings: no NVLink ring through every GPU, one ring in rank order = 1 channel";
    case ReleaseRings::Kind::Pci:
      break;
  }
  return "NCCL 2.4 rings: 1 (no NVLink), 1 channel";
}

} // namespace ccsim::model::nccl
