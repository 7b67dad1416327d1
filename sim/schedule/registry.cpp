#include "sim/schedule/registry.hpp"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "sim/core/ascii.hpp"
#include "sim/core/error.hpp"

namespace ccsim::schedule {

const std::vector<AlgorithmInfo>& all_algorithms() {
  static const std::vector<AlgorithmInfo> table = [] {
    std::vector<AlgorithmInfo> t;
    add_ring_algorithms(t);
    add_chain_algorithms(t);
    add_binomial_algorithms(t);
    add_ps_algorithms(t);
    add_alltoall_algorithms(t);
    add_recursive_doubling_algorithms(t);
    add_halving_doubling_algorithms(t);
    add_bruck_algorithms(t);
    add_torus2d_algorithms(t);
    add_double_binary_tree_algorithms(t);
    add_composed_algorithms(t);
    add_scan_barrier_algorithms(t);
    add_sendrecv_algorithms(t);
    return t;
  }();
  return table;
}

const AlgorithmInfo* find_algorithm(Op op, const std::string& name) {
  for (const auto& a : all_algorithms())
    if (a.op == op && a.name == name) return &a;
  return nullptr;
}

const AlgorithmInfo& require_algorithm(Op op, const std::string& name) {
  if (const auto* a = find_algorithm(op, name)) return *a;
  std::string have;
  for (const auto& a : all_algorithms())
    if (a.op == op) have += (have.empty() ? "" : ", ") + a.name;
  // Names people bring from NCCL (NCCL_ALGO=Tree) and the literature, pointed at ccsim's own.
  static const std::pair<std::string_view, std::string_view> kKnownAs[] = {
      {"tree", "double_binary_tree (NCCL's Tree)"}, {"rabenseifner", "halving_doubling (Rabenseifner)"},
      {"rd", "recursive_doubling"}, {"hd", "halving_doubling"}, {"binary_tree", "double_binary_tree"},
      {"dbt", "double_binary_tree"}};
  std::string hint;
  for (const auto& [said, meant] : kKnownAs)
    if (ascii_lower(name) == said && find_algorithm(op, std::string(meant.substr(0, meant.find(' ')))))
      hint = fmt::format("; for {} give {}", said, meant);
  fail("--algo: no algorithm '{}' for {} (available for {}: {}){}", name, to_string(op), to_string(op), have, hint);
}

bool fit_holds(FormulaFit fit, Time engine, Time formula) {
  switch (fit) {
    case FormulaFit::Exact: return engine == formula;
    case FormulaFit::ExactWithFairSharing: return engine >= formula;
    case FormulaFit::UpperBound: return engine <= formula;
  }
  return false;
}

const std::string& default_algorithm(Op op) {
  if (const auto* ring = find_algorithm(op, "ring")) return ring->name;
  for (const auto& a : all_algorithms())
    if (a.op == op) return a.name;
  fail("--op: no algorithm implements {}", to_string(op));
}

std::vector<std::string> algorithm_names() {
  std::set<std::string> names;
  for (const auto& a : all_algorithms()) names.insert(a.name);
  return {names.begin(), names.end()};
}

} // namespace ccsim::schedule
