// `amd-smi topology` (ROCm 6+, the successor of rocm-smi): the text form prints "ACCESS TABLE:", "WEIGHT TABLE:",
// "HOPS TABLE:", "LINK TYPE TABLE:" ... with the GPUs' PCI BDFs as row and column labels; `--json` prints a list
// of GPUs, each with its "links" (ROCm 6.1.2 on) or, before, one object per matrix keyed "gpu_N". Field names and
// values as the AMD SMI CLI prints them (amdsmi_cli/amdsmi_commands.py, CHANGELOG examples). It has no NUMA lines,
// so PCIE pairs are placed by their hops. Built by the builder rocm-smi shares (import_amd.hpp).
#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/import_amd.hpp"

namespace ccsim::topology {
using namespace import_detail;

namespace {

constexpr const char* kKindHint = "or add the output of plain `amd-smi` (its GPU-Name column) to the file";

// The product in amd-smi's own table ("| 0000:0d:00.0    AMD Instinct MI355X | N/A ...") or `amd-smi static`
// ("MARKET_NAME: AMD Instinct MI300X"); empty where the line is neither.
std::string product_on(std::string_view s) {
  s = trim(s);
  if (const auto at = s.find("MARKET_NAME:"); at != std::string_view::npos) return std::string(trim(s.substr(at + 12)));
  if (s.substr(0, 1) != "|") return "";
  const auto toks = split_ws(s.substr(1));
  if (toks.size() < 3 || std::count(toks[0].begin(), toks[0].end(), ':') != 2 || toks[0].find('.') == std::string_view::npos)
    return "";
  const auto from = s.find(toks[1]);
  return std::string(trim(s.substr(from, s.find('|', from) - from)));
}

// The GPU kind the text names; a product models/gpus.json does not know is an Error unless --gpu chooses.
void kind_named_in(const std::vector<Line>& lines, const std::string& file, bool have_gpu_option, AmdTopo& t) {
  for (const auto& l : lines) {
    const auto product = product_on(l.text);
    if (product.empty() || product == "N/A") continue;
    if ((t.kind = gpu_kind_from_product(product))) {
      t.kind_where = fmt::format("line {} names '{}'", l.number, product);
      return;
    }
    if (!have_gpu_option)
      fail("{} line {}: names the GPU '{}', which models/gpus.json does not know: give --gpu KIND with the nearest kind ({})",
           file, l.number, product, gpu_kind_list(" "));
  }
}

std::string cell_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return v.dump();
}

// The GPU index of `v` (a number, or "gpu_3" in the old layout), checked against the G GPUs of the list.
int gpu_index(const nlohmann::json& v, int G, const std::string& file) {
  long g = -1;
  if (v.is_number_integer()) g = static_cast<long>(v.get<long long>());
  else if (v.is_string() && v.get<std::string>().rfind("gpu_", 0) == 0)
    g = parse_int(std::string_view(v.get_ref<const std::string&>()).substr(4)).value_or(-1);
  if (g < 0 || g >= G) fail("{}: GPU '{}' is not one of the {} GPUs the list has", file, cell_text(v), G);
  return static_cast<int>(g);
}

// One matrix from every GPU's links (new layout: field `field` of each link) or from its object `field`
// (old layout: {"gpu_0": .., "gpu_1": ..}); nullopt where no GPU has it.
std::optional<AmdMatrix> json_matrix(const nlohmann::json& gpus, const std::string& field, const std::string& file) {
  const int G = static_cast<int>(gpus.size());
  AmdMatrix m;
  for (int i = 0; i < G; ++i) {
    const auto& g = gpus[static_cast<std::size_t>(i)];
    const bool links = g.contains("links");
    const auto* src = links ? &g["links"] : g.contains(field) ? &g[field] : nullptr;
    if (src && (links ? !src->is_array() : !src->is_object()))
      fail("{}: GPU{}'s '{}' is not a JSON {}", file, i, links ? "links" : field, links ? "list" : "object");
    if (!src || (links && (src->empty() || !(*src)[0].is_object() || !(*src)[0].contains(field)))) {
      if (i == 0) return std::nullopt;
      fail("{}: GPU{} has no '{}' where GPU0 has", file, i, field);
    }
    if (static_cast<int>(src->size()) != G) fail("{}: GPU{} has {} '{}' entries for {} GPUs", file, i, src->size(), field, G);
    std::vector<std::string> row(static_cast<std::size_t>(G));
    std::vector<bool> seen(static_cast<std::size_t>(G), false);
    for (auto it = src->begin(); it != src->end(); ++it) {
      if (links && (!it->is_object() || !it->contains("gpu") || !it->contains(field)))
        fail("{}: a link of GPU{} lacks 'gpu' or '{}'", file, i, field);
      const int j = gpu_index(links ? (*it)["gpu"] : nlohmann::json(it.key()), G, file);
      if (seen[static_cast<std::size_t>(j)]) fail("{}: GPU{} lists GPU{} twice in '{}'", file, i, j, field);
      seen[static_cast<std::size_t>(j)] = true;
      row[static_cast<std::size_t>(j)] = cell_text(links ? (*it)[field] : it.value());
    }
    m.cells.push_back(std::move(row));
    m.line.push_back(0);
  }
  return m;
}

// The JSON after whatever comes before it: '#' header lines, a shell prompt with the command ("$ amd-smi topology
// --json", "user@node:~$ amd-smi ...", "[root@node ~]# ..."), blank lines. It opens with a line that is "[" alone or
// starts "[{" (amd-smi's list of GPUs), from its first non-blank character: a paste may be indented.
std::string_view json_body(std::string_view text) {
  for (const auto& l : split_lines(text)) {
    const auto s = trim(l.text);
    std::string_view after = s.substr(std::min<std::size_t>(1, s.size()));
    after = trim(after);
    if (s.empty() || s.front() != '[' || !(after.empty() || after.front() == '{')) continue;
    return text.substr(static_cast<std::size_t>(s.data() - text.data()));
  }
  return {};
}

AmdTopo from_json(std::string_view text, const std::string& file) {
  nlohmann::json root;
  try {
    // One JSON value; what follows it (the shell prompt the paste ended with) is not read.
    std::istringstream in{std::string(json_body(text))};
    in >> root;
  } catch (const nlohmann::json::exception& e) {
    fail("{}: not valid `amd-smi topology --json` output: {}", file, e.what());
  }
  if (!root.is_array() || root.empty() || root.size() > static_cast<std::size_t>(kMaxDevices))
    fail("{}: `amd-smi topology --json` is a list of 1 to {} GPUs", file, kMaxDevices);
  nlohmann::json gpus = nlohmann::json::array();
  for (std::size_t i = 0; i < root.size(); ++i) {
    if (!root[i].is_object() || !root[i].contains("gpu")) fail("{}: entry {} of the list is not a GPU object", file, i);
    if (gpu_index(root[i]["gpu"], static_cast<int>(root.size()), file) != static_cast<int>(i))
      fail("{}: entry {} of the list is GPU {}, expected the GPUs in order", file, i, cell_text(root[i]["gpu"]));
    gpus.push_back(root[i]);
  }
  auto type = json_matrix(gpus, "link_type", file);
  if (!type) fail("{}: no 'link_type' in the JSON: run `amd-smi topology --json` without filters, or with -t", file);
  const bool links = gpus[0].contains("links");
  return AmdTopo{.tool = "amd-smi topology --json",
                 .type = std::move(*type),
                 .hops = json_matrix(gpus, links ? "num_hops" : "hops", file),
                 .weight = json_matrix(gpus, "weight", file),
                 .access = json_matrix(gpus, links ? "link_status" : "link_accessibility", file),
                 .numa = {},
                 .kind = std::nullopt,
                 .kind_where = "",
                 .add_kind_hint = kKindHint};
}

} // namespace

bool looks_like_amd_smi_json(std::string_view text) {
  const auto body = json_body(text);
  return !body.empty() && body.front() == '[' && text.find("\"link_type\"") != std::string_view::npos;
}

Topology import_amd_smi(const std::string& text, const std::string& file, const ImportOptions& o) {
  if (text.size() > kMaxImportBytes) fail("{}: larger than {} MiB", file, kMaxImportBytes >> 20);
  const auto lines = split_lines(text);
  AmdTopo t;
  if (const auto body = json_body(text); !body.empty() && body.front() == '[') {
    t = from_json(text, file);
  } else {
    auto type = amd_table(lines, "LINK TYPE TABLE", file);
    if (!type) fail("{}: amd-smi topology output without its 'LINK TYPE TABLE:' (cut short?): save the whole output", file);
    t = AmdTopo{.tool = "amd-smi topology",
                .type = std::move(*type),
                .hops = amd_table(lines, "HOPS TABLE", file),
                .weight = amd_table(lines, "WEIGHT TABLE", file),
                .access = amd_table(lines, "ACCESS TABLE", file),
                .numa = {},
                .kind = std::nullopt,
                .kind_where = "",
                .add_kind_hint = kKindHint};
  }
  kind_named_in(lines, file, !o.gpu.empty(), t);
  return build_amd_topology(file, o, lines, t, "amd-smi");
}

} // namespace ccsim::topology
