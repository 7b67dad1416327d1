#include "sim/report/link_report_text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::report {
using namespace observe;
using topology::ChannelId;

namespace {

constexpr std::size_t kMaxLinkRows = 64;  // text only; JSON has every link
constexpr std::size_t kMaxPathRows = 60;  // text: first and last halves
constexpr std::size_t kMaxPathJson = 20'000;

std::string link_kind(const topology::Topology& topo, ChannelId c) {
  const auto& l = topo.link_of(c);
  return fmt::format("{} x{}{}", topology::to_string(l.type), l.lanes, l.host_staged ? " staged" : ""); // staged: host memory (SHM)
}

class Namer {
 public:
  Namer(const TimelineMeta& m, const topology::Topology& topo, const Recording* rec) : m_(m), topo_(topo), rec_(rec) {}
  int gpu(int job, int rank) const {
    return m_.placements.at(static_cast<std::size_t>(job)).at(static_cast<std::size_t>(rank));
  }
  std::string ring(int job) const {
    if (m_.placements.size() <= 1) return "";
    if (static_cast<std::size_t>(job) < m_.job_names.size()) return m_.job_names[static_cast<std::size_t>(job)] + " ";
    return fmt::format("ring {} ", job);
  }
  std::string route(const Transfer& t) const {
    std::string r;
    for (std::uint32_t k = 0; k < t.hop_count; ++k) {
      if (k) r += ' ';
      r += topo_.channel_name(rec_->hops[t.hop_first + k].channel);
    }
    return r.empty() ? "(no links)" : r;
  }
  std::string transfer(std::int64_t id) const {
    const auto& t = rec_->transfers[static_cast<std::size_t>(id)];
    const Bytes n = m_.elt_size ? t.bytes / m_.elt_size : 0;
    return fmt::format("{}step {}: rank {} (GPU {}) -> rank {} (GPU {}), {}, elements [{}, {}), via {}", ring(t.job), t.step,
                       t.src, gpu(t.job, t.src), t.dst, gpu(t.job, t.dst), format_size(t.bytes), t.off, t.off + n, route(t));
  }
  std::string short_transfer(std::int64_t id) const {
    const auto& t = rec_->transfers[static_cast<std::size_t>(id)];
    return fmt::format("{}step {} rank {} -> {}", ring(t.job), t.step, t.src, t.dst);
  }
  std::string segment(const PathSegment& s) const {
    switch (s.kind) {
      case PathSegment::Kind::Transfer:
        return fmt::format("send    {} [on the wire {} us]", transfer(s.transfer), us_literal(s.wire));
      case PathSegment::Kind::Queued:
        return fmt::format("queued  {} waits for {}, held by {}", short_transfer(s.waiting), topo_.channel_name(s.channel),
                           transfer(s.transfer));
      case PathSegment::Kind::Reduce:
        return fmt::format("reduce  {}rank {} (GPU {}) step {}", ring(s.job), s.rank, gpu(s.job, s.rank), s.step);
      case PathSegment::Kind::Wait:
        return s.waiting >= 0 ? fmt::format("wait    {} queued (the model does not say behind what)", short_transfer(s.waiting))
                              : "wait    (not attributed)";
    }
    return "";
  }

 private:
  const TimelineMeta& m_;
  const topology::Topology& topo_;
  const Recording* rec_;
};

const char* kind_name(PathSegment::Kind k) {
  switch (k) {
    case PathSegment::Kind::Transfer: return "transfer";
    case PathSegment::Kind::Queued: return "queued";
    case PathSegment::Kind::Reduce: return "reduce";
    case PathSegment::Kind::Wait: return "wait";
  }
  return "";
}

double pct(Time part, Time whole) { return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

} // namespace

std::string link_report_text(const LinkReport& r, const topology::Topology& topo, const Recording* rec) {
  const Namer name(r.meta, topo, rec);
  std::string o;
  o += "#\n";
  o += fmt::format("# Links at size {} B ({}), model {}: the collective took {} us\n", r.meta.size, format_size(r.meta.size),
                   r.meta.model, us_literal(r.meta.makespan));
  o += fmt::format("#   {:<24} {:<14} {:>12} {:>14} {:>14} {:>7}\n", "directed link", "type", "capacity", "bytes", "busy (us)",
                   "busy %");
  for (std::size_t i = 0; i < r.links.size() && i < kMaxLinkRows; ++i) {
    const auto& l = r.links[i];
    o += fmt::format("#   {:<24} {:<14} {:>12} {:>14} {:>14} {:>7.2f}\n", topo.channel_name(l.channel),
                     link_kind(topo, l.channel), format_bandwidth(topo.link_of(l.channel).capacity()), l.bytes,
                     us_literal(l.busy), l.busy_pct);
  }
  if (r.links.size() > kMaxLinkRows)
    o += fmt::format("#   ... and {} less busy links (--format json lists them all)\n", r.links.size() - kMaxLinkRows);
  if (r.links.empty()) o += "#   (no link carried anything: every transfer was local)\n";
  if (!r.bottlenecks.empty()) {
    const auto& top = r.links.front();
    o += fmt::format("# Bottleneck link: {} ({}, {}), busy {} us = {:.2f}% of the run\n", topo.channel_name(top.channel),
                     link_kind(topo, top.channel), format_bandwidth(topo.link_of(top.channel).capacity()),
                     us_literal(top.busy), top.busy_pct);
    if (r.bottlenecks.size() > 1) {
      std::string names;
      for (std::size_t i = 1; i < r.bottlenecks.size() && i < 9; ++i) {
        if (i > 1) names += ", ";
        names += topo.channel_name(r.bottlenecks[i]);
      }
      if (r.bottlenecks.size() > 9) names += fmt::format(" and {} more", r.bottlenecks.size() - 9);
      o += fmt::format("#   as busy (within 0.1%): {}\n", names);
    }
  }
  if (!r.path) {
    o += fmt::format("# Critical path: {}\n", r.path_note);
    return o;
  }
  const auto& p = *r.path;
  o += "#\n";
  o += fmt::format("# Critical path: {}rank {} (GPU {}) finished last, at {} us; {} message(s) on the path\n", name.ring(p.job),
                   p.rank, name.gpu(p.job, p.rank), us_literal(p.finish), p.transfers);
  o += fmt::format("#   moving data {} us ({:.1f}%: on the wire {} us, latency {} us), queued behind other messages {} us "
                   "({:.1f}%), reducing {} us ({:.1f}%){}\n",
                   us_literal(p.transfer), pct(p.transfer, p.finish), us_literal(p.wire), us_literal(p.transfer - p.wire),
                   us_literal(p.queued), pct(p.queued, p.finish), us_literal(p.reduce), pct(p.reduce, p.finish),
                   p.wait > 0 ? fmt::format(", unattributed {} us", us_literal(p.wait)) : "");
  o += fmt::format("#   {:>12} {:>12}  {}\n", "begin (us)", "end (us)", "what");
  const std::size_t n = p.segments.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (n > kMaxPathRows && i == kMaxPathRows / 2) {
      o += fmt::format("#   {:>12} {:>12}  ... {} more segments (--format json lists them all)\n", "", "", n - kMaxPathRows);
      i = n - kMaxPathRows / 2;
    }
    const auto& s = p.segments[i];
    o += fmt::format("#   {:>12} {:>12}  {}\n", us_literal(s.begin), us_literal(s.end), name.segment(s));
  }
  return o;
}

nlohmann::ordered_json link_report_json(const LinkReport& r, const topology::Topology& topo, const Recording* rec) {
  using nlohmann::ordered_json;
  const Namer name(r.meta, topo, rec);
  ordered_json j;
  j["size"] = r.meta.size;
  j["model"] = r.meta.model;
  j["time_us"] = static_cast<double>(r.meta.makespan) / kPsPerUs;
  j["links"] = ordered_json::array();
  for (const auto& l : r.links) {
    const auto& link = topo.link_of(l.channel);
    j["links"].push_back({{"link", topo.channel_name(l.channel)},
                          {"from", topo.nodes[static_cast<std::size_t>(topo.channel_from(l.channel))].name},
                          {"to", topo.nodes[static_cast<std::size_t>(topo.channel_to(l.channel))].name},
                          {"type", std::string(topology::to_string(link.type))},
                          {"lanes", link.lanes},
                          {"capacity_GBps", static_cast<double>(link.capacity()) / 1e9},
                          {"bytes", l.bytes},
                          {"busy_us", static_cast<double>(l.busy) / kPsPerUs},
                          {"busy_pct", l.busy_pct}});
    if (link.host_staged) j["links"].back()["host_staged"] = true;
  }
  j["bottlenecks"] = ordered_json::array();
  for (auto c : r.bottlenecks) j["bottlenecks"].push_back(topo.channel_name(c));
  if (!r.path) {
    j["critical_path"] = nullptr;
    j["critical_path_note"] = r.path_note;
    return j;
  }
  const auto& p = *r.path;
  auto us = [](Time t) { return static_cast<double>(t) / kPsPerUs; };
  auto transfer = [&](std::int64_t id) {
    const auto& t = rec->transfers[static_cast<std::size_t>(id)];
    ordered_json route = ordered_json::array();
    for (std::uint32_t k = 0; k < t.hop_count; ++k) route.push_back(topo.channel_name(rec->hops[t.hop_first + k].channel));
    return ordered_json{{"job", t.job},         {"step", t.step},   {"src", t.src},
                        {"dst", t.dst},         {"src_gpu", name.gpu(t.job, t.src)},
                        {"dst_gpu", name.gpu(t.job, t.dst)}, {"bytes", t.bytes}, {"offset", t.off},
                        {"post_us", us(t.post)}, {"start_us", us(t.start)}, {"arrive_us", us(t.arrive)},
                        {"route", route}};
  };
  ordered_json cp;
  cp["job"] = p.job;
  cp["rank"] = p.rank;
  cp["gpu"] = name.gpu(p.job, p.rank);
  cp["finish_us"] = us(p.finish);
  cp["messages"] = p.transfers;
  cp["transfer_us"] = us(p.transfer);
  cp["wire_us"] = us(p.wire);
  cp["latency_us"] = us(p.transfer - p.wire);
  cp["queued_us"] = us(p.queued);
  cp["reduce_us"] = us(p.reduce);
  cp["unattributed_us"] = us(p.wait);
  cp["segments"] = ordered_json::array();
  for (std::size_t i = 0; i < p.segments.size() && i < kMaxPathJson; ++i) {
    const auto& s = p.segments[i];
    ordered_json e{{"kind", kind_name(s.kind)}, {"begin_us", us(s.begin)}, {"end_us", us(s.end)}};
    switch (s.kind) {
      case PathSegment::Kind::Transfer:
        e["transfer"] = transfer(s.transfer);
        e["wire_us"] = us(s.wire);
        break;
      case PathSegment::Kind::Queued:
        e["link"] = topo.channel_name(s.channel);
        e["held_by"] = transfer(s.transfer);
        e["waiting"] = transfer(s.waiting);
        break;
      case PathSegment::Kind::Reduce:
        e["job"] = s.job, e["rank"] = s.rank, e["gpu"] = name.gpu(s.job, s.rank), e["step"] = s.step;
        break;
      case PathSegment::Kind::Wait:
        if (s.waiting >= 0) e["waiting"] = transfer(s.waiting);
        break;
    }
    cp["segments"].push_back(std::move(e));
  }
  if (p.segments.size() > kMaxPathJson) cp["segments_omitted"] = p.segments.size() - kMaxPathJson;
  j["critical_path"] = std::move(cp);
  return j;
}

} // namespace ccsim::report
