// Format detection by content, file reading, and the --gpu default for every topology file resolved.
#include "sim/topology/import.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/core/output_files.hpp"
#include "sim/topology/import_build.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/topology/topology_json_fast.hpp"

namespace ccsim::topology {
using namespace import_detail;

namespace {
std::string& import_gpu() {
  thread_local std::string kind; // per thread: `ccsim sweep` parses each point's --gpu on its own worker thread
  return kind;
}
} // namespace

void set_default_import_gpu(const std::string& given) {
  const std::string kind = given.empty() ? given : canonical_gpu_kind(given); // --gpu H100 as machine:gpu=H100
  if (!kind.empty()) gpu_kind(kind, "--gpu"); // unknown kinds fail here, naming the flag
  import_gpu() = kind;
}
const std::string& default_import_gpu() { return import_gpu(); }

std::string_view to_string(TopoFormat f) {
  switch (f) {
    case TopoFormat::Json: return "JSON";
    case TopoFormat::TopoMatrix: return "nvidia-smi topo -m";
    case TopoFormat::NcclXml: return "NCCL topology XML";
    case TopoFormat::RocmSmi: return "rocm-smi --showtopo";
    case TopoFormat::AmdSmi: return "amd-smi topology";
    default: return "unknown";
  }
}

TopoFormat detect_topology_format(std::string_view text) {
  const auto body = trim(text);
  if (!body.empty() && body.front() == '{') return TopoFormat::Json;
  for (const char* title : {"LINK TYPE TABLE:", "HOPS TABLE:", "WEIGHT TABLE:", "ACCESS TABLE:"})
    if (text.find(title) != std::string_view::npos) return TopoFormat::AmdSmi;
  if (looks_like_amd_smi_json(text)) return TopoFormat::AmdSmi;
  if (text.find("<system") != std::string_view::npos) return TopoFormat::NcclXml;
  if (text.find("between two GPUs") != std::string_view::npos || text.find("ROCm System Management") != std::string_view::npos)
    return TopoFormat::RocmSmi;
  for (const auto& l : split_lines(text)) {
    auto s = trim(l.text);
    while (!s.empty() && s.front() == '#') s.remove_prefix(1);
    const auto toks = split_ws(s);
    if (toks.size() >= 2 && toks[0] == "GPU0" && toks[1] != "X") return TopoFormat::TopoMatrix;
  }
  return TopoFormat::Unknown;
}

namespace {
// nvidia-smi underlines the topo -m header ("\x1b[4mGPU0 ... \x1b[0m") when it writes to a terminal (kubectl exec -t,
// `script`, a copied tmux pane), and people save it as it came. Terminal control sequences (CSI: ESC [ parameters,
// one final byte from @ to ~) belong to no topology format (JSON cannot hold a raw ESC), so they are dropped.
std::string without_terminal_escapes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b') { // a lone ESC goes too, so the result holds none
      if (i + 1 < text.size() && text[i + 1] == '[') {
        std::size_t j = i + 2;
        while (j < text.size() && (text[j] < '@' || text[j] > '~')) ++j;
        i = j; // the final byte is skipped with the rest
      }
      continue;
    }
    out += text[i];
  }
  return out;
}
// A paste quoted as a reply quotes it (e-mail, a GitHub or forum reply: "> GPU0 GPU1 ..." on every line): when every
// non-blank line starts with '>', the quote marks (and one space after each) are dropped; line numbers stay.
std::optional<std::string> without_quote_marks(std::string_view text) {
  std::string out;
  bool any = false;
  for (std::size_t at = 0; at < text.size();) {
    const auto end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    const auto first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos) {
      if (line[first] != '>') return std::nullopt;
      line.remove_prefix(first + 1);
      if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      any = true;
    }
    out.append(line);
    if (end < text.size()) out += '\n';
    at = end + 1;
  }
  if (!any) return std::nullopt;
  return out;
}

// A reply quoting a reply ("> > GPU0 ..."): the quote marks of this many levels are dropped, no more. Each level
// was a call of import_topology on the rest, so a file of nothing but '>' recursed as deep as it was long (a
// stack overflow from 100 KiB on).
constexpr int kMaxQuoteLevels = 8;
} // namespace

Topology import_topology(const std::string& given, const std::string& file, const ImportOptions& o) {
  if (given.find('\x1b') != std::string::npos) return import_topology(without_terminal_escapes(given), file, o); // holds no ESC
  std::string unquoted;
  const std::string* at = &given;
  for (int level = 0; level < kMaxQuoteLevels; ++level) {
    const auto first = at->find_first_not_of(" \t\r\n");
    if (first == std::string::npos || (*at)[first] != '>') break;
    auto less = without_quote_marks(*at);
    if (!less) break;
    unquoted = std::move(*less);
    at = &unquoted;
  }
  const std::string& text = *at;
  switch (detect_topology_format(text)) {
    case TopoFormat::TopoMatrix: return import_topo_m(text, file, o);
    case TopoFormat::NcclXml: return import_nccl_xml(text, file, o);
    case TopoFormat::RocmSmi: return import_rocm_smi(text, file, o);
    case TopoFormat::AmdSmi: return import_amd_smi(text, file, o);
    case TopoFormat::Json: return topology_from_json_text(text, file);
    default:
      // An empty capture (`rocm-smi --showtopo > m.txt` on a node without the tool) is said as such, as an empty trace is.
      if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        fail("{}: the file is empty: expected ccsim JSON, an `nvidia-smi topo -m` matrix, an NCCL topology XML (<system>), "
             "`rocm-smi --showtopo` or `amd-smi topology` (text or --json) output",
             file);
      fail("{}: not a topology: expected ccsim JSON, an `nvidia-smi topo -m` matrix, an NCCL topology XML (<system>), "
           "`rocm-smi --showtopo` or `amd-smi topology` (text or --json) output",
           file);
  }
}

Topology import_topology_file(const std::string& path, const ImportOptions& o) {
  std::error_code ec;
  if (const auto why = not_a_topology_file(path); !why.empty()) fail("{}", why);
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxImportBytes) fail("{}: larger than {} MiB, not a topology", path, kMaxImportBytes >> 20);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open topology file", path);
  note_input(path); // never an output of this run (output_files.hpp)
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return import_topology(text, path, o);
}

} // namespace ccsim::topology
