#include "sim/topology/gpu_catalogue.hpp"
#include "sim/core/edit_distance.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_io.hpp"

namespace ccsim::topology {

namespace {
// The kind whose product name occurs in `text` as whole words (defined below gpu_kind_from_product).
std::optional<std::string> product_kind(std::string_view text, bool ignore_case);
} // namespace
using nlohmann::json;

std::string gpu_table_path() { return data_dir() + "/models/gpus.json"; }

const json& gpu_table() {
  static const json table = [] {
    const std::string path = gpu_table_path();
    std::ifstream f(path);
    if (!f) fail("cannot open the GPU table {}", path);
    json j;
    try {
      j = json_parse(f);
    } catch (const std::exception& e) {
      fail("{} is not valid JSON ({})", path, std::string(e.what()).substr(0, 80));
    }
    if (!j.contains("gpus") || !j["gpus"].is_object() || !j.contains("pcie") || !j["pcie"].is_object())
      fail("{}: needs \"gpus\" and \"pcie\" objects", path);
    return j;
  }();
  return table;
}

std::vector<std::string> gpu_kind_names() {
  std::vector<std::string> names;
  for (const auto& [name, g] : gpu_table()["gpus"].items()) names.push_back(name);
  return names;
}

std::string gpu_kind_list(std::string_view separator) {
  std::string known;
  for (const auto& n : gpu_kind_names()) known += (known.empty() ? "" : std::string(separator)) + n;
  return known;
}

std::string canonical_gpu_kind(const std::string& name) {
  const json& gpus = gpu_table()["gpus"];
  if (gpus.contains(name)) return name;
  // "A100-PCIe", "h100_pcie", "A6000": case, dashes and underscores dropped; workstation cards may omit "rtx".
  std::string key;
  for (char c : name)
    if (c != '-' && c != '_' && c != ' ') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (gpus.contains(key)) return key;
  if (gpus.contains("rtx" + key)) return "rtx" + key;
  // A name as sold or as nvidia-smi prints it ("H200-SXM", "H100 SXM5", "A100-SXM4-80GB"): the product names
  // nvidia-smi -L is read with, matched without case.
  if (auto k = product_kind(name, true)) return *k;
  return name;
}

PcieGen pcie_gen(const std::string& name, const std::string& who) {
  const json& t = gpu_table()["pcie"];
  if (!t.contains(name)) fail("{}: unknown PCIe generation '{}'", who, name);
  const json& p = t[name];
  const std::string where = gpu_table_path() + ": pcie." + name;
  PcieGen g;
  g.name = name;
  g.type = link_type_from(name).value_or(LinkType::Pcie4);
  g.bw = parse_bandwidth(p.at("bw").get<std::string>(), where);
  g.nop2p_bw = parse_bandwidth(p.at("nop2p_bw").get<std::string>(), where);
  g.latency = parse_duration(p.at("latency").get<std::string>(), where);
  g.gts = p.at("gts").get<int>();
  g.source = p.at("source").get<std::string>();
  return g;
}

std::optional<std::string> pcie_gen_of_rate(double gts) {
  for (const auto& [name, p] : gpu_table()["pcie"].items())
    if (std::abs(p.value("gts", 0) - gts) < 0.5) return name;
  return std::nullopt;
}

namespace {

// "; did you mean h20 or h200?" for a kind one or two edits away from `name`, or one `name` starts with ("b300hgx":
// b300), as the words machine: reads them (case, '-', '_' and spaces left out); "." when none is near.
std::string nearest_kinds(const std::string& name) {
  std::string key;
  for (char c : name)
    if (c != '-' && c != '_' && c != ' ') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::pair<std::size_t, std::string>> near;
  for (const auto& k : gpu_kind_names()) {
    const std::size_t d = key.starts_with(k) && k.size() >= 2 ? 0 : edit_distance(key, k);
    if (d <= (key.size() <= 3 ? 1u : 2u)) near.emplace_back(d, k);
  }
  if (near.empty()) return ".";
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  if (near.size() > 3) near.resize(3);
  std::string s;
  for (std::size_t i = 0; i < near.size(); ++i) s += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + near[i].second;
  return "; did you mean " + s + "?";
}

} // namespace

GpuKind gpu_kind(const std::string& name, const std::string& who) {
  const json& gpus = gpu_table()["gpus"];
  if (!gpus.contains(name)) {
    // A kind not in the catalogue is refused, never guessed: its links decide every prediction.
    fail("{}: unknown gpu '{}' (known: {}){} A GPU missing there is added to {} with its datasheet's figures", who, name,
         gpu_kind_list(", "), nearest_kinds(name), gpu_table_path());
  }
  const json& g = gpus[name];
  const std::string where = gpu_table_path() + ": gpus." + name;
  try {
    GpuKind k;
    k.name = name;
    k.vendor = g.at("vendor").get<std::string>();
    k.arch = g.at("arch").get<std::string>();
    k.nccl_arch = g.at("nccl_arch").get<std::string>();
    k.sm = g.at("sm").is_string() ? g.at("sm").get<std::string>() : std::to_string(g.at("sm").get<int>());
    k.memory_gb = g.at("memory_gb").get<int>();
    k.pcie = pcie_gen(g.at("pcie").get<std::string>(), where);
    k.p2p_pcie = g.at("p2p_pcie").get<bool>();
    if (g.contains("nvlink")) {
      k.nvlink = link_type_from(g["nvlink"].get<std::string>());
      k.nvlinks = g.at("nvlinks").get<int>();
    }
    if (g.contains("bridge")) {
      k.bridge = link_type_from(g["bridge"].get<std::string>());
      k.bridge_links = g.at("bridge_links").get<int>();
    }
    if (g.contains("nvlink_bw")) k.nvlink_bw = parse_bandwidth(g["nvlink_bw"].get<std::string>(), where);
    if (g.contains("xgmi_links")) {
      k.xgmi_links = g["xgmi_links"].get<int>();
      k.xgmi_bw = parse_bandwidth(g.at("xgmi_bw").get<std::string>(), where);
    }
    // Board shapes machine: reads; a group divides a GPU's links among its peers, so it has at least 2 GPUs.
    const std::pair<const char*, int> shapes[] = {{"bridge_group", 2}, {"mesh_group", 2}, {"xgmi_hive", 2},
                                                  {"gcds", 1},         {"gcd_links", 1},  {"ring_links", 1}};
    for (const auto& [key, least] : shapes)
      if (g.contains(key) && (!g[key].is_number_integer() || g[key].get<int>() < least || g[key].get<int>() > 72))
        fail("{}: {} must be a whole number from {} to 72", where, key, least);
    if (g.contains("nvswitch_domain") && (!g["nvswitch_domain"].is_number_integer() || g["nvswitch_domain"].get<int>() < 2 ||
                                          g["nvswitch_domain"].get<int>() > 1024))
      fail("{}: nvswitch_domain must be a whole number from 2 to 1024", where);
    if (g.contains("intra") && (!g["intra"].is_string() ||
                                (g["intra"] != "mesh" && g["intra"] != "bridge" && g["intra"] != "pcie" && g["intra"] != "cubemesh")))
      fail("{}: intra must be mesh, bridge, pcie or cubemesh", where);
    if (g.value("intra", "") == "mesh" && !g.contains("mesh_group")) fail("{}: intra mesh needs mesh_group", where);
    // A direct mesh splits the GPU's NVLinks evenly over its peers (HGX A100 4-GPU: 12 = 3 x 4, GH200: 18 = 3 x 6).
    if (g.contains("mesh_group") && (!g.contains("nvlinks") || g["nvlinks"].get<int>() % (g["mesh_group"].get<int>() - 1) != 0))
      fail("{}: mesh_group {} does not split the GPU's NVLinks evenly over its peers", where, g["mesh_group"].get<int>());
    k.source = g.at("source").get<std::string>();
    return k;
  } catch (const json::exception& e) {
    fail("{}: {}", where, std::string(e.what()).substr(0, 120));
  }
}

std::optional<std::string> gpu_kind_from_product(std::string_view text) { return product_kind(text, false); }

namespace {
std::optional<std::string> product_kind(std::string_view typed, bool ignore_case) {
  std::string upper;
  if (ignore_case) {
    for (char c : typed) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    typed = upper;
  }
  const std::string_view text = typed;
  // Longest name first: "A100-PCIE" must win over "A100", "RTX A6000" over nothing shorter.
  std::vector<std::pair<std::string, std::string>> names; // (product name, kind)
  for (const auto& [kind, g] : gpu_table()["gpus"].items())
    if (g.contains("names") && g["names"].is_array())
      for (const auto& n : g["names"])
        if (n.is_string()) names.emplace_back(n.get<std::string>(), kind);
  if (ignore_case)
    for (auto& n : names)
      for (auto& c : n.first) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::stable_sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  // A name matches only as whole words: "NVIDIA L4" is not inside "NVIDIA L40S".
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (const auto& [product, kind] : names)
    for (auto at = text.find(product); at != std::string_view::npos; at = text.find(product, at + 1)) {
      const auto end = at + product.size();
      const bool starts = at == 0 || !word_char(text[at - 1]) || !word_char(product.front());
      const bool ends = end == text.size() || !word_char(text[end]) || !word_char(product.back());
      if (starts && ends) return kind;
    }
  return std::nullopt;
}

} // namespace

std::string sxm_kind_of_nvlink(const Topology& t) {
  static const std::map<LinkType, std::string> by_nvlink{{LinkType::NvLink1, "p100"}, {LinkType::NvLink2, "v100"},
                                                         {LinkType::NvLink3, "a100"}, {LinkType::NvLink4, "h100"},
                                                         {LinkType::NvLink5, "b200"}};
  for (const auto& l : t.links)
    if (const auto it = by_nvlink.find(l.type); it != by_nvlink.end()) return it->second;
  return "";
}

} // namespace ccsim::topology
