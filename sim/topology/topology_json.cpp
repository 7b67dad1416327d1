#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "sim/core/ascii.hpp"
#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/core/output_files.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/gpu_catalogue.hpp"
#include "sim/topology/import.hpp"
#include "sim/topology/sharp.hpp"
#include "sim/topology/topology_json_fast.hpp"
#include "sim/topology/topology_json_fields.hpp"

namespace ccsim::topology {
namespace fs = std::filesystem;
using nlohmann::json;

namespace json_fields {

Bandwidth bw_field(const JsonValue& v) {
  const std::string where = v.file() + ": " + v.path();
  if (v.is_string()) return parse_bandwidth(v.as_string(), where);
  if (v.is_number()) {
    const double d = v.as_double();
    if (!(d > 0)) v.fail("bandwidth must be positive, got {}", describe(v.raw()));
    return parse_bandwidth(fmt::format("{}", d), where);
  }
  v.fail("bandwidth must be a string like \"25GB/s\" or a number of bytes/s, got {}", describe(v.raw()));
}

Time latency_field(const JsonValue& v) {
  Time t = 0;
  if (v.is_string()) t = parse_duration(v.as_string(), v.file() + ": " + v.path());
  else if (v.is_number()) {
    const double us = v.as_double();
    if (us < 0) v.fail("latency must not be negative, got {}", describe(v.raw()));
    if (us > to_us(kMaxLinkLatency)) v.fail("latency {} us is more than 1 s", describe(v.raw()));
    t = from_us(us);
  } else {
    v.fail("latency must be a string like \"0.7us\" or a number of microseconds, got {}", describe(v.raw()));
  }
  if (t > kMaxLinkLatency) v.fail("latency {} is more than 1 s", describe(v.raw()));
  return t;
}

} // namespace json_fields

namespace {
using json_fields::bw_field;
using json_fields::latency_field;

struct LinkDefaults {
  std::optional<Bandwidth> bw;
  std::optional<Time> latency;
  std::string source;
};

int node_ref(const Topology& t, const JsonValue& v) {
  if (!v.is_string()) v.fail("node reference must be a node name string, got {}", describe(v.raw()));
  const std::string name = v.as_string();
  auto id = t.find_node(name);
  if (!id) v.fail("unknown node '{}'", printable(name));
  return *id;
}

void read_nodes(Topology& t, const JsonValue& j) {
  if (!j.has("nodes") || !j["nodes"].is_array()) j.fail("missing \"nodes\" array");
  std::map<std::string, int> seen;
  for (const JsonValue& n : j["nodes"].elements()) {
    if (!n.is_object()) n.fail("must be an object");
    const std::string name = n["name"].as_string();
    const std::string kind_s = n["kind"].as_string();
    auto kind = node_kind_from(kind_s);
    if (!kind) n.fail("unknown kind '{}' (gpu, nvswitch, pcie_switch, cpu, nic, net_switch)", printable(kind_s));
    if (!seen.emplace(name, 1).second) n.fail("duplicate node name '{}'", printable(name));
    t.add_node(name, *kind);
  }
}

std::string source_text(const JsonValue& v) { return v.is_string() ? v.as_string() : safe_dump(v.raw()); }

std::map<std::string, LinkDefaults> read_link_types(const JsonValue& j) {
  std::map<std::string, LinkDefaults> out;
  const auto types = j.get("link_types");
  if (!types) return out;
  if (!types->is_object()) types->fail("must be an object");
  for (const auto& [type, d] : types->items()) {
    if (type.starts_with('_')) continue; // a comment (known_keys)
    if (!link_type_from(type)) d.fail("unknown link type");
    if (!d.is_object()) d.fail("must be an object");
    LinkDefaults ld;
    if (auto bw = d.get("bw")) ld.bw = bw_field(*bw);
    if (auto lat = d.get("latency")) ld.latency = latency_field(*lat);
    if (auto src = d.get("source")) ld.source = source_text(*src);
    out[type] = ld;
  }
  return out;
}

void read_links(Topology& t, const JsonValue& j) {
  if (!j.has("links") || !j["links"].is_array()) j.fail("missing \"links\" array");
  const auto defaults = read_link_types(j);
  for (const JsonValue& l : j["links"].elements()) {
    if (!l.is_object()) l.fail("must be an object");
    if (!l.has("a") || !l.has("b")) l.fail("needs \"a\" and \"b\"");
    const int a = node_ref(t, l["a"]), b = node_ref(t, l["b"]);
    if (a == b) l.fail("link from '{}' to itself", printable(t.nodes[static_cast<std::size_t>(a)].name));
    const std::string type_s = l["type"].as_string();
    auto type = link_type_from(type_s);
    if (!type) l.fail("unknown link type '{}'", printable(type_s));
    auto it = defaults.find(type_s);
    const LinkDefaults* d = it == defaults.end() ? nullptr : &it->second;
    Bandwidth bw = 0;
    if (auto v = l.get("bw")) bw = bw_field(*v);
    else if (d && d->bw) bw = *d->bw;
    else l.fail("no bandwidth (give \"bw\" or link_types.{}.bw)", type_s);
    Time lat = 0;
    if (auto v = l.get("latency")) lat = latency_field(*v);
    else if (d && d->latency) lat = *d->latency;
    else l.fail("no latency (give \"latency\" or link_types.{}.latency)", type_s);
    int lanes = 1;
    if (auto v = l.get("lanes")) {
      if (!v->is_number()) v->fail("\"lanes\" must be an integer >= 1, got {}", describe(v->raw()));
      lanes = static_cast<int>(v->as_int(1, kMaxLanes));
    }
    bool staged = false;
    if (auto v = l.get("host_staged")) {
      if (!v->is_bool()) v->fail("\"host_staged\" must be true or false, got {}", describe(v->raw()));
      staged = v->as_bool();
    }
    std::string source = l.has("source") && l["source"].is_string() ? l["source"].as_string() : (d ? d->source : std::string{});
    const int link = t.add_link(a, b, *type, bw, lat, lanes, std::move(source));
    t.links[static_cast<std::size_t>(link)].host_staged = staged;
    // Both directions together (Link::duplex; machine:...,pcie_duplex= writes it): a bandwidth like "bw".
    if (auto v = l.get("duplex")) t.links[static_cast<std::size_t>(link)].duplex = bw_field(*v);
  }
}

void read_routes(Topology& t, const JsonValue& j) {
  const auto routes = j.get("routes");
  if (!routes) return;
  for (const JsonValue& r : routes->elements()) {
    if (!r.is_object() || !r.has("path") || !r["path"].is_array() || r["path"].size() < 2)
      r.fail("needs a \"path\" of at least two node names");
    Topology::RouteOverride ro;
    for (const JsonValue& n : r["path"].elements()) ro.path.push_back(node_ref(t, n));
    ro.src = ro.path.front();
    ro.dst = ro.path.back();
    t.route_overrides.push_back(std::move(ro));
  }
}

void read_structure(Topology& t, const JsonValue& j) {
  const auto s = j.get("structure");
  if (!s) return;
  const std::string kind = s->has("kind") ? (*s)["kind"].as_string() : std::string{"general"};
  if (kind == "crossbar") t.structure.kind = Structure::Kind::Crossbar;
  else if (kind == "torus") {
    t.structure.kind = Structure::Kind::Torus;
    if (!s->has("dims") || !(*s)["dims"].is_array()) s->fail("structure torus needs \"dims\"");
    // Extents are checked against the GPU count in Topology::validate; each must be at least 1.
    for (const JsonValue& d : (*s)["dims"].elements()) t.structure.dims.push_back(static_cast<int>(d.as_int(1, 1 << 24)));
  } else if (kind != "general") s->fail("unknown structure kind '{}'", printable(kind));
}

// A key the reader does not know is a typo to refuse, not a default to take: "lanse": 4 would leave the link at
// one lane and "strucure" a torus routed as a general graph. A key starting with '_' is a comment ("_note", and
// tests/data/bad's "_expect"). Checked after everything else, so a file also wrong in another way is refused for that.
void known_keys(const JsonValue& v, std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : v.items()) {
    if (key.starts_with('_') || std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    v.fail("unknown key '{}' (known: {}; a key starting with _ is a comment)", printable(key), list);
  }
}

void refuse_unknown_keys(const JsonValue& j) {
  known_keys(j, {"name", "description", "gpu", "cpu", "instance", "sharp", "nodes", "links", "link_types", "routes", "structure"});
  for (const JsonValue& n : j["nodes"].elements()) known_keys(n, {"name", "kind"});
  for (const JsonValue& l : j["links"].elements())
    known_keys(l, {"a", "b", "type", "bw", "latency", "lanes", "source", "host_staged", "duplex"});
  if (const auto types = j.get("link_types"))
    for (const auto& [type, d] : types->items())
      if (!type.starts_with('_')) known_keys(d, {"bw", "latency", "source"});
  if (const auto routes = j.get("routes"))
    for (const JsonValue& r : routes->elements()) known_keys(r, {"path"});
  if (const auto s = j.get("structure")) known_keys(*s, {"kind", "dims"});
}

} // namespace

void refuse_parallel_links(const Topology& t, const std::string& origin) {
  std::vector<std::tuple<int, int, int, std::size_t>> keys; // (lower node, higher node, type, link index)
  keys.reserve(t.links.size());
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    const Link& l = t.links[i];
    keys.emplace_back(std::min(l.a, l.b), std::max(l.a, l.b), static_cast<int>(l.type), i);
  }
  std::sort(keys.begin(), keys.end());
  for (std::size_t k = 1; k < keys.size(); ++k) {
    const auto& [a, b, type, first] = keys[k - 1];
    if (a != std::get<0>(keys[k]) || b != std::get<1>(keys[k]) || type != std::get<2>(keys[k])) continue;
    const std::size_t second = std::get<3>(keys[k]);
    const Link &l = t.links[first], &m = t.links[second];
    const std::string fix = l.bw == m.bw ? fmt::format("give links[{}] \"lanes\": {} and delete links[{}]", first, l.lanes + m.lanes, second)
                                         : fmt::format("write one link with the lanes and per-lane \"bw\" you mean");
    fail("{}: \"links[{}]\": a second {} link between '{}' and '{}' (the first is links[{}]); the router uses one link "
         "per pair (the widest), so this one would be ignored: {}",
         printable(origin), second, to_string(l.type), printable(t.nodes[static_cast<std::size_t>(a)].name),
         printable(t.nodes[static_cast<std::size_t>(b)].name), first, fix);
  }
}

Topology topology_from_json(const json& doc, const std::string& origin) {
  const JsonValue j(doc, printable(origin));
  if (!j.is_object()) j.fail("top level must be a JSON object");
  Topology t;
  t.origin = origin;
  t.name = j.has("name") ? j["name"].as_string() : fs::path(origin).stem().string();
  t.description = j.has("description") ? j["description"].as_string() : std::string{};
  if (j.has("gpu")) t.gpu_kind = j["gpu"].as_string();
  if (j.has("cpu")) t.cpu_vendor = j["cpu"].as_string();
  if (j.has("instance")) t.instance = ascii_lower(j["instance"].as_string());
  read_nodes(t, j);
  read_links(t, j);
  read_routes(t, j);
  read_structure(t, j);
  refuse_parallel_links(t, origin);
  t.validate();
  if (j.has("sharp")) set_sharp(t, j["sharp"].as_string(), printable(origin)); // checks the fabric's links
  refuse_unknown_keys(j);
  return t;
}

std::string not_a_topology_file(const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::is_regular_file(st)) return {};
  const char* what = !fs::exists(st) ? "no such file" : fs::is_directory(st) ? "a directory" : "a device or pipe, not a regular file";
  return fmt::format("{}: not a topology file ({})", printable(path), what);
}

Topology load_topology_file(const std::string& path) {
  if (const auto why = not_a_topology_file(path); !why.empty()) fail("{}", why);
  // The quick reader first; on any refusal (and for a file it cannot read) the walk, which names the problem.
  note_input(path); // never an output of this run (output_files.hpp)
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (in && !in.bad())
    if (auto t = finish_fast(read_topology_fast(text.view(), path), path)) return std::move(*t);
  return topology_from_json(read_json_file(path), path);
}

namespace {

json node_json(const Node& n) { return {{"name", n.name}, {"kind", to_string(n.kind)}}; }

json link_json(const Topology& t, const Link& l) {
  json lj = {{"a", t.nodes[static_cast<std::size_t>(l.a)].name},
             {"b", t.nodes[static_cast<std::size_t>(l.b)].name},
             {"type", to_string(l.type)},
             {"bw", format_bandwidth(l.bw)},
             {"latency", fmt::format("{}ps", l.latency)}}; // picoseconds: exact
  // "{:g}" keeps 6 digits: write the plain number of bytes/s when the text would not read back exactly.
  if (parse_bandwidth(format_bandwidth(l.bw), "bw") != l.bw) lj["bw"] = l.bw;
  if (l.lanes != 1) lj["lanes"] = l.lanes;
  if (!l.source.empty()) lj["source"] = l.source;
  if (l.host_staged) lj["host_staged"] = true;
  if (l.duplex > 0) lj["duplex"] = parse_bandwidth(format_bandwidth(l.duplex), "duplex") == l.duplex ? json(format_bandwidth(l.duplex)) : json(l.duplex);
  return lj;
}

json route_json(const Topology& t, const Topology::RouteOverride& r) {
  json path = json::array();
  for (int n : r.path) path.push_back(t.nodes[static_cast<std::size_t>(n)].name);
  return {{"path", path}};
}

std::optional<json> structure_json(const Topology& t) {
  if (t.structure.kind == Structure::Kind::Crossbar) return json{{"kind", "crossbar"}};
  if (t.structure.kind == Structure::Kind::Torus) return json{{"kind", "torus"}, {"dims", t.structure.dims}};
  return std::nullopt;
}

} // namespace

json topology_to_json(const Topology& t) {
  json j;
  j["name"] = t.name;
  j["description"] = t.description;
  if (!t.gpu_kind.empty()) j["gpu"] = t.gpu_kind;
  if (!t.cpu_vendor.empty()) j["cpu"] = t.cpu_vendor;
  if (!t.sharp.empty()) j["sharp"] = t.sharp;
  if (!t.instance.empty()) j["instance"] = t.instance;
  j["nodes"] = json::array();
  for (const auto& n : t.nodes) j["nodes"].push_back(node_json(n));
  j["links"] = json::array();
  for (const auto& l : t.links) j["links"].push_back(link_json(t, l));
  for (const auto& r : t.route_overrides) j["routes"].push_back(route_json(t, r));
  if (auto s = structure_json(t)) j["structure"] = *s;
  return j;
}

// One element per line, built element by element: a 262k-GPU torus needs ~100 MB of text instead of a
// multi-GB JSON tree.
std::string topology_to_text(const Topology& t) {
  std::string out = fmt::format("{{\n \"name\": {},\n \"description\": {},\n \"nodes\": [", safe_dump(json(t.name)),
                                safe_dump(json(t.description)));
  if (!t.gpu_kind.empty()) out.insert(out.rfind(",\n \"nodes\""), ",\n \"gpu\": " + safe_dump(json(t.gpu_kind)));
  if (!t.cpu_vendor.empty()) out.insert(out.rfind(",\n \"nodes\""), ",\n \"cpu\": " + safe_dump(json(t.cpu_vendor)));
  if (!t.sharp.empty()) out.insert(out.rfind(",\n \"nodes\""), ",\n \"sharp\": " + safe_dump(json(t.sharp)));
  if (!t.instance.empty()) out.insert(out.rfind(",\n \"nodes\""), ",\n \"instance\": " + safe_dump(json(t.instance)));
  for (std::size_t i = 0; i < t.nodes.size(); ++i) out += (i ? ",\n  " : "\n  ") + safe_dump(node_json(t.nodes[i]));
  out += "\n ],\n \"links\": [";
  for (std::size_t i = 0; i < t.links.size(); ++i) out += (i ? ",\n  " : "\n  ") + safe_dump(link_json(t, t.links[i]));
  out += "\n ]";
  if (!t.route_overrides.empty()) {
    out += ",\n \"routes\": [";
    for (std::size_t i = 0; i < t.route_overrides.size(); ++i)
      out += (i ? ",\n  " : "\n  ") + safe_dump(route_json(t, t.route_overrides[i]));
    out += "\n ]";
  }
  if (auto s = structure_json(t)) out += ",\n \"structure\": " + s->dump();
  return out + "\n}\n";
}

std::string topologies_dir() {
  if (const char* env = std::getenv("CCSIM_TOPOLOGIES")) return env;
  return data_dir() + "/topologies";
}

std::vector<std::string> shipped_topologies() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(topologies_dir(), ec))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

namespace {
Topology resolve_as_drawn(const std::string& spec);
} // namespace

Topology resolve_topology(const std::string& spec) {
  if (p2p_disabled()) return without_p2p(resolve_as_drawn(spec), "--p2p off");
  if (const auto level = p2p_level()) {
    if (*level == PathClass::Loc) return without_p2p(resolve_as_drawn(spec), "--p2p-level LOC");
    Topology t = resolve_as_drawn(spec); // NCCL picks P2P or SHM per pair: the nccl model applies the level
    t.p2p_level = static_cast<int>(*level);
    return t;
  }
  return resolve_as_drawn(spec);
}

namespace {
Topology resolve_as_drawn(const std::string& spec) {
  if (spec.empty()) fail("--topo: empty topology name");
  if (spec.find(':') != std::string::npos && !fs::exists(spec)) return generate_from_spec(spec);
  // Files are read by content: ccsim JSON, `nvidia-smi topo -m`, NCCL topology XML, `rocm-smi --showtopo`.
  if (fs::exists(spec)) return import_topology_file(spec, ImportOptions{default_import_gpu()});
  const std::string preset = topologies_dir() + "/" + spec + ".json";
  if (fs::exists(preset)) {
    Topology t = load_topology_file(preset);
    t.origin = "shipped preset topologies/" + spec + ".json"; // same text on every machine
    return t;
  }
  std::string known;
  for (const auto& n : shipped_topologies()) known += (known.empty() ? "" : ", ") + n;
  // "hgx-h20", "dgx-b200", "8xh20": a preset name made of a GPU kind the catalogue has, though no preset draws it; the
  // words that do are machine:gpu=KIND.
  std::string words;
  const auto kinds = gpu_kind_names();
  for (std::size_t at = 0; at <= spec.size() && words.empty();) {
    const auto end = std::min(spec.find_first_of("-_ ", at), spec.size());
    std::string piece = ascii_lower(spec.substr(at, end - at));
    const auto x = piece.find('x');
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (x != std::string::npos && x > 0 && std::all_of(piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(x), digit))
      piece = piece.substr(x + 1); // "8xh20"
    if (std::find(kinds.begin(), kinds.end(), piece) != kinds.end())
      words = fmt::format("; a machine of {} GPUs is described in words: machine:gpu={} (nodes=N,nics=MxSPEED for a cluster of them)", piece, piece);
    at = end + 1;
  }
  fail("--topo: '{}' is neither a file nor a shipped topology (shipped: {}){}", spec, known, words);
}
} // namespace

} // namespace ccsim::topology
