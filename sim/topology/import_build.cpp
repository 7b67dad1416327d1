#include "sim/topology/import_build.hpp"

#include <charconv>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::topology::import_detail {

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> out;
  int n = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back({++n, line});
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

namespace {
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
} // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    const std::size_t start = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::optional<long> parse_int(std::string_view s) {
  long v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_num(std::string_view s) {
  s = trim(s);
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p == s.data() || !(v >= 0) || v > 1e12) return std::nullopt;
  return v;
}

KindChoice choose_kind(const std::string& file, const std::string& gpu_option, const std::optional<std::string>& found,
                       const std::string& found_where, const std::string& missing, const std::string& or_add,
                       const std::string& candidates) {
  if (!gpu_option.empty()) {
    KindChoice c{gpu_kind(gpu_option, "--gpu"), "--gpu " + gpu_option};
    if (found && *found != gpu_option) c.note += fmt::format(" (the file says {}: {})", *found, found_where);
    return c;
  }
  if (found) return {gpu_kind(*found, file), found_where};
  fail("{}: {}: give --gpu KIND ({}) {}", file, missing, candidates.empty() ? gpu_kind_list(" ") : candidates, or_add);
}

HostBuilder::HostBuilder(std::string file, KindChoice kind, int gpus) : file_(std::move(file)), kind_(std::move(kind)) {
  if (gpus < 1 || gpus > kMaxDevices) fail("{}: {} GPUs (expected 1 to {})", file_, gpus, kMaxDevices);
  for (int g = 0; g < gpus; ++g) t_.add_node(fmt::format("gpu{}", g), NodeKind::Gpu);
  t_.gpu_kind = kind_.kind.name;
}

int HostBuilder::add_node(const std::string& name, NodeKind kind) {
  if (t_.find_node(name)) fail("{}: two devices named '{}'", file_, name);
  return t_.add_node(name, kind);
}

int HostBuilder::cpu(int id, const std::string& why) {
  const std::string name = fmt::format("cpu{}", id);
  if (auto n = t_.find_node(name)) return *n;
  (void)why;
  const int n = t_.add_node(name, NodeKind::Cpu);
  cpus_.push_back(n);
  return n;
}

void HostBuilder::pcie(int child, int parent, const std::string& why, const std::optional<std::string>& gen_name, int width,
                       bool gpu_port, bool p2p_off_in_file) {
  const GpuKind& k = kind_.kind;
  const PcieGen gen = gen_name ? pcie_gen(*gen_name, file_) : k.pcie;
  const int w = width > 0 ? width : 16;
  std::string numbers = gen_name ? fmt::format("{} x{} from the file", gen.name, w)
                                 : fmt::format("{} x16 from the {} defaults (models/gpus.json)", gen.name, k.name);
  Bandwidth bw = gen.bw * w / 16;
  Time lat = gen.latency;
  const bool staged = gpu_port && (!k.p2p_pcie || p2p_off_in_file);
  if (staged) {
    // As machine:...,p2p=off: the copy is staged through host memory, each of its two ports at half the
    // ~11 us staged latency measured on the RTX 4090 box.
    bw = gen.nop2p_bw;
    lat = from_us(5.5);
    numbers += fmt::format("; {} no P2P over PCIe, so the port carries the staged host-memory speed {} and 5.5 us",
                           k.p2p_pcie ? std::string("the file says") : k.name + " has", format_bandwidth(bw));
  } else {
    numbers += fmt::format(", {} per direction, {} per hop", format_bandwidth(bw), format_duration(lat));
  }
  t_.add_link(child, parent, gen.type, bw, lat, 1, fmt::format("{}: {}; {}", file_, why, numbers), staged);
}

void HostBuilder::gpu_link(int a, int b, LinkType type, int lanes, const std::string& why) {
  const GpuKind& k = kind_.kind;
  const bool xgmi = type == LinkType::Xgmi;
  const Bandwidth bw = xgmi ? k.xgmi_bw : k.nvlink_bw;
  if (bw <= 0) fail("{}: {}: the {} has no {} links in models/gpus.json", file_, why, k.name, to_string(type));
  const bool via_switch = t_.nodes[static_cast<std::size_t>(b)].kind == NodeKind::NvSwitch;
  // As machine:: a message via the switch crosses two links, each half of NCCL's 0.6 us NVLink hop.
  const Time lat = from_us(via_switch ? 0.3 : 0.6);
  t_.add_link(a, b, type, bw, lat, lanes,
              fmt::format("{}: {}; {} per {} link per direction and {} latency from the {} defaults (models/gpus.json)", file_,
                          why, format_bandwidth(bw), to_string(type), format_duration(lat), k.name));
}

SocketLink socket_link_named_in(const std::vector<Line>& lines) {
  for (const auto& l : lines) {
    const bool amd = l.text.find("EPYC") != std::string_view::npos || l.text.find("AuthenticAMD") != std::string_view::npos;
    const bool intel = l.text.find("Xeon") != std::string_view::npos || l.text.find("GenuineIntel") != std::string_view::npos;
    if (amd != intel)
      return {amd ? LinkType::Xgmi : LinkType::Upi, fmt::format("line {} names an {} CPU", l.number, amd ? "AMD" : "Intel"), amd ? "amd" : "intel"};
  }
  return {LinkType::Upi, "no CPU named in the file, Intel UPI assumed", ""};
}

Topology HostBuilder::finish(const std::string& name, const std::string& description, LinkType smp, const std::string& smp_why,
                             const std::string& cpu_vendor) {
  t_.cpu_vendor = cpu_vendor;
  // Socket links are not in any of the formats: NCCL joins every CPU pair with one SYS link.
  const char* figure = smp == LinkType::Qpi    ? "19.2GB/s: one QPI link at 9.6 GT/s (as topologies/dgx1-v100.json)"
                       : smp == LinkType::Xgmi ? "36GB/s: one x16 xGMI link of AMD EPYC at 18 GT/s (as topologies/rtx4090-pcie-8gpu.json)"
                                               : "22.4GB/s: Intel UPI at 11.2 GT/s x 2 bytes (as machine:)";
  const std::string fig(figure);
  const Bandwidth bw = parse_bandwidth(fig.substr(0, fig.find(':')), "smp");
  for (std::size_t i = 0; i < cpus_.size(); ++i)
    for (std::size_t j = i + 1; j < cpus_.size(); ++j)
      t_.add_link(cpus_[i], cpus_[j], smp, bw, from_us(1.0), 1,
                  fmt::format("{}: every pair of CPUs joined by one socket link (as NCCL does), its type because {}; bw {}; "
                              "latency 1 us taken equal to a PCIe hop",
                              file_, smp_why, fig));
  t_.name = name;
  t_.description = description + " GPU kind " + kind_.kind.name + " (" + kind_.note + ").";
  t_.origin = file_;
  t_.validate();
  return std::move(t_);
}

} // namespace ccsim::topology::import_detail
