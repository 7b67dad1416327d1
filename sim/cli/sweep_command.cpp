// `ccsim sweep`: every point of a plan through the main command's own code, on a pool of threads (and
// MPI ranks), rows journaled as points finish and the table written in plan order at the end.
#include "sim/cli/sweep_command.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include <fmt/format.h>

#include "sim/cli/common.hpp"
#include "sim/cli/parse_errors.hpp"
#include "sim/cli/run_options.hpp"
#include "sim/cli/scenario_command.hpp"
#include "sim/cli/sweep_mpi.hpp"
#include "sim/cli/sweep_plan.hpp"
#include "sim/cli/sweep_resume.hpp"
#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"
#include "sim/report/progress.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/p2p.hpp"

namespace ccsim::cli {
namespace {

struct SweepOptions {
  std::string plan, output, format = "csv";
  int jobs = 0; // 0 = every core (one per rank under MPI)
  bool stats = false;
};

// One point, exactly as `ccsim <its arguments>` would run it; a failure becomes its one-line error.
report::SweepCells run_point(const SweepPlan& plan, std::size_t point) {
  std::string error;
  CLI::App app; // outside the try: a parse error is put in words from the options it has
  try {
    // Per-thread settings a previous point's --p2p/--p2p-level/--gpu may have left.
    topology::set_p2p_mode("on");
    topology::clear_p2p_level();
    topology::set_default_import_gpu("");
    std::vector<std::string> args{"ccsim"};
    for (auto& a : point_arguments(plan, point)) args.push_back(std::move(a));
    const bool scenario = args.size() > 1 && args[1] == "scenario";
    if (scenario) args.erase(args.begin() + 1); // the subcommand's own arguments follow
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    if (scenario) {
      ScenarioOptions so;
      add_scenario_run_options(app, so);
      app.parse(static_cast<int>(argv.size()), argv.data());
      report::SweepCells cells;
      run_scenario_options(so, [&](const scenario::Report& rep) { cells = report::sweep_scenario_cells(rep); });
      return cells;
    }
    RunOptions o;
    add_run_options(app, o);
    app.parse(static_cast<int>(argv.size()), argv.data());
    RunRows result;
    o.result = &result;
    run_command(o);
    return report::sweep_cells(result.header, result.rows);
  } catch (const CLI::ParseError& e) {
    error = parse_error_text(app, e);
  } catch (const ModelHelp&) {
    error = "--model: 'help' is not a model";
  } catch (const Error& e) {
    error = e.what();
  } catch (const std::bad_alloc&) {
    error = "out of memory";
  } catch (const std::exception& e) {
    error = std::string("internal error: ") + e.what();
  }
  return report::sweep_error_cells(printable(error, 4000));
}

// The shared state of one sweep: which points are left, their rows, the journal and the bar.
class Sweep {
 public:
  Sweep(const SweepPlan& plan, const std::string& output, std::vector<std::size_t> pending)
      : plan_(plan), journal_(output.empty() || output == "-" ? "" : journal_path(output)), pending_(std::move(pending)),
        cells_(plan.points.size()), seconds_(plan.points.size(), -1), bar_("points", pending_.size()) {}

  std::optional<std::size_t> take() {
    const std::size_t n = next_.fetch_add(1);
    if (n >= pending_.size() || failed_) return std::nullopt;
    return pending_[n];
  }
  // Never throws (it runs on worker threads and in the MPI master loop): a journal that cannot be
  // written (disk full) stops the sweep, and rethrow() reports it once every thread has stopped.
  void finish(std::size_t point, report::SweepCells cells, double seconds) {
    try {
      journal_.append(point_key(plan_, plan_.points[point]), cells);
    } catch (const Error& e) {
      stop(e.what());
    }
    std::lock_guard lock(mutex_);
    cells_[point] = std::move(cells);
    seconds_[point] = seconds;
    bar_.update(++done_);
  }
  // Runs points on this thread until none is left or the sweep was stopped.
  void work() {
    while (const auto p = take()) {
      const auto t0 = std::chrono::steady_clock::now();
      auto cells = run_point(plan_, *p);
      finish(*p, std::move(cells), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  void stop(const std::string& why) {
    std::lock_guard lock(mutex_);
    if (!failed_) error_ = why;
    failed_ = true;
  }
  void rethrow() const {
    if (failed_) throw Error(error_);
  }
  std::size_t left() const {
    const std::size_t n = next_.load();
    return n >= pending_.size() ? 0 : pending_.size() - n;
  }
  void set(std::size_t point, report::SweepCells cells) { cells_[point] = std::move(cells); }
  const std::vector<report::SweepCells>& cells() const { return cells_; }
  const std::vector<double>& seconds() const { return seconds_; }
  Journal& journal() { return journal_; }
  void done() { bar_.done(); }

 private:
  const SweepPlan& plan_;
  Journal journal_;
  std::vector<std::size_t> pending_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::string error_;
  std::mutex mutex_;
  std::vector<report::SweepCells> cells_;
  std::vector<double> seconds_;
  report::Progress bar_;
  std::size_t done_ = 0;
};

void print_stats(const Sweep& s, std::size_t resumed, double wall, int threads, const MpiWorld& w, double serving) {
  std::vector<double> t;
  for (double x : s.seconds())
    if (x >= 0) t.push_back(x * 1e3);
  std::sort(t.begin(), t.end());
  auto q = [&](double f) { return t.empty() ? 0.0 : t[std::min(t.size() - 1, static_cast<std::size_t>(f * static_cast<double>(t.size())))]; };
  std::cerr << fmt::format("sweep: {} points run ({} resumed) in {:.3f} s on {} thread(s) x {} rank(s)\n", t.size(), resumed,
                           wall, threads, w.size);
  if (!t.empty())
    std::cerr << fmt::format("sweep: per point ms: min {:.3f} median {:.3f} p90 {:.3f} p99 {:.3f} max {:.3f}\n", t.front(),
                             q(0.5), q(0.9), q(0.99), t.back());
  if (w.size > 1 && !t.empty())
    std::cerr << fmt::format("sweep: rank 0 serving other ranks: {:.1f} us CPU per point\n", serving * 1e6 / static_cast<double>(t.size()));
}

std::string render(const SweepPlan& plan, const std::vector<report::SweepCells>& cells, report::SweepFormat f) {
  std::string out = report::sweep_header(f, plan.params);
  for (std::size_t i = 0; i < plan.points.size(); ++i) out += report::sweep_lines(f, i, plan.params, plan.points[i], cells[i]);
  return out;
}

void run(const SweepOptions& o) {
  const auto fmt_kind = report::sweep_format_from(o.format);
  // -o is also where the resume journal lives (FILE.ccsim-journal beside it) and what a rerun reads back:
  // a device or pipe has neither (a journal for /dev/null would be created in /dev).
  std::error_code ec;
  if (!o.output.empty() && o.output != "-" && std::filesystem::exists(o.output, ec) && !std::filesystem::is_regular_file(o.output, ec))
    fail("-o/--output: {} is not a regular file (write to stdout and redirect instead)", printable(o.output));
  // Said before the plan runs, naming the flag: the first write (the resume journal) would name only its own file.
  if (const auto dir = std::filesystem::path(o.output).parent_path(); !o.output.empty() && o.output != "-" && !dir.empty() &&
                                                                   !std::filesystem::is_directory(dir, ec))
    fail("-o/--output: {}: the folder {} does not exist", printable(o.output), printable(dir.string()));
  const auto plan = load_sweep_plan(o.plan);
  const MpiWorld world = mpi_start();
  if (world.rank > 0) { // a worker rank: compute what rank 0 hands out, write nothing
    mpi_work([&](std::size_t p) { return run_point(plan, p); });
    mpi_stop();
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto finished = read_finished(plan, o.output);
  std::vector<std::size_t> pending;
  std::vector<report::SweepCells> resumed(plan.points.size());
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const auto it = finished.find(point_key(plan, plan.points[i]));
    if (it == finished.end()) pending.push_back(i);
    else resumed[i] = it->second;
  }
  Sweep sweep(plan, o.output, pending);
  for (std::size_t i = 0; i < resumed.size(); ++i)
    if (!resumed[i].empty()) sweep.set(i, std::move(resumed[i]));
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = o.jobs > 0 ? o.jobs : world.size > 1 ? 1 : cores;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&] { sweep.work(); });
  double serving = 0;
  if (world.size > 1)
    serving = mpi_serve(world, {[&] { return sweep.take(); }, [&] { return sweep.left(); },
                                [&](std::size_t p, report::SweepCells c, double s) { sweep.finish(p, std::move(c), s); }});
  for (auto& t : pool) t.join();
  sweep.done();
  mpi_stop();
  sweep.rethrow();
  write_output(o.output, render(plan, sweep.cells(), fmt_kind), "-o/--output");
  outputs().commit(); // published: the journal has served its purpose
  sweep.journal().remove();
  // A failed point is a row with its error, and the sweep goes on (docs/sweep.md); but with -o nothing else is shown,
  // so a plan whose every point failed (say, a machine spec that lacks nics=) looked like a finished sweep: say so.
  std::size_t failed = 0;
  std::string first;
  for (std::size_t i = 0; i < sweep.cells().size(); ++i) {
    const auto& c = sweep.cells()[i];
    if (c.size() == 1 && !c.front().empty() && !c.front().back().empty()) {
      if (failed++ == 0) first = fmt::format("point {}: {}", i, c.front().back());
    }
  }
  if (failed > 0)
    std::cerr << fmt::format("ccsim sweep: {} of {} points failed (their rows carry the error column); the first, {}\n", failed,
                             plan.points.size(), first);
  if (o.stats)
    print_stats(sweep, plan.points.size() - pending.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), threads, world, serving);
}

} // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand("sweep", "Run every point of a plan (grid and list of the main command's flags) into one "
                                          "table, on every core and across MPI ranks (docs/sweep.md)");
  cmd->add_option("plan", o->plan, "Plan file (JSON: defaults, grid, points)")->required();
  cmd->add_option("-o,--output", o->output, "Write the table here (atomically); rerunning resumes from it and its journal");
  cmd->add_option("--format", o->format, "csv or jsonl (one JSON object per row)")->capture_default_str();
  cmd->add_option("-j,--jobs", o->jobs, "Threads, 1..4096 (default, or 0: every core; one per rank under mpirun)")
      ->check(whole_in_range(0, 4096));
  cmd->add_flag("--stats", o->stats, "Print run time, per-point cost percentiles and MPI master overhead on stderr");
  cmd->callback([o] { run(*o); });
}

} // namespace ccsim::cli
