#include "sim/topology/generators.hpp"

#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace ccsim::topology {

std::vector<int> parse_dims(const std::string& text, const std::string& what) {
  std::vector<int> dims;
  std::stringstream ss(text);
  std::string part;
  long total = 1;
  while (std::getline(ss, part, 'x')) {
    int d = 0;
    try {
      std::size_t used = 0;
      d = std::stoi(part, &used);
      if (used != part.size()) throw 0;
    } catch (...) {
      fail("{}: '{}' is not a list of extents like 4x4x4", what, text);
    }
    if (d < 1) fail("{}: extent {} must be >= 1", what, d);
    total *= d;
    if (total > (1L << 24)) fail("{}: '{}' has more than 16M nodes", what, text);
    dims.push_back(d);
  }
  if (dims.empty()) fail("{}: empty dimension list", what);
  return dims;
}

Topology make_crossbar(int ranks, Bandwidth bw, Time alpha) {
  if (ranks < 1 || ranks > (1 << 24)) fail("crossbar: ranks must be between 1 and 16M, got {}", ranks);
  if (alpha % 2 != 0) fail("crossbar: alpha must be an even number of picoseconds, got {}", alpha);
  Topology t;
  t.name = fmt::format("crossbar-{}", ranks);
  t.description = fmt::format("Ideal crossbar: {} GPUs, each with a private {} full-duplex link to one non-blocking "
                              "switch; end-to-end alpha {}",
                              ranks, format_bandwidth(bw), format_duration(alpha));
  t.origin = "generated";
  t.structure.kind = Structure::Kind::Crossbar;
  t.nodes.reserve(static_cast<std::size_t>(ranks) + 1);
  t.links.reserve(static_cast<std::size_t>(ranks));
  for (int i = 0; i < ranks; ++i) t.add_node(fmt::format("gpu{}", i), NodeKind::Gpu);
  const int sw = t.add_node("switch", NodeKind::NetSwitch);
  // Each message crosses two links (up to the switch, down to the peer): half of alpha on each.
  const Time up = alpha / 2;
  for (int i = 0; i < ranks; ++i) t.add_link(i, sw, LinkType::Ideal, bw, up, 1, "generated");
  t.validate();
  return t;
}

Topology make_torus(const std::vector<int>& dims, Bandwidth bw, Time alpha) {
  long total = 1;
  for (int d : dims) total *= d;
  if (dims.empty() || total < 1) fail("torus: needs at least one dimension");
  Topology t;
  std::string shape;
  for (int d : dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  t.name = "torus-" + shape;
  t.description = fmt::format("{} torus with wraparound, {} per direction per link, {} per hop", shape,
                              format_bandwidth(bw), format_duration(alpha));
  t.origin = "generated";
  t.structure.kind = Structure::Kind::Torus;
  t.structure.dims = dims;
  for (long i = 0; i < total; ++i) t.add_node(fmt::format("gpu{}", i), NodeKind::Gpu);
  const int D = static_cast<int>(dims.size());
  long stride = 1;
  std::vector<long> strides(static_cast<std::size_t>(D));
  for (int d = D - 1; d >= 0; --d) {
    strides[static_cast<std::size_t>(d)] = stride;
    stride *= dims[static_cast<std::size_t>(d)];
  }
  for (long i = 0; i < total; ++i)
    for (int d = 0; d < D; ++d) {
      const long n = dims[static_cast<std::size_t>(d)], s = strides[static_cast<std::size_t>(d)];
      const long c = (i / s) % n;
      if (n == 1 || (n == 2 && c == 1)) continue; // extent 2: one link, not two parallel ones
      const long j = i + (((c + 1) % n) - c) * s;
      t.add_link(static_cast<int>(i), static_cast<int>(j), LinkType::Ideal, bw, alpha, 1, "generated");
    }
  t.validate();
  return t;
}

namespace {

std::map<std::string, std::string> parse_kv(const std::string& body, const std::string& spec) {
  std::map<std::string, std::string> kv;
  std::stringstream ss(body);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos) fail("--topo {}: '{}' is not key=value", spec, item);
    kv[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return kv;
}

std::string take(std::map<std::string, std::string>& kv, const std::string& k, const std::string& spec,
                 const std::string& dflt = {}) {
  auto it = kv.find(k);
  if (it == kv.end()) {
    if (dflt.empty()) fail("--topo {}: missing '{}='", spec, k);
    return dflt;
  }
  std::string v = it->second;
  kv.erase(it);
  return v;
}

void no_leftovers(const std::map<std::string, std::string>& kv, const std::string& spec) {
  if (!kv.empty()) fail("--topo {}: unknown parameter '{}'", spec, kv.begin()->first);
}

} // namespace

Topology generate_from_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  auto kv = parse_kv(spec.substr(colon + 1), spec);
  if (kind == "crossbar") {
    const auto ranks_s = take(kv, "ranks", spec);
    int ranks = 0;
    try {
      ranks = std::stoi(ranks_s);
    } catch (...) {
      fail("--topo {}: ranks '{}' is not a number", spec, ranks_s);
    }
    const Bandwidth bw = parse_bandwidth(take(kv, "bw", spec, "25GB/s"), "--topo bw");
    const Time alpha = parse_duration(take(kv, "alpha", spec, "1us"), "--topo alpha");
    no_leftovers(kv, spec);
    return make_crossbar(ranks, bw, alpha);
  }
  if (kind == "torus") {
    const auto dims = parse_dims(take(kv, "dims", spec), "--topo dims");
    const Bandwidth bw = parse_bandwidth(take(kv, "bw", spec, "100GB/s"), "--topo bw");
    const Time alpha = parse_duration(take(kv, "alpha", spec, "1us"), "--topo alpha");
    no_leftovers(kv, spec);
    return make_torus(dims, bw, alpha);
  }
  fail("--topo {}: unknown generator '{}' (crossbar, torus)", spec, kind);
}

} // namespace ccsim::topology
