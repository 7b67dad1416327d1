#include "sim/cli/common.hpp"

#include <iostream>
#include <set>
#include <sstream>

#include "sim/core/error.hpp"

namespace ccsim::cli {

std::vector<int> parse_gpu_list(const std::string& text, const std::string& flag, const topology::Topology& t,
                                bool one_based) {
  std::string norm = text;
  for (auto& c : norm)
    if (c == ',' || c == '-' || c == '\t') c = ' ';
  std::stringstream ss(norm);
  std::string item;
  std::vector<int> out;
  std::set<int> seen;
  while (ss >> item) {
    int g = 0;
    try {
      std::size_t used = 0;
      g = std::stoi(item, &used);
      if (used != item.size()) throw 0;
    } catch (...) {
      fail("{}: '{}' is not a GPU number", flag, item);
    }
    if (one_based) --g;
    if (g < 0 || g >= t.num_gpus())
      fail("{}: GPU {} does not exist ({} has GPUs {}..{})", flag, one_based ? g + 1 : g, t.name, one_based ? 1 : 0,
           t.num_gpus() - (one_based ? 0 : 1));
    if (!seen.insert(g).second) fail("{}: GPU {} appears twice (a ring must be a permutation)", flag, one_based ? g + 1 : g);
    out.push_back(g);
  }
  if (out.empty()) fail("{}: empty GPU list", flag);
  return out;
}

std::vector<int> parse_ring_order(const std::string& text, const std::string& flag, const topology::Topology& t,
                                  bool one_based) {
  std::string norm = text;
  for (auto& c : norm)
    if (c == ',' || c == '-' || c == '\t') c = ' ';
  std::stringstream ss(norm);
  std::vector<std::string> items;
  for (std::string item; ss >> item;) items.push_back(item);
  if (items.size() > 2 && items.back() == items.front()) items.pop_back();
  std::string joined;
  for (const auto& i : items) joined += i + " ";
  return parse_gpu_list(joined, flag, t, one_based);
}

std::vector<std::vector<int>> parse_ring_list(const std::string& text, const std::string& flag,
                                              const topology::Topology& t, bool one_based) {
  std::vector<std::vector<int>> rings;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, '|')) rings.push_back(parse_ring_order(part, flag, t, one_based));
  if (rings.empty()) fail("{}: no ring given", flag);
  for (const auto& r : rings) {
    if (r.size() != rings.front().size()) fail("{}: rings visit different numbers of GPUs", flag);
    if (std::set<int>(r.begin(), r.end()) != std::set<int>(rings.front().begin(), rings.front().end()))
      fail("{}: every ring must visit the same GPUs", flag);
  }
  return rings;
}

OutputSet& outputs() {
  static OutputSet set;
  return set;
}

void write_output(const std::string& path, const std::string& content) {
  if (path.empty() || path == "-") {
    std::cout << content << std::flush;
    return;
  }
  outputs().add(path, content);
}

} // namespace ccsim::cli
