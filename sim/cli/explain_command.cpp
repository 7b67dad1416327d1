#include "sim/cli/explain_command.hpp"

#include "sim/cli/common.hpp"
#include "sim/cli/parse_errors.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/explain.hpp"
#include "sim/metrics/schedule_picture.hpp"
#include "sim/report/explain_html.hpp"
#include "sim/report/data_view.hpp"
#include "sim/report/explain_report.hpp"
#include "sim/report/progress.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/verify/show_data.hpp"
#include "sim/topology/import.hpp"

namespace ccsim::cli {
namespace {

constexpr int kExplainMaxRanks = 4096; // --algo ring at 4096 ranks: about 5 s
constexpr int kSweepMaxRanks = 256;    // every allreduce algorithm at 31 sizes
constexpr int kTextbookMaxRanks = 1 << 16; // --ranks: any p the textbook machine takes (the modes above limit it further)

struct ExplainOptions {
  RunOptions run;       // --topo, placement, model flags
  bool topo_given = false;
  int ranks = 8;
  std::string size = "64M", alpha = "5us", bw = "25GB/s", gamma, min = "8", max = "8G", format = "text", output;
  bool show_data = false;
  std::string values = "rank";
};


// With a topology, alpha and beta come from its links and p from its GPUs: refuse what would be ignored.
void setup_on_topology(ExplainOptions& o, CLI::App* cmd, metrics::ExplainSetup& s, std::optional<topology::Topology>& topo) {
  for (const char* flag : {"--alpha", "--bw"})
    if (cmd->count(flag) > 0) fail("{}: with --topo, alpha and beta come from the topology's links; drop {} or --topo", flag, flag);
  topo = topology::resolve_topology(o.run.topo);
  // The placement follows the explained algorithm; for a sweep, the op's first one (ring where it exists).
  if (cmd->count("--algo") == 0)
    for (const auto& a : schedule::all_algorithms())
      if (a.op == s.op) {
        o.run.algo = a.name;
        break;
      }
  s.run = make_run_config(o.run, *topo);
  s.topo = &*topo;
  s.ranks = metrics::ranks_of(s.run);
  if (cmd->count("--ranks") > 0 && o.ranks != s.ranks)
    fail("--ranks {}: the placement on --topo {} has {} GPUs (choose GPUs with --gpus)", o.ranks, o.run.topo, s.ranks);
}

// The textbook machine: p ranks, alpha, beta (and o, gamma) given on the command line.
void setup_textbook(const ExplainOptions& o, metrics::ExplainSetup& s) {
  s.ranks = o.ranks;
  s.params.alpha = parse_duration(o.alpha, "--alpha");
  if (s.params.alpha % 2) fail("--alpha: give a whole even number of picoseconds");
  // A bare number would be bytes per second, never what anyone means here: ask for the unit.
  if (o.bw.find_first_not_of("0123456789.") == std::string::npos) {
    if (o.bw.find_first_not_of("0.") == std::string::npos) fail("--bw: '{}' is no bandwidth; give a rate above 0 with a unit (e.g. 25GB/s)", o.bw);
    fail("--bw: '{}' needs a unit (e.g. 25GB/s)", o.bw);
  }
  s.params.bw = parse_bandwidth(o.bw, "--bw");
  auto dt = metrics::datatype_from(o.run.datatype);
  if (!dt) fail("-d/--datatype: unknown type '{}'", o.run.datatype);
  s.elt_size = dt->size;
  s.run.root = o.run.root;
  s.params.overhead = parse_duration(o.run.sw_overhead, "--o");
  s.run.model.semantics = engine::semantics_from(o.run.semantics, "--semantics");
  if (!o.run.chunk_size.empty()) s.run.segment_bytes = parse_size(o.run.chunk_size, "--chunk-size");
}

// Every row is a simulation of p ranks (a sweep: every algorithm at every size, then bisections), so the
// rank count bounds the run time: a few seconds at these limits. One rank sends nothing: refused too.
void check_ranks(const metrics::ExplainSetup& s, bool one_algo) {
  const int limit = one_algo ? kExplainMaxRanks : kSweepMaxRanks;
  if (s.ranks > limit)
    fail("explain: {} ranks is more than {} {}; simulate larger runs with the main command", s.ranks, limit,
         one_algo ? "for one algorithm" : "for a sweep of every algorithm (give --algo to explain one, up to 4096 ranks)");
  if (s.ranks < 2) fail("explain: {} rank communicates nothing; give 2 or more ranks ({})", s.ranks, s.topo ? "--gpus" : "--ranks");
  if (s.run.root < 0 || s.run.root >= s.ranks) fail("-r/--root: rank {} does not exist (ranks 0..{})", s.run.root, s.ranks - 1);
}

// A size too small to hold one element per rank explains a zero-byte run: refuse it.
Bytes checked_size(const metrics::ExplainSetup& s, const std::string& text, const char* flag) {
  const Bytes b = parse_size(text, flag);
  // A barrier moves no data whatever --size says (its size is reported as 0): any size explains it.
  if (s.op != schedule::Op::Barrier && metrics::plan_size(s.op, s.ranks, b, s.elt_size).count == 0)
    fail("{}: {} B holds no whole {}-byte element for {} on {} ranks", flag, b, s.elt_size, schedule::to_string(s.op), s.ranks);
  return b;
}

constexpr int kShowDataMaxRanks = 16;
constexpr std::uint64_t kShowDataMaxElems = 64; // per rank, the op's part of the buffer

// --show-data: the schedule executed on small integers (the verifier's executor), each rank's buffer
// before and after, instead of the cost explanation.
std::string show_data(const ExplainOptions& o, const metrics::ExplainSetup& s, const std::string& algo_name) {
  const auto& algo = schedule::require_algorithm(s.op, algo_name);
  if (s.ranks > kShowDataMaxRanks) fail("--show-data: {} ranks is too many to print; give at most {}", s.ranks, kShowDataMaxRanks);
  const auto values = verify::values_from(o.values);
  const auto red = verify::red_op_from(o.run.redop);
  // Counts as given, without nccl-tests' 16-byte alignment of per-rank blocks: one element per rank is
  // the textbook picture (the MindSpore examples).
  const Bytes size = parse_size(o.size, "--size");
  const bool split = s.op == schedule::Op::AllGather || s.op == schedule::Op::HyperCube || s.op == schedule::Op::ReduceScatter || s.op == schedule::Op::Gather ||
                     s.op == schedule::Op::Scatter || s.op == schedule::Op::AllToAll;
  const std::uint64_t count = size / s.elt_size / (split ? static_cast<std::uint64_t>(s.ranks) : 1);
  if (count == 0) fail("--size: {} B holds no whole {}-byte element per rank for --show-data", size, s.elt_size);
  metrics::RunConfig run = s.run;
  run.op = s.op;
  run.dtype.size = s.elt_size;
  if (algo.pipelined && run.segment_bytes == 0) run.segment_bytes = metrics::chosen_segment(s, algo.name, size);
  const auto args = metrics::coll_args(run, count, s.ranks);
  if (schedule::op_buffer_elems(args) > kShowDataMaxElems)
    fail("--show-data: {} elements per rank is too many to print (at most {}); give a smaller --size, e.g. --size {}",
         schedule::op_buffer_elems(args), kShowDataMaxElems, s.elt_size);
  const auto sched = algo.make(args);
  if (s.op == schedule::Op::Barrier) {
    const auto err = verify::check(*sched, red);
    return fmt::format("barrier {} on {} ranks moves no data; replayed with each rank's knowledge of who has arrived: {}\n", algo.name,
                       s.ranks, err.empty() ? "every rank hears (directly or through others) from all ranks before it leaves" : err);
  }
  const auto d = verify::run_on_data(*sched, red, values);
  report::DataView v;
  v.title = fmt::format("{} {} on {} ranks, {} element(s) of {} B per {}{}; before: {}; '-': holds nothing; '.': no result defined",
                        schedule::to_string(s.op), algo.name, s.ranks, count, s.elt_size,
                        s.op == schedule::Op::AllToAll ? "peer" : "rank",
                        schedule::reduces(s.op) ? ", " + o.run.redop : "",
                        values == verify::Values::Rank ? "rank r holds r" : "element i holds i");
  const bool blocks = schedule::op_buffer_elems(args) > count;
  v.block = blocks ? count : 0;
  v.before = d.before, v.after = d.after;
  if (schedule::has_root(s.op)) v.note = fmt::format("root: rank {}", args.root);
  if (s.op == schedule::Op::AllToAll) v.note = "blocks 0..p-1: what the rank sends (block j to rank j); blocks p..2p-1: what it received";
  if (s.op == schedule::Op::SendRecv) v.note = "first block: what the rank sends to rank r+1; second: what it received from rank r-1";
  if (s.op == schedule::Op::Scan) v.note = "inclusive scan: rank r ends with the reduction of ranks 0..r";
  return report::render_data(v);
}

std::string explain_sweep(const ExplainOptions& o, CLI::App* cmd, const metrics::ExplainSetup& s, report::ExplainFormat f) {
  // Without --min, the sweep starts at the first power of two from 8 B that gives every rank an element
  // (allgather's 8 B on 8 ranks would be 1 B each).
  Bytes lo = 8;
  if (cmd->count("--min") > 0) lo = checked_size(s, o.min, "--min");
  else
    while (metrics::plan_size(s.op, s.ranks, lo, s.elt_size).count == 0 && lo < (Bytes{1} << 50)) lo *= 2;
  const Bytes hi = parse_size(o.max, "--max");
  if (lo > hi) fail("--min {} is larger than --max {}", o.min, o.max);
  report::Progress bar("explain", 2 * metrics::size_series(lo, hi, 2).size()); // sizes, then crossovers
  const auto sw = metrics::explain_sweep(s, lo, hi, [&](std::size_t done, std::size_t) { bar.update(done); });
  bar.done();
  return report::render(sw, s.op, s.ranks, f);
}

// One algorithm; the HTML page also draws its schedule, step by step, for a small p.
std::string explain_algo(const ExplainOptions& o, const metrics::ExplainSetup& s, report::ExplainFormat f) {
  const Bytes size = checked_size(s, o.size, "--size");
  const auto e = metrics::explain_one(s, o.run.algo, size);
  if (f != report::ExplainFormat::Html) return report::render(e, s.op, s.ranks, f);
  if (s.ranks > metrics::kPictureMaxRanks)
    return report::render_html(e, nullptr, s.op, s.ranks,
                               fmt::format("No drawing: the schedule is drawn for at most {} ranks.", metrics::kPictureMaxRanks));
  const auto pic = metrics::picture_schedule(s, e.algo, size, e.segment_bytes);
  return report::render_html(e, &pic, s.op, s.ranks, "");
}

int run_explain(ExplainOptions& o, CLI::App* cmd) {
  metrics::ExplainSetup s;
  s.op = require_op(o.run.op);
  const auto f = report::explain_format_from(o.format);
  std::optional<topology::Topology> topo;
  if (cmd->count("--topo") > 0) setup_on_topology(o, cmd, s, topo);
  else {
    for (const char* flag : {"--gpus", "--ring"}) // GPUs of no topology would be ignored
      if (cmd->count(flag) > 0) fail("{}: picks GPUs of a topology; give --topo too, or drop {}", flag, flag);
    setup_textbook(o, s);
  }
  // Unknown names are refused even where only --show-data would read them.
  verify::values_from(o.values);
  verify::red_op_from(o.run.redop);
  const bool one_algo = cmd->count("--algo") > 0;
  check_ranks(s, one_algo);
  // Each mode reads its own sizes (--size: one algorithm or --show-data; --min/--max: the sweep of all).
  if (!one_algo && !o.show_data && cmd->count("--size") > 0)
    fail("--size: read with --algo or --show-data; a sweep of every algorithm takes --min/--max");
  for (const char* flag : {"--min", "--max"})
    if ((one_algo || o.show_data) && cmd->count(flag) > 0)
      fail("{}: sets the sweep of every algorithm; with {} give --size", flag, o.show_data ? "--show-data" : "--algo");
  if (!o.gamma.empty()) {
    // Time per byte, written "10ps" or, as README's γ = 10 ps/B, "10ps/B" (which read as a missing time unit).
    std::string per_byte = o.gamma;
    if (per_byte.size() > 2 && (per_byte.ends_with("/B") || per_byte.ends_with("/b"))) per_byte.resize(per_byte.size() - 2);
    const Time g = parse_duration(per_byte, "--gamma");
    if (g <= 0) fail("--gamma: must be positive (time to reduce one byte, e.g. 10ps)");
    s.params.reduce_bw = static_cast<Bandwidth>(kPsPerSec / g);
    s.run.model.reduce_bw = s.params.reduce_bw;
  }
  if (o.show_data) {
    if (f != report::ExplainFormat::Text) fail("--show-data: prints text only; drop --format {}", o.format);
    write_output(o.output, show_data(o, s, one_algo ? o.run.algo : schedule::default_algorithm(s.op)), "-o/--output");
    return 0;
  }
  const std::string out = one_algo ? explain_algo(o, s, f) : explain_sweep(o, cmd, s, f);
  write_output(o.output, out, "-o/--output");
  return 0;
}

} // namespace

void add_explain_command(CLI::App& app) {
  auto o = std::make_shared<ExplainOptions>();
  o->run.algo = "";
  auto* cmd = app.add_subcommand("explain", "Explain an algorithm's alpha-beta cost, or pick the best algorithm per size");
  cmd->add_option("--op", o->run.op, "Collective")->capture_default_str();
  cmd->add_option("-a,--algo", o->run.algo, "Algorithm to explain; without it, compare all of the op's algorithms");
  cmd->add_option("--ranks,-p", o->ranks, "Number of ranks (ideal crossbar)")
      ->capture_default_str()
      ->check(whole_in_range(1, kTextbookMaxRanks));
  cmd->add_option("--size,-n", o->size, "Message size n (op's convention; K/M/G)")->capture_default_str();
  cmd->add_option("--alpha", o->alpha, "Start-up cost per message")->capture_default_str();
  cmd->add_option("--bw", o->bw, "Link bandwidth (beta = 1/bw)")->capture_default_str();
  cmd->add_option("--gamma", o->gamma, "Reduction time per byte (e.g. 10ps or 10ps/B); default 0");
  cmd->add_option("--o,--sw-overhead", o->run.sw_overhead, "LogP's o: time a rank is busy posting each message; "
                                                          "serialises (alpha overlaps)")->capture_default_str();
  cmd->add_option("--semantics", o->run.semantics, "gpu (a send completes when its data has left) or mpi (blocking "
                                                   "send-recv); formulas that assume blocking rounds are shown under mpi")
      ->capture_default_str();
  cmd->add_option("--min", o->min, "Sweep: smallest size")->capture_default_str();
  cmd->add_option("--max", o->max, "Sweep: largest size")->capture_default_str();
  cmd->add_option("-d,--datatype", o->run.datatype, "Element type")->capture_default_str();
  cmd->add_option("-r,--root", o->run.root, "Root rank")->capture_default_str();
  cmd->add_option("--chunk-size", o->run.chunk_size, "Pipeline segment for chain/tree algorithms");
  cmd->add_option("--format", o->format, "text, markdown, latex, json, html (one self-contained page with drawings)")->capture_default_str();
  cmd->add_option("-o,--output", o->output, "Write to this file instead of stdout");
  cmd->add_flag("--show-data", o->show_data, "Instead of the costs: run the schedule on small integers and print each rank's "
                                             "buffer before and after (at most 16 ranks, 64 elements)");
  cmd->add_option("--values", o->values, "With --show-data: rank (rank r holds r) or index (element i holds i)")->capture_default_str();
  cmd->add_option("--redop", o->run.redop, "With --show-data: sum, prod, min, max")->capture_default_str();
  cmd->add_option("-t,--topo", o->run.topo, "Take alpha and beta from this topology instead of --alpha/--bw");
  add_gpu_option(*cmd);
  cmd->add_option("--gpus", o->run.gpus, "With --topo: the GPUs to use");
  cmd->add_option("--ring", o->run.ring, "With --topo: ring order");
  cmd->callback([o, cmd] { run_explain(*o, cmd); });
}

} // namespace ccsim::cli
