// ccsim compare: predicted time/algbw/busbw beside every row of a measured nccl-tests trace, signed
// busbw error per row and the median |error| for sizes >= 1 MiB and over all sizes; --plot draws
// busbw vs size through scripts/plot_compare.py (Debian's python3-matplotlib) fed by the JSON.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/cli/common.hpp"
#include "sim/cli/trace_commands.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/model/compare.hpp"
#include "sim/report/compare_report.hpp"
#include "sim/report/report.hpp"

namespace ccsim::cli {
namespace {

struct CompareOptions {
  RunOptions run;
  TraceOptions tr;
  std::string trace, plot;
};

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void run_compare(const CompareOptions& o) {
  if (o.trace.empty()) fail("compare: --trace FILE is required");
  const auto fmt_kind = report::format_from(o.run.format);
  auto tr = setup_trace_run(o.run, o.tr, o.trace, o.run.topo);
  model::Predictor pred(tr.topo, tr.cfg, o.run.model, model_options(o.run, model::gpus_per_thread(tr.trace)));
  const auto res = model::compare(tr.trace, pred, o.tr.in_place);
  model::CompareMeta m;
  m.trace = o.trace;
  m.hardware = tr.trace.hardware;
  m.topology = tr.topo.name;
  m.topology_origin = tr.topo.origin;
  m.model = o.run.model;
  m.params = o.run.params;
  m.op = std::string(schedule::to_string(tr.cfg.op));
  m.op_from = tr.trace.op_from;
  m.ranks = tr.trace.ranks;
  m.ranks_from = tr.trace.ranks_from;
  m.in_place = o.tr.in_place;
  m.old_busbw_convention = tr.trace.old_busbw_convention;
  m.placements = tr.cfg.placements;
  m.model_detail = pred.describe();
  const auto j = report::compare_json(res, m);
  std::string out;
  switch (fmt_kind) {
    case report::Format::Table: out = report::compare_table(res, m); break;
    case report::Format::Csv: out = report::compare_csv(res, m); break;
    case report::Format::Json: out = safe_dump(j, 2) + "\n"; break;
  }
  if (!o.plot.empty()) {
    const std::string script = data_dir() + "/scripts/plot_compare.py";
    if (!std::filesystem::exists(script)) fail("--plot: {} is missing", script);
    const ScratchFile data(o.plot, safe_dump(j));
    const std::string& tmp = data.path();
    const std::string png = outputs().reserve(o.plot); // published with the other outputs
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
  write_output(o.run.output, out);
}

} // namespace

void add_compare_command(CLI::App& app) {
  auto opts = std::make_shared<CompareOptions>();
  auto* c = app.add_subcommand("compare", "Predict every row of a measured nccl-tests trace and report the busbw error");
  add_placement_options(*c, opts->run);
  add_trace_options(*c, opts->tr);
  c->add_option("--trace", opts->trace, "Measured nccl-tests output (old or new format)")->required();
  c->add_option("-a,--algo", opts->run.algo, "Algorithm for the fifo/store_forward models")->capture_default_str();
  c->add_option("--format", opts->run.format, "Output: table, csv, json")->capture_default_str();
  c->add_option("--output", opts->run.output, "Write the output to this file instead of stdout");
  c->add_option("--plot", opts->plot, "Also draw measured vs predicted busbw over size into this PNG");
  c->callback([opts] { run_compare(*opts); });
}

} // namespace ccsim::cli
