#include "sim/report/explain_report.hpp"

#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/report/explain_html.hpp"

namespace ccsim::report {
using metrics::Explanation;

ExplainFormat explain_format_from(const std::string& s) {
  if (s == "text") return ExplainFormat::Text;
  if (s == "markdown" || s == "md") return ExplainFormat::Markdown;
  if (s == "latex") return ExplainFormat::Latex;
  if (s == "json") return ExplainFormat::Json;
  if (s == "html") return ExplainFormat::Html;
  fail("--format: unknown format '{}' (text, markdown, latex, json, html)", s);
}

std::string to_latex(const std::string& expr) {
  std::string s = expr;
  // Every a/b becomes \frac{a}{b}, with a and b the operands next to the slash: a parenthesised group
  // with any factor before it ("2(p-1)"), or a run of letters and digits ("22", "p'").
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '\'' || c == '_'; };
  for (std::size_t slash; (slash = s.find('/')) != std::string::npos;) {
    std::size_t a = slash, b = slash + 1;
    if (a > 0 && s[a - 1] == ')')
      for (int depth = 0; a > 0;) {
        const char c = s[--a];
        depth += c == ')' ? 1 : c == '(' ? -1 : 0;
        if (depth == 0) break;
      }
    while (a > 0 && word(s[a - 1])) --a;
    if (b < s.size() && s[b] == '(')
      for (int depth = 0; b < s.size();) {
        const char c = s[b++];
        depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        if (depth == 0) break;
      }
    else
      while (b < s.size() && word(s[b])) ++b;
    s = s.substr(0, a) + "\\frac{" + s.substr(a, slash - a) + "}{" + s.substr(slash + 1, b - slash - 1) + "}" + s.substr(b);
  }
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
  };
  replace_all("ceil(lg p)", "\\lceil\\log_2 p\\rceil");
  replace_all("floor(lg p)", "\\lfloor\\log_2 p\\rfloor");
  replace_all("lg p", "\\log_2 p");
  replace_all("sum_k ", "\\sum_k ");
  replace_all("min(", "\\min(");
  replace_all("*", "\\,");
  return s;
}

namespace {

std::string us(Time t) { return fmt::format("{:.3f} us", to_us(t)); }

// A compound coefficient ("p-2+k") needs parentheses before "*alpha".
std::string paren(const std::string& c) {
  int depth = 0;
  bool compound = false;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i] == '(') ++depth;
    else if (c[i] == ')') --depth;
    else if (depth == 0 && i > 0 && (c[i] == '+' || c[i] == '-' || c[i] == ' ')) compound = true;
  }
  return compound ? "(" + c + ")" : c;
}

std::string term(const std::string& coef, const std::string& var) {
  if (coef.empty() || coef == "0") return "";
  return (coef == "1" ? "" : paren(coef) + "*") + var;
}

// "T = a*alpha + b*n*beta + g*n*gamma" from the coefficients, omitting zero terms.
std::string closed_form_of(const std::string& a, const std::string& b, const std::string& g) {
  std::string t;
  for (auto s : {term(a, "alpha"), term(b, "n*beta"), term(g, "n*gamma")})
    if (!s.empty()) t += (t.empty() ? "" : " + ") + s;
  return "T = " + (t.empty() ? "0" : t);
}
std::string closed_form(const Explanation& e) { return closed_form_of(e.alpha_expr, e.beta_expr, e.gamma_expr); }

std::string latex_form(const std::string& a, const std::string& b, const std::string& g) {
  std::string t;
  auto add = [&](const std::string& coef, const std::string& var) {
    if (coef.empty() || coef == "0") return;
    t += (t.empty() ? "" : " + ") + (coef == "1" ? "" : to_latex(paren(coef)) + "\\,") + var;
  };
  add(a, "\\alpha");
  add(b, "n\\beta");
  add(g, "n\\gamma");
  return "T = " + (t.empty() ? "0" : t);
}
std::string latex_form(const Explanation& e) { return latex_form(e.alpha_expr, e.beta_expr, e.gamma_expr); }

// Text set in LaTeX's text mode: escape what it treats specially in algorithm names and sizes (format_size's
// '~' for a rounded size would be a non-breaking space).
std::string latex_escape(const std::string& x) {
  std::string o;
  for (char c : x)
    o += c == '~' ? std::string("\\textasciitilde{}")
         : (c == '_' || c == '%' || c == '&' || c == '#') ? std::string("\\") + c
                                                          : std::string(1, c);
  return o;
}

std::string bound_form_of(const cost::LowerBound& b) {
  std::string t = b.alpha_text + "*alpha + " + b.beta_text + "*n*beta";
  if (b.gamma != 0) t += " + " + b.gamma_text + "*n*gamma";
  return t;
}

// The sums behind the terms, so a reader can redo them: start-ups x alpha and the bytes on the path x beta.
// A closed form's n/p is a block of whole elements in the run (ring p = 1000, n = 1 MiB of floats: 1052 B,
// not 1048.576 B), which these lines show where the formula's coefficients cannot.
std::string by_hand(const Explanation& e) {
  std::uint64_t starts = 0, bytes = 0, reduced = 0;
  std::string parts;
  int shown = 0;
  for (const auto& t : e.terms) {
    if (t.transfers == 0) {
      reduced += t.messages * t.reduce_bytes;
      continue;
    }
    starts += t.messages;
    const std::uint64_t each = t.bytes * t.transfers * t.shared; // a queued round or a fair share moves these at full rate
    bytes += t.messages * each;
    reduced += t.messages * t.reduce_bytes;
    if (t.messages > 0 && shown++ < 4) parts += fmt::format("{}{} x {} B", parts.empty() ? "" : " + ", t.messages, each);
  }
  if (shown > 4) parts += " + ...";
  std::string o = fmt::format("   by hand: latency {} x {}; bandwidth {} = {} B at {}", starts, format_duration(e.params.alpha),
                              parts.empty() ? "0 B" : parts, bytes, format_bandwidth(e.params.bw));
  if (e.gamma_term) o += fmt::format("; reduction {} B at {}", reduced, format_bandwidth(e.params.reduce_bw));
  const double exact_ps = static_cast<double>(bytes) * 1e12 / static_cast<double>(e.params.bw);
  if (static_cast<double>(e.bandwidth_term) - exact_ps >= 0.5)
    o += fmt::format(" (+{:.0f} ps: each message's time is rounded up to a whole ps, as the engine does)",
                     static_cast<double>(e.bandwidth_term) - exact_ps);
  return o + "\n";
}

double ratio(Time a, Time b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0; }

std::string text(const Explanation& e, schedule::Op op, int p, bool md) {
  const std::string h = md ? "### " : "";
  std::string o;
  o += fmt::format("{}{} {}: p = {}, n = {} ({} B)\n", md ? "## " : "", schedule::to_string(op), e.algo, p,
                   format_size(e.plan.size), e.plan.size);
  o += fmt::format("alpha = {}, beta = 1/({}), gamma = {}{}\n", format_duration(e.params.alpha), format_bandwidth(e.params.bw),
                   e.params.reduce_bw ? "1/(" + format_bandwidth(e.params.reduce_bw) + ")" : "0 (reductions free)",
                   e.params.overhead ? ", o = " + format_duration(e.params.overhead) : "");
  o += "alpha (latency) overlaps across a rank's messages in flight; o (posting a message) and n*beta (one port) "
       "serialise\n";
  if (!e.links_used.empty()) {
    o += "alpha and beta come from the links the schedule uses (alpha: the slowest route's latency; beta: the narrowest bottleneck):\n";
    for (const auto& l : e.links_used) o += "  " + l + "\n";
  }
  o += fmt::format("\n{}1. The schedule ({})\n", h, e.summary);
  for (const auto& w : e.schedule_words) o += "   " + w + "\n";
  o += fmt::format("\n{}2. Cost formula\n   {}\n", h, closed_form(e));
  if (!e.note.empty()) o += "   note: " + e.note + "\n";
  if (e.segment_bytes > 0)
    o += fmt::format("   segment: {} ({} B){}\n", format_size(e.segment_bytes), e.segment_bytes,
                     e.segment_why.empty() ? "" : ", " + e.segment_why);
  for (const auto& t : e.terms)
    o += fmt::format("   {} x {}: {}{}{}{}\n", t.messages, t.what,
                     t.transfers == 0 ? "no message" : fmt::format("{} per message", format_size(t.bytes)),
                     t.transfers > 1 ? fmt::format(" ({} messages queued on one link per round)", t.transfers) : "",
                     t.shared > 1 ? fmt::format(" ({} messages share each link, each at 1/{} of its bandwidth)", t.shared, t.shared) : "",
                     t.reduce_bytes ? fmt::format(", {} reduced", format_size(t.reduce_bytes)) : "");
  o += fmt::format("\n{}3. With the numbers\n", h);
  o += fmt::format("   latency term   {:>14}\n   bandwidth term {:>14}\n", us(e.latency_term), us(e.bandwidth_term));
  if (e.overhead_term) o += fmt::format("   overhead (o)   {:>14}\n", us(e.overhead_term));
  if (e.gamma_term) o += fmt::format("   reduction term {:>14}\n", us(e.gamma_term));
  o += fmt::format("   total          {:>14}\n", us(e.formula_time));
  o += by_hand(e);
  const bool lat = e.latency_term > e.bandwidth_term + e.gamma_term;
  o += fmt::format("   the {} term dominates ({:.1f} % of the total)", lat ? "latency" : "bandwidth",
                   100.0 * ratio(lat ? e.latency_term : e.bandwidth_term + e.gamma_term, e.formula_time));
  if (e.bandwidth_term > 0 && e.plan.size > 0) {
    // n where the two terms are equal (Hockney's n_1/2), from this size's coefficients.
    const double n_half = static_cast<double>(e.plan.size) * static_cast<double>(e.latency_term) /
                          static_cast<double>(e.bandwidth_term + e.gamma_term);
    o += fmt::format("; the terms are equal near n = {:.0f} B", n_half);
  }
  o += "\n";
  o += fmt::format("\n{}4. Simulation\n   simulated {}; formula {}\n", h, us(e.simulated), us(e.formula_time));
  if (!e.semantics_note.empty()) o += "   " + e.semantics_note + "\n";
  o += e.difference.empty() ? "   they agree exactly (to the picosecond)\n"
                            : fmt::format("   they differ by {:+.3f} % ({:+} ps): {}\n",
                                          100.0 * (ratio(e.simulated, e.formula_time) - 1), e.simulated - e.formula_time,
                                          e.difference);
  o += fmt::format("\n{}5. Lower bound ({})\n   {} = {}\n", h, e.bound.source, bound_form_of(e.bound), us(e.bound_time));
  if (e.bound.multi_port)
    o += "   (latency part: one alpha, not ceil(lg p): Chan's count assumes one message in and one out per rank at\n"
         "   a time, and this schedule posts several at once on a rank's link, whose latencies overlap)\n";
  if (e.bound_bw)
    o += fmt::format("   (beta here is 1/({}), the total link bandwidth of the least-connected GPU: a GPU drives all its links "
                     "at once)\n", format_bandwidth(e.bound_bw));
  o += fmt::format("   this algorithm vs the bound: latency x{:.2f}, bandwidth x{:.2f}", ratio(e.latency_term, e.bound_alpha),
                   ratio(e.bandwidth_term, e.bound_beta));
  if (e.bound_gamma) o += fmt::format(", reduction x{:.2f}", ratio(e.gamma_term, e.bound_gamma));
  o += fmt::format(", total x{:.2f}\n", ratio(e.formula_time, e.bound_time));
  if (e.beats_bound)
    o += "   below the textbook sum: the bound adds its parts and charges every message's alpha in turn; this\n"
         "   schedule overlaps them (messages queued on one link share their latency in ccsim's link model, as in\n"
         "   SimGrid's, and pipelined segments reduce while the next ones travel). It never beats a single part.\n";
  o += fmt::format("\n{}6. Bandwidths (nccl-tests definitions)\n", h);
  o += fmt::format("   algbw = size / time = {:.3f} GB/s; busbw = algbw * {:.4f} = {:.3f} GB/s\n", e.bw.algbw_GBps,
                   e.busbw_factor, e.bw.busbw_GBps);
  o += "   why this factor: " + e.busbw_why + "\n";
  return o;
}

std::string latex(const Explanation& e, schedule::Op op, int p) {
  std::string o = fmt::format("% ccsim explain: {} {}, p = {}, n = {} B\n", schedule::to_string(op), e.algo, p, e.plan.size);
  o += "\\begin{align*}\n";
  o += "  T &= " + latex_form(e).substr(4) + " \\\\\n";
  o += fmt::format("  &= {:.3f}\\,\\mu s \\quad (\\text{{latency }} {:.3f}\\,\\mu s + \\text{{bandwidth }} {:.3f}\\,\\mu s", to_us(e.formula_time),
                   to_us(e.latency_term), to_us(e.bandwidth_term));
  if (e.gamma_term) o += fmt::format(" + \\text{{reduction }} {:.3f}\\,\\mu s", to_us(e.gamma_term));
  o += ") \\\\\n";
  o += fmt::format("  T_{{\\min}} &\\ge {}\\,\\alpha + {}\\,n\\beta{} \\\\\n", to_latex(e.bound.alpha_text), to_latex(e.bound.beta_text),
                   e.bound.gamma != 0 ? " + " + to_latex(e.bound.gamma_text) + "\\,n\\gamma" : "");
  o += "\\end{align*}\n";
  return o;
}

nlohmann::ordered_json json(const Explanation& e, schedule::Op op, int p) {
  nlohmann::ordered_json j;
  j["op"] = schedule::to_string(op);
  j["algo"] = e.algo;
  j["ranks"] = p;
  j["size"] = e.plan.size;
  j["count"] = e.plan.count;
  j["alpha_ps"] = e.params.alpha;
  j["bw_Bps"] = e.params.bw;
  j["reduce_bw_Bps"] = e.params.reduce_bw;
  j["links_used"] = e.links_used;
  j["schedule"] = e.schedule_words;
  j["formula"] = {{"text", closed_form(e)}, {"latex", latex_form(e)}, {"alpha", e.alpha_expr}, {"beta", e.beta_expr},
                  {"gamma", e.gamma_expr}, {"note", e.note}};
  auto terms = nlohmann::ordered_json::array();
  for (const auto& t : e.terms)
    terms.push_back({{"what", t.what}, {"messages", t.messages}, {"bytes", t.bytes}, {"reduce_bytes", t.reduce_bytes},
                     {"transfers", t.transfers}, {"shared", t.shared}});
  j["terms"] = terms;
  j["latency_term_us"] = to_us(e.latency_term);
  j["bandwidth_term_us"] = to_us(e.bandwidth_term);
  j["reduction_term_us"] = to_us(e.gamma_term);
  j["formula_us"] = to_us(e.formula_time);
  j["formula_ps"] = e.formula_time;
  j["simulated_us"] = to_us(e.simulated);
  j["simulated_ps"] = e.simulated;
  j["semantics"] = engine::to_string(e.semantics);
  if (!e.semantics_note.empty()) j["semantics_note"] = e.semantics_note;
  if (e.params.overhead) j["o_us"] = to_us(e.params.overhead);
  j["difference"] = e.difference;
  j["lower_bound"] = {{"text", bound_form_of(e.bound)}, {"us", to_us(e.bound_time)}, {"multi_port", e.bound.multi_port}};
  j["algbw_GBps"] = e.bw.algbw_GBps;
  j["busbw_GBps"] = e.bw.busbw_GBps;
  j["busbw_factor"] = e.busbw_factor;
  j["busbw_why"] = e.busbw_why;
  if (e.segment_bytes > 0) j["segment"] = {{"bytes", e.segment_bytes}, {"why", e.segment_why}};
  return j;
}

} // namespace

std::string closed_form(const std::string& a, const std::string& b, const std::string& g) { return closed_form_of(a, b, g); }
std::string bound_form(const cost::LowerBound& b) { return bound_form_of(b); }

std::string render(const Explanation& e, schedule::Op op, int ranks, ExplainFormat f) {
  switch (f) {
    case ExplainFormat::Text: return text(e, op, ranks, false);
    case ExplainFormat::Markdown: return text(e, op, ranks, true);
    case ExplainFormat::Latex: return latex(e, op, ranks);
    case ExplainFormat::Json: return safe_dump(json(e, op, ranks), 2) + "\n";
    case ExplainFormat::Html: return render_html(e, nullptr, op, ranks, "");
  }
  return "";
}

std::string render(const metrics::ExplainSweep& s, schedule::Op op, int p, ExplainFormat f) {
  if (f == ExplainFormat::Html) return render_html(s, op, p);
  if (f == ExplainFormat::Json) {
    nlohmann::ordered_json j;
    j["op"] = schedule::to_string(op);
    j["ranks"] = p;
    j["alpha_ps"] = s.params.alpha;
    j["bw_Bps"] = s.params.bw;
    j["algos"] = s.algos;
    auto rows = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < s.sizes.size(); ++i) {
      nlohmann::ordered_json r{{"size", s.plans[i].size}, {"best", s.algos[static_cast<std::size_t>(s.best[i])]}};
      for (std::size_t a = 0; a < s.algos.size(); ++a)
        r[s.algos[a]] = {{"formula_us", to_us(s.cells[i][a].formula)}, {"simulated_us", to_us(s.cells[i][a].simulated)}};
      rows.push_back(r);
    }
    j["rows"] = rows;
    auto xs = nlohmann::ordered_json::array();
    for (const auto& c : s.crossovers) xs.push_back({{"from", c.from}, {"to", c.to}, {"size", c.at}});
    j["crossovers"] = xs;
    auto sel = nlohmann::ordered_json::array();
    for (const auto& r : s.selection) sel.push_back({{"algo", r.algo}, {"from", r.from}, {"to", r.to}});
    j["selection"] = sel;
    return safe_dump(j, 2) + "\n";
  }
  auto form_text = [&](std::size_t a) { return closed_form(s.forms[a].alpha, s.forms[a].beta, s.forms[a].gamma); };
  if (f == ExplainFormat::Latex) {
    std::string o = fmt::format("% ccsim explain: {} on p = {}, alpha = {}, beta = 1/({}); times in us (simulated)\n",
                                schedule::to_string(op), p, format_duration(s.params.alpha), format_bandwidth(s.params.bw));
    o += "\\begin{align*}\n";
    for (std::size_t a = 0; a < s.algos.size(); ++a)
      o += fmt::format("  T_{{\\text{{{}}}}} &= {} \\\\\n", latex_escape(s.algos[a]),
                       latex_form(s.forms[a].alpha, s.forms[a].beta, s.forms[a].gamma).substr(4));
    o += "\\end{align*}\n\\begin{tabular}{r" + std::string(s.algos.size(), 'r') + "l}\n  size";
    for (const auto& a : s.algos) o += " & " + latex_escape(a);
    o += " & best \\\\ \\hline\n";
    for (std::size_t i = 0; i < s.sizes.size(); ++i) {
      o += "  " + latex_escape(format_size(s.plans[i].size));
      for (std::size_t a = 0; a < s.algos.size(); ++a) o += fmt::format(" & {:.2f}", to_us(s.cells[i][a].simulated));
      o += " & " + latex_escape(s.algos[static_cast<std::size_t>(s.best[i])]) + " \\\\\n";
    }
    return o + "\\end{tabular}\n";
  }
  const bool md = f == ExplainFormat::Markdown;
  std::string o = fmt::format("{}{} on p = {}: alpha = {}, beta = 1/({}){}; predicted time in us (simulated)\n\n",
                              md ? "## " : "", schedule::to_string(op), p, format_duration(s.params.alpha),
                              format_bandwidth(s.params.bw),
                              s.params.overhead ? ", o = " + format_duration(s.params.overhead) + " per message (serialises)" : "");
  o += md ? "Formulas:\n\n" : "Formulas (ccsim explain --algo NAME shows one in full, with its lower bound):\n";
  for (std::size_t a = 0; a < s.algos.size(); ++a)
    o += md ? fmt::format("* `{}`: `{}`\n", s.algos[a], form_text(a)) : fmt::format("  {:<20} {}\n", s.algos[a], form_text(a));
  o += "\n";
  std::string head = md ? "| size |" : fmt::format("{:>10}", "size");
  for (const auto& a : s.algos) head += md ? fmt::format(" {} |", a) : fmt::format(" {:>18}", a);
  head += md ? " best |\n|---|" : "  best\n";
  if (md)
    for (std::size_t a = 0; a <= s.algos.size(); ++a) head += "---|";
  o += head + (md ? "\n" : "");
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    std::string line = md ? fmt::format("| {} |", format_size(s.plans[i].size)) : fmt::format("{:>10}", format_size(s.plans[i].size));
    for (std::size_t a = 0; a < s.algos.size(); ++a) {
      const auto v = fmt::format("{:.2f}", to_us(s.cells[i][a].simulated));
      line += md ? " " + v + " |" : fmt::format(" {:>18}", v);
    }
    line += md ? " " + s.algos[static_cast<std::size_t>(s.best[i])] + " |" : "  " + s.algos[static_cast<std::size_t>(s.best[i])];
    o += line + "\n";
  }
  o += "\nCrossovers (bisected between the sizes above, by simulation):\n";
  if (s.crossovers.empty()) o += "  none: one algorithm wins at every size\n";
  for (const auto& c : s.crossovers) o += fmt::format("  {} -> {} at {} B\n", c.from, c.to, c.at);
  o += "\nSelection map (fastest by simulation):\n";
  for (const auto& r : s.selection) o += fmt::format("  {:>10} .. {:<10} {}\n", format_size(r.from), format_size(r.to), r.algo);
  return o;
}

} // namespace ccsim::report
