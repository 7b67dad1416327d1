#include "sim/observe/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "sim/core/ceil_div.hpp"
#include "sim/core/error.hpp"

namespace ccsim::observe {
namespace {

Time to_ns(Time ps) { return (ps + 500) / 1000; }
std::string ns_literal(Time ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); }
double parse_literal(const std::string& s) { return std::strtod(s.c_str(), nullptr); } // as JSON.parse does: correctly rounded

// The duration of a slice from ns `b` to ns `e`, in us rounded to the nanosecond like ts ("1.474"), unless
// a viewer that adds ts + dur in doubles (Chrome DevTools) would then see the slice end after `limit` (the
// next slice's start on the track, or `e` for the last one): DevTools drops a slice that partially
// overlaps the next one, and rounded literals can sum high (0.1 + 0.2 > 0.3). Only then, for back-to-back
// slices, the duration is 0.1 ps short ("1.4739999"), or if even that sums high, the largest double
// that does not. Viewers that round to the nanosecond (Perfetto: llround(us * 1000)) read `e - b` ns
// either way.
std::string dur_literal(Time b, Time e, Time limit) {
  const std::string rounded = ns_literal(e - b);
  const double T = parse_literal(ns_literal(b)), L = parse_literal(ns_literal(limit));
  if (T + parse_literal(rounded) <= L) return rounded;
  const Time short_by_a_tenth_ps = (e - b) * 10'000 - 1;
  const std::string shorter = fmt::format("{}.{:07}", short_by_a_tenth_ps / 10'000'000, short_by_a_tenth_ps % 10'000'000);
  if (T + parse_literal(shorter) <= L) return shorter;
  double d = L - T; // exact when T >= L / 2 (Sterbenz), else within an ulp or two of the answer
  while (d > 0 && T + d > L) d = std::nextafter(d, 0.0);
  return fmt::format("{}", d);
}

std::string escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') o += '\\', o += ch;
    else if (c < 0x20) o += fmt::format("\\u{:04x}", c);
    else o += ch;
  }
  return o;
}

struct Slice {
  Time b, e;          // nanoseconds
  std::string name;
  std::string args;   // JSON object body (without braces)
};

// Greedy interval partitioning: each slice goes to the first lane whose last slice ended by its start,
// so slices on one lane never overlap at all.
std::vector<std::vector<Slice>> pack(std::vector<Slice> v) {
  std::stable_sort(v.begin(), v.end(), [](const Slice& x, const Slice& y) { return x.b < y.b || (x.b == y.b && x.e > y.e); });
  std::vector<std::vector<Slice>> lanes;
  std::vector<Time> last;
  for (auto& s : v) {
    std::size_t i = 0;
    while (i < lanes.size() && last[i] > s.b) ++i;
    if (i == lanes.size()) lanes.emplace_back(), last.push_back(0);
    last[i] = s.e;
    lanes[i].push_back(std::move(s));
  }
  return lanes;
}

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  void event(const std::string& body) {
    out_ += first_ ? "\n" : ",\n";
    out_ += "{" + body + "}";
    first_ = false;
  }
  void process(int pid, const std::string& name, int sort) {
    event(fmt::format(R"("ph":"M","pid":{},"tid":0,"name":"process_name","args":{{"name":"{}"}})", pid, escape(name)));
    event(fmt::format(R"("ph":"M","pid":{},"tid":0,"name":"process_sort_index","args":{{"sort_index":{}}})", pid, sort));
  }
  void thread(int pid, int tid, const std::string& name) {
    event(fmt::format(R"("ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":"{}"}})", pid, tid, escape(name)));
    event(fmt::format(R"("ph":"M","pid":{},"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}})", pid, tid, tid));
  }
  // `v`: one lane, slices in start order that never overlap (see pack).
  void slices(int pid, int tid, const char* cat, const std::vector<Slice>& v) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      const auto& s = v[i];
      const Time limit = i + 1 < v.size() ? std::max(s.e, v[i + 1].b) : s.e;
      event(fmt::format(R"("ph":"X","cat":"{}","pid":{},"tid":{},"ts":{},"dur":{},"name":"{}","args":{{{}}})", cat, pid,
                        tid, ns_literal(s.b), dur_literal(s.b, s.e, limit), escape(s.name), s.args));
    }
  }
  void counter(int pid, const std::string& name, Time ns, double value) {
    event(fmt::format(R"("ph":"C","pid":{},"tid":0,"ts":{},"name":"{}","args":{{"value":{:.3f}}})", pid, ns_literal(ns),
                      escape(name), value));
  }

 private:
  std::string& out_;
  bool first_ = true;
};

} // namespace

std::string us_literal(Time ps) { return ns_literal(to_ns(ps)); }

std::string chrome_trace(const Recording& rec, const topology::Topology& topo, const TimelineMeta& meta) {
  if (rec.truncated)
    fail("--timeline: the run has too many transfers to draw; choose a smaller --timeline-size or fewer ranks");
  const bool many = meta.placements.size() > 1;
  auto gpu = [&](int job, int rank) {
    return meta.placements.at(static_cast<std::size_t>(job)).at(static_cast<std::size_t>(rank));
  };
  auto job_name = [&](int job) {
    return static_cast<std::size_t>(job) < meta.job_names.size() ? meta.job_names[static_cast<std::size_t>(job)]
                                                                  : fmt::format("ring {}", job);
  };
  auto who = [&](int job, int rank) {
    return many ? fmt::format("{} rank {}", job_name(job), rank) : fmt::format("rank {}", rank);
  };
  auto chunk = [&](const Transfer& t) {
    const Bytes n = meta.elt_size ? t.bytes / meta.elt_size : 0;
    return fmt::format("elements [{}, {})", t.off, t.off + n);
  };
  auto route = [&](const Transfer& t) {
    std::string r;
    for (std::uint32_t k = 0; k < t.hop_count; ++k) {
      if (k) r += ' ';
      r += topo.channel_name(rec.hops[t.hop_first + k].channel);
    }
    return r;
  };

  // Per (job, rank): steps, sends, receives, reductions.
  enum Cat { kStep, kSend, kRecv, kReduce, kCats };
  static const char* kCatName[] = {"step", "send", "recv", "reduce"};
  std::map<std::pair<int, int>, std::vector<Slice>[kCats]> per_rank;
  for (std::size_t j = 0; j < meta.placements.size(); ++j)
    for (std::size_t r = 0; r < meta.placements[j].size(); ++r) per_rank[{static_cast<int>(j), static_cast<int>(r)}];
  auto add = [&](int job, int rank, Cat c, Time b_ps, Time e_ps, std::string name, std::string args) {
    const Time b = to_ns(b_ps), e = to_ns(e_ps);
    if (e <= b) return; // nothing a viewer could show
    per_rank[{job, rank}][c].push_back({b, e, std::move(name), std::move(args)});
  };
  for (const auto& s : rec.steps)
    add(s.job, s.rank, kStep, s.begin, s.end, fmt::format("step {}", s.step),
        fmt::format(R"("job":{},"rank":{},"gpu":{},"step":{})", s.job, s.rank, gpu(s.job, s.rank), s.step));
  for (const auto& t : rec.transfers) {
    const std::string common = fmt::format(R"("bytes":{},"chunk":"{}","step":{},"route":"{}","queued_us":{})", t.bytes,
                                           chunk(t), t.step, escape(route(t)), us_literal(t.start - t.post));
    add(t.job, t.src, kSend, t.post, t.arrive, fmt::format("send to {}", t.dst),
        fmt::format(R"("peer":{},"peer_gpu":{},{})", t.dst, gpu(t.job, t.dst), common));
    add(t.job, t.dst, kRecv, t.start, t.arrive, fmt::format("recv from {}", t.src),
        fmt::format(R"("peer":{},"peer_gpu":{},{})", t.src, gpu(t.job, t.src), common));
  }
  for (const auto& r : rec.reduces)
    add(r.job, r.rank, kReduce, r.begin, r.end, "reduce", fmt::format(R"("bytes":{},"step":{})", r.bytes, r.step));

  // Per directed link: who held it when.
  std::map<ChannelId, std::vector<Slice>> per_link;
  std::vector<std::pair<Time, int>> edges; // (ns, +1/-1) for the busy-links counter
  for (const auto& t : rec.transfers)
    for (std::uint32_t k = 0; k < t.hop_count; ++k) {
      const Hop& h = rec.hops[t.hop_first + k];
      const Time b = to_ns(h.held.begin), e = to_ns(h.held.end);
      if (e <= b) continue;
      per_link[h.channel].push_back(
          {b, e, many ? fmt::format("{}: {} to {}", job_name(t.job), t.src, t.dst) : fmt::format("{} to {}", t.src, t.dst),
           fmt::format(R"("job":{},"src":{},"dst":{},"src_gpu":{},"dst_gpu":{},"bytes":{},"chunk":"{}","step":{})", t.job,
                       t.src, t.dst, gpu(t.job, t.src), gpu(t.job, t.dst), t.bytes, chunk(t), t.step)});
      edges.push_back({b, +1});
      edges.push_back({e, -1});
    }

  std::string out;
  out += fmt::format(
      R"({{"otherData":{{"tool":"ccsim","op":"{}","algo":"{}","model":"{}","topology":"{}","size_bytes":{},"makespan_us":{},"time_unit":"us"}},"traceEvents":[)",
      escape(meta.op), escape(meta.algo), escape(meta.model), escape(topo.name), meta.size, us_literal(meta.makespan));
  Writer w(out);

  // GPU processes: pid = GPU index + 1 (pid 0 is avoided: some viewers treat it as "no process").
  std::map<int, std::string> gpu_label;
  for (auto& [jr, cats] : per_rank) {
    const int g = gpu(jr.first, jr.second);
    if (!gpu_label.count(g)) gpu_label[g] = many ? fmt::format("GPU {}", g) : fmt::format("GPU {} (rank {})", g, jr.second);
  }
  for (auto& [g, label] : gpu_label) w.process(g + 1, label, g);
  std::map<int, int> next_tid;
  for (auto& [jr, cats] : per_rank) {
    const int pid = gpu(jr.first, jr.second) + 1;
    for (int c = 0; c < kCats; ++c) {
      auto lanes = pack(std::move(cats[c]));
      for (std::size_t l = 0; l < lanes.size(); ++l) {
        const int tid = ++next_tid[pid];
        w.thread(pid, tid, fmt::format("{} {}{}", who(jr.first, jr.second), kCatName[c], l ? fmt::format(" #{}", l + 1) : ""));
        w.slices(pid, tid, kCatName[c], lanes[l]);
      }
    }
  }

  // The links process, after the GPUs.
  const int lpid = topo.num_gpus() + 1;
  w.process(lpid, "links", topo.num_gpus());
  int tid = 0;
  for (auto& [c, v] : per_link) {
    const auto& link = topo.link_of(c);
    auto lanes = pack(std::move(v)); // one lane: a link serves one message at a time
    for (std::size_t l = 0; l < lanes.size(); ++l) {
      w.thread(lpid, ++tid, fmt::format("{} {} x{}{}", topo.channel_name(c), topology::to_string(link.type), link.lanes,
                                        l ? fmt::format(" #{}", l + 1) : ""));
      w.slices(lpid, tid, "link", lanes[l]);
    }
  }

  // Counters: how many links are busy at each instant (exact), and each link's busy share per time bin.
  std::sort(edges.begin(), edges.end());
  int busy = 0, shown = -1;
  for (std::size_t i = 0; i < edges.size();) {
    const Time at = edges[i].first;
    for (; i < edges.size() && edges[i].first == at; ++i) busy += edges[i].second;
    if (busy != shown) w.counter(lpid, "busy links", at, busy); // one link handing over to the next is no change
    shown = busy;
  }
  const Time span = to_ns(meta.makespan);
  if (span > 0 && !per_link.empty()) {
    // Bounded output: about 200,000 counter samples in all, at most 200 bins per link.
    const auto bins = static_cast<Time>(std::clamp<std::size_t>(200'000 / per_link.size(), 10, 200));
    const Time width = std::max<Time>(1, ceil_div(span, bins));
    std::map<ChannelId, std::vector<Time>> load;
    for (auto& [c, v] : per_link) load[c].assign(static_cast<std::size_t>(bins), 0);
    for (const auto& h : rec.hops) {
      const Time b = to_ns(h.held.begin), e = to_ns(h.held.end);
      if (e <= b) continue;
      auto& l = load[h.channel];
      for (Time x = b / width; x < bins && x * width < e; ++x)
        l[static_cast<std::size_t>(x)] += std::min(e, (x + 1) * width) - std::max(b, x * width);
    }
    for (auto& [c, l] : load) {
      const std::string name = "util % " + topo.channel_name(c);
      for (Time x = 0; x < bins && x * width < span; ++x)
        w.counter(lpid, name, x * width,
                  100.0 * static_cast<double>(l[static_cast<std::size_t>(x)]) / static_cast<double>(std::min(width, span - x * width)));
      w.counter(lpid, name, span, 0);
    }
  }
  out += "\n]}\n";
  return out;
}

} // namespace ccsim::observe
