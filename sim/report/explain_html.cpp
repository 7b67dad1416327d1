#include "sim/report/explain_html.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sim/report/explain_report.hpp"

namespace ccsim::report {
using metrics::Explanation;
using metrics::SchedulePicture;

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

namespace {

// Colours told apart in print and by most colour-blind readers (Okabe-Ito, then greys).
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                                    "#000000", "#F0E442", "#7f7f7f", "#8c564b", "#17becf", "#bcbd22"};
const char* colour(std::size_t i) { return kPalette[i % std::size(kPalette)]; }

constexpr const char* kStyle = R"(body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1120px;
color:#222;padding:0 16px;line-height:1.45}h1{font-size:1.5em;margin-bottom:4px}h2{font-size:1.15em;margin-top:28px;
border-bottom:1px solid #ccc;padding-bottom:3px}.sub{color:#555;margin-top:0}.formula{font-family:"DejaVu Serif",Georgia,serif;
font-size:1.3em;background:#f6f6f0;padding:8px 14px;border-left:4px solid #0072B2;display:inline-block}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 9px;text-align:right;white-space:nowrap}
th{background:#f0f0f0}td.l,th.l{text-align:left}.steps{display:flex;flex-wrap:wrap;gap:10px}
.step{border:1px solid #ddd;border-radius:6px;padding:4px;width:230px;text-align:center;font-size:.85em}
.step svg{display:block;margin:auto}.note{color:#555;font-size:.92em}ul.words{font-family:monospace;font-size:.92em}
.legend span{display:inline-block;margin-right:16px}.sw{display:inline-block;width:22px;height:4px;vertical-align:middle;
margin-right:5px}code{background:#f3f3f3;padding:0 3px})";

std::string page(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" + html_escape(title) +
         "</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>" + kStyle + "</style></head>\n<body>\n" + body +
         "<p class=\"note\">Made by <code>ccsim explain</code>: a self-contained page (inline SVG and CSS, no scripts).</p>\n"
         "</body></html>\n";
}

// "T = 2(p-1)*alpha + (p-1)/p*n*beta" in Greek letters with a centred dot.
std::string pretty(const std::string& formula) {
  std::string s = html_escape(formula);
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
  };
  replace_all("alpha", "α");
  replace_all("gamma", "γ");
  replace_all("beta", "β");
  replace_all("*", "·");
  replace_all("ceil(lg p)", "⌈lg p⌉");
  replace_all("floor(lg p)", "⌊lg p⌋");
  return s;
}

std::string us(Time t) { return fmt::format("{:.3f} µs", to_us(t)); }

// One step: ranks on a circle, an arrow per message (blue: copied into the receiver's buffer; orange: reduced into it).
std::string step_svg(const SchedulePicture& pic, std::size_t st) {
  const int p = pic.ranks;
  const double cx = 110, cy = 110, rad = p <= 2 ? 55 : 82, node = p > 10 ? 10 : 12;
  auto at = [&](int r) {
    const double a = -M_PI / 2 + 2 * M_PI * r / p;
    return std::pair{cx + rad * std::cos(a), cy + rad * std::sin(a)};
  };
  const double row = std::max(3.0, std::min(8.0, 72.0 / p)), strip = row * p; // the buffers under the circle
  std::string o = fmt::format("<svg width=\"220\" height=\"{0:.0f}\" viewBox=\"0 0 220 {0:.0f}\" role=\"img\" aria-label=\"step {1}\">",
                              226 + strip, st);
  o += fmt::format("<defs><marker id=\"b{0}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
                   "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#0072B2\"/></marker><marker id=\"r{0}\" viewBox=\"0 0 10 10\" "
                   "refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" "
                   "fill=\"#D55E00\"/></marker></defs>", st);
  std::vector<bool> busy(static_cast<std::size_t>(p));
  for (const auto& m : pic.steps[st]) {
    busy[static_cast<std::size_t>(m.from)] = busy[static_cast<std::size_t>(m.to)] = true;
    if (m.from == m.to) continue;
    auto [x1, y1] = at(m.from);
    auto [x2, y2] = at(m.to);
    const double len = std::hypot(x2 - x1, y2 - y1), dx = (x2 - x1) / len, dy = (y2 - y1) / len;
    const double nx = -dy * 3, ny = dx * 3; // a pair exchanging data: two arrows side by side
    o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"1.6\" "
                     "marker-end=\"url(#{}{})\"><title>rank {} → rank {}: {}{} (elements {}..{})</title></line>",
                     x1 + dx * node + nx, y1 + dy * node + ny, x2 - dx * (node + 1) + nx, y2 - dy * (node + 1) + ny,
                     m.reduces ? "#D55E00" : "#0072B2", m.reduces ? 'r' : 'b', st, m.from, m.to, format_size(m.bytes),
                     m.reduces ? ", reduced" : "", m.off, m.off + m.len);
  }
  for (int r : pic.copies[st]) busy[static_cast<std::size_t>(r)] = true;
  // Each rank's buffer as a row, what it sends this step filled in: which part of the data moves.
  const double bx = 14, bw = 192, elems = static_cast<double>(std::max<std::uint64_t>(pic.buffer_elems, 1));
  o += fmt::format("<rect x=\"{}\" y=\"222\" width=\"{}\" height=\"{:.1f}\" fill=\"#f1f1f1\" stroke=\"#bbb\" stroke-width=\"0.5\">"
                   "<title>each row: one rank's buffer ({} elements), rank 0 on top; filled: the part it sends at this step</title></rect>",
                   bx, bw, strip, pic.buffer_elems);
  for (const auto& m : pic.steps[st])
    o += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" opacity=\"0.8\"/>",
                     bx + bw * static_cast<double>(m.off) / elems, 222 + row * m.from, std::max(1.0, bw * static_cast<double>(m.len) / elems),
                     std::max(1.0, row - 1), m.reduces ? "#D55E00" : "#0072B2");
  for (int r = 0; r < p; ++r) {
    auto [x, y] = at(r);
    const bool copies = std::find(pic.copies[st].begin(), pic.copies[st].end(), r) != pic.copies[st].end();
    o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\" stroke=\"#333\"{}/>", x, y, node,
                     busy[static_cast<std::size_t>(r)] ? "#fff" : "#e4e4e4", copies ? " stroke-dasharray=\"3,2\"" : "");
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{}\" text-anchor=\"middle\" dominant-baseline=\"central\">{}</text>",
                     x, y, p > 10 ? 10 : 12, r);
  }
  return o + "</svg>";
}

// "8 × 4 MiB reduced, 2 × 1 MiB": the step's messages grouped by size and kind.
std::string step_caption(const SchedulePicture& pic, std::size_t st) {
  std::map<std::pair<Bytes, bool>, int> groups;
  for (const auto& m : pic.steps[st]) ++groups[{m.bytes, m.reduces}];
  std::string c;
  for (auto it = groups.rbegin(); it != groups.rend(); ++it)
    c += fmt::format("{}{} × {}{}", c.empty() ? "" : ", ", it->second, format_size(it->first.first), it->first.second ? " reduced" : "");
  if (!pic.copies[st].empty()) c += fmt::format("{}{} local cop{}", c.empty() ? "" : "; ", pic.copies[st].size(),
                                                pic.copies[st].size() == 1 ? "y" : "ies");
  return c.empty() ? "nothing moves" : c;
}

std::string schedule_section(const Explanation& e, const SchedulePicture* pic, const std::string& why_not) {
  std::string o = "<h2>1. The schedule</h2>\n<p>" + html_escape(e.summary) + "</p>\n<ul class=\"words\">";
  for (const auto& w : e.schedule_words) o += "<li>" + html_escape(w) + "</li>";
  o += "</ul>\n";
  if (!pic) return o + (why_not.empty() ? "" : "<p class=\"note\">" + html_escape(why_not) + "</p>\n");
  o += "<p class=\"legend\"><span><i class=\"sw\" style=\"background:#0072B2\"></i>data copied into the receiver's buffer</span>"
       "<span><i class=\"sw\" style=\"background:#D55E00\"></i>data reduced into the receiver's buffer</span>"
       "<span>grey: idle at this step; dashed: copies locally</span></p>\n<p class=\"note\">Under each circle, one row per rank "
       "(rank 0 on top) shows its buffer; the filled part is what that rank sends at this step.</p>\n";
  o += fmt::format("<p class=\"note\">Step k is each rank's k-th step as the schedule defines it (every rank posts a step's "
                   "messages at once; ranks may reach step k at different times). Hover an arrow for the bytes and buffer range. "
                   "{}</p>\n<div class=\"steps\">\n", pic->total_steps > static_cast<int>(pic->steps.size())
                       ? fmt::format("The first {} of {} steps are drawn.", pic->steps.size(), pic->total_steps)
                       : fmt::format("All {} steps are drawn.", pic->total_steps));
  for (std::size_t st = 0; st < pic->steps.size(); ++st)
    o += fmt::format("<div class=\"step\"><b>step {}</b>{}<br>{}</div>\n", st, step_svg(*pic, st), html_escape(step_caption(*pic, st)));
  return o + "</div>\n";
}

double ratio(Time a, Time b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0; }

// Three horizontal bars on one scale: the formula (latency | bandwidth | reduction | o), the simulation, the bound.
std::string bars_svg(const Explanation& e) {
  struct Part {
    Time t;
    const char* colour;
    const char* what;
  };
  const std::vector<std::pair<std::string, std::vector<Part>>> rows = {
      {"formula", {{e.latency_term, "#0072B2", "latency"}, {e.bandwidth_term, "#E69F00", "bandwidth"},
                   {e.gamma_term, "#009E73", "reduction"}, {e.overhead_term, "#CC79A7", "o"}}},
      {"simulated", {{e.simulated, "#555", "simulated"}}},
      {"lower bound", {{e.bound_alpha, "#0072B2", "latency"}, {e.bound_beta, "#E69F00", "bandwidth"}, {e.bound_gamma, "#009E73", "reduction"}}}};
  Time most = 1;
  for (const auto& [name, parts] : rows) {
    Time sum = 0;
    for (const auto& q : parts) sum += q.t;
    most = std::max(most, sum);
  }
  const double x0 = 100, width = 560;
  std::string o = "<svg width=\"780\" height=\"120\" viewBox=\"0 0 780 120\" role=\"img\" aria-label=\"times\">";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double y = 10 + 35.0 * static_cast<double>(i);
    o += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"13\" text-anchor=\"end\">{}</text>", x0 - 8, y + 15, rows[i].first);
    double x = x0;
    Time sum = 0;
    for (const auto& q : rows[i].second) {
      const double w = width * static_cast<double>(q.t) / static_cast<double>(most);
      if (w > 0)
        o += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"22\" fill=\"{}\"><title>{}: {}</title></rect>", x, y, w,
                         q.colour, q.what, us(q.t));
      x += w, sum += q.t;
    }
    o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"13\">{}</text>", x + 6, y + 15, us(sum));
  }
  return o + "</svg>";
}

std::string numbers_section(const Explanation& e) {
  std::string o = "<h2>3. With the numbers</h2>\n<table><tr><th class=\"l\">term</th><th>time</th></tr>";
  auto row = [&](const char* what, Time t) { o += fmt::format("<tr><td class=\"l\">{}</td><td>{}</td></tr>", what, us(t)); };
  row("latency term", e.latency_term);
  row("bandwidth term", e.bandwidth_term);
  if (e.gamma_term) row("reduction term", e.gamma_term);
  if (e.overhead_term) row("overhead (o)", e.overhead_term);
  row("formula total", e.formula_time);
  row("simulated", e.simulated);
  row("lower bound", e.bound_time);
  o += "</table>\n<p class=\"legend\"><span><i class=\"sw\" style=\"background:#0072B2\"></i>latency (α)</span>"
       "<span><i class=\"sw\" style=\"background:#E69F00\"></i>bandwidth (nβ)</span><span><i class=\"sw\" "
       "style=\"background:#009E73\"></i>reduction (nγ)</span><span><i class=\"sw\" style=\"background:#555\"></i>simulated</span></p>\n";
  o += bars_svg(e) + "\n";
  o += "<h2>4. Simulation against the formula</h2>\n<p>" +
       (e.difference.empty() ? fmt::format("Simulated {} = formula {}: they agree to the picosecond.", us(e.simulated), us(e.formula_time))
                             : fmt::format("Simulated {}, formula {}: they differ by {:+.3f} % because {}.", us(e.simulated),
                                           us(e.formula_time), 100.0 * (ratio(e.simulated, e.formula_time) - 1), html_escape(e.difference))) +
       "</p>\n";
  if (!e.semantics_note.empty()) o += "<p class=\"note\">" + html_escape(e.semantics_note) + "</p>\n";
  o += "<h2>5. Lower bound</h2>\n<p><span class=\"formula\">T ≥ " + pretty(bound_form(e.bound)) + " = " + us(e.bound_time) +
       "</span></p>\n<p>Source: " + html_escape(e.bound.source) +
       fmt::format(". This algorithm against the bound: latency ×{:.2f}, bandwidth ×{:.2f}, total ×{:.2f}.</p>\n",
                   ratio(e.latency_term, e.bound_alpha), ratio(e.bandwidth_term, e.bound_beta), ratio(e.formula_time, e.bound_time));
  o += fmt::format("<h2>6. Bandwidths (nccl-tests definitions)</h2>\n<p>algbw = size / time = {:.3f} GB/s; busbw = algbw × {:.4f} = "
                   "{:.3f} GB/s</p>\n<p class=\"note\">Why this factor: {}</p>\n",
                   e.bw.algbw_GBps, e.busbw_factor, e.bw.busbw_GBps, html_escape(e.busbw_why));
  return o;
}


// Time against size, log-log: one line per algorithm (solid: simulated; dashed: its formula where it
// differs), crossovers as vertical lines, and the selection map as a band under the axis.
struct Plot {
  double left = 78, top = 24, w = 820, h = 360;
  double lx0, lx1, ly0, ly1; // log10 ranges
  double x(double bytes) const { return left + w * (std::log10(bytes) - lx0) / (lx1 - lx0); }
  double y(double ps) const { return top + h - h * (std::log10(ps) - ly0) / (ly1 - ly0); }
};

std::string axes_svg(const Plot& pl, Bytes lo, Bytes hi) {
  std::string o = fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>", pl.left, pl.top, pl.w, pl.h);
  const int e0 = static_cast<int>(std::ceil(std::log2(static_cast<double>(lo)))), e1 = static_cast<int>(std::floor(std::log2(static_cast<double>(hi))));
  const int every = e1 - e0 > 12 ? 3 : 1;
  for (int k = e0; k <= e1; ++k) {
    if (k % every) continue;
    const double x = pl.x(std::ldexp(1.0, k));
    o += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#e6e6e6\"/><text x=\"{0:.1f}\" y=\"{3}\" "
                     "font-size=\"11\" text-anchor=\"middle\">{4}</text>", x, pl.top, pl.top + pl.h, pl.top + pl.h + 14,
                     html_escape(format_size(Bytes{1} << k)));
  }
  for (int k = static_cast<int>(std::ceil(pl.ly0)); k <= static_cast<int>(std::floor(pl.ly1)); ++k) {
    const double y = pl.y(std::pow(10.0, k));
    o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#e6e6e6\"/><text x=\"{3}\" y=\"{2:.1f}\" "
                     "font-size=\"11\" text-anchor=\"end\" dominant-baseline=\"central\">{4}</text>", pl.left, pl.left + pl.w, y,
                     pl.left - 5, html_escape(format_duration(static_cast<Time>(std::llround(std::pow(10.0, k))))));
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">message size n (log scale)</text>", pl.left + pl.w / 2,
                   pl.top + pl.h + 30);
  o += fmt::format("<text x=\"14\" y=\"{0}\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0})\">time (log scale)</text>",
                   pl.top + pl.h / 2);
  return o;
}

std::string sweep_svg(const metrics::ExplainSweep& s) {
  Plot pl;
  double tmin = 1e300, tmax = 0;
  for (const auto& row : s.cells)
    for (const auto& c : row)
      for (Time t : {c.simulated, c.formula})
        if (t > 0) tmin = std::min(tmin, static_cast<double>(t)), tmax = std::max(tmax, static_cast<double>(t));
  const Bytes lo = s.plans.front().size, hi = std::max(s.plans.back().size, lo + 1);
  pl.lx0 = std::log10(static_cast<double>(lo)), pl.lx1 = std::log10(static_cast<double>(hi));
  pl.ly0 = std::log10(tmin) - 0.05, pl.ly1 = std::log10(std::max(tmax, tmin * 10)) + 0.05;
  const double band = pl.top + pl.h + 44;
  std::string o = fmt::format("<svg width=\"920\" height=\"{0}\" viewBox=\"0 0 920 {0}\" role=\"img\" aria-label=\"time against size\">",
                              band + 40);
  o += axes_svg(pl, lo, hi);
  for (std::size_t a = 0; a < s.algos.size(); ++a) {
    std::string sim, form;
    bool differs = false;
    for (std::size_t i = 0; i < s.plans.size(); ++i) {
      const double x = pl.x(static_cast<double>(std::max<Bytes>(s.plans[i].size, 1)));
      const auto& c = s.cells[i][a];
      if (c.simulated > 0) sim += fmt::format("{:.1f},{:.1f} ", x, pl.y(static_cast<double>(c.simulated)));
      if (c.formula > 0) form += fmt::format("{:.1f},{:.1f} ", x, pl.y(static_cast<double>(c.formula)));
      differs = differs || c.formula != c.simulated;
    }
    o += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"><title>{} (simulated)</title></polyline>", sim,
                     colour(a), html_escape(s.algos[a]));
    if (differs)
      o += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1\" stroke-dasharray=\"5,3\"><title>{} "
                       "(formula)</title></polyline>", form, colour(a), html_escape(s.algos[a]));
  }
  for (std::size_t i = 0; i < s.crossovers.size(); ++i) {
    const auto& c = s.crossovers[i];
    const double x = pl.x(static_cast<double>(std::max<Bytes>(c.at, 1))), row = 28.0 * static_cast<double>(i % 4);
    o += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#444\" stroke-dasharray=\"2,3\"/>"
                     "<text x=\"{3:.1f}\" y=\"{4}\" font-size=\"11\">{5} → {6}</text><text x=\"{3:.1f}\" y=\"{7}\" font-size=\"11\" "
                     "fill=\"#555\">{8}</text>", x, pl.top, pl.top + pl.h, x + 3, pl.top + 14 + row, html_escape(c.from),
                     html_escape(c.to), pl.top + 27 + row, html_escape(format_size(c.at)));
  }
  // The selection map: a range ends where the next begins, at their bisected crossover when there is one
  // (else half-way, on the log scale, between the sizes sampled on either side).
  auto boundary = [&](std::size_t r) {
    const auto &a = s.selection[r], &b = s.selection[r + 1];
    for (const auto& c : s.crossovers)
      if (c.from == a.algo && c.to == b.algo && c.at >= a.to && c.at <= b.from) return pl.x(static_cast<double>(std::max<Bytes>(c.at, 1)));
    return (pl.x(static_cast<double>(std::max<Bytes>(a.to, 1))) + pl.x(static_cast<double>(std::max<Bytes>(b.from, 1)))) / 2;
  };
  for (std::size_t r = 0; r < s.selection.size(); ++r) {
    const auto& sel = s.selection[r];
    const std::size_t a = static_cast<std::size_t>(std::find(s.algos.begin(), s.algos.end(), sel.algo) - s.algos.begin());
    const double x0 = r == 0 ? pl.left : boundary(r - 1);
    const double x1 = r + 1 < s.selection.size() ? boundary(r) : pl.left + pl.w;
    o += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"20\" fill=\"{}\" opacity=\"0.85\"><title>{}: {} .. {}</title></rect>",
                     x0, band, std::max(x1 - x0, 2.0), colour(a), html_escape(sel.algo), html_escape(format_size(sel.from)),
                     html_escape(format_size(sel.to)));
    if (x1 - x0 > 7.0 * static_cast<double>(sel.algo.size()))
      o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" fill=\"#fff\" text-anchor=\"middle\">{}</text>", (x0 + x1) / 2,
                       band + 14, html_escape(sel.algo));
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">selection</text>", pl.left - 5, band + 14);
  return o + "</svg>";
}

} // namespace

std::string render_html(const Explanation& e, const SchedulePicture* pic, schedule::Op op, int p, const std::string& why_not) {
  const std::string title = fmt::format("{} {}: p = {}, n = {}", schedule::to_string(op), e.algo, p, format_size(e.plan.size));
  std::string o = "<h1>" + html_escape(title) + "</h1>\n";
  o += fmt::format("<p class=\"sub\">α = {}, β = 1/({}), γ = {}{}; n = {} B (nccl-tests' size)</p>\n",
                   format_duration(e.params.alpha), format_bandwidth(e.params.bw),
                   e.params.reduce_bw ? "1/(" + format_bandwidth(e.params.reduce_bw) + ")" : "0 (reductions free)",
                   e.params.overhead ? ", o = " + format_duration(e.params.overhead) : "", e.plan.size);
  for (const auto& l : e.links_used) o += "<p class=\"note\">" + html_escape(l) + "</p>\n";
  o += schedule_section(e, pic, why_not);
  o += "<h2>2. Cost formula</h2>\n<p><span class=\"formula\">" + pretty(closed_form(e.alpha_expr, e.beta_expr, e.gamma_expr)) +
       "</span></p>\n";
  if (!e.note.empty()) o += "<p class=\"note\">Note: " + html_escape(e.note) + "</p>\n";
  if (e.segment_bytes > 0)
    o += fmt::format("<p>Pipeline segment: {} ({} B){}</p>\n", format_size(e.segment_bytes), e.segment_bytes,
                     e.segment_why.empty() ? "" : ", " + html_escape(e.segment_why));
  o += "<table><tr><th>messages</th><th class=\"l\">what</th><th>bytes each</th><th>reduced</th></tr>";
  for (const auto& t : e.terms)
    o += fmt::format("<tr><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td></tr>", t.messages, html_escape(t.what),
                     t.transfers == 0 ? "-" : format_size(t.bytes), t.reduce_bytes ? format_size(t.reduce_bytes) : "-");
  o += "</table>\n" + numbers_section(e);
  return page(title, o);
}

std::string render_html(const metrics::ExplainSweep& s, schedule::Op op, int p) {
  const std::string title = fmt::format("{} on p = {}: which algorithm when", schedule::to_string(op), p);
  std::string o = "<h1>" + html_escape(title) + "</h1>\n";
  o += fmt::format("<p class=\"sub\">α = {}, β = 1/({}){}; every algorithm simulated at every size</p>\n",
                   format_duration(s.params.alpha), format_bandwidth(s.params.bw),
                   s.params.overhead ? ", o = " + format_duration(s.params.overhead) : "");
  if (s.plans.empty()) return page(title, o + "<p>No sizes.</p>\n");
  o += "<h2>Time against size</h2>\n<p class=\"legend\">";
  for (std::size_t a = 0; a < s.algos.size(); ++a)
    o += fmt::format("<span><i class=\"sw\" style=\"background:{}\"></i>{}</span>", colour(a), html_escape(s.algos[a]));
  o += "</p>\n<p class=\"note\">Solid: simulated; dashed: the closed form, where it differs. Dotted verticals: crossovers "
       "(bisected by simulation). The band under the axis is the selection map: the fastest algorithm per size.</p>\n";
  o += sweep_svg(s) + "\n<h2>Formulas</h2>\n<table><tr><th class=\"l\">algorithm</th><th class=\"l\">closed form</th></tr>";
  for (std::size_t a = 0; a < s.algos.size(); ++a)
    o += fmt::format("<tr><td class=\"l\" style=\"color:{}\">{}</td><td class=\"l\">{}</td></tr>", colour(a), html_escape(s.algos[a]),
                     pretty(closed_form(s.forms[a].alpha, s.forms[a].beta, s.forms[a].gamma)));
  o += "</table>\n<h2>Crossovers and selection map</h2>\n<ul>";
  if (s.crossovers.empty()) o += "<li>none: one algorithm wins at every size</li>";
  for (const auto& c : s.crossovers)
    o += fmt::format("<li>{} → {} at {} B ({})</li>", html_escape(c.from), html_escape(c.to), c.at, html_escape(format_size(c.at)));
  o += "</ul>\n<table><tr><th>from</th><th>to</th><th class=\"l\">fastest</th></tr>";
  for (const auto& r : s.selection)
    o += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>", html_escape(format_size(r.from)), html_escape(format_size(r.to)),
                     html_escape(r.algo));
  o += "</table>\n<h2>Simulated times (µs)</h2>\n<table><tr><th>size</th>";
  for (const auto& a : s.algos) o += "<th>" + html_escape(a) + "</th>";
  o += "<th class=\"l\">best</th></tr>";
  for (std::size_t i = 0; i < s.plans.size(); ++i) {
    o += "<tr><td>" + html_escape(format_size(s.plans[i].size)) + "</td>";
    for (std::size_t a = 0; a < s.algos.size(); ++a)
      o += fmt::format("<td{}>{:.2f}</td>", static_cast<int>(a) == s.best[i] ? " style=\"font-weight:bold\"" : "", to_us(s.cells[i][a].simulated));
    o += "<td class=\"l\">" + html_escape(s.algos[static_cast<std::size_t>(s.best[i])]) + "</td></tr>";
  }
  return page(title, o + "</table>\n");
}

} // namespace ccsim::report
