// What the importers share: the text as numbered lines, checked number parsing, and a builder that
// turns "this GPU hangs off that switch, these GPUs share 4 NVLinks" into links with sourced numbers.
#pragma once
#include <numeric>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::topology::import_detail {

// Disjoint sets of device indices (union-find with path halving): which devices a matrix groups together.
struct Dsu {
  std::vector<std::size_t> p;
  explicit Dsu(std::size_t n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  std::size_t find(std::size_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
  }
  void unite(std::size_t a, std::size_t b) { p[find(a)] = find(b); }
};

constexpr std::size_t kMaxImportBytes = 16u << 20;
constexpr int kMaxDevices = 4096;

struct Line {
  int number = 0; // 1-based
  std::string_view text;
};
// Splits on '\n' (dropping '\r'); views into `text`.
std::vector<Line> split_lines(std::string_view text);
std::vector<std::string_view> split_ws(std::string_view s);
std::string_view trim(std::string_view s);
std::optional<long> parse_int(std::string_view s);  // the whole token, std::from_chars
std::optional<double> parse_num(std::string_view s); // leading number of the token ("16.0" of "16.0 GT/s")

// The GPU kind from --gpu, else from `found` (a kind the file names, with where), else an Error telling
// what to add.
struct KindChoice {
  GpuKind kind;
  std::string note; // "--gpu v100" or "line 25 names 'Tesla V100-SXM2-16GB'"
};
// `candidates`: the kinds the file's links allow (e.g. those with 18 NVLinks for an NV18 matrix), listed in
// the message instead of the whole catalogue when not empty.
KindChoice choose_kind(const std::string& file, const std::string& gpu_option, const std::optional<std::string>& found,
                       const std::string& found_where, const std::string& missing, const std::string& or_add,
                       const std::string& candidates = {});

// The socket link from a CPU the text names ("AMD EPYC", "AuthenticAMD" -> xgmi; "Xeon", "GenuineIntel" -> upi),
// with the line that says so and the vendor ("amd", "intel"); none named: upi, a note that it is assumed, no vendor.
struct SocketLink {
  LinkType type = LinkType::Upi;
  std::string why, vendor;
};
SocketLink socket_link_named_in(const std::vector<Line>& lines);

class HostBuilder {
 public:
  HostBuilder(std::string file, KindChoice kind, int gpus);
  int gpu(int g) const { return t_.gpu_node(g); }
  int cpu(int id, const std::string& why); // "cpu<id>", created on first use
  int add_node(const std::string& name, NodeKind kind);
  // A PCIe link child-parent. gen/width empty: the GPU kind's generation, x16 (said in the source).
  // gpu_port: the GPU's own port, which stages through host memory when the kind has no P2P over PCIe, or
  // when the file says its P2P is disabled (p2p_off_in_file: amd-smi's access table).
  void pcie(int child, int parent, const std::string& why, const std::optional<std::string>& gen = {}, int width = 0,
            bool gpu_port = false, bool p2p_off_in_file = false);
  // NVLink/bridge/xGMI between two GPUs, or a GPU and the NVSwitch plane, `lanes` links of the kind's speed.
  void gpu_link(int a, int b, LinkType type, int lanes, const std::string& why);
  const GpuKind& kind() const { return kind_.kind; }
  const std::string& file() const { return file_; }
  // Joins every pair of CPUs (NCCL's SYS links) and checks the result. cpu_vendor: what the file names ("amd",
  // "intel"), empty when it names none (Topology::cpu_vendor).
  Topology finish(const std::string& name, const std::string& description, LinkType smp = LinkType::Upi,
                  const std::string& smp_why = "no CPU named in the file, Intel UPI assumed", const std::string& cpu_vendor = "");

 private:
  std::string file_;
  KindChoice kind_;
  Topology t_;
  std::vector<int> cpus_; // node ids in creation order
};

} // namespace ccsim::topology::import_detail
