#include "sim/cli/common.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <set>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"

namespace ccsim::cli {

namespace {
int gpu_number(const std::string& item, const std::string& flag) {
  try {
    std::size_t used = 0;
    const int g = std::stoi(item, &used);
    if (used != item.size()) throw 0;
    return g;
  } catch (...) {
    fail("{}: '{}' is not a GPU number", flag, item);
  }
}

// "A..B" is the inclusive range; anything else one GPU number. A range's length is bounded by the topology's
// GPU count (checked per GPU below), so a huge B fails on its first missing GPU instead of allocating.
std::vector<int> expand_item(const std::string& item, const std::string& flag, int num_gpus) {
  const auto dots = item.find("..");
  if (dots == std::string::npos) return {gpu_number(item, flag)};
  const int a = gpu_number(item.substr(0, dots), flag), b = gpu_number(item.substr(dots + 2), flag);
  if (b < a) fail("{}: range '{}' runs backwards (write {}..{})", flag, item, b, a);
  std::vector<int> out;
  for (long g = a; g <= b && out.size() <= static_cast<std::size_t>(num_gpus) + 1; ++g) out.push_back(static_cast<int>(g));
  return out;
}
// "-1" would otherwise read as GPU 1 ('-' separates a ring order): an empty item between separators is refused.
void check_no_empty_item(const std::string& text, const std::string& flag) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ',' && text[i] != '-') continue;
    if (text.find_first_not_of(" \t", start) >= i)
      fail("{}: '{}' has an empty item (a stray '-' or ','): GPU numbers are 0 or more", flag, text);
    start = i + 1;
  }
}
} // namespace

std::vector<int> parse_gpu_list(const std::string& text, const std::string& flag, const topology::Topology& t,
                                bool one_based) {
  check_no_empty_item(text, flag);
  // "0-63" reads as a range to most people, but '-' separates a ring order ("0-3-2-1"): two numbers joined by
  // one '-' that are not neighbours are refused rather than guessed.
  if (const auto dash = text.find('-'); dash != std::string::npos && text.find_first_of("-,. \t", dash + 1) == std::string::npos &&
                                        text.find_first_of(",. \t") == std::string::npos) {
    const int a = gpu_number(text.substr(0, dash), flag), b = gpu_number(text.substr(dash + 1), flag);
    if (b - a > 1 || a - b > 1)
      fail("{}: '{}' is ambiguous: write {}..{} for the GPUs from {} to {}, or {},{} for these two GPUs", flag, text, std::min(a, b),
           std::max(a, b), std::min(a, b), std::max(a, b), a, b);
  }
  std::string norm = text;
  for (auto& c : norm)
    if (c == ',' || c == '\t' || c == '-') c = ' ';
  std::stringstream ss(norm);
  std::string item;
  std::vector<int> out;
  std::set<int> seen;
  std::vector<int> gs;
  while (ss >> item) {
    for (int g : expand_item(item, flag, t.num_gpus())) gs.push_back(g);
  }
  for (int g : gs) {
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
  check_no_empty_item(text, flag);
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

void write_stdout(std::string_view content) {
  errno = 0;
  std::cout << content << std::flush;
  if (std::cout) return;
  // A full disk behind `> file` (or /dev/full) loses the table: say so and exit 2, as for --output, not 0.
  const int err = errno;
  std::cout.clear();
  fail("standard output: write failed{}{}", err ? ": " : "", err ? std::strerror(err) : "");
}

void write_output(const std::string& path, const std::string& content, std::string_view flag) {
  if (path.empty() || path == "-") return write_stdout(content);
  outputs().add(path, content, flag);
}

schedule::Op require_op(const std::string& op, const std::string& flag) {
  if (const auto known = schedule::op_from(op)) return *known;
  std::string names;
  for (const auto o : schedule::kAllOps) names += (names.empty() ? "" : ", ") + std::string(schedule::to_string(o));
  fail("{}: unknown collective '{}' ({})", flag, printable(op, 40), names);
}

int& command_status() {
  static int status = 0;
  return status;
}

} // namespace ccsim::cli
