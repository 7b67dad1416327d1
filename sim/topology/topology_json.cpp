#include "sim/topology/p2p.hpp"
#include "sim/topology/topology_json.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "sim/core/data_dir.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/generators.hpp"
#include "sim/topology/import.hpp"

namespace ccsim::topology {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct LinkDefaults {
  std::optional<Bandwidth> bw;
  std::optional<Time> latency;
  std::string source;
};

std::string str_field(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) fail("{}: missing \"{}\"", where, key);
  if (!j[key].is_string()) fail("{}: \"{}\" must be a string", where, key);
  return j[key].get<std::string>();
}

// Numbers in files may be strings with units ("25GB/s") or plain numbers (bytes/s, microseconds).
Bandwidth bw_field(const json& v, const std::string& where) {
  if (v.is_string()) return parse_bandwidth(v.get<std::string>(), where);
  if (v.is_number()) {
    if (!(v.get<double>() > 0)) fail("{}: bandwidth must be positive, got {}", where, v.dump());
    return parse_bandwidth(v.dump(), where);
  }
  fail("{}: bandwidth must be a string like \"25GB/s\" or a number of bytes/s", where);
}

Time latency_field(const json& v, const std::string& where) {
  if (v.is_string()) return parse_duration(v.get<std::string>(), where);
  if (v.is_number()) {
    if (v.get<double>() < 0) fail("{}: latency must not be negative, got {}", where, v.dump());
    return from_us(v.get<double>());
  }
  fail("{}: latency must be a string like \"0.7us\" or a number of microseconds", where);
}

int node_ref(const Topology& t, const json& v, const std::string& where) {
  if (!v.is_string()) fail("{}: node reference must be a node name string", where);
  auto id = t.find_node(v.get<std::string>());
  if (!id) fail("{}: unknown node '{}'", where, v.get<std::string>());
  return *id;
}

void read_nodes(Topology& t, const json& j, const std::string& origin) {
  if (!j.contains("nodes") || !j["nodes"].is_array()) fail("{}: missing \"nodes\" array", origin);
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < j["nodes"].size(); ++i) {
    const json& n = j["nodes"][i];
    const std::string where = fmt::format("{}: node {}", origin, i);
    if (!n.is_object()) fail("{}: must be an object", where);
    const std::string name = str_field(n, "name", where);
    const std::string kind_s = str_field(n, "kind", where);
    auto kind = node_kind_from(kind_s);
    if (!kind) fail("{}: unknown kind '{}' (gpu, nvswitch, pcie_switch, cpu, nic, net_switch)", where, kind_s);
    if (!seen.emplace(name, 1).second) fail("{}: duplicate node name '{}'", where, name);
    t.add_node(name, *kind);
  }
}

std::map<std::string, LinkDefaults> read_link_types(const json& j, const std::string& origin) {
  std::map<std::string, LinkDefaults> out;
  if (!j.contains("link_types")) return out;
  if (!j["link_types"].is_object()) fail("{}: \"link_types\" must be an object", origin);
  for (auto& [type, d] : j["link_types"].items()) {
    const std::string where = fmt::format("{}: link_types.{}", origin, type);
    if (!link_type_from(type)) fail("{}: unknown link type", where);
    LinkDefaults ld;
    if (d.contains("bw")) ld.bw = bw_field(d["bw"], where + ".bw");
    if (d.contains("latency")) ld.latency = latency_field(d["latency"], where + ".latency");
    if (d.contains("source")) ld.source = d["source"].is_string() ? d["source"].get<std::string>() : d["source"].dump();
    out[type] = ld;
  }
  return out;
}

void read_links(Topology& t, const json& j, const std::string& origin) {
  if (!j.contains("links") || !j["links"].is_array()) fail("{}: missing \"links\" array", origin);
  const auto defaults = read_link_types(j, origin);
  for (std::size_t i = 0; i < j["links"].size(); ++i) {
    const json& l = j["links"][i];
    const std::string where = fmt::format("{}: link {}", origin, i);
    if (!l.is_object()) fail("{}: must be an object", where);
    if (!l.contains("a") || !l.contains("b")) fail("{}: needs \"a\" and \"b\"", where);
    const int a = node_ref(t, l["a"], where), b = node_ref(t, l["b"], where);
    if (a == b) fail("{}: link from '{}' to itself", where, t.nodes[static_cast<std::size_t>(a)].name);
    const std::string type_s = str_field(l, "type", where);
    auto type = link_type_from(type_s);
    if (!type) fail("{}: unknown link type '{}'", where, type_s);
    auto it = defaults.find(type_s);
    const LinkDefaults* d = it == defaults.end() ? nullptr : &it->second;
    Bandwidth bw = 0;
    if (l.contains("bw")) bw = bw_field(l["bw"], where + ".bw");
    else if (d && d->bw) bw = *d->bw;
    else fail("{}: no bandwidth (give \"bw\" or link_types.{}.bw)", where, type_s);
    Time lat = 0;
    if (l.contains("latency")) lat = latency_field(l["latency"], where + ".latency");
    else if (d && d->latency) lat = *d->latency;
    else fail("{}: no latency (give \"latency\" or link_types.{}.latency)", where, type_s);
    int lanes = 1;
    if (l.contains("lanes")) {
      if (!l["lanes"].is_number_integer() || l["lanes"].get<int>() < 1) fail("{}: \"lanes\" must be an integer >= 1", where);
      lanes = l["lanes"].get<int>();
    }
    std::string source = l.contains("source") && l["source"].is_string() ? l["source"].get<std::string>()
                                                                         : (d ? d->source : std::string{});
    t.add_link(a, b, *type, bw, lat, lanes, std::move(source));
  }
}

void read_routes(Topology& t, const json& j, const std::string& origin) {
  if (!j.contains("routes")) return;
  if (!j["routes"].is_array()) fail("{}: \"routes\" must be an array", origin);
  for (std::size_t i = 0; i < j["routes"].size(); ++i) {
    const std::string where = fmt::format("{}: route {}", origin, i);
    const json& r = j["routes"][i];
    if (!r.is_object() || !r.contains("path") || !r["path"].is_array() || r["path"].size() < 2)
      fail("{}: needs a \"path\" of at least two node names", where);
    Topology::RouteOverride ro;
    for (const auto& n : r["path"]) ro.path.push_back(node_ref(t, n, where));
    ro.src = ro.path.front();
    ro.dst = ro.path.back();
    t.route_overrides.push_back(std::move(ro));
  }
}

void read_structure(Topology& t, const json& j, const std::string& origin) {
  if (!j.contains("structure")) return;
  const json& s = j["structure"];
  const std::string kind = s.value("kind", std::string{"general"});
  if (kind == "crossbar") t.structure.kind = Structure::Kind::Crossbar;
  else if (kind == "torus") {
    t.structure.kind = Structure::Kind::Torus;
    if (!s.contains("dims") || !s["dims"].is_array()) fail("{}: structure torus needs \"dims\"", origin);
    for (const auto& d : s["dims"]) t.structure.dims.push_back(d.get<int>());
  } else if (kind != "general") fail("{}: unknown structure kind '{}'", origin, kind);
}

} // namespace

Topology topology_from_json(const json& j, const std::string& origin) {
  if (!j.is_object()) fail("{}: top level must be a JSON object", origin);
  Topology t;
  t.origin = origin;
  t.name = j.value("name", fs::path(origin).stem().string());
  t.description = j.value("description", std::string{});
  if (j.contains("gpu")) t.gpu_kind = str_field(j, "gpu", origin);
  read_nodes(t, j, origin);
  read_links(t, j, origin);
  read_routes(t, j, origin);
  read_structure(t, j, origin);
  t.validate();
  return t;
}

Topology load_topology_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) fail("{}: not a topology file (a directory or missing)", path);
  std::ifstream in(path);
  if (!in) fail("{}: cannot open topology file", path);
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    std::string msg = e.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    fail("{}: malformed JSON: {}", path, msg);
  } catch (const std::exception& e) {
    fail("{}: cannot read: {}", path, e.what());
  }
  try {
    return topology_from_json(j, path);
  } catch (const json::exception& e) {
    fail("{}: wrong value type: {}", path, e.what());
  }
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
  std::string out = fmt::format("{{\n \"name\": {},\n \"description\": {},\n \"nodes\": [", json(t.name).dump(),
                                json(t.description).dump());
  if (!t.gpu_kind.empty()) out.insert(out.rfind(",\n \"nodes\""), ",\n \"gpu\": " + json(t.gpu_kind).dump());
  for (std::size_t i = 0; i < t.nodes.size(); ++i) out += (i ? ",\n  " : "\n  ") + node_json(t.nodes[i]).dump();
  out += "\n ],\n \"links\": [";
  for (std::size_t i = 0; i < t.links.size(); ++i) out += (i ? ",\n  " : "\n  ") + link_json(t, t.links[i]).dump();
  out += "\n ]";
  if (!t.route_overrides.empty()) {
    out += ",\n \"routes\": [";
    for (std::size_t i = 0; i < t.route_overrides.size(); ++i)
      out += (i ? ",\n  " : "\n  ") + route_json(t, t.route_overrides[i]).dump();
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
  fail("--topo: '{}' is neither a file nor a shipped topology (shipped: {})", spec, known);
}
} // namespace

} // namespace ccsim::topology
