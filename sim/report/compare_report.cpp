#include "sim/report/compare_report.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/json_file.hpp"
#include "sim/core/units.hpp"
#include "sim/report/report.hpp"

namespace ccsim::report {

namespace {
nlohmann::ordered_json num_or_null(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); }


std::string_view kind_name(model::BoundKind k) {
  switch (k) {
  case model::BoundKind::Network: return "network";
  case model::BoundKind::NicPcie: return "NIC PCIe";
  case model::BoundKind::NVLink: return "NVLink";
  case model::BoundKind::Xgmi: return "xGMI";
  case model::BoundKind::Pcie: return "PCIe";
  case model::BoundKind::Other: return "other";
  case model::BoundKind::None: break;
  }
  return "";
}

// What each bounding link carried in the replay, scaled to the measured rate.
double carried_at_measured_rate(const model::BoundBand& b) {
  return b.link_GBps * b.used_pct / 100.0 * b.measured_busbw / b.predicted_busbw;
}

// The tools and NCCL log lines that check a network, by its kind. InfiniBand and RoCE run NCCL's own IB verbs
// transport (perftest, "NET/IB" lines). Slingshot and EFA are reached through the aws-ofi-nccl plugin over libfabric
// (HPE's NCCL guide for Slingshot, github.com/HewlettPackard/shs-ccl-docs nccl/nccl_tuning_guide.md: "Loaded net
// plugin AWS Libfabric"): its lines start "NET/OFI" and name the provider and the transport protocol (aws-ofi-nccl
// v1.9.1-aws src/nccl_ofi_net.c "Selected Provider is %s", "Using transport protocol %s"; v1.19+ "Selected provider
// is %s, fabric is %s"); a Cassini NIC has no verbs, so perftest does not run there: libfabric's own fabtests do
// (fi_rdm_tagged_bw / fi_rdm_tagged_pingpong: tagged messages, what the plugin's SENDRECV protocol sends). TCP
// sockets: NCCL's "NET/Socket" lines (NVIDIA/nccl src/transport/net_socket.cc "NET/Socket : Using").
struct NetChecks {
  std::string_view latency, bandwidth, nccl_lines;
};
NetChecks net_checks(const std::string& net) {
  if (net == "slingshot")
    return {"libfabric's fabtests: fi_rdm_tagged_pingpong -p cxi", "libfabric's fabtests (fi_rdm_tagged_bw -p cxi)",
            "NET/OFI lines: 'Selected provider is cxi', 'Using transport protocol', GDRDMA"};
  if (net == "efa")
    return {"libfabric's fabtests: fi_rdm_tagged_pingpong -p efa", "libfabric's fabtests (fi_rdm_tagged_bw -p efa)",
            "NET/OFI lines: 'Selected provider is efa', 'Using transport protocol', GDRDMA"};
  // Google's GPUDirect-TCPX / TCPXO plugins run TCP (device-memory receive): TCP's tools, the plugin's own NET/ lines.
  if (net == "ethernet" || net == "tcpx" || net == "tcpxo")
    return {"a TCP round trip between the hosts (sockperf ping-pong)", "iperf3 -P 4",
            "NET/Socket lines for NCCL's own sockets, NCCL_SOCKET_IFNAME; a plugin prints its own NET/ name"};
  return {"ib_send_lat", "ib_write_bw (perftest)", "NET/IB lines, GDRDMA"};
}

// What to check when the measured busbw of a band differs, by the resource that bounds the prediction.
std::string check_of(const model::BoundBand& b) {
  const NetChecks net = net_checks(b.net);
  // The launch check by the GPUs' runtime (rccl-tests -G runs HIP graphs, ROCm/rccl-tests src/common.cu); the network's
  // latency only where the ranks span hosts: on one host no NIC is crossed.
  if (b.latency)
    return fmt::format("launch cost ({}), the protocol (NCCL_PROTO; LL for small sizes){} set this floor",
                       b.amd ? "rccl-tests -G 1 runs HIP graphs" : "nccl-tests -G 1 runs CUDA graphs",
                       b.across_hosts ? fmt::format(" and the network's latency ({})", net.latency)
                                      : std::string(b.amd ? " and the xGMI hops" : " and the NVLink/PCIe hops"));
  if (b.kind == model::BoundKind::Network)
    return fmt::format("check each NIC with {} between two nodes, and that NCCL uses every NIC with GPUDirect RDMA "
                       "(NCCL_DEBUG=INFO: {})",
                       net.bandwidth, net.nccl_lines);
  if (b.kind == model::BoundKind::NicPcie)
    return fmt::format("check each NIC with {} between two nodes and the PCIe width and generation of its slot "
                       "(lspci -vv LnkSta), and that NCCL uses every NIC with GPUDirect RDMA (NCCL_DEBUG=INFO: {})",
                       net.bandwidth, net.nccl_lines);
  if (b.kind == model::BoundKind::Xgmi)
    return "check amd-smi topology (every GPU pair on xGMI) and rocm-smi --showxgmierr (link errors)";
  if (b.kind == model::BoundKind::NVLink) return "check nvidia-smi nvlink --status (every link up, at full speed) and nvidia-smi topo -m";
  if (b.kind == model::BoundKind::Pcie)
    return "check the PCIe width and generation (nvidia-smi -q -d PCIE, lspci -vv LnkSta) and ACS (P2P through the root complex)";
  if (b.kind == model::BoundKind::None)
    return "the model's pick here is a closed form, which names no link: compare again with --nccl-algo ring to replay "
           "rings and name their busiest link";
  return "`ccsim --topo ... --links` lists every link's load";
}

std::string size_range(Bytes lo, Bytes hi) { return lo == hi ? format_size(lo) : format_size(lo) + ".." + format_size(hi); }

// One line per band, in parts: the band (head), what bounds the prediction and what the measured busbw says about
// it (finding), what to check; text = head + finding + joiner + check. The summary of many runs splices two runs'
// parts (compare_command.cpp), so it takes them from here rather than cutting the text.
struct BoundLine {
  std::string head, finding, joiner = "; ", check;
  std::string text() const { return head + finding + joiner + check; }
};

std::vector<BoundLine> bound_lines(const model::CompareMeta& m) {
  std::vector<BoundLine> out;
  for (const auto& b : m.bands) {
    BoundLine l;
    l.head = fmt::format("why ({} band, {}, {} row{}): ", b.latency ? "latency" : "bandwidth", size_range(b.lo, b.hi), b.rows,
                         b.rows == 1 ? "" : "s");
    l.check = check_of(b);
    if (b.latency) {
      l.finding = fmt::format("fixed costs (launch, per-hop latency) dominate the prediction, below half its peak busbw; "
                              "median time {:.2f} us predicted against {:.2f} us measured ({:.2f}x)",
                              b.predicted_time_us, b.measured_time_us, b.measured_time_us / b.predicted_time_us);
    } else if (b.kind != model::BoundKind::None) {
      const std::string links = fmt::format("{} {} link{} ({}, {:g} GB/s each way, {:.0f}% used; e.g. {})", b.links, b.type,
                                            b.links == 1 ? "" : "s", kind_name(b.kind), b.link_GBps, b.used_pct, b.name);
      const std::string rates = fmt::format("median busbw {:.2f} GB/s measured against {:.2f} predicted: at the measured rate those "
                                            "links carried ~{:.1f} GB/s each", b.measured_busbw, b.predicted_busbw,
                                            carried_at_measured_rate(b));
      if (b.full) l.finding = fmt::format("bound by {}; {}", links, rates);
      else {
        l.finding = fmt::format("no link full in the replay, the most used {}: per-channel limits (NCCL's channels per peer x the "
                                "rate of one channel), the protocol or the pipeline's fill hold the rate; {}; NCCL_DEBUG=INFO prints "
                                "the channels NCCL ran",
                                links, rates);
        l.joiner = ", and ";
      }
    } else {
      l.finding = fmt::format("median busbw {:.2f} GB/s measured against {:.2f} predicted", b.measured_busbw, b.predicted_busbw);
    }
    out.push_back(std::move(l));
  }
  return out;
}

} // namespace

nlohmann::ordered_json compare_json(const model::CompareResult& r, const model::CompareMeta& m) {
  nlohmann::ordered_json j;
  j["tool"] = "ccsim compare";
  j["trace"] = m.trace;
  j["hardware"] = m.hardware;
  j["op"] = m.op;
  j["op_from"] = m.op_from;
  j["ranks"] = m.ranks;
  j["ranks_from"] = m.ranks_from;
  j["gpus_per_thread"] = m.gpus_per_thread;
  if (!m.launch_kind.empty()) j["launch_kind"] = m.launch_kind;
  j["topology"] = m.topology;
  j["topology_origin"] = m.topology_origin;
  j["model"] = m.model;
  j["params"] = m.params;
  j["placements"] = m.placements;
  if (!m.model_detail.empty()) j["nccl_graph"] = m.model_detail;
  j["measured_column"] = m.in_place ? "in-place" : "out-of-place";
  j["old_busbw_convention"] = m.old_busbw_convention;
  if (!m.notes.empty()) j["notes"] = m.notes;
  if (m.checked) j["checked"] = checked_json(*m.checked);
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& x : r.rows) {
    nlohmann::ordered_json row{{"size", x.size},
                               {"count", x.count},
                               {"line", x.line},
                               {"measured_time_us", x.measured_time_us},
                               {"predicted_time_us", x.predicted_time_us},
                               {"measured_algbw", x.measured_algbw},
                               {"predicted_algbw", x.predicted_algbw},
                               {"measured_busbw", x.measured_busbw},
                               {"predicted_busbw", x.predicted_busbw},
                               {"err_pct", x.err_pct},
                               {"algo", x.pred.algo}};
    if (!x.pred.proto.empty()) {
      row["proto"] = x.pred.proto;
      row["channels"] = x.pred.channels;
      row["loops"] = x.pred.loops;
      row["simulated"] = x.pred.simulated;
      row["faster_than_nccl_pick"] = !x.pred.note.empty();
    }
    j["rows"].push_back(row);
  }
  j["summary"] = {{"median_abs_err_pct_ge_1MiB", num_or_null(r.median_abs_err_ge_1MiB)},
                  {"median_abs_err_pct_all", num_or_null(r.median_abs_err_all)},
                  {"max_abs_err_pct", r.max_abs_err},
                  {"rows", r.rows.size()},
                  {"rows_ge_1MiB", r.n_ge_1MiB},
                  {"rows_skipped", r.skipped}};
  j["bounds"] = nlohmann::ordered_json::array();
  const auto lines = bound_lines(m);
  for (std::size_t i = 0; i < m.bands.size(); ++i) {
    const auto& b = m.bands[i];
    nlohmann::ordered_json o;
    o["band"] = b.latency ? "latency" : "bandwidth";
    o["min_size"] = b.lo, o["max_size"] = b.hi, o["rows"] = b.rows;
    o["median_measured_busbw"] = num_or_null(b.measured_busbw), o["median_predicted_busbw"] = num_or_null(b.predicted_busbw);
    o["median_measured_time_us"] = num_or_null(b.measured_time_us), o["median_predicted_time_us"] = num_or_null(b.predicted_time_us);
    if (b.kind != model::BoundKind::None) {
      o["bound_by"] = kind_name(b.kind), o["link_type"] = b.type, o["link"] = b.name, o["link_GBps"] = b.link_GBps;
      o["links_as_used"] = b.links, o["used_pct"] = b.used_pct, o["link_full"] = b.full;
      o["link_GBps_at_measured_rate"] = num_or_null(carried_at_measured_rate(b));
    }
    o["text"] = lines[i].text();
    o["head"] = lines[i].head, o["finding"] = lines[i].finding, o["check"] = lines[i].check;
    j["bounds"].push_back(o);
  }
  return j;
}

std::string compare_table(const model::CompareResult& r, const model::CompareMeta& m) {
  std::string s = fmt::format("# ccsim compare: {} ({} ranks, op from {}, ranks from {})\n", m.trace, m.ranks, m.op_from, m.ranks_from);
  if (!m.hardware.empty()) s += fmt::format("# hardware: {}\n", m.hardware);
  s += fmt::format("# prediction: {} on topology {} ({}), model {}{}\n", m.op, m.topology, m.topology_origin, m.model,
                   m.params.empty() ? "" : ", params " + m.params);
  if (!m.model_detail.empty()) s += fmt::format("# nccl graph: {}\n", m.model_detail);
  for (const auto& n : m.notes) s += fmt::format("# trace: {}\n", n);
  s += fmt::format("# measured: {} column; busbw recomputed from size/time (nccl-tests definitions){}\n",
                   m.in_place ? "in-place" : "out-of-place",
                   m.old_busbw_convention ? "; this file prints the 2019 algbw = busbw convention" : "");
  s += "# err = (predicted - measured) / measured busbw\n#\n";
  s += fmt::format("#{:>11} {:>11} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8} {:>8}  {}\n", "size", "count", "meas(us)", "pred(us)",
                   "m_algbw", "p_algbw", "m_busbw", "p_busbw", "err%", "choice");
  for (const auto& x : r.rows)
    s += fmt::format("{:>12} {:>11} {:>10.2f} {:>10.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>+8.1f}  {}\n", x.size, x.count,
                     x.measured_time_us, x.predicted_time_us, x.measured_algbw, x.predicted_algbw, x.measured_busbw,
                     x.predicted_busbw, x.err_pct, choice_text(x.pred));
  // The why lines before the summary, which stays the last line (scripts read it with tail -1).
  for (const auto& line : bound_lines(m)) s += "# " + line.text() + "\n";
  if (m.checked) s += "# " + m.checked->line + "\n";
  s += fmt::format("# median |busbw err|: {:.1f}% for sizes >= 1 MiB ({} rows), {:.1f}% over all {} rows; max {:.1f}%{}\n",
                   r.median_abs_err_ge_1MiB, r.n_ge_1MiB, r.median_abs_err_all, r.rows.size(), r.max_abs_err,
                   r.skipped ? fmt::format(" ({} rows of size 0 or time 0 skipped)", r.skipped) : "");
  return s;
}

// The run's CSV names (README "Output for scripts"), measured_/predicted_ in front: units in every name.
std::string compare_csv(const model::CompareResult& r, const model::CompareMeta&) {
  std::string s = "size,count,measured_time_us,predicted_time_us,measured_algbw_GBps,predicted_algbw_GBps,measured_busbw_GBps,"
                  "predicted_busbw_GBps,busbw_err_pct,algo,proto,channels\n";
  for (const auto& x : r.rows)
    s += fmt::format("{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.3f},{},{},{}\n", x.size, x.count, x.measured_time_us,
                     x.predicted_time_us, x.measured_algbw, x.predicted_algbw, x.measured_busbw, x.predicted_busbw, x.err_pct,
                     x.pred.algo, x.pred.proto, x.pred.channels);
  return s;
}

// The table's rows under a caption and above the summary, in Markdown, to paste into a ticket.
std::string compare_markdown(const model::CompareResult& r, const model::CompareMeta& m) {
  std::string s = fmt::format("**ccsim compare**: `{}` ({} ranks){}, measured {} column; predicted: {} on {} ({}), model {}{}\n\n",
                              markdown_cell(m.trace), m.ranks, m.hardware.empty() ? "" : ", " + markdown_cell(m.hardware),
                              m.in_place ? "in-place" : "out-of-place", m.op, markdown_cell(m.topology),
                              markdown_cell(m.topology_origin), m.model, m.params.empty() ? "" : ", params " + markdown_cell(m.params));
  s += "| size (B) | count | measured time (us) | predicted time (us) | measured algbw (GB/s) | predicted algbw (GB/s) | "
       "measured busbw (GB/s) | predicted busbw (GB/s) | busbw err % | choice |\n";
  s += "|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|\n";
  for (const auto& x : r.rows)
    s += fmt::format("| {} | {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:+.1f} | {} |\n", x.size, x.count,
                     x.measured_time_us, x.predicted_time_us, x.measured_algbw, x.predicted_algbw, x.measured_busbw,
                     x.predicted_busbw, x.err_pct, markdown_cell(choice_text(x.pred)));
  // A blank line first: a line right after a table would be read as one more row.
  s += fmt::format("\nbusbw err = (predicted - measured) / measured busbw; median of its absolute value {:.1f} % for sizes >= 1 MiB "
                   "({} rows), {:.1f} % over all {} rows; max {:.1f} %{}\n",
                   r.median_abs_err_ge_1MiB, r.n_ge_1MiB, r.median_abs_err_all, r.rows.size(), r.max_abs_err,
                   r.skipped ? fmt::format(" ({} rows of size 0 or time 0 skipped)", r.skipped) : "");
  for (const auto& line : bound_lines(m)) s += fmt::format("\n- {}", markdown_cell(line.text()));
  for (const auto& n : m.notes) s += fmt::format("\n- trace: {}", markdown_cell(n));
  if (!m.notes.empty() || !m.bands.empty()) s += "\n";
  return s;
}

Verdict verdict_of(const SummaryEntry& e, double healthy_pct) {
  if (!e.error.empty()) return Verdict::Error;
  if (!e.wrong.empty()) return Verdict::Failed; // wrong data is a failed run at any speed
  if (e.health.rows == 0) return Verdict::NoVerdict;
  return e.health.ratio * 100 < healthy_pct ? Verdict::Below : Verdict::Ok;
}

int summary_status(const std::vector<SummaryEntry>& entries, double healthy_pct) {
  int status = 0;
  for (const auto& e : entries) {
    const auto v = verdict_of(e, healthy_pct);
    if (v == Verdict::Error) return 2;
    if (v == Verdict::Below || v == Verdict::Failed) status = 1;
  }
  return status;
}

namespace {

std::string verdict_word(Verdict v) {
  switch (v) {
  case Verdict::Ok: return "ok";
  case Verdict::Below: return "below";
  case Verdict::NoVerdict: return "no verdict";
  case Verdict::Error: return "error";
  case Verdict::Failed: return "failed";
  }
  return "";
}

// "BELOW: 45.8 % under the prediction", "no verdict: no bandwidth-bound row of 1 MiB or more", "ERROR: <refusal>".
std::string verdict_text(const SummaryEntry& e, Verdict v) {
  switch (v) {
  case Verdict::Ok: return "ok";
  case Verdict::Below: return fmt::format("BELOW: {:.1f} % under the prediction", 100 - 100 * e.health.ratio);
  case Verdict::NoVerdict: return "no verdict: no bandwidth-bound row of 1 MiB or more";
  case Verdict::Error: return "ERROR: " + e.error;
  case Verdict::Failed:
    // nccl-tests checks every result against its expected value (-c 1, the default; util.cu writeResultFooter): a GPU,
    // a link or a NIC that corrupts data fails the run, however fast.
    return fmt::format("FAILED: nccl-tests found wrong results ({}): the run fails at any speed; rerun it, and test "
                       "its GPUs and links before its bandwidth",
                       e.wrong);
  }
  return "";
}

std::string sizes_text(const SummaryEntry& e) {
  return e.health.rows ? fmt::format("{}..{}", format_size(e.health.lo), format_size(e.health.hi)) : std::string("-");
}
std::string ratio_text(const SummaryEntry& e) {
  return e.health.rows ? fmt::format("{:.1f} %", 100 * e.health.ratio) : std::string("-");
}
std::string run_text(const SummaryEntry& e) { return e.runs ? fmt::format("{}/{}", e.run, e.runs) : std::string("-"); }

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

} // namespace

std::string compare_summary(const std::vector<SummaryEntry>& entries, const SummaryHead& head, Format f) {
  std::size_t files = 0;
  int counts[5] = {0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i == 0 || entries[i].file != entries[i - 1].file) ++files;
    ++counts[static_cast<int>(verdict_of(entries[i], head.healthy_pct))];
  }
  const int status = summary_status(entries, head.healthy_pct);
  const std::string rule = fmt::format("measured busbw at least {:g} % of the prediction (median over the bandwidth-bound sizes of "
                                       "1 MiB and more; --healthy PCT)", head.healthy_pct);
  // The failed runs' count only where there are some: the tally of a clean folder reads as it always has.
  const std::string failed = counts[4] ? fmt::format(", {} failed (wrong results)", counts[4]) : "";
  const std::string tally = fmt::format("{} file(s), {} run(s): {} ok, {} below{}, {} without a verdict, {} not compared; exit status {} "
                                        "(0 all ok, 1 a run below{}, 2 a file not compared)",
                                        files, entries.size(), counts[0], counts[1], failed, counts[2], counts[3], status,
                                        counts[4] ? " or failed" : "");
  if (f == Format::Json) {
    nlohmann::ordered_json j;
    j["kind"] = "ccsim-compare-summary";
    j["topology"] = head.topology, j["model"] = head.model, j["params"] = head.params;
    j["healthy_pct"] = head.healthy_pct;
    if (!head.skipped.empty()) j["skipped_folders"] = head.skipped;
    j["runs"] = nlohmann::ordered_json::array();
    for (const auto& e : entries) {
      nlohmann::ordered_json o;
      o["file"] = e.file;
      o["run"] = e.run, o["runs"] = e.runs;
      const auto v = verdict_of(e, head.healthy_pct);
      o["verdict"] = verdict_word(v);
      if (v == Verdict::Error) o["error"] = e.error;
      else {
        o["op"] = e.op, o["ranks"] = e.ranks, o["rows"] = e.health.rows;
        if (e.health.rows) {
          o["min_size"] = e.health.lo, o["max_size"] = e.health.hi;
          o["measured_over_predicted_pct"] = num_or_null(100 * e.health.ratio);
        }
        if (!e.why.empty()) o["why"] = e.why;
        if (!e.wrong.empty()) o["wrong_results"] = e.wrong;
      }
      j["runs"].push_back(o);
    }
    j["counts"] = {{"ok", counts[0]}, {"below", counts[1]}, {"no_verdict", counts[2]}, {"error", counts[3]}, {"failed", counts[4]}};
    j["exit_status"] = status;
    // safe_dump: a file found in a folder may have a name that is not UTF-8 (dump() threw nlohmann's type_error 316,
    // exit 3 after every run was compared); its bytes are written as U+FFFD, as the single-run JSON writes them.
    return safe_dump(j, 2) + "\n";
  }
  if (f == Format::Csv) {
    std::string s = "file,run,runs,op,ranks,min_size,max_size,rows,measured_over_predicted_pct,verdict,detail\n";
    for (const auto& e : entries) {
      const auto v = verdict_of(e, head.healthy_pct);
      s += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", csv_cell(e.file), e.run, e.runs, e.op, e.ranks,
                       e.health.rows ? std::to_string(e.health.lo) : "", e.health.rows ? std::to_string(e.health.hi) : "",
                       e.health.rows, e.health.rows ? fmt::format("{:.2f}", 100 * e.health.ratio) : "", verdict_word(v),
                       csv_cell(v == Verdict::Error ? e.error : v == Verdict::Below ? e.why : v == Verdict::Failed ? e.wrong : ""));
    }
    return s;
  }
  if (f == Format::Markdown) {
    std::string s = fmt::format("**ccsim compare**: {} file(s) against `{}`, model {}{}; healthy: {}\n\n", files,
                                markdown_cell(head.topology), head.model, head.params.empty() ? "" : ", params " + markdown_cell(head.params),
                                markdown_cell(rule));
    s += "| file | run | op | ranks | sizes | measured / predicted busbw | verdict |\n|:---|---:|:---|---:|:---|---:|:---|\n";
    for (const auto& e : entries) {
      const auto v = verdict_of(e, head.healthy_pct);
      s += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", markdown_cell(e.file), run_text(e), v == Verdict::Error ? "" : e.op,
                       v == Verdict::Error ? std::string() : std::to_string(e.ranks), sizes_text(e), ratio_text(e),
                       markdown_cell(verdict_text(e, v)));
    }
    s += "\n" + tally + "\n";
    for (const auto& e : entries)
      if (verdict_of(e, head.healthy_pct) == Verdict::Below && !e.why.empty())
        s += fmt::format("\n- `{}` run {}: {}", markdown_cell(e.file), run_text(e), markdown_cell(e.why));
    return s + "\n";
  }
  std::size_t w = 4;
  for (const auto& e : entries) w = std::max(w, e.file.size());
  std::string s = fmt::format("# ccsim compare: {} file(s) against topology {}, model {}{}\n", files, head.topology, head.model,
                              head.params.empty() ? "" : ", params " + head.params);
  s += fmt::format("# healthy: {}\n", rule);
  for (const auto& d : head.skipped) s += fmt::format("# skipped: {} (a folder inside a --trace folder: not searched; give it as --trace {})\n", d, d);
  s += "#\n";
  s += fmt::format("# {:<{}} {:>5}  {:<13} {:>5}  {:<17} {:>9}  {}\n", "file", w - 2, "run", "op", "ranks", "sizes", "meas/pred", "verdict");
  for (const auto& e : entries) {
    const auto v = verdict_of(e, head.healthy_pct);
    s += fmt::format("{:<{}} {:>5}  {:<13} {:>5}  {:<17} {:>9}  {}\n", e.file, w, run_text(e), v == Verdict::Error ? "-" : e.op,
                     v == Verdict::Error ? std::string("-") : std::to_string(e.ranks), sizes_text(e), ratio_text(e), verdict_text(e, v));
    if (v == Verdict::Below && !e.why.empty()) s += "#   " + e.why + "\n"; // "why (bandwidth band, ...): ..."
  }
  return s + "# " + tally + "\n";
}

} // namespace ccsim::report
