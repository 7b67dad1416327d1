// ccsim compare: predicted time/algbw/busbw beside every row of a measured nccl-tests trace, signed
// busbw error per row and the median |error| for sizes >= 1 MiB and over all sizes; --plot draws
// busbw vs size through scripts/plot_compare.py (Debian's python3-matplotlib) fed by the JSON.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/cli/common.hpp"
#include "sim/cli/trace_commands.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/core/printable.hpp"
#include "sim/model/compare.hpp"
#include "sim/model/nccl/builder.hpp"
#include "sim/report/compare_report.hpp"
#include "sim/report/report.hpp"
#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/trace/trace_runs.hpp"

namespace ccsim::cli {
namespace {

struct CompareOptions {
  RunOptions run;
  TraceOptions tr;
  std::string trace, plot;
  std::vector<std::string> traces; // --trace as given: files, or folders of them
  std::string run_text;    // --run as typed; empty or 0 = every run of the file
  std::string healthy_text; // --healthy as typed; empty = kDefaultHealthyPct
  bool summary = false;    // --summary: one line per run even for one file
  bool topo_given = false; // --topo typed (else the default machine, dgx1)
};

// The summary's default threshold: a run is healthy at 80 % of the prediction or more. Over the 76 public runs of
// the wild table (sim/trace/README.md, machines described, no fit), ccsim's median |busbw error| at 1 MiB and more is
// 8.6 % and three in four are within 19.3 %: a run 20 % under its prediction is further off than the model usually
// is, so it is worth a look (the threshold is a reporting choice, no model constant).
constexpr double kDefaultHealthyPct = 80;

// The GPU product a trace's nccl-tests device lines name ("#  Rank  0 Group  0 Pid 1 on host device  0 [0x18]
// NVIDIA H100 80GB HBM3"), with its catalogue kind; empty when they name none the catalogue knows.
std::pair<std::string, std::string> traced_gpu(const trace::Trace& t) {
  for (const auto& line : t.provenance) {
    std::string product = topology::gpu_product_on_line(line);
    if (product.empty()) continue;
    if (auto kind = topology::gpu_kind_from_product(product)) {
      product = product.substr(0, product.find(" (")); // "NVIDIA B200 (node 0)": a collector's note
      while (!product.empty() && product.back() == ' ') product.pop_back();
      return {product, *kind};
    }
  }
  return {};
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// One run of the trace file against one topology: the report's JSON and its rendering in `fmt_kind`.
struct RunResult {
  nlohmann::json json;
  std::string text;
  model::Health health;  // for the summary over many files
  std::string why;       // the bandwidth band's line
  std::string why_head, why_finding; // its parts (compare_report.cpp BoundLine): the band, and what bounds it
};

// The log's "NET/IB : Using [0]mlx5_0:1/IB ..." beside the description: how many devices NCCL's network transport
// used on the first host it logged, against the NICs the description puts on the host of the run's first GPU. A
// fact read, not applied: the prediction keeps the description, and the note says how to describe what ran.
std::string net_devices_note(const trace::Trace& t, const topology::Topology& topo, const metrics::RunConfig& cfg) {
  const auto& devs = t.info.net_devices;
  if (devs.empty()) return {};
  std::string names;
  for (std::size_t i = 0; i < devs.size() && i < 8; ++i) names += (i ? " " : "") + devs[i];
  if (devs.size() > 8) names += fmt::format(" and {} more", devs.size() - 8);
  std::string s = fmt::format("NCCL INFO: NET/{} uses {} device(s) on the first host logged ({})", t.info.net_devices_transport,
                              devs.size(), names);
  if (cfg.placements.empty() || cfg.placements.front().empty()) return s;
  const auto hosts = topology::host_map(topo);
  const int host = hosts.of_gpu(topo, cfg.placements.front().front());
  int nics = 0;
  for (std::size_t i = 0; i < topo.nodes.size(); ++i)
    nics += topo.nodes[i].kind == topology::NodeKind::Nic && hosts.of_node[i] == host;
  if (nics == 0) return s + "; the description has no NIC on the first GPU's host (one node: no network crossed)";
  if (static_cast<std::size_t>(nics) == devs.size()) return s + fmt::format(", as the description's {} NIC(s) per host", nics);
  return s + fmt::format("; the description has {} NIC(s) on the first GPU's host, and the prediction uses them (not applied: describe "
                         "nics={}x<speed> to predict with the devices NCCL used; NCCL_IB_HCA picks them)",
                         nics, devs.size());
}

RunResult compare_one(const CompareOptions& o, trace::Trace run, const std::string& topo_spec, report::Format fmt_kind) {
  RunOptions ropt = o.run;
  auto applied = apply_trace_env(ropt, run);
  auto tr = setup_trace_run(ropt, std::move(run), o.trace, topo_spec);
  // The half compare reads: --in-place's when the table has it, else the one it has (rccl-tests -O 0: in-place alone).
  const auto has = [&](auto half) { return std::any_of(tr.trace.rows.begin(), tr.trace.rows.end(), [&](const auto& r) { return (r.*half).has_value(); }); };
  tr.cfg.in_place = o.tr.in_place ? has(&trace::MeasuredRow::in_place) : !has(&trace::MeasuredRow::out_of_place);
  const int gpus_per_thread = model::gpus_per_thread(tr.trace);
  model::Predictor pred(tr.topo, tr.cfg, ropt.model, model_options(ropt, gpus_per_thread));
  const auto res = model::compare(tr.trace, pred, o.tr.in_place);
  model::CompareMeta m;
  m.trace = o.trace;
  m.hardware = tr.trace.hardware;
  m.topology = tr.topo.name;
  m.topology_origin = tr.topo.origin;
  m.model = o.run.model;
  m.params = params_label(o.run);
  m.op = std::string(schedule::to_string(tr.cfg.op));
  m.op_from = tr.trace.op_from;
  m.ranks = tr.trace.ranks;
  m.ranks_from = tr.trace.ranks_from;
  m.in_place = tr.cfg.in_place;
  m.old_busbw_convention = tr.trace.old_busbw_convention;
  m.gpus_per_thread = gpus_per_thread;
  if (o.run.model == "nccl") m.launch_kind = model::nccl::launch_kind_for(tr.topo, gpus_per_thread, ropt.nccl_version);
  m.notes = tr.trace.notes;
  if (const auto wrong = trace::wrong_results(tr.trace); !wrong.empty()) // first: the note a reader must not miss
    m.notes.insert(m.notes.begin(), fmt::format("FAILED: nccl-tests found wrong results ({}): a run that fails nccl-tests' own "
                                                "check (data corrupted by a GPU, a link or a NIC, or a bug of the test) passes no "
                                                "acceptance, whatever its bandwidth", wrong));
  if (!tr.trace.header_values.count("nGpus") && tr.trace.command_ngpus > 1)
    m.notes.push_back(fmt::format("{} GPUs per thread (launches in series) from the header's command line (-g {}): the nThread line is missing",
                                  tr.trace.command_ngpus, tr.trace.command_ngpus));
  m.notes.insert(m.notes.end(), applied.begin(), applied.end());
  if (auto nd = net_devices_note(tr.trace, tr.topo, tr.cfg); !nd.empty()) m.notes.push_back(std::move(nd));
  m.placements = tr.cfg.placements;
  m.model_detail = pred.describe();
  m.bands = model::bound_bands(res, tr.topo);
  if (o.run.model == "nccl") m.checked = model::check_shipped(model::evidence_class(tr.topo, tr.cfg.op, m.ranks));
  {
    const auto hosts = topology::host_map(tr.topo);
    std::vector<int> used;
    for (const auto& pl : tr.cfg.placements)
      for (const int g : pl) used.push_back(hosts.of_gpu(tr.topo, g));
    std::sort(used.begin(), used.end());
    const bool across = std::unique(used.begin(), used.end()) - used.begin() > 1;
    const bool amd = !tr.topo.gpu_kind.empty() && topology::gpu_kind(tr.topo.gpu_kind, "topology " + tr.topo.name).vendor == "amd";
    for (auto& b : m.bands) b.across_hosts = across, b.amd = amd;
  }
  RunResult r{report::compare_json(res, m), {}, model::health_of(res), {}, {}, {}};
  for (const auto& b : r.json["bounds"])
    if (b.value("band", "") == "bandwidth")
      r.why = b.value("text", ""), r.why_head = b.value("head", ""), r.why_finding = b.value("finding", "");
  switch (fmt_kind) {
    case report::Format::Table: r.text = report::compare_table(res, m); break;
    case report::Format::Csv: r.text = report::compare_csv(res, m); break;
    case report::Format::Json: r.text = safe_dump(r.json, 2) + "\n"; break;
    case report::Format::Markdown: r.text = report::compare_markdown(res, m); break;
  }
  return r;
}

// `--topo A|B|C`: one topology per run of a file with several runs (a scaling study); one spec for all.
std::vector<std::string> topo_per_run(const std::string& spec, std::size_t runs) {
  std::vector<std::string> specs;
  std::size_t a = 0;
  for (auto b = spec.find('|'); ; b = spec.find('|', a)) {
    specs.push_back(spec.substr(a, b == std::string::npos ? std::string::npos : b - a));
    if (b == std::string::npos) break;
    a = b + 1;
  }
  if (specs.size() == 1) return std::vector<std::string>(runs, specs.front());
  if (specs.size() != runs) fail("--topo: {} topologies given for {} runs in the trace", specs.size(), runs);
  return specs;
}

// The rest of a machine: spec for a trace's run: its GPUs per node and node count where the device list names its
// hosts ("Rank 8 ... on node2 device 0"), so the user fills in only the NICs.
std::string machine_words(const trace::Trace& run) {
  if (run.hosts > 1 && run.ranks % run.hosts == 0)
    return fmt::format("{}nodes={},nics=MxSPEED (the device list names {} hosts; M NICs of SPEED each, as in topologies/README.md)",
                       run.ranks / run.hosts == 8 ? "" : fmt::format("gpus={},", run.ranks / run.hosts), run.hosts, run.hosts);
  return run.ranks <= 8 ? fmt::format("gpus={}", run.ranks) : std::string("nodes=N,nics=MxSPEED as in topologies/README.md");
}

// The runs --run picks: that run alone, or every run. A number no run has (negative, past the file's last, beyond
// any integer type) is refused with the file's own range, read from the file, never a parser's int limit.
std::vector<trace::Trace> load_chosen_runs(const CompareOptions& o) {
  if (o.run_text.empty()) return trace::load_trace_runs(o.trace, trace_hints(o.tr));
  const bool digits = o.run_text.find_first_not_of("0123456789") == std::string::npos ||
                      (o.run_text.size() > 1 && o.run_text[0] == '-' && o.run_text.find_first_not_of("0123456789", 1) == std::string::npos);
  if (!digits) fail("--run: '{}' is not a whole number (a run of {}, counted from 1)", printable(o.run_text, 40), o.trace);
  int k = -1;
  const auto [end, ec] = std::from_chars(o.run_text.data(), o.run_text.data() + o.run_text.size(), k);
  if (ec == std::errc() && end == o.run_text.data() + o.run_text.size() && k >= 0)
    return trace::load_trace_runs(o.trace, trace_hints(o.tr), k); // --run N: that run alone (0: every run)
  const auto all = trace::load_trace_runs(o.trace, trace_hints(o.tr));
  fail("--run: {} is not a run of {} (it holds {}: --run {})", o.run_text, o.trace, all.size(),
       all.size() == 1 ? std::string("1") : fmt::format("1..{}", all.size()));
}

// Without --topo: refuses a trace that names another GPU than the default machine's.
void check_default_machine(const CompareOptions& o, const std::vector<trace::Trace>& runs, const std::vector<std::string>& specs) {
  // Without --topo the prediction is for the default DGX-1 (V100): a trace that names another GPU would be laid
  // beside a machine it never ran on, errors of 50-90 % that say nothing about the model. Ask for the machine.
  if (!o.topo_given) {
    std::optional<topology::Topology> dflt_topo; // resolved once, when a run names its GPU
    std::optional<topology::LinkType> newest;
    for (const auto& run : runs) {
      const auto [product, kind] = traced_gpu(run);
      if (kind.empty()) continue;
      if (!dflt_topo) {
        dflt_topo = topology::resolve_topology(specs.front());
        // The presets name no kind; their NVLink generation says it (the DGX-1's NVLink2: V100).
        for (const auto& l : dflt_topo->links)
          if (topology::is_nvlink(l.type) && (!newest || l.type > *newest)) newest = l.type;
      }
      const auto& dflt = *dflt_topo;
      const bool other = !dflt.gpu_kind.empty() ? kind != dflt.gpu_kind : topology::gpu_kind(kind, "compare").nvlink != newest;
      if (other)
        fail("compare: {} ran on {} ({}), but no --topo was given and the default, {} ({}), has other GPUs: give --topo (the "
             "machine's nvidia-smi topo -m file, a shipped name, or machine:gpu={},{})",
             o.trace, product, kind, specs.front(), dflt.name, kind,
             machine_words(run));
    }
  }
}

// --trace's files: each file as given, each folder's regular files (not hidden ones) in name order; `folder` says
// whether a folder was given, `skipped` collects the folders inside a given folder (not searched: named, not dropped
// in silence).
std::vector<std::string> trace_files(const std::vector<std::string>& given, bool& folder, std::vector<std::string>& skipped) {
  std::vector<std::string> files;
  folder = false;
  for (const auto& g : given) {
    std::error_code ec;
    if (!std::filesystem::is_directory(g, ec)) {
      files.push_back(g);
      continue;
    }
    folder = true;
    const std::size_t before = skipped.size();
    std::vector<std::string> in;
    for (const auto& e : std::filesystem::directory_iterator(g, ec)) {
      const auto name = e.path().filename().string();
      std::error_code fec;
      if (!name.empty() && name[0] != '.' && e.is_regular_file(fec)) in.push_back(e.path().string());
      else if (!name.empty() && name[0] != '.' && e.is_directory(fec)) skipped.push_back(e.path().string());
    }
    if (ec) fail("--trace {}: cannot list the folder: {}", printable(g, 200), ec.message());
    std::sort(skipped.begin() + static_cast<std::ptrdiff_t>(before), skipped.end());
    if (in.empty() && skipped.size() > before) // a folder per job: its folders are not searched, so say how to give them
      fail("--trace {}: holds no files, only folders (e.g. {}), which are not searched: give them, e.g. --trace {}/*",
           printable(g, 200), printable(skipped[before], 200), printable(g, 200));
    if (in.empty()) fail("--trace {}: is a directory, not a trace file, and holds no files to compare (a folder's files are compared one by one)", printable(g, 200));
    std::sort(in.begin(), in.end());
    files.insert(files.end(), in.begin(), in.end());
  }
  return files;
}

double healthy_pct(const std::string& text) {
  if (text.empty()) return kDefaultHealthyPct;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    fail("--healthy: '{}' is not a number (a percentage of the prediction, e.g. 80)", printable(text, 40));
  if (v <= 0 || v > 1000) fail("--healthy: {} is out of range (a percentage of the prediction above 0 and at most 1000, e.g. 80)", text);
  return v;
}

// Many files (a cluster's runs): one line per run, a verdict each, the exit status for a script.
void run_summary(const CompareOptions& o, const std::vector<std::string>& files, std::vector<std::string> skipped) {
  if (!o.plot.empty()) fail("--plot: draws one trace; give one --trace file without --summary");
  if (!o.run_text.empty()) fail("--run: picks a run of one trace; give one --trace file without --summary");
  const auto fmt_kind = report::format_from(o.run.format);
  report::SummaryHead head{o.run.topo, o.run.model, params_label(o.run), healthy_pct(o.healthy_text), {}};
  std::sort(skipped.begin(), skipped.end());
  for (const auto& d : skipped) {
    head.skipped.push_back(printable(d, 400));
    std::cerr << "ccsim: --trace: skipped the folder " << head.skipped.back() << " (folders inside a folder are not searched; give it as --trace "
              << head.skipped.back() << ")\n";
  }
  std::vector<report::SummaryEntry> entries;
  for (const auto& file : files) {
    CompareOptions one = o;
    one.trace = file;
    std::vector<trace::Trace> runs;
    std::vector<std::string> specs;
    try {
      runs = load_chosen_runs(one);
      specs = topo_per_run(o.run.topo, runs.size());
      check_default_machine(one, runs, specs);
    } catch (const Error& e) {
      entries.push_back({file, 0, 0, printable(e.what(), 400), {}, 0, {}, {}, {}});
      std::cerr << "ccsim: " << entries.back().error << "\n"; // the folder's other files go on
      continue;
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
      report::SummaryEntry e{file, static_cast<int>(i + 1), static_cast<int>(runs.size()), {}, {}, runs[i].ranks, {}, {}, {}};
      try {
        if (!runs[i].unreadable.empty()) throw Error(runs[i].unreadable); // a test of the job that died: named, not compared
        e.wrong = trace::wrong_results(runs[i]); // nccl-tests' own check failed: compared, and failed whatever the ratio
        const auto r = compare_one(one, runs[i], specs[i], report::Format::Json); // a copy: the rings' hint below may replay it
        e.op = r.json.value("op", std::string());
        e.ranks = r.json.value("ranks", e.ranks);
        e.health = r.health, e.why = r.why;
        // A run below whose prediction is a closed form (NVLS, CollNet) has a why line that names no link; the rings'
        // replay does (the step docs/seeing-inside.md asks for), so the operator gets a link and a check to run.
        bool named = true;
        for (const auto& b : r.json["bounds"]) named = named && (b.value("band", "") != "bandwidth" || b.contains("bound_by"));
        if (!named && report::verdict_of(e, head.healthy_pct) == report::Verdict::Below && o.run.model == "nccl" &&
            o.run.nccl_algo == "auto") {
          CompareOptions rings = one;
          rings.run.nccl_algo = "ring";
          try {
            const auto rr = compare_one(rings, std::move(runs[i]), specs[i], report::Format::Json);
            // This run's band and finding, then the rings' line after its band: "bound by 32 ib links ...; check ...".
            if (!rr.why.empty())
              e.why = r.why_head + r.why_finding + "; NCCL's pick is a closed form, replayed as rings (--nccl-algo ring): " +
                      rr.why.substr(rr.why_head.size());
          } catch (const Error&) { // the rings' replay is a hint: without it the line stays as it was
          }
        }
      } catch (const Error& err) {
        e.error = printable(err.what(), 400);
        const bool named = e.error.find(fmt::format("(run {} of {})", i + 1, runs.size())) != std::string::npos; // the reader's origin says it
        std::cerr << "ccsim: " << e.error << (runs.size() > 1 && !named ? fmt::format(" (run {} of {})", i + 1, runs.size()) : "") << "\n";
      }
      entries.push_back(std::move(e));
    }
  }
  write_output(o.run.output, report::compare_summary(entries, head, fmt_kind), "--output");
  command_status() = report::summary_status(entries, head.healthy_pct);
}

void run_compare(const CompareOptions& o_in) {
  bool folder = false;
  std::vector<std::string> skipped;
  const auto files = trace_files(o_in.traces, folder, skipped);
  if (files.size() > 1 || folder || o_in.summary) return run_summary(o_in, files, std::move(skipped));
  if (!o_in.healthy_text.empty()) fail("--healthy: sets the summary's threshold; give several --trace files, a folder, or --summary");
  CompareOptions o = o_in;
  o.trace = files.front();
  if (o.trace.empty()) fail("compare: --trace FILE is required");
  const auto fmt_kind = report::format_from(o.run.format);
  auto runs = load_chosen_runs(o);
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (!runs[i].unreadable.empty())
      fail("{} (run {} of {}; compare the others with --run N, or every run with --summary: a verdict each, this one named)",
           runs[i].unreadable, i + 1, runs.size());
  const auto specs = topo_per_run(o.run.topo, runs.size());
  check_default_machine(o, runs, specs);
  std::vector<RunResult> results;
  for (std::size_t i = 0; i < runs.size(); ++i) results.push_back(compare_one(o, std::move(runs[i]), specs[i], fmt_kind));
  std::string out;
  nlohmann::json j = results.front().json;
  if (results.size() == 1) {
    out = results.front().text;
  } else if (fmt_kind == report::Format::Json) {
    j = nlohmann::json{{"kind", "ccsim-compare-runs"}, {"trace", o.trace}, {"runs", nlohmann::json::array()}};
    for (const auto& r : results) j["runs"].push_back(r.json);
    out = safe_dump(j, 2) + "\n";
  } else {
    for (std::size_t i = 0; i < results.size(); ++i)
      out += fmt_kind == report::Format::Markdown
                 ? fmt::format("{}### run {} of {}\n\n{}", i ? "\n" : "", i + 1, results.size(), results[i].text)
                 : fmt::format("{}== run {} of {} ==\n{}", i ? "\n" : "", i + 1, results.size(), results[i].text);
  }
  if (!o.plot.empty()) {
    const std::string script = data_dir() + "/scripts/plot_compare.py";
    if (!std::filesystem::exists(script)) fail("--plot: {} is missing", script);
    // The PNG first: a folder that cannot take it is refused naming the file the user gave, not the scratch
    // JSON beside it ("p.png.json").
    const std::string png = outputs().reserve(o.plot, "--plot"); // published with the other outputs
    const ScratchFile data(o.plot, safe_dump(j));
    const std::string& tmp = data.path();
    // Debian's interpreter has python3-matplotlib; $CCSIM_PYTHON overrides, a PATH python3 is the fallback.
    std::string py = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    if (const char* e = std::getenv("CCSIM_PYTHON")) py = e;
    const std::string cmd = fmt::format("{} {} {} {} 2>&1", shell_quote(py), shell_quote(script), shell_quote(tmp), shell_quote(png));
    std::string msg;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) fail("--plot: cannot run python3");
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) msg += buf;
    const int rc = pclose(p);
    if (rc != 0) {
      while (!msg.empty() && (msg.back() == '\n')) msg.pop_back();
      const auto nl = msg.rfind('\n');
      fail("--plot {}: plotting failed: {}", o.plot, nl == std::string::npos ? msg : msg.substr(nl + 1));
    }
  }
  write_output(o.run.output, out, "--output");
}

} // namespace

void add_compare_command(CLI::App& app) {
  auto opts = std::make_shared<CompareOptions>();
  auto* c = app.add_subcommand("compare", "Predict every row of a measured nccl-tests trace and report the busbw error");
  add_placement_options(*c, opts->run);
  add_trace_options(*c, opts->tr);
  c->add_option("--trace", opts->traces,
                "Measured nccl-tests output (old or new format); several files or a folder (a cluster's runs): one line per run "
                "with a verdict (--healthy), exit status 1 when a run is below it, 2 when a file cannot be compared")
      ->required();
  c->add_option("--healthy", opts->healthy_text,
                "With several --trace files, a folder or --summary: a run is healthy when its measured busbw is at least this "
                "percentage of the prediction (median over the bandwidth-bound sizes of 1 MiB and more; default 80)");
  c->add_flag("--summary", opts->summary, "One line per run with a verdict (as for several --trace files), for one file too");
  c->add_option("-a,--algo", opts->run.algo, "Algorithm for the fifo/store_forward models")->capture_default_str();
  c->add_option("--format", opts->run.format, "Output: table, csv, json, markdown (a table to paste into a ticket)")->capture_default_str();
  c->add_option("--output", opts->run.output, "Write the output to this file instead of stdout");
  c->add_option("--run", opts->run_text, "Compare only this run (1-based) of a file holding several runs (default: each, one result per run)");
  c->add_option("--plot", opts->plot, "Also draw measured vs predicted busbw over size into this PNG");
  c->callback([opts, c] {
    opts->topo_given = c->get_option("--topo")->count() > 0;
    run_compare(*opts);
  });
}

} // namespace ccsim::cli
