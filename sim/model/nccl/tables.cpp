#include "sim/model/nccl/tables.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/model/nccl/nccl_version.hpp"
#include "sim/model/nccl/proto_list.hpp"
#include "sim/topology/gpu_catalogue.hpp"

namespace ccsim::model::nccl {

struct Tables::NetKind::CompiledPattern {
  std::regex re;
};

namespace {
constexpr std::string_view kAlgoNames[] = {"ring", "tree", "nvls", "nvls_tree", "direct", "collnet_direct", "collnet_chain"};
constexpr std::string_view kProtoNames[] = {"LL", "LL128", "Simple"};
constexpr std::string_view kPathNames[] = {"nvlink", "pci", "net"};
constexpr std::string_view kArchNames[] = {"pascal", "volta", "ampere", "hopper", "blackwell"};

// One entry of the tables file, read through the project's JSON reader (sim/core/json_file): every error
// names the file and the entry ("caps_GBps.ll_max.volta").
class Ref {
 public:
  explicit Ref(JsonValue v) : v_(std::move(v)) {}
  Ref operator[](std::string_view key) const { return Ref(v_[key]); }
  Ref operator[](std::size_t i) const { return Ref(v_.at(i)); }
  bool has(std::string_view key) const { return v_.has(key); }
  std::size_t size() const { return v_.is_array() ? v_.size() : 0; }
  bool is_null() const { return v_.raw().is_null(); }
  bool is_array() const { return v_.is_array(); }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    if (v_.is_object())
      for (const auto& [k, v] : v_.items()) out.push_back(k);
    return out;
  }
  double number() const { return v_.as_double(); }
  double positive() const {
    const double v = number();
    if (!(v > 0)) bad("must be positive");
    return v;
  }
  int integer(int lo, int hi) const { return static_cast<int>(v_.as_int(lo, hi)); }
  std::string string() const { return v_.as_string(); }
  bool boolean() const { return v_.as_bool(); }
  [[noreturn]] void bad(const std::string& what) const { v_.fail_message(what); }

 private:
  JsonValue v_;
};

// A two-sided (SENDRECV) transport's wire, from the kind's hop (EFA: aws-ofi-nccl's tuner, 20 us of network plus
// 3 us of completion per operation): one operation per message, and with GPUDirect RDMA one more, the receiver's
// flush (aws-ofi-nccl sendrecv recv_comm::flush: an fi_read through the NIC after every non-empty receive, before
// NCCL hands the data to the GPU; NCCL's own formula counts it as one more latencyInter for Simple).
double two_sided_hop_us(const Tables::NetKind& kind, bool gdr) { return kind.hop_us * (gdr ? 2.0 : 1.0); }

// A SENDRECV transport of `kind`: its hop per operation (twice with GDR), and the provider's two-sided protocols,
// each added round trip one more operation of the kind's hop.
Tables::NetTransport two_sided_transport(const Tables::NetKind& kind, bool gdr) {
  Tables::NetTransport tr;
  tr.hop_us = two_sided_hop_us(kind, gdr);
  tr.gdr = gdr;
  tr.two_sided = kind.two_sided;
  tr.op_us = kind.hop_us;
  return tr;
}

double reported_latency(const Ref& e) {
  const double v = e["latency_us"].number();
  if (!(v >= 0 && v < 1e6)) e["latency_us"].bad("must be from 0 to 1e6 us");
  return v;
}

// by_arch: {"<arch>": {"hop_us": >= 0 (optional: else the kind's two-sided hop), "latency_us": >= 0 (optional, what
// the plugin reports to NCCL), "gdr": bool (optional), "simple_only": bool (optional)}, "source": ...}.
void read_net_transports(const Ref& r, Tables::NetKind& kind) {
  for (const auto& key : r.keys()) {
    if (key == "source") continue;
    const auto arch = arch_from(key);
    if (!arch) r[key].bad("is not a GPU architecture (pascal, volta, ampere, hopper, blackwell)");
    const auto a = r[key];
    if (!a.has("hop_us") && !a.has("gdr")) r[key].bad("needs hop_us (the hop itself) or gdr (the kind's hop per operation)");
    auto tr = two_sided_transport(kind, a.has("gdr") && a["gdr"].boolean());
    if (a.has("latency_us")) tr.reported_latency_us = reported_latency(a);
    tr.hop_us = a.has("hop_us") ? a["hop_us"].number() : two_sided_hop_us(kind, tr.gdr);
    if (!(tr.hop_us >= 0 && tr.hop_us < 1e6)) a["hop_us"].bad("must be from 0 to 1e6 us");
    if (a.has("simple_only")) tr.simple_only = a["simple_only"].boolean();
    kind.by_arch[*arch] = tr;
  }
}

// instances: {"source": ..., "table": [{"name": "p4d.24xlarge" | "pattern": "<regex>" (with a "name" label),
// "protocol": "sendrecv" | "rdma", "latency_us": >= 0, "gdr": bool (optional)}, ...]}, in the plugin's order.
void read_net_instances(const Ref& r, Tables::NetKind& kind) {
  const auto table = r["table"];
  if (table.size() == 0) table.bad("must be a non-empty array of entries");
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto e = table[i];
    Tables::NetKind::Instance in;
    in.name = e["name"].string();
    if (e.has("pattern")) {
      in.pattern = e["pattern"].string();
      try {
        in.compiled = std::make_shared<const Tables::NetKind::CompiledPattern>(
            Tables::NetKind::CompiledPattern{std::regex(in.pattern, std::regex::extended)});
      } catch (const std::regex_error&) {
        e["pattern"].bad("is not a POSIX extended regular expression");
      }
    }
    const std::string proto = e["protocol"].string();
    if (proto != "sendrecv" && proto != "rdma") e["protocol"].bad("must be sendrecv or rdma");
    in.rdma = proto == "rdma";
    in.latency_us = reported_latency(e);
    const bool gdr = e.has("gdr") && e["gdr"].boolean();
    // SENDRECV: the reported latency is what NCCL's tuner weighs (AWS derived it from measured allreduce latency,
    // then tried values around it for NCCL's choices: models/README.md "EFA's SENDRECV floor"), not the wire: the
    // replay charges the kind's hop per EFA operation, the GDR flush one more. LL/LL128 are off (no in-order
    // 128-byte delivery, or no GDR: the plugin sets NCCL_PROTO=simple).
    in.transport = two_sided_transport(kind, gdr);
    in.transport.simple_only = true;
    in.transport.reported_latency_us = in.latency_us;
    // The NCCL_BUFFSIZE the plugin's entry sets (its env), which sizes NCCL's Simple steps; absent: NCCL's default.
    if (e.has("buffsize_bytes")) {
      in.transport.buffsize_bytes = e["buffsize_bytes"].number();
      if (!(in.transport.buffsize_bytes >= 4096 && in.transport.buffsize_bytes <= 1e12))
        e["buffsize_bytes"].bad("must be from 4096 to 1e12 bytes");
    }
    kind.instances.push_back(std::move(in));
  }
}

// nccl_env: {"NCCL_ALGO": "Ring" | "Ring,Tree" (optional), "NCCL_PROTO": a list proto_set_from takes (optional),
// "NCCL_NVLS_ENABLE": 0 (optional), "NCCL_MIN_NCHANNELS" = "NCCL_MAX_NCHANNELS": 1..64 (optional, both or neither),
// "until": an NCCL release (optional: the profile holds for releases before it), "source": ...}: the environment a
// fabric's own setup script exports (Google's nccl-env-profile.sh). Or a list of them, one per span of releases,
// oldest first, each but the last with an "until" above the one before.
void read_net_env(const Ref& r, Tables::NetKind::Env& env) {
  for (const auto& key : r.keys())
    if (key != "source" && key != "until" && key != "NCCL_ALGO" && key != "NCCL_PROTO" && key != "NCCL_NVLS_ENABLE" &&
        key != "NCCL_MIN_NCHANNELS" && key != "NCCL_MAX_NCHANNELS")
      r[key].bad("is not an NCCL variable ccsim runs from a fabric's profile (NCCL_ALGO, NCCL_PROTO, NCCL_NVLS_ENABLE, "
                 "NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS) nor its span (until)");
  if (r.has("until")) {
    const auto v = parse_nccl_version(r["until"].string());
    if (!v) r["until"].bad("is not an NCCL release (e.g. 2.23)");
    env.until = *v;
  }
  if (r.has("NCCL_ALGO")) {
    env.algo = r["NCCL_ALGO"].string();
    if (env.algo != "Ring" && env.algo != "Ring,Tree") r["NCCL_ALGO"].bad("must be Ring or Ring,Tree");
  }
  if (r.has("NCCL_PROTO")) {
    env.proto = r["NCCL_PROTO"].string();
    try {
      (void)proto_set_from(env.proto, "NCCL_PROTO");
    } catch (const Error&) {
      r["NCCL_PROTO"].bad("is not a list of LL, LL128, Simple");
    }
  }
  if (r.has("NCCL_NVLS_ENABLE")) {
    if (r["NCCL_NVLS_ENABLE"].number() != 0) r["NCCL_NVLS_ENABLE"].bad("must be 0 (a profile that turns NVLS off)");
    env.nvls_off = true;
  }
  if (r.has("NCCL_MIN_NCHANNELS") != r.has("NCCL_MAX_NCHANNELS")) r.bad("NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS come together");
  if (r.has("NCCL_MIN_NCHANNELS")) {
    const double lo = r["NCCL_MIN_NCHANNELS"].number(), hi = r["NCCL_MAX_NCHANNELS"].number();
    if (!(lo == hi && lo >= 1 && lo <= 64 && lo == static_cast<int>(lo))) r["NCCL_MIN_NCHANNELS"].bad("must equal NCCL_MAX_NCHANNELS, 1 to 64");
    env.channels = static_cast<int>(lo);
  }
}

// two_sided: {"device_eager_max_bytes", "host_medium_max_bytes", "host_read_min_bytes", "cts_window_bytes": each
// > 0 and <= 1e12, "source": ...}: the provider's protocols by message size (Tables::TwoSided).
void read_two_sided(const Ref& r, Tables::TwoSided& out) {
  const auto bytes = [&](const char* key) {
    const double v = r[key].number();
    if (!(v > 0 && v <= 1e12)) r[key].bad("must be above 0 and at most 1e12 bytes");
    return v;
  };
  out.device_eager_max_bytes = bytes("device_eager_max_bytes");
  out.host_medium_max_bytes = bytes("host_medium_max_bytes");
  out.host_read_min_bytes = bytes("host_read_min_bytes");
  out.cts_window_bytes = bytes("cts_window_bytes");
  if (!(out.host_read_min_bytes > out.host_medium_max_bytes)) r["host_read_min_bytes"].bad("must be above host_medium_max_bytes");
}

// net_kinds: {"<network link type>": {"rate_vs_ib": 0..1, "hop_us": >= 0 (optional), "rdma_eager_max_bytes": >= 0
// (optional), "device_unpack": true|false (optional), "by_arch", "instances", "nccl_env" (optional), "source": ...}}.
void read_net_kinds(const Ref& r, Tables& t) {
  for (const auto& key : r.keys()) {
    if (key == "source") continue;
    const auto type = topology::link_type_from(key);
    if (!type || !topology::is_network(*type)) r[key].bad("is not a network link type (ib, roce, efa, slingshot, ethernet, gib, tcpx, tcpxo)");
    const auto k = r[key];
    Tables::NetKind kind;
    if (k.has("rate_vs_ib")) kind.rate_vs_ib = k["rate_vs_ib"].number();
    if (!(kind.rate_vs_ib > 0 && kind.rate_vs_ib <= 1)) k["rate_vs_ib"].bad("must be above 0 and at most 1");
    if (k.has("hop_us")) kind.hop_us = k["hop_us"].number();
    if (!(kind.hop_us >= 0 && kind.hop_us < 1e6)) k["hop_us"].bad("must be from 0 to 1e6 us");
    if (k.has("rdma_eager_max_bytes")) kind.rdma_eager_max_bytes = k["rdma_eager_max_bytes"].number();
    if (!(kind.rdma_eager_max_bytes >= 0 && kind.rdma_eager_max_bytes <= 1e12))
      k["rdma_eager_max_bytes"].bad("must be from 0 to 1e12 bytes");
    if (k.has("device_unpack")) kind.device_unpack = k["device_unpack"].boolean();
    if (k.has("two_sided")) read_two_sided(k["two_sided"], kind.two_sided);
    if (k.has("by_arch")) read_net_transports(k["by_arch"], kind);
    if (k.has("instances")) read_net_instances(k["instances"], kind);
    if (k.has("nccl_env")) {
      const auto e = k["nccl_env"];
      const std::size_t n = e.is_array() ? e.size() : 1;
      for (std::size_t i = 0; i < n; ++i) {
        const auto one = e.is_array() ? e[i] : e;
        read_net_env(one, kind.env.emplace_back());
        const auto& until = kind.env.back().until;
        const bool bounded = until != std::array<int, 3>{0, 0, 0};
        if (i + 1 < n && !bounded) one.bad("needs an \"until\" release: a later profile follows");
        if (i + 1 == n && bounded) one.bad(n > 1 ? "is the newest profile: no \"until\"" : "is the only profile: no \"until\"");
        if (i > 0 && bounded && !(kind.env[i - 1].until < until)) one["until"].bad("must be above the profile before");
      }
    }
    t.net_kinds[*type] = kind;
  }
}

void read_caps(const Ref& r, Caps& out) {
  for (std::size_t a = 0; a < kArchs; ++a) {
    // Pascal has no row of its own: NCCL's compCapIndex puts everything below sm80 on the Volta row.
    const auto row = r[a == 0 ? kArchNames[1] : kArchNames[a]];
    for (std::size_t n = 0; n < 3; ++n) out[a][n] = row[n].number();
  }
}

void read_ll128_rules(const Ref& rules, Tables& t) {
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto r = rules[i];
    const auto from = parse_nccl_version(r["from"].string());
    if (!from) r["from"].bad("is not an NCCL release");
    if (!t.ll128_by_version.empty() && !(t.ll128_by_version.back().from < *from)) r["from"].bad("must follow the rule before");
    Tables::Ll128Rule rule{*from, {}, false};
    if (r["sm"].size() == 0) {
      if (r["sm"].string() != "any") r["sm"].bad("must be a list of compute capabilities or \"any\"");
      rule.any_sm = true;
    }
    for (std::size_t k = 0; k < r["sm"].size(); ++k) rule.sms.push_back(r["sm"][k].integer(10, 200));
    t.ll128_by_version.push_back(std::move(rule));
  }
}

// A rule's "from" and "until" releases of `product` (NCCL, RCCL): from before until, and not before the end of
// the rule above (`previous_until`, none for the first rule).
std::pair<NcclVersion, NcclVersion> release_range(const Ref& r, const std::optional<NcclVersion>& previous_until, const char* product) {
  const auto from = parse_nccl_version(r["from"].string()), until = parse_nccl_version(r["until"].string());
  if (!from) r["from"].bad(fmt::format("is not an {} release", product));
  if (!until || !(*from < *until)) r["until"].bad(fmt::format("must be an {} release after 'from'", product));
  if (previous_until && *from < *previous_until) r["from"].bad("overlaps the rule before");
  return {*from, *until};
}

void read_threshold_rules(const Ref& rules, Tables& t) {
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto r = rules[i];
    Tables::ThresholdRule rule;
    std::tie(rule.from, rule.until) = release_range(
        r, t.threshold_choice_by_version.empty() ? std::nullopt : std::optional(t.threshold_choice_by_version.back().until), "NCCL");
    rule.ll_min_threads = r["ll_min_threads"].integer(1, 1024);
    rule.ll_max_threads = r["ll_max_threads"].integer(rule.ll_min_threads, 1024);
    rule.ll_channel_threshold = r["ll_channel_threshold"].integer(1, 1 << 20);
    rule.thread_threshold = r["thread_threshold"].integer(1, 1 << 20);
    rule.thread_threshold_pre_volta = r["thread_threshold_pre_volta"].integer(1, 1 << 20);
    rule.multi_node_factor = r["multi_node_factor"].integer(1, 64);
    rule.tree_ll_factor = r["tree_ll_factor"].integer(1, 64);
    rule.max_channels = r["max_channels"].integer(1, 64);
    const auto tree = r["tree"];
    rule.ring_bw_per_channel = tree["ring_bw_per_channel"].positive();
    rule.ring_lat_us = tree["ring_lat_us"].positive();
    rule.tree_lat_inter_us = tree["tree_lat_inter_us"].positive();
    rule.tree_lat_intra_us = tree["tree_lat_intra_us"].positive();
    rule.tree_bw_nvlink = tree["tree_bw_nvlink"].positive();
    rule.tree_bw_pci = tree["tree_bw_pci"].positive();
    rule.two_node_factor = tree["two_node_factor"].positive();
    if (r.has("ring_search")) {
      const auto rs = r["ring_search"];
      rule.ring_dup = rs["dup"].integer(1, 64);
      rule.ring_search_max_ranks = rs["nvlink_max_ranks"].integer(2, 8); // exhaustive: 2.4 stops at 8
      rule.oversubscribe_max_ranks = rs["oversubscribe_max_ranks"].integer(0, 16);
    }
    t.threshold_choice_by_version.push_back(rule);
  }
}

void read_nvls(const Ref& r, Tables& t) {
  Tables::Nvls n;
  for (std::size_t a = 0; a < kArchs; ++a) {
    if (r["efficiency"].has(kArchNames[a])) n.efficiency[a] = r["efficiency"][kArchNames[a]].number();
    if (r["cuda_channels"].has(kArchNames[a])) n.cuda_channels[a] = r["cuda_channels"][kArchNames[a]].integer(1, 64);
    if (n.efficiency[a] < 0 || n.efficiency[a] > 1) r["efficiency"][kArchNames[a]].bad("must be from 0 to 1");
    if (r.has("step_handoff") && r["step_handoff"].has(kArchNames[a])) n.step_handoff[a] = r["step_handoff"][kArchNames[a]].boolean();
  }
  n.nvlink_latency_us = r["nvlink_latency_us"].number();
  n.max_arity = r["max_arity"].integer(2, 1024);
  n.chunk_bytes = r["chunk_bytes"].positive();
  if (r.has("pipeline_stages")) n.pipeline_stages = r["pipeline_stages"].integer(1, 16);
  if (r.has("chunk_shrink"))
    for (std::size_t i = 0; i < r["chunk_shrink"].size(); ++i) {
      const auto row = r["chunk_shrink"][i];
      n.chunk_shrink.push_back({row["loops"].positive(), row["bytes"].positive()});
    }
  if (r.has("tree")) {
    const auto tr = r["tree"];
    n.tree_nvlink_latency_us = tr["nvlink_latency_us"].number();
    n.tree_net_latency_us = tr["net_latency_us"].number();
    if (tr.has("step_handoff")) n.tree_step_handoff = tr["step_handoff"].boolean();
    read_caps(tr["per_ch_max_GBps"], n.per_ch_tree);
    if (tr.has("tuner_by_release")) {
      const auto rules = tr["tuner_by_release"]["rules"];
      for (std::size_t i = 0; i < rules.size(); ++i) {
        const auto rr = rules[i];
        Tables::Nvls::TreeTunerRule rule;
        std::tie(rule.from, rule.until) = release_range(
            rr, n.tree_tuner_by_release.empty() ? std::nullopt : std::optional(n.tree_tuner_by_release.back().until), "NCCL");
        const auto bw = rr["bandwidth"].string();
        if (bw != "min" && bw != "nvls") rr["bandwidth"].bad("must be \"min\" or \"nvls\"");
        rule.min_bandwidth = bw == "min";
        rule.nvlink_latency_us = rr["nvlink_latency_us"].positive();
        rule.net_latency_us = rr["net_latency_us"].positive();
        rule.size_factor = rr["size_factor"].boolean();
        n.tree_tuner_by_release.push_back(rule);
      }
    }
    for (std::size_t a = 0; a < kArchs; ++a) {
      const auto row = tr["speed_inter"][a == 0 ? kArchNames[1] : kArchNames[a]];
      for (std::size_t i = 0; i < row.size(); ++i) n.speed_inter[a].push_back(row[i].positive());
      if (n.speed_inter[a].empty()) row.bad("needs at least one speed");
    }
  }
  t.nvls = n;
}

std::optional<Proto> proto_from(std::string_view s) {
  for (int p = 0; p < 3; ++p)
    if (kProtoNames[p] == s) return static_cast<Proto>(p);
  return std::nullopt;
}

// The GPUs' data-sheet memory GB/s: nccl.json keeps them at its root, rccl.json inside its rccl block.
void read_memory_figures(const Ref& r, Tables& t) {
  if (r.has("hbm_GBps_by_gpu"))
    for (const auto& kind : r["hbm_GBps_by_gpu"].keys())
      if (kind != "source") t.hbm_GBps_by_gpu[kind] = r["hbm_GBps_by_gpu"][kind].positive();
}

// protocol_ranges_across_nodes.rules: [{"from", "until", "gpus_per_node", "nics_per_node", "allreduce_ll128_scale_beyond_2_nodes",
// "by_sm": {"<gfx>": {"ll128": bool, "<op>": {"ll_max", "ll128_min", "ll128_max"}}}}], releases in order.
void read_proto_range_rules(const Ref& rules, Tables::Rccl& x) {
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto r = rules[i];
    Tables::Rccl::ProtoRangeRule rule;
    std::tie(rule.from, rule.until) =
        release_range(r, x.proto_ranges.empty() ? std::nullopt : std::optional(x.proto_ranges.back().until), "RCCL");
    rule.gpus_per_node = r["gpus_per_node"].integer(1, 64);
    rule.nics_per_node = r["nics_per_node"].integer(1, 64);
    rule.allreduce_ll128_scale = r["allreduce_ll128_scale_beyond_2_nodes"].positive();
    const auto by_sm = r["by_sm"];
    for (const auto& sm : by_sm.keys()) {
      Tables::Rccl::ProtoRangeRule::Arch arch;
      arch.ll128 = by_sm[sm]["ll128"].boolean();
      for (const auto& op : by_sm[sm].keys()) {
        if (op == "ll128") continue;
        if (op != "allreduce" && op != "allgather" && op != "reducescatter") by_sm[sm][op].bad("is not allreduce, allgather or reducescatter");
        const auto o = by_sm[sm][op];
        Tables::Rccl::ProtoRange range{o["ll_max"].number(), o["ll128_min"].number(), o["ll128_max"].number()};
        if (range.ll_max < 0 || range.ll128_min < 0) o.bad("must not be negative");
        if (range.ll128_max < range.ll128_min) o["ll128_max"].bad("must not be below ll128_min");
        arch.by_op[op] = range;
      }
      rule.by_sm[sm] = std::move(arch);
    }
    x.proto_ranges.push_back(std::move(rule));
  }
}

void read_rccl(const Ref& r, Tables& t) {
  Tables::Rccl x;
  const char* rows[2] = {"one_or_two_nodes", "more_nodes"};
  for (int n = 0; n < 2; ++n)
    for (int a = 0; a < 2; ++a)
      for (int p = 0; p < 3; ++p) {
        const auto v = r["bw_ratio"][rows[n]][kAlgoNames[a]][kProtoNames[p]];
        x.bw_ratio[static_cast<std::size_t>(n)][static_cast<std::size_t>(a)][static_cast<std::size_t>(p)] = v.number();
        if (v.number() < 0) v.bad("must not be negative");
      }
  x.ll128 = r["ll128"].boolean();
  x.tree_simple_one_node = r["tree_simple_one_node"].boolean();
  if (r.has("ring_correction_across_nodes"))
    for (int p = 0; p < 3; ++p) {
      const auto corr = r["ring_correction_across_nodes"][kProtoNames[p]];
      for (std::size_t i = 0; i < corr.size(); ++i) x.ring_correction_across_nodes[static_cast<std::size_t>(p)].push_back(corr[i].positive());
      if (x.ring_correction_across_nodes[static_cast<std::size_t>(p)].size() != 27) corr.bad("needs 27 factors (log2(bytes / 64) from 0, the last beyond)");
    }
  x.xgmi_lane_fraction = r["xgmi_lane_fraction"].positive();
  if (x.xgmi_lane_fraction > 1) r["xgmi_lane_fraction"].bad("must be at most 1");
  if (r.has("xgmi_lane_fraction_by_sm"))
    for (const auto& sm : r["xgmi_lane_fraction_by_sm"].keys()) {
      const auto v = r["xgmi_lane_fraction_by_sm"][sm];
      if (v.positive() > 1) v.bad("must be at most 1");
      x.xgmi_lane_fraction_by_sm[sm] = v.number();
    }
  if (r.has("xgmi_lane_fraction_by_gpu"))
    for (const auto& kind : r["xgmi_lane_fraction_by_gpu"].keys()) {
      if (kind == "source") continue;
      const auto v = r["xgmi_lane_fraction_by_gpu"][kind];
      if (v.positive() > 1) v.bad("must be at most 1");
      const auto names = topology::gpu_kind_names();
      if (std::find(names.begin(), names.end(), kind) == names.end()) v.bad("is not a GPU kind of models/gpus.json");
      x.xgmi_lane_fraction_by_gpu[kind] = v.number();
    }
  read_memory_figures(r, t);
  const auto d = r["direct"];
  x.direct_ranks = d["ranks"].integer(0, 1024);
  const auto ranges = d["ranges"];
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    Tables::Rccl::Range g;
    g.min_bytes = ranges[i]["min_bytes"].number();
    g.max_bytes = ranges[i]["max_bytes"].number();
    if (g.max_bytes < g.min_bytes) ranges[i]["max_bytes"].bad("must not be below min_bytes");
    const auto p = proto_from(ranges[i]["proto"].string());
    if (!p || *p == Proto::LL128) ranges[i]["proto"].bad("must be LL or Simple");
    g.proto = *p;
    g.channels = ranges[i]["channels"].integer(1, 64);
    if (ranges[i].has("chunks_per_loop")) g.chunks_per_loop = ranges[i]["chunks_per_loop"].integer(1, 1 << 20);
    x.direct.push_back(g);
  }
  if (r.has("p2p_ll_threshold")) x.p2p_ll_threshold = r["p2p_ll_threshold"].integer(0, 1 << 30);
  if (r.has("one_node_channels")) {
    const auto c = r["one_node_channels"];
    auto& x1 = x.one_node_channels;
    // RCCL's MAXCHANNELS is 128 (src/include/device.h).
    x1.max_channels = c["max_channels"].integer(1, 128);
    // A rank count written as a JSON key ("4"): a whole number of at least 2.
    const auto ranks_of = [](const auto& node, const std::string& key) {
      int n = 0;
      const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), n);
      if (ec != std::errc{} || end != key.data() + key.size() || n < 2 || n > 1024) node[key].bad("names no rank count (a whole number, 2-1024)");
      return n;
    };
    const auto s = c["search_channels_by_ranks"];
    for (const auto& k : s.keys())
      if (k != "source") x1.search_by_ranks[ranks_of(s, k)] = s[k].integer(1, x1.max_channels);
    const auto m = c["multiplier_by_sm"];
    for (const auto& sm : m.keys()) {
      if (sm == "source") continue;
      Tables::Rccl::ChannelMultiplier e;
      const auto from = parse_nccl_version(m[sm]["from"].string());
      if (!from) m[sm]["from"].bad("is not an RCCL release");
      e.from = *from;
      e.nc = m[sm]["nc"].integer(1, 128);
      if (m[sm].has("nc_by_ranks"))
        for (const auto& k : m[sm]["nc_by_ranks"].keys()) e.nc_by_ranks[ranks_of(m[sm]["nc_by_ranks"], k)] = m[sm]["nc_by_ranks"][k].integer(1, 128);
      x1.by_sm[sm] = e;
    }
  }
  if (r.has("ring_block_GBps_by_sm"))
    for (const auto& sm : r["ring_block_GBps_by_sm"].keys())
      if (sm != "source") x.ring_block_GBps_by_sm[sm] = r["ring_block_GBps_by_sm"][sm].positive();
  if (r.has("multi_node_channels_by_sm")) {
    const auto c = r["multi_node_channels_by_sm"];
    for (const auto& sm : c.keys()) {
      if (sm == "source") continue;
      Tables::Rccl::NodesChannels n;
      n.gpus_per_node = c[sm]["gpus_per_node"].integer(1, 1024);
      n.channels = c[sm]["channels"].integer(1, 128);
      const auto until = parse_nccl_version(c[sm]["until"].string());
      if (!until) c[sm]["until"].bad("is not an RCCL release");
      n.until = *until;
      x.multi_node_channels_by_sm[sm] = n;
    }
  }
  if (r.has("protocol_ranges_across_nodes")) read_proto_range_rules(r["protocol_ranges_across_nodes"]["rules"], x);
  t.rccl = x;
}

} // namespace

Tables parse_tables(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "--nccl-tables ");
  const Ref root(JsonValue(j, "--nccl-tables " + printable(path)));
  Tables t;
  t.path = path;
  if (root["kind"].string() != "ccsim-nccl-tables") root["kind"].bad("must be \"ccsim-nccl-tables\"");
  t.name = root["name"].string();
  for (int a = 0; a < 2; ++a)
    for (int p = 0; p < 3; ++p) {
      t.base_latency_us[a][p] = root["base_latency_us"][kAlgoNames[a]][kProtoNames[p]].number();
      for (int h = 0; h < 3; ++h)
        t.hw_latency_us[h][a][p] = root["hw_latency_us"][kPathNames[h]][kAlgoNames[a]][kProtoNames[p]].number();
    }
  const auto net = root["net_overhead_us"];
  t.net_overhead_intel_us = net["intel"].number();
  t.net_overhead_amd_us = net["amd"].number();
  t.net_overhead_simple_factor = net["simple_factor"].number();
  const auto plateau = root["ring_plateau_factor"];
  t.plateau_pre_ampere = plateau["pre_ampere"].number();
  t.plateau_ampere_plus = plateau["ampere_plus"].number();
  t.plateau_min_bytes_per_channel_rank = plateau["min_bytes_per_channel_rank"].number();
  const auto eff = root["protocol_efficiency"];
  t.eff_ring_ll = eff["ring_ll"].number();
  t.eff_ring_ll128 = eff["ring_ll128"].number();
  t.eff_tree = eff["tree"].number();
  t.tree_ll_divisor = eff["tree_ll_divisor"].number();
  t.tree_ll128_one_node = eff["tree_ll128_one_node"].number();
  t.tree_ll128_multi_node = eff["tree_ll128_multi_node"].number();
  const auto caps = root["caps_GBps"];
  read_caps(caps["ll_max"], t.ll_max);
  read_caps(caps["per_ch_ring_ll128"], t.per_ch_ring_ll128);
  if (caps.has("per_ch_ring_ll128_tuner_by_release")) {
    const auto rules = caps["per_ch_ring_ll128_tuner_by_release"]["rules"];
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const auto rr = rules[i];
      Tables::RingLl128CapRule rule;
      std::tie(rule.from, rule.until) = release_range(
          rr, t.ring_ll128_tuner_by_release.empty() ? std::nullopt : std::optional(t.ring_ll128_tuner_by_release.back().until), "NCCL");
      read_caps(rr["caps"], rule.caps);
      t.ring_ll128_tuner_by_release.push_back(rule);
    }
  }
  read_caps(caps["per_ch_tree_ll128"], t.per_ch_tree_ll128);
  read_caps(caps["per_ch_tree"], t.per_ch_tree);
  for (int p = 0; p < 3; ++p) {
    const auto corr = root["tree_correction"][kProtoNames[p]];
    for (std::size_t i = 0; i < corr.size(); ++i) t.tree_correction[p].push_back(corr[i].number());
    if (t.tree_correction[p].empty()) corr.bad("needs at least one factor");
  }
  const auto lanes = root["link_bw_GBps"];
  for (const auto& key : lanes.keys()) {
    if (key == "source") continue;
    const auto type = topology::link_type_from(key);
    if (!type) lanes[key].bad("is not a link type");
    if (!lanes[key].is_null()) t.link_lane_GBps[*type] = lanes[key].number();
  }
  if (root.has("nvlink_lane_GBps_by_sm")) {
    const auto by_sm = root["nvlink_lane_GBps_by_sm"];
    for (const auto& key : by_sm.keys())
      if (key != "source") t.nvlink_lane_GBps_by_sm[key] = by_sm[key].positive();
  }
  if (root.has("cpu_link_GBps")) {
    const auto cpu = root["cpu_link_GBps"];
    for (const auto& key : cpu.keys()) {
      if (key == "source") continue;
      if (key == "upi_pcie5") {
        t.cpu_link_upi_pcie5_GBps = cpu[key].positive();
        continue;
      }
      const auto type = topology::link_type_from(key);
      if (!type) cpu[key].bad("is not a link type");
      t.cpu_link_GBps[*type] = cpu[key].positive();
    }
  }
  const auto arch_of = root["arch_of_nvlink"];
  for (int g = 1; g <= 5; ++g) {
    const std::string key = "nvlink" + std::to_string(g);
    if (!arch_of.has(key)) continue;
    const auto a = arch_from(arch_of[key].string());
    if (!a) arch_of[key].bad("is not a GPU architecture");
    t.arch_of_nvlink[static_cast<std::size_t>(g - 1)] = *a;
  }
  if (root.has("arch_of_nccl_arch")) {
    const auto rows = root["arch_of_nccl_arch"];
    for (const auto& key : rows.keys()) {
      if (key == "source") continue;
      const auto a = arch_from(rows[key].string());
      if (!a) rows[key].bad("is not a GPU architecture");
      t.arch_of_nccl_arch[key] = *a;
    }
  }
  const auto ll128 = arch_from(root["ll128_min_arch"]["value"].string());
  if (!ll128) root["ll128_min_arch"]["value"].bad("is not a GPU architecture");
  t.ll128_min_arch = *ll128;
  if (root.has("ll128_by_version")) read_ll128_rules(root["ll128_by_version"]["rules"], t);
  if (root.has("threshold_choice_by_version")) read_threshold_rules(root["threshold_choice_by_version"]["rules"], t);
  read_memory_figures(root, t);
  const auto search = root["search"];
  for (std::size_t a = 0; a < kArchs; ++a) {
    const auto row = search["speed_intra"][kArchNames[a]];
    for (std::size_t i = 0; i < row.size(); ++i) t.speed_intra[a].push_back(row[i].number());
    if (t.speed_intra[a].empty()) row.bad("needs at least one speed");
  }
  t.max_search_channels = search["max_search_channels"].integer(1, 64);
  t.cuda_channels_per_search_channel = search["cuda_channels_per_search_channel"].integer(1, 64);
  const auto dup = search["dup_channels"];
  t.dup_min_bw = dup["min_bw"].number();
  t.dup_newer_than_ampere_min_bw = dup["newer_than_ampere_min_bw"].number();
  t.dup_newer_than_ampere_max_channels = dup["newer_than_ampere_max_channels"].integer(0, 64);
  for (int p = 0; p < 3; ++p) {
    const auto th = root["threads"][kProtoNames[p]];
    t.threads[p].threads = th["threads"].number();
    t.threads[p].threshold = th["threshold"].number();
    t.threads[p].ring_times_nranks = th.has("ring_times_nranks") && th["ring_times_nranks"].boolean();
  }
  const auto chunk = root["chunk_bytes"];
  t.chunk_simple = chunk["Simple"].positive();
  t.chunk_simple_one_step = chunk["Simple_one_step"].positive();
  t.chunk_ll = chunk["LL"].positive();
  t.chunk_ll128 = chunk["LL128"].positive();
  t.max_loops_simulated = root["max_loops_simulated"].integer(1, 4096);
  if (root.has("nvls")) read_nvls(root["nvls"], t);
  if (root.has("rccl")) read_rccl(root["rccl"], t);
  if (root.has("net_kinds")) read_net_kinds(root["net_kinds"], t);
  return t;
}

std::string_view name(Algo a) { return kAlgoNames[static_cast<int>(a)]; }
std::string_view name(Proto p) { return kProtoNames[static_cast<int>(p)]; }
std::string_view name(Path p) { return kPathNames[static_cast<int>(p)]; }
std::string_view name(Arch a) { return kArchNames[static_cast<int>(a)]; }
std::optional<Arch> arch_from(std::string_view s) {
  for (int i = 0; i < kArchs; ++i)
    if (kArchNames[i] == s) return static_cast<Arch>(i);
  return std::nullopt;
}
Arch arch_flag(std::string_view s) {
  const auto a = arch_from(s);
  if (!a) fail("--gpu-arch: unknown '{}' (pascal, volta, ampere, hopper, blackwell)", s);
  return *a;
}
std::optional<Algo> algo_from(std::string_view s) {
  for (int i = 0; i < 2; ++i)
    if (kAlgoNames[i] == s) return static_cast<Algo>(i);
  return std::nullopt;
}

// NCCL's figure for the link type, but never more than the link itself carries: a topology that says a
// link is slower (an edited file, a host-staged PCIe path measured below the bus speed) is believed.
double Tables::lane_GBps(const topology::Link& l) const {
  const double own = static_cast<double>(l.bw) / 1e9;
  if (rccl && l.type == topology::LinkType::Xgmi) return own * rccl->xgmi_lane_fraction;
  const auto it = link_lane_GBps.find(l.type);
  return it != link_lane_GBps.end() ? std::min(it->second, own) : own;
}

// NCCL gives the link between two CPU sockets one figure for all GPU traffic crossing it (AMD_BW 16,
// SKL_QPI_BW 10, ...; topo.cc ncclTopoGetInterCpuBw -> ncclTopoConnectCpus' LINK_SYS), far below the sockets'
// own links. It is the search's figure: search.cc followPath subtracts each channel's speed from it, so it
// sets the graph's speed per channel, its channel count and which rings are legal.
bool Tables::socket_figure(const topology::Topology& t, const topology::Link& l) const {
  return topology::is_socket_link(t, l) && cpu_link_GBps.count(l.type) > 0;
}

// Does the machine stage GPU copies through host memory (NCCL's SHM: P2P off, a peer beyond NCCL_P2P_LEVEL)?
bool stages_through_host(const topology::Topology& t) {
  return std::any_of(t.links.begin(), t.links.end(), [](const topology::Link& l) { return l.host_staged; });
}

// The socket link in the replay. Where GPUs copy through host memory (SHM), NCCL's figure stays: it is what
// those copies reach across sockets (8 RTX 4090 on 2 EPYC 7542 with P2P off: NCCL's ring at 15 GB/s, 15.0
// measured). Where they write to each other peer-to-peer across AMD EPYC's Infinity Fabric (NCCL_P2P_LEVEL=SYS,
// or AMD pairs: paths.cc ncclTopoCheckP2p), the figure only shaped the search: the copy runs at what the
// hardware carries, the link as drawn (2 x EPYC 9575F, 8 RTX 5090 with P2P at SYS: 45 GB/s busbw per ring hop
// where AMD_BW is 16; P2P writes across dual Turin sockets 51 GB/s one way against 56 within one,
// voipmonitor/rtx6kpro hardware/pcie-bandwidth.md). Intel's UPI/QPI keep NCCL's figure for P2P too: no
// measurement of P2P writes across them is at hand, and NCCL's default (PXB) stages such pairs through host memory.
double Tables::replay_lane_GBps(const topology::Topology& t, const topology::Link& l, bool host_staging) const {
  if (!host_staging && l.type == topology::LinkType::Xgmi && socket_figure(t, l)) return static_cast<double>(l.bw) / 1e9;
  const auto it = net_kinds.find(l.type);
  return lane_GBps(t, l) * (it == net_kinds.end() ? 1.0 : it->second.rate_vs_ib);
}

const Tables::NetKind::Instance* Tables::instance_of(topology::LinkType type, const std::string& instance) const {
  if (instance.empty()) return nullptr;
  const auto it = net_kinds.find(type);
  if (it == net_kinds.end() || it->second.instances.empty()) return nullptr;
  // The plugin's lookup: its entries in order, an exact name or a regex search, the first match winning.
  for (const auto& in : it->second.instances) {
    if (in.compiled ? std::regex_search(instance, in.compiled->re) : in.name == instance)
      return &in;
  }
  std::string known;
  for (const auto& in : it->second.instances) known += (known.empty() ? "" : ", ") + in.name;
  fail("instance '{}' is not in aws-ofi-nccl's platform table (models/nccl.json net_kinds {} instances: {}); leave instance out "
       "to take the transport from the GPU generation",
       instance, topology::to_string(type), known);
}

const Tables::NetTransport* Tables::transport_of(topology::LinkType type, Arch arch, const std::string& instance) const {
  const auto it = net_kinds.find(type);
  if (it == net_kinds.end()) return nullptr;
  if (const auto* in = instance_of(type, instance)) return in->rdma ? nullptr : &in->transport;
  const auto tr = it->second.by_arch.find(arch);
  return tr == it->second.by_arch.end() ? nullptr : &tr->second;
}

double Tables::net_hop_of(const topology::Link& l, double nccl_hop_us, Arch arch, const std::string& instance) const {
  if (!topology::is_network(l.type)) return 0.0;
  const auto it = net_kinds.find(l.type);
  if (it == net_kinds.end()) return nccl_hop_us;
  const auto* tr = transport_of(l.type, arch, instance);
  return std::max(nccl_hop_us, tr ? tr->hop_us : it->second.hop_us);
}

namespace {
// The network link types of t, each once (a cluster has thousands of network links of one or two types).
std::vector<topology::LinkType> network_types(const topology::Topology& t) {
  std::vector<topology::LinkType> out;
  for (const auto& l : t.links)
    if (topology::is_network(l.type) && std::find(out.begin(), out.end(), l.type) == out.end()) out.push_back(l.type);
  return out;
}
} // namespace

Tables::FabricHops Tables::fabric_hops(const topology::Topology& t, Arch arch) const {
  FabricHops f;
  for (const auto type : network_types(t)) {
    const auto it = net_kinds.find(type);
    if (it == net_kinds.end()) continue; // net_hop_of: NCCL's own hop
    const auto* tr = transport_of(type, arch, t.instance); // the instance's transport, else the GPU generation's
    f.hop_us = std::max(f.hop_us, tr ? tr->hop_us : it->second.hop_us);
    if (it->second.rdma_eager_max_bytes > 0 && !tr) f.rendezvous.emplace_back(it->second.rdma_eager_max_bytes, it->second.hop_us);
    if (tr && tr->two_sided.any()) f.two_sided.push_back(*tr);
  }
  return f;
}

// libfabric's EFA provider (prov/efa, read at v2.3.0; models/README.md "EFA's two-sided protocols"). CUDA memory
// (efa_hmem.c: max_medium_msg_size 0, min_read_msg_size one packet + 1; efa_rdm_msg.c efa_rdm_msg_select_rtm):
// eager in one packet, above it a read-based protocol (long read, or runting read whose remainder is read): the
// receiver's RDMA read of the sender's buffer after the request-to-send, one more operation. Host memory: eager
// and medium (packets, no handshake) up to 64 KiB, a read from 1 MiB, between them long-CTS, whose data goes only
// in windows the receiver grants by CTS (efa_rdm_pke_nonreq.c: tx_min_credits 32 packets each): one more round
// trip per window.
double Tables::TwoSided::extra_ops(bool device, double m) const {
  if (device) return device_eager_max_bytes > 0 && m > device_eager_max_bytes ? 1.0 : 0.0;
  if (host_medium_max_bytes <= 0 || m <= host_medium_max_bytes) return 0.0;
  if (m >= host_read_min_bytes) return 1.0;
  return std::ceil(m / cts_window_bytes);
}

double Tables::FabricHops::two_sided_us(double share_bytes, int slice_steps) const {
  double us = 0.0;
  for (const auto& tr : two_sided) {
    // NCCL's Simple step is NCCL_BUFFSIZE / NCCL_STEPS (src/init.cc: DEFAULT_BUFFSIZE 4 MiB, NCCL_STEPS 8).
    const double buff = tr.buffsize_bytes > 0 ? tr.buffsize_bytes : double(1 << 22);
    const double message = std::min(share_bytes, buff / 8.0 * std::max(1, slice_steps));
    us = std::max(us, tr.two_sided.extra_ops(tr.gdr, message) * tr.op_us);
  }
  return us;
}

double Tables::two_sided_us(const topology::Topology& t, Arch arch, double share_bytes, int slice_steps) const {
  return fabric_hops(t, arch).two_sided_us(share_bytes, slice_steps);
}

double Tables::FabricHops::rendezvous_us(double message_bytes) const {
  double wait = 0.0;
  for (const auto& [eager_max, hop] : rendezvous)
    if (message_bytes > eager_max) wait = std::max(wait, hop);
  return wait;
}

double Tables::rendezvous_us(const topology::Topology& t, Arch arch, double message_bytes) const {
  return fabric_hops(t, arch).rendezvous_us(message_bytes);
}

const Tables::NetKind::Env* Tables::net_env(const topology::Topology& t, std::array<int, 3> release) const {
  const bool known = release != std::array<int, 3>{0, 0, 0};
  for (const auto type : network_types(t)) {
    const auto it = net_kinds.find(type);
    if (it == net_kinds.end() || it->second.env.empty()) continue;
    // The span the release falls in; an unknown release runs the newest profile (the last).
    const Tables::NetKind::Env* e = &it->second.env.back();
    if (known)
      for (const auto& span : it->second.env)
        if (span.until == std::array<int, 3>{0, 0, 0} || release < span.until) {
          e = &span;
          break;
        }
    if (!e->algo.empty() || !e->proto.empty() || e->nvls_off || e->channels > 0) return e;
  }
  return nullptr;
}

bool Tables::simple_only(const topology::Topology& t, Arch arch) const {
  for (const auto type : network_types(t)) {
    const auto* tr = transport_of(type, arch, t.instance);
    if (tr && tr->simple_only) return true;
  }
  return false;
}

// The catalogue's compute capability of a topology's GPU kind, looked up once per kind.
static std::string sm_of_kind(const std::string& kind) {
  static std::mutex m;
  static std::map<std::string, std::string> cache;
  const std::lock_guard<std::mutex> lock(m);
  const auto it = cache.find(kind);
  if (it != cache.end()) return it->second;
  return cache[kind] = topology::gpu_kind(kind, "topology gpu").sm;
}

namespace {
// A Gen5 PCIe link: at a CPU, a root port of Sapphire Rapids or newer (cpu_link_upi_pcie5_GBps).
bool gen5_pcie(const topology::Link& k) { return topology::is_pcie(k.type) && k.type >= topology::LinkType::Pcie5; }
} // namespace

template <class Gen5At>
double Tables::lane_GBps(const topology::Topology& t, const topology::Link& l, Gen5At&& gen5_at) const {
  if (topology::is_nvlink(l.type) && !nvlink_lane_GBps_by_sm.empty() && !t.gpu_kind.empty()) {
    const auto it = nvlink_lane_GBps_by_sm.find(sm_of_kind(t.gpu_kind));
    if (it != nvlink_lane_GBps_by_sm.end()) return std::min(it->second, static_cast<double>(l.bw) / 1e9);
  }
  if (!socket_figure(t, l)) {
    // RCCL's xGMI figure per product where AMD gives one (rccl.json xgmi_lane_fraction_by_gpu), else per GPU
    // generation (xgmi_lane_fraction_by_sm), of the link as drawn.
    if (rccl && l.type == topology::LinkType::Xgmi && !t.gpu_kind.empty()) {
      const auto g = rccl->xgmi_lane_fraction_by_gpu.find(topology::canonical_gpu_kind(t.gpu_kind));
      if (g != rccl->xgmi_lane_fraction_by_gpu.end()) return static_cast<double>(l.bw) / 1e9 * g->second;
      const auto it = rccl->xgmi_lane_fraction_by_sm.find(sm_of_kind(t.gpu_kind));
      if (it != rccl->xgmi_lane_fraction_by_sm.end()) return static_cast<double>(l.bw) / 1e9 * it->second;
    }
    return lane_GBps(l);
  }
  double total = cpu_link_GBps.at(l.type);
  if (l.type == topology::LinkType::Upi && cpu_link_upi_pcie5_GBps > 0 && (gen5_at(l.a) || gen5_at(l.b)))
    total = cpu_link_upi_pcie5_GBps; // a Gen5 root port on either socket: Sapphire Rapids or newer
  const int lanes = std::max(1, l.lanes);
  return std::min(total / lanes, static_cast<double>(l.bw) / 1e9);
}

double Tables::lane_GBps(const topology::Topology& t, const topology::Link& l) const {
  return lane_GBps(t, l, [&](int n) { return std::any_of(t.links.begin(), t.links.end(), [&](const topology::Link& k) { return (k.a == n || k.b == n) && gen5_pcie(k); }); });
}

std::vector<double> Tables::lane_GBps_all(const topology::Topology& t) const {
  std::vector<char> gen5(t.nodes.size(), 0);
  for (const auto& k : t.links)
    if (gen5_pcie(k)) gen5[static_cast<std::size_t>(k.a)] = gen5[static_cast<std::size_t>(k.b)] = 1;
  std::vector<double> out;
  out.reserve(t.links.size());
  for (const auto& l : t.links) out.push_back(lane_GBps(t, l, [&](int n) { return gen5[static_cast<std::size_t>(n)] != 0; }));
  return out;
}

std::string default_tables_path() { return data_dir() + "/models/nccl.json"; }
std::string default_rccl_tables_path() { return data_dir() + "/models/rccl.json"; }

const Tables& load_tables(const std::string& path_in) {
  static std::mutex m;
  static std::map<std::string, std::unique_ptr<const Tables>> cache;
  const std::string path = path_in.empty() ? default_tables_path() : path_in;
  std::lock_guard lock(m);
  auto& slot = cache[path];
  if (!slot) slot = std::make_unique<const Tables>(parse_tables(path));
  return *slot;
}

} // namespace ccsim::model::nccl
