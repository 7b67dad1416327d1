// `explain` must agree with the engine exactly on the ideal crossbar, never beat the lower bound,
// and place crossovers where a scan of the simulation does.
#include <doctest/doctest.h>

#include <algorithm>

#include <cctype>
#include <fstream>
#include <sstream>

#include "sim/core/data_dir.hpp"
#include "sim/metrics/explain.hpp"
#include "sim/report/explain_report.hpp"
#include "sim/schedule/registry.hpp"

using namespace ccsim;

namespace {

metrics::ExplainSetup ideal(schedule::Op op, int p) {
  metrics::ExplainSetup s;
  s.op = op;
  s.ranks = p;
  s.params.alpha = 3'700'002;          // 3.700002 us: not a round number
  s.params.bw = 23'456'789'012ULL;     // 23.46 GB/s
  return s;
}

std::vector<std::string> algos_of(schedule::Op op) {
  std::vector<std::string> v;
  for (const auto& a : schedule::all_algorithms())
    if (a.op == op) v.push_back(a.name);
  return v;
}

} // namespace

TEST_CASE("every formula equals the simulation on the ideal crossbar, and no algorithm beats the lower bound") {
  for (auto op : schedule::kAllOps)
    for (const auto& algo : algos_of(op))
      for (int p : {2, 3, 4, 5, 7, 8, 13, 16, 64})
        for (Bytes size : {Bytes{8}, Bytes{4096}, Bytes{3} << 20, Bytes{64} << 20}) {
          for (Bandwidth red : {Bandwidth{0}, Bandwidth{61'000'000'000ULL}}) {
            auto s = ideal(op, p);
            s.params.reduce_bw = red;
            s.run.model.reduce_bw = red;
            // count must split evenly for the textbook forms; uneven counts are covered per algorithm
            const Bytes unit = 4ULL * static_cast<Bytes>(p) * 16;
            const Bytes n = std::max(unit, size / unit * unit); // 8 B: the smallest even count, latency-bound
            const auto e = metrics::explain_one(s, algo, n);
            INFO(schedule::to_string(op), " ", algo, " p=", p, " n=", n, " reduce_bw=", red);
            const auto& info = schedule::require_algorithm(op, algo);
            CHECK(schedule::fit_holds(info.fit, e.simulated, e.formula_time));
            if (info.fit == schedule::FormulaFit::ExactWithFairSharing) {
              auto flow = s;
              flow.run.model_name = "flow";
              CHECK(metrics::explain_one(flow, algo, n).simulated == e.formula_time);
            }
            // Where they differ, explain names why.
            CHECK(e.difference.empty() == (e.simulated == e.formula_time));
            // Chan's bound adds its three parts and assumes each message pays its alpha in turn (the one-port
            // Hockney model). Schedules that post several messages per port at once get the multi-port
            // latency bound (one alpha), as ccsim's links, like SimGrid's, overlap their latencies; pipelined
            // schedules overlap reduction with transfer and may beat the sum of the parts, never a part.
            CHECK(e.simulated >= e.bound_alpha);
            CHECK(e.simulated >= e.bound_beta);
            CHECK(e.simulated >= e.bound_gamma);
            if (red == 0) CHECK(e.simulated >= e.bound_time);
            CHECK(e.beats_bound == (e.simulated < e.bound_time));
          }
        }
}

TEST_CASE("crossovers agree with a scan of the simulation") {
  for (auto op : schedule::kAllOps) {
    if (algos_of(op).size() < 2) continue;
    for (int p : {5, 8}) {
      auto s = ideal(op, p);
      const auto sweep = metrics::explain_sweep(s, 8, 256ULL << 20);
      for (const auto& c : sweep.crossovers) {
        INFO(schedule::to_string(op), " p=", p, " ", c.from, " -> ", c.to, " at ", c.at);
        // At the crossover the new algorithm is faster; one element below, the old one is not slower.
        const auto at_to = metrics::explain_one(s, c.to, c.at), at_from = metrics::explain_one(s, c.from, c.at);
        CHECK(at_to.simulated < at_from.simulated);
        const Bytes below = c.at - s.elt_size;
        const auto b_to = metrics::explain_one(s, c.to, below), b_from = metrics::explain_one(s, c.from, below);
        CHECK(b_from.simulated <= b_to.simulated);
        // A scan across the whole factor-2 interval around it: one switch, exactly there.
        const Bytes lo = c.at / 2, hi = c.at * 2;
        for (int i = 0; i <= 32; ++i) {
          const Bytes b = (lo + (hi - lo) * static_cast<Bytes>(i) / 32) / s.elt_size * s.elt_size;
          if (b == 0 || b >= (256ULL << 20)) continue;
          const auto t_to = metrics::explain_one(s, c.to, b).simulated, t_from = metrics::explain_one(s, c.from, b).simulated;
          INFO("scan at ", b);
          if (b < c.at) CHECK(t_from <= t_to);
          else CHECK(t_to < t_from);
        }
      }
      // The selection map covers the sweep without gaps.
      REQUIRE(!sweep.selection.empty());
      CHECK(sweep.selection.front().from == sweep.plans.front().size);
      CHECK(sweep.selection.back().to == sweep.plans.back().size);
    }
  }
}

TEST_CASE("golden: explain ring allreduce, p = 8, 64 MiB, alpha 5 us, 25 GB/s, gamma 10 ps/B") {
  auto s = ideal(schedule::Op::AllReduce, 8);
  s.params = {5 * kPsPerUs, 25'000'000'000ULL, 100'000'000'000ULL};
  s.run.model.reduce_bw = s.params.reduce_bw;
  const auto text = report::render(metrics::explain_one(s, "ring", 64ULL << 20), s.op, 8, report::ExplainFormat::Text);
  std::ifstream in(ccsim::data_dir() + "/tests/golden/explain_ring_allreduce.txt");
  REQUIRE(in);
  std::stringstream want;
  want << in.rdbuf();
  // Compare word by word; numbers within 1e-6 relative so formatting of the last digit may move.
  std::istringstream a(text), b(want.str());
  std::string x, y;
  int words = 0;
  while (b >> y) {
    const bool more = static_cast<bool>(a >> x);
    REQUIRE(more);
    ++words;
    char* ex = nullptr;
    char* ey = nullptr;
    const double dx = std::strtod(x.c_str(), &ex), dy = std::strtod(y.c_str(), &ey);
    if (*ey == '\0' && *ex == '\0' && !y.empty() && (std::isdigit(static_cast<unsigned char>(y[0])) || y[0] == '-'))
      CHECK(dx == doctest::Approx(dy).epsilon(1e-6));
    else
      CHECK(x == y);
  }
  const bool extra = static_cast<bool>(a >> x);
  CHECK_FALSE(extra);
  CHECK(words > 100);
}

TEST_CASE("latex formulas") {
  CHECK(report::to_latex("2(p-1)/p") == "\\frac{2(p-1)}{p}");
  CHECK(report::to_latex("ceil(lg p)") == "\\lceil\\log_2 p\\rceil");
  CHECK(report::to_latex("p-1") == "p-1");
}

TEST_CASE("--format latex is LaTeX: every formula of every algorithm, no plain-text operators left") {
  for (auto op : schedule::kAllOps)
    for (int p : {6, 8, 13}) {
      auto s = ideal(op, p);
      for (const auto& algo : algos_of(op)) {
        const auto e = metrics::explain_one(s, algo, 1 << 20);
        const std::string tex = report::render(e, op, p, report::ExplainFormat::Latex);
        INFO(schedule::to_string(op), " ", algo, " p=", p, "\n", tex);
        for (const char* bad : {"ceil(", "floor(", "sum_", "lg p", "|{", "/", "*"}) {
          // "\sum_k" and "\log_2" are fine; the raw forms are not.
          std::string t = tex;
          for (const char* ok : {"\\sum_", "\\log_2", "{align*}"})
            for (std::size_t at; (at = t.find(ok)) != std::string::npos;) t.erase(at, std::string(ok).size());
          CHECK(t.find(bad) == std::string::npos);
        }
        int depth = 0, lowest = 0;
        for (char c : tex) depth += c == '{' ? 1 : c == '}' ? -1 : 0, lowest = std::min(lowest, depth);
        CHECK(lowest == 0);
        CHECK(depth == 0);
      }
    }
}

TEST_CASE("to_latex turns each a/b into a fraction of its two operands") {
  CHECK(report::to_latex("2 + 2(p'-1)/p'") == "2 + \\frac{2(p'-1)}{p'}");
  CHECK(report::to_latex("(p-1)/p") == "\\frac{(p-1)}{p}");
  CHECK(report::to_latex("22/p") == "\\frac{22}{p}");
  CHECK(report::to_latex("(sum_k b_k)/p") == "\\frac{(\\sum_k b_k)}{p}");
}

TEST_CASE("--format latex: a rounded size's '~' (format_size) is a tilde in the table, not a non-breaking space") {
  auto s = ideal(schedule::Op::AllReduce, 8);
  // 1500 B is not a whole number of KiB: format_size gives "~1.46 KiB" (1500 / 1024 = 1.4648...).
  const std::string tex = report::render(metrics::explain_sweep(s, 1500, 1500), schedule::Op::AllReduce, 8, report::ExplainFormat::Latex);
  CHECK(tex.find("  \\textasciitilde{}1.46 KiB & ") != std::string::npos);
  CHECK(tex.find("~") == std::string::npos);
}
