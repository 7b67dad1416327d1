#include <numeric>
#include <span>

#include <fmt/format.h>
#include <sstream>

#include "sim/topology/p2p.hpp"
#include "sim/cli/common.hpp"
#include "sim/cli/inspect.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/model/evidence.hpp"
#include "sim/metrics/explain.hpp"
#include "sim/core/error.hpp"
#include "sim/report/progress.hpp"
#include "sim/model/compare.hpp"
#include "sim/model/default_params.hpp"
#include "sim/report/report.hpp"
#include "sim/schedule/dump.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/ring_search.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/topology_json.hpp"

namespace ccsim::cli {

void add_semantics_options(CLI::App& app, RunOptions& o) {
  app.add_option("--sw-overhead", o.sw_overhead, "LogP's o: time a GPU is busy posting each send and each receive; "
                                                 "serialises at that GPU (e.g. 2us)")
      ->capture_default_str();
  app.add_option("--semantics", o.semantics, "When a step ends: gpu (receives in, own sends left the GPU; as NCCL) or "
                                             "mpi (own sends arrived, rendezvous; as SimGrid SMPI)")
      ->capture_default_str();
}

CLI::Option* add_gpu_option(CLI::App& app) {
  return app.add_option_function<std::string>("--gpu", topology::set_default_import_gpu,
                                              "GPU kind (models/gpus.json) of a --topo file that does not name it (nvidia-smi topo -m, NCCL XML, rocm-smi, amd-smi)");
}

std::vector<CLI::Option*> add_p2p_options(CLI::App& app) {
  return {app.add_option_function<std::string>("--p2p", topology::set_p2p_mode,
                                               "on (default) or off: off = NCCL_P2P_DISABLE=1, GPUs copy through host memory at their PCIe generation's host-staged speed"),
          app.add_option_function<std::string>("--p2p-level", topology::set_p2p_level,
                                               "As NCCL_P2P_LEVEL (LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, or NCCL's old numbers 0-5): --model nccl runs "
                                               "each GPU pair on a farther path through host memory (SHM), the others P2P. Default: NCCL's own level "
                                               "for the release and host (PXB; SYS on an AMD host with 2 GPUs; compare: the trace's NCCL_P2P_LEVEL)")};
}

std::vector<CLI::Option*> add_nccl_whatif_options(CLI::App& app, RunOptions& o) {
  std::vector<CLI::Option*> opts;
  opts.push_back(app.add_option("--nccl-algo", o.nccl_algo, kNcclAlgoHelp)->capture_default_str());
  opts.push_back(app.add_option("--nccl-proto", o.nccl_proto, "--model nccl: the protocols NCCL may pick, as NCCL_PROTO: a comma-separated, "
                                              "case-insensitive list of LL, LL128, Simple; a leading ^ excludes the listed ones "
                                              "(e.g. Simple, ^LL128). Default: all NCCL enables (compare: the trace's NCCL_PROTO)"));
  opts.push_back(app.add_option("--nvls,--nccl-nvls", o.nvls, "--model nccl: NVLink SHARP (reduction in the NVSwitch): auto (where NCCL would "
                                               "use it), on (refused without an NVSwitch on Hopper or newer), off (as NCCL_NVLS_ENABLE=0)")
      ->capture_default_str());
  opts.push_back(app.add_option("--collnet,--nccl-collnet", o.collnet, "--model nccl: CollNet, reduction in the fabric's switches (InfiniBand SHARP): "
                                                        "auto (where the fabric has SHARP), on (refused without), off (as NCCL_COLLNET_ENABLE=0)")
      ->capture_default_str());
  opts.push_back(app.add_option("--msccl", o.msccl, "--model nccl on AMD GPUs (RCCL): MSCCL's algorithms, auto (where RCCL ships one: all-pairs "
                                     "allreduce on 8 GPUs, 1 KiB-16 MiB) or off (as RCCL_MSCCL_ENABLE=0, or an RCCL built without MSCCL "
                                     "kernels, install.sh --fast / --disable-msccl-kernel: RCCL's own ring/tree pick; compare reads the trace's RCCL_MSCCL_ENABLE)")
      ->capture_default_str());
  opts.push_back(app.add_option("--nccl-version", o.nccl_version, "--model nccl: the NCCL release to predict (e.g. 2.4.8): LL128 only where that "
                                                  "release enables it by default (none before 2.5.6; models/nccl.json ll128_by_version), NVLS-tree "
                                                  "weighed as that release's tuner does (nvls.tree.tuner_by_release); compare reads the trace's 'NCCL version' line when not given"));
  return opts;
}

std::string whatif_text(const std::vector<CLI::Option*>& opts) {
  std::string out;
  for (const auto* opt : opts)
    if (opt->count() > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", opt->get_name(), opt->as<std::string>());
  return out;
}

void add_topology_options(CLI::App& app, RunOptions& o, bool short_t) {
  app.add_option(short_t ? "-t,--topo" : "--topo", o.topo, "Topology: a file, a shipped name (dgx1, hgx-a100, ...) or a generator spec")
      ->capture_default_str();
  add_gpu_option(app);
  add_p2p_options(app);
  app.add_option("--gpus", o.gpus, "Run on these GPUs of the topology, in this rank order (e.g. 0,1,4,5; A..B is a range)");
  app.add_option("--ring", o.ring, "Ring order = rank order over GPUs (e.g. 0,3,2,1,5,6,7,4)");
  app.add_option("--rings", o.rings, "Several rings used at once, each carrying an equal share: \"0 3 2 1|0 1 3 2\"");
  app.add_flag("--one-based", o.one_based, "GPU numbers in --gpus/--ring/--rings count from 1");
}

CLI::Option* add_params_option(CLI::App& app, RunOptions& o) {
  return app.add_option("--params", o.params, "Apply a fitted parameter set (models/<name>.json from ccsim calibrate); --model nccl "
                                              "applies the shipped class-level calibration models/params-nccl-default.json unless "
                                              "given, 'none' = the bare model");
}

void add_model_options(CLI::App& app, RunOptions& o) {
  app.add_option("--model", o.model, "Model: " + model::model_names() + " (`--model help` describes them)")->capture_default_str();
  add_params_option(app, o);
  app.add_option("--nccl-tables", o.nccl_tables, "NCCL tables for --model nccl (default models/nccl.json; models/rccl.json on AMD GPUs)");
  app.add_option("--gpu-arch", o.gpu_arch, "GPU generation for --model nccl: pascal volta ampere hopper blackwell (default: from the NVLink type)");
  add_nccl_whatif_options(app, o);
  app.add_option("--sw-alpha", o.sw_alpha, "Software latency per message on top of link latency; overlaps across "
                                           "concurrent messages (e.g. 2us)")
      ->capture_default_str();
  add_semantics_options(app, o);
  app.add_flag("--eager", o.eager, "Sends start at once and wait at the receiver (default: a transfer starts when its "
                                   "receive is posted, as in SimGrid SMPI and MPI rendezvous)");
  app.add_option("--reduce-bw", o.reduce_bw, "Reduction speed per GPU (gamma = 1/this), e.g. 500GB/s; default free");
}

void add_collective_options(CLI::App& app, RunOptions& o) {
  app.add_option("--op", o.op, "Collective: allreduce allgather reducescatter broadcast reduce gather scatter alltoall sendrecv hypercube barrier scan")
      ->capture_default_str();
  app.add_option("-a,--algo", o.algo, "Algorithm (see the table below; default: ring, or the op's first: binomial for gather/scatter, pairwise for alltoall, direct for sendrecv)");
  app.add_option("-b,--minbytes", o.minbytes, "Smallest size (K/M/G suffixes, 1K = 1024)")->capture_default_str();
  app.add_option("-e,--maxbytes", o.maxbytes, "Largest size")->capture_default_str();
  app.add_option("-f,--stepfactor", o.stepfactor, "Multiply the size by this between rows")->capture_default_str();
  app.add_option("-i,--stepbytes", o.stepbytes, "Add this many bytes between rows instead of multiplying");
  app.add_option("-d,--datatype", o.datatype, "Element type (nccl-tests names)")->capture_default_str();
  app.add_option("-o,--redop", o.redop, "Reduction: sum prod max min avg")->capture_default_str();
  app.add_option("-r,--root", o.root, "Root rank for broadcast/reduce/gather/scatter")->capture_default_str();
  app.add_option("--chunk-size", o.chunk_size, "Pipeline segment for chain/tree algorithms (e.g. 1M)");
  app.add_option("--dims", o.dims, "Grid for hierarchical algorithms, e.g. 4x2 (default: near-square)");
}

void add_output_options(CLI::App& app, RunOptions& o) {
  app.add_option("--format", o.format, "Output: table, csv, json, markdown (a table to paste into a ticket)")->capture_default_str();
  app.add_option("--output", o.output, "Write the output to this file (atomically) instead of stdout");
}

void add_placement_options(CLI::App& app, RunOptions& o) {
  add_topology_options(app, o);
  add_model_options(app, o);
}

void add_run_options(CLI::App& app, RunOptions& o) {
  add_placement_options(app, o);
  add_collective_options(app, o);
  add_output_options(app, o);
  app.add_option("--dump-schedule", o.dump_schedule, "Print the schedule(s) at -b's size as text or json, then exit");
  app.add_option("--timeline", o.timeline, "Write a Chrome trace (ui.perfetto.dev, chrome://tracing) of one size to this file")
      ->check(CLI::Validator(
          [](std::string& v) { return v.empty() ? std::string("needs a file name, got an empty one") : std::string(); }, "FILE"));
  app.add_option("--timeline-size", o.timeline_size, "Size that --timeline and --links look at (default: the largest)");
  app.add_flag("--links", o.links, "After the table: per-link bytes and busy %, bottleneck links, critical path");
  app.add_flag("--why", o.why,
               "After the table: NCCL's own estimate of every algorithm/protocol it weighs at each size, the pick marked "
               "(--model nccl)");
}

// The one place a command's model options are made (the main command, compare, calibrate, rings, the *_perf
// drop-ins, `ccsim scenario` and the sweep's points): the parameter set chosen by model::choose_params (--params,
// else the shipped default under --model nccl, 'none' = the bare model) and the what-ifs.
model::ModelOptions model_options(const RunOptions& o, int gpus_per_thread) {
  model::ModelOptions m;
  if (const auto pc = model::choose_params(o.params, o.model); !pc.path.empty()) m.params = model::load_params(pc.path);
  m.nccl_algo = o.nccl_algo;
  m.nccl_proto = o.nccl_proto;
  m.nvls = o.nvls;
  m.collnet = o.collnet;
  m.msccl = o.msccl;
  m.nccl_version = o.nccl_version;
  m.nccl_tables = o.nccl_tables;
  m.gpu_arch = o.gpu_arch;
  m.nccl_channels = o.nccl_channels;
  m.nccl_min_channels = o.nccl_min_channels;
  m.nccl_max_channels = o.nccl_max_channels;
  m.nccl_min_ctas = o.nccl_min_ctas;
  m.nccl_max_ctas = o.nccl_max_ctas;
  m.nvls_channels = o.nvls_channels;
  m.nvls_nchannels_set = o.nvls_nchannels_set;
  m.nvls_nchannels = o.nvls_nchannels;
  m.nvls_chunk_bytes = o.nvls_chunk_bytes;
  m.nvls_tree_max_chunk_bytes = o.nvls_tree_max_chunk_bytes;
  m.gpus_per_thread = gpus_per_thread;
  return m;
}

std::string params_label(const RunOptions& o) { return model::choose_params(o.params, o.model).label; }

std::string model_label(const RunOptions& o) {
  const std::string params = params_label(o);
  return o.model + (params.empty() ? "" : " + " + params);
}

metrics::RunConfig make_run_config(const RunOptions& o, const topology::Topology& topo) {
  if (o.model == "help") throw ModelHelp{};
  model::require_model(o.model);
  metrics::RunConfig c;
  c.op = require_op(o.op);
  c.algo = o.algo.empty() ? schedule::default_algorithm(c.op) : o.algo;
  schedule::require_algorithm(c.op, c.algo);
  auto dt = metrics::datatype_from(o.datatype);
  if (!dt) fail("-d/--datatype: unknown type '{}' ({})", o.datatype, metrics::datatype_names());
  c.dtype = *dt;
  static const char* kOps[] = {"sum", "prod", "max", "min", "avg"};
  if (std::find(std::begin(kOps), std::end(kOps), o.redop) == std::end(kOps))
    fail("-o/--redop: unknown reduction '{}' (sum, prod, max, min, avg){}", o.redop,
         o.redop.find_first_of("./") != std::string::npos ? "; -o is the reduction, as in nccl-tests: --output FILE writes a file" : "");
  c.redop = o.redop;

  const int given = !o.gpus.empty() + !o.ring.empty() + !o.rings.empty();
  if (given > 1) fail("--gpus, --ring and --rings each set the rank order; give only one");
  if (!o.rings.empty()) c.placements = parse_ring_list(o.rings, "--rings", topo, o.one_based);
  else if (!o.ring.empty()) c.placements = {parse_ring_order(o.ring, "--ring", topo, o.one_based)};
  else if (!o.gpus.empty()) c.placements = {parse_gpu_list(o.gpus, "--gpus", topo, o.one_based)};
  else if (schedule::require_algorithm(c.op, c.algo).ring_like) {
    // No order given: pack rings onto the direct links as NCCL's search does (one per channel).
    c.placements = topology::pack_rings(topo, {}).rings;
  } else {
    std::vector<int> all(static_cast<std::size_t>(topo.num_gpus()));
    std::iota(all.begin(), all.end(), 0);
    c.placements = {all};
  }
  if (!o.gpus.empty() && schedule::require_algorithm(c.op, c.algo).ring_like)
    c.placements = topology::pack_rings(topo, c.placements.front()).rings;
  const int p = metrics::ranks_of(c);
  // nccl-tests' hypercube.cu skips any other rank count ("nRanks N is not a power of 2, skipping").
  if (c.op == schedule::Op::HyperCube && (p & (p - 1)) != 0)
    fail("--op hypercube: {} ranks is not a power of 2 (nccl-tests' hypercube_perf skips it); give 2, 4, 8, ... GPUs", p);
  if (o.root < 0 || o.root >= p) fail("-r/--root: rank {} does not exist (ranks 0..{})", o.root, p - 1);
  c.root = o.root;
  c.model_name = o.model;
  c.model.alpha_sw = parse_duration(o.sw_alpha, "--sw-alpha");
  // A per-message cost above a second is a typo; the bound keeps simulated times inside 64 bits.
  if (c.model.alpha_sw > kPsPerSec) fail("--sw-alpha: '{}' is more than 1 s per message", o.sw_alpha);
  c.model.eager = o.eager;
  c.model.overhead = parse_duration(o.sw_overhead, "--sw-overhead");
  c.model.semantics = engine::semantics_from(o.semantics, "--semantics");
  if (!o.reduce_bw.empty()) c.model.reduce_bw = parse_bandwidth(o.reduce_bw, "--reduce-bw");
  if (!o.chunk_size.empty()) {
    c.segment_bytes = parse_size(o.chunk_size, "--chunk-size");
    if (c.segment_bytes < c.dtype.size) fail("--chunk-size: must be at least one element ({} B)", c.dtype.size);
  }
  if (!o.dims.empty()) {
    c.dims = topology::parse_dims(o.dims, "--dims");
    long prod = 1;
    for (int d : c.dims) prod *= d;
    if (prod != p) fail("--dims: {} does not multiply to the {} ranks", o.dims, p);
  }
  return c;
}

namespace {

// Several rings split the data between ring schedules; any other algorithm would silently run on the
// first ring's order alone while the header printed every ring as if used.
void check_rings_apply(const RunOptions& o, const metrics::RunConfig& cfg) {
  if (o.rings.empty() || schedule::require_algorithm(cfg.op, cfg.algo).ring_like) return;
  std::string ring_like;
  for (const auto& a : schedule::all_algorithms())
    if (a.op == cfg.op && a.ring_like) ring_like += (ring_like.empty() ? "" : ", ") + a.name;
  fail("--rings: {} {} is not ring-like, and several rings apply only to ring-like algorithms ({}); use --ring or --gpus "
       "for a rank order",
       schedule::to_string(cfg.op), cfg.algo, ring_like.empty() ? "none for this op" : ring_like);
}

// --dump-schedule: every job the model would replay at the size, one after the other.
std::string dump_schedules(model::Predictor& pred, const metrics::RunConfig& cfg, Bytes size, const std::string& how) {
  const auto plans = pred.plans(metrics::plan_size(cfg.op, metrics::ranks_of(cfg), size, cfg.dtype.size));
  const auto& plan = plans.front();
  if (plan.jobs.empty()) fail("--dump-schedule: model {} predicts this size in closed form; there is no schedule", cfg.model_name);
  std::string out;
  for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
    if (plan.jobs.size() > 1 && how != "json")
      out += fmt::format("# job {}{}\n", j, j < plan.job_names.size() ? ": " + plan.job_names[j] : "");
    out += schedule::dump_schedule(*plan.jobs[j].schedule, how, cfg.dtype.size);
  }
  return out;
}

report::RunHeader run_header(const RunOptions& o, const topology::Topology& topo, const metrics::RunConfig& cfg,
                             model::Predictor& pred, Bytes lo, Bytes hi) {
  report::RunHeader h;
  h.topology = topo.name;
  h.topology_origin = topo.origin;
  h.algo = model::require_model(cfg.model_name).chooses_algorithm ? "chosen per size by the model (choice column)" : cfg.algo;
  h.model = model_label(o);
  h.model_detail = pred.describe();
  // The release asked for, said back: a cloud user who gave the image's NCCL version sees it was read (its rows
  // differ from the default release's only where that release's defaults do).
  if (!o.nccl_version.empty() && !h.model_detail.empty())
    h.model_detail += fmt::format(", release NCCL {} (--nccl-version)", o.nccl_version);
  h.weighed = o.why;
  // The tables measure --model nccl (NCCL's and RCCL's choices); other models' numbers are checked nowhere.
  if (o.model == "nccl") h.checked = model::check_shipped(model::evidence_class(topo, cfg.op, metrics::ranks_of(cfg)));
  h.redop = cfg.redop;
  h.dtype = cfg.dtype.name;
  h.op = cfg.op;
  h.ranks = metrics::ranks_of(cfg);
  h.root = cfg.root;
  h.placements = cfg.placements;
  h.min_bytes = lo;
  h.max_bytes = hi;
  h.factor = o.stepfactor;
  return h;
}

} // namespace

int run_command(const RunOptions& o) {
  const auto topo = topology::resolve_topology(o.topo);
  const auto cfg = make_run_config(o, topo);
  check_rings_apply(o, cfg);
  const Bytes lo = parse_size(o.minbytes, "-b/--minbytes"), hi = parse_size(o.maxbytes, "-e/--maxbytes");
  const Bytes step = o.stepbytes.empty() ? 0 : parse_size(o.stepbytes, "-i/--stepbytes");
  if (!o.stepbytes.empty() && step == 0)
    fail("-i/--stepbytes: 0 never grows the size; give a positive step (e.g. -i 1M) or a factor with -f");
  if (hi > (Bytes{1} << 40)) fail("-e/--maxbytes: {} is larger than 1 TiB", o.maxbytes);
  const auto fmt_kind = report::format_from(o.format);
  if (o.why && o.model != "nccl")
    fail("--why: only --model nccl weighs algorithms per size (NCCL's tuning model); --model {} runs the one --algo", o.model);
  if (o.why && fmt_kind == report::Format::Csv)
    fail("--why: a CSV file holds one table; use --format table, markdown or json");
  model::Predictor pred(topo, cfg, o.model, model_options(o));
  if (!o.dump_schedule.empty()) {
    write_output(o.output, dump_schedules(pred, cfg, lo, o.dump_schedule), "--output");
    return 0;
  }
  const auto sizes = metrics::size_series(lo, hi, o.stepfactor, step);
  Inspector inspect(o, topo, cfg, sizes, fmt_kind);
  auto predict = [&](Bytes s, std::span<engine::Observer* const> obs) {
    return pred.predict(cfg, metrics::plan_size(cfg.op, metrics::ranks_of(cfg), s, cfg.dtype.size), obs);
  };
  std::vector<metrics::Row> rows;
  // A sweep runs many of these at once on worker threads: one bar of its own, none per point.
  report::Progress bar("sizes", sizes.size(), stderr, o.result == nullptr && report::Progress::stderr_is_terminal());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    bar.update(i, format_size(sizes[i]));
    rows.push_back(predict(sizes[i], inspect.observers(sizes[i])));
    inspect.saw(sizes[i], rows.back());
  }
  bar.done();
  if (o.result) {
    *o.result = {run_header(o, topo, cfg, pred, lo, hi), std::move(rows)};
    return 0;
  }
  inspect.finish(predict);
  std::ostringstream out;
  report::write(out, fmt_kind, run_header(o, topo, cfg, pred, lo, hi), rows);
  write_output(o.output, inspect.decorate(out.str()), "--output");
  return 0;
}

} // namespace ccsim::cli
