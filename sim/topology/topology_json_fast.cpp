// The SAX reader of topology files. It mirrors topology_json.cpp's walk field by field and gives up
// (returns false to the parser) on anything the walk would refuse, and on a few valid rarities it does not
// bother with (a duplicate key, a non-string "source", a "structure" that is not an object): the walk then
// reads the file and says what is wrong, or reads it the same way.
#include "sim/topology/topology_json_fast.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/ascii.hpp"
#include "sim/core/error.hpp"
#include "sim/core/json_file.hpp"
#include "sim/core/printable.hpp"
#include "sim/topology/sharp.hpp"
#include "sim/topology/topology_json.hpp"
#include "sim/topology/topology_json_fields.hpp"

namespace ccsim::topology {
namespace {
using nlohmann::json;
using json_fields::kMaxLinkLatency;

// What an open container is; the reader's stack of them is at most four deep (root, routes, a route, its path).
enum class Frame : std::uint8_t { Root, Nodes, Node, Links, Link, LinkTypes, LinkType, Routes, Route, Path, Structure, Dims };

// The key a value in an object belongs to. Other: a comment key ("_note": skipped) or a key the walk does not know,
// on which the reader gives up, so the walk refuses it by name (a typed "lanse" must not leave a link at 1 lane).
enum class Key : std::uint8_t {
  Other, Name, Description, Gpu, Cpu, Sharp, Instance, Nodes, Links, LinkTypes, Routes, Structure, // the document
  Kind, A, B, Type, Bw, Latency, Lanes, Source, HostStaged, Path, Dims, Entry        // inside elements
};

struct PendingLink { // node names are resolved once every node is known (a file may list links first)
  std::string a, b, type_name;
  LinkType type = LinkType::Ideal;
  std::optional<Bandwidth> bw;
  std::optional<Time> latency;
  int lanes = 1;
  std::optional<std::string> source;
  bool host_staged = false;
  unsigned seen = 0;
};

struct LinkDefaults {
  std::optional<Bandwidth> bw;
  std::optional<Time> latency;
  std::string source;
};

constexpr unsigned bit(Key k) { return 1u << static_cast<unsigned>(k); }

// k == lit with the length test first (most keys differ in length); stays inline, unlike string_view's compare.
bool is(std::string_view k, std::string_view lit) {
  return k.size() == lit.size() && std::char_traits<char>::compare(k.data(), lit.data(), lit.size()) == 0;
}

Key key_of(Frame f, std::string_view k) {
  switch (f) {
    case Frame::Root:
      if (is(k, "name")) return Key::Name;
      if (is(k, "description")) return Key::Description;
      if (is(k, "gpu")) return Key::Gpu;
      if (is(k, "cpu")) return Key::Cpu;
      if (is(k, "sharp")) return Key::Sharp;
      if (is(k, "instance")) return Key::Instance;
      if (is(k, "nodes")) return Key::Nodes;
      if (is(k, "links")) return Key::Links;
      if (is(k, "link_types")) return Key::LinkTypes;
      if (is(k, "routes")) return Key::Routes;
      if (is(k, "structure")) return Key::Structure;
      return Key::Other;
    case Frame::Node:
      if (is(k, "name")) return Key::Name;
      if (is(k, "kind")) return Key::Kind;
      return Key::Other;
    case Frame::Link:
      if (is(k, "a")) return Key::A;
      if (is(k, "b")) return Key::B;
      if (is(k, "type")) return Key::Type;
      if (is(k, "bw")) return Key::Bw;
      if (is(k, "latency")) return Key::Latency;
      if (is(k, "lanes")) return Key::Lanes;
      if (is(k, "source")) return Key::Source;
      if (is(k, "host_staged")) return Key::HostStaged;
      return Key::Other;
    case Frame::LinkTypes: return k.starts_with('_') ? Key::Other : Key::Entry; // "_note": a comment
    case Frame::LinkType:
      if (is(k, "bw")) return Key::Bw;
      if (is(k, "latency")) return Key::Latency;
      if (is(k, "source")) return Key::Source;
      return Key::Other;
    case Frame::Route: return is(k, "path") ? Key::Path : Key::Other;
    case Frame::Structure:
      if (is(k, "kind")) return Key::Kind;
      if (is(k, "dims")) return Key::Dims;
      return Key::Other;
    default: return Key::Other;
  }
}

// A link's latency written as text: the same rule as json_fields::latency_field for a string.
Time latency_text(std::string_view s) {
  const Time t = parse_duration(s, "");
  if (t > kMaxLinkLatency) fail("latency is more than 1 s");
  return t;
}

// Node names to ids once every node is read (their strings no longer move): open addressing over views of the
// names, no allocation per name; Topology::find_node would copy each name into its own hash map.
class NameIndex {
 public:
  bool build(const std::vector<Node>& nodes) { // false when a name repeats
    std::size_t size = 16;
    while (size < 2 * nodes.size()) size *= 2;
    slots_.assign(size, -1);
    nodes_ = &nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      std::size_t at = slot_of(nodes[i].name);
      if (slots_[at] >= 0) return false;
      slots_[at] = static_cast<int>(i);
    }
    return true;
  }
  std::optional<int> find(std::string_view name) const {
    const int id = slots_[slot_of(name)];
    return id < 0 ? std::nullopt : std::optional<int>(id);
  }

 private:
  // The slot holding `name`, or the empty slot where it would go.
  std::size_t slot_of(std::string_view name) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t at = std::hash<std::string_view>{}(name) & mask;
    while (slots_[at] >= 0 && (*nodes_)[static_cast<std::size_t>(slots_[at])].name != name) at = (at + 1) & mask;
    return at;
  }
  std::vector<int> slots_;
  const std::vector<Node>* nodes_ = nullptr;
};

// The SAX handler (nlohmann's json_sax interface). Every callback returns false to give up.
class Reader {
 public:
  explicit Reader(const std::string& origin) { topo_.origin = origin; }

  bool null() { return scalar_other(); }
  bool boolean(bool v);
  bool number_integer(json::number_integer_t v) { return number(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return number(json(v)); }
  bool number_float(json::number_float_t v, const std::string&) { return number(json(v)); }
  bool string(std::string& s);
  bool binary(json::binary_t&) { return false; }
  bool start_object(std::size_t);
  bool end_object();
  bool start_array(std::size_t);
  bool end_array();
  bool key(std::string& k);
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  // After a complete parse: resolves names and defaults; false when the walk would refuse the document.
  bool finish();
  FastTopology take() { return {std::move(topo_), std::move(sharp_)}; }

 private:
  bool push(Frame f) {
    if (depth_ == frames_.size()) return false;
    frames_[depth_] = f;
    seen_[depth_++] = 0;
    return true;
  }
  Frame top() const { return frames_[depth_ - 1]; }
  bool in_object() const {
    const Frame f = top();
    return f == Frame::Root || f == Frame::Node || f == Frame::Link || f == Frame::LinkTypes || f == Frame::LinkType ||
           f == Frame::Route || f == Frame::Structure;
  }
  // A value the walk ignores (under a key it never reads) is fine; anywhere else a scalar is not handled here.
  bool scalar_other() const { return skip_ > 0 || (depth_ > 0 && in_object() && key_ == Key::Other); }
  bool open(bool object);
  bool number(const json& v);
  bool end_node();
  bool end_link_type();

  Topology topo_;
  std::optional<std::string> sharp_;
  std::array<Frame, 4> frames_{};
  std::array<unsigned, 4> seen_{}; // keys met so far in each open object: a repeated one gives up
  std::size_t depth_ = 0;
  int skip_ = 0; // > 0 inside a value that is skipped
  Key key_ = Key::Other;
  bool done_ = false;

  std::string node_name_, node_kind_;
  std::vector<PendingLink> links_;
  std::map<std::string, LinkDefaults, std::less<>> link_types_;
  std::string link_type_name_;
  LinkDefaults link_type_;
  std::vector<std::vector<std::string>> paths_;
  std::optional<std::string> structure_kind_;
  std::vector<int> dims_;
  bool has_dims_ = false;
};

bool Reader::key(std::string& k) {
  if (skip_ > 0) return true;
  if (depth_ > 0 && top() == Frame::Link && k == "duplex") return false; // rare: a link's both-ways budget, read the careful way
  key_ = key_of(top(), k);
  if (key_ == Key::Other) return k.starts_with('_'); // unknown: the walk names it (topology_json.cpp known_keys)
  if (key_ == Key::Entry) {
    if (link_types_.count(k) > 0) return false;
    link_type_name_ = k;
    return true;
  }
  unsigned& seen = seen_[depth_ - 1];
  if (seen & bit(key_)) return false;
  seen |= bit(key_);
  return true;
}

// The one boolean the walk reads: a link's "host_staged"; anywhere else a boolean is skipped or given up on.
bool Reader::boolean(bool v) {
  if (skip_ > 0 || depth_ == 0 || top() != Frame::Link || key_ != Key::HostStaged) return scalar_other();
  links_.back().host_staged = v;
  links_.back().seen |= bit(key_);
  return true;
}

bool Reader::string(std::string& s) {
  if (skip_ > 0) return true;
  if (depth_ == 0) return false;
  switch (top()) {
    case Frame::Root:
      if (key_ == Key::Name) topo_.name = std::move(s);
      else if (key_ == Key::Description) topo_.description = std::move(s);
      else if (key_ == Key::Gpu) topo_.gpu_kind = std::move(s);
      else if (key_ == Key::Cpu) topo_.cpu_vendor = std::move(s);
      else if (key_ == Key::Sharp) sharp_ = std::move(s);
      else if (key_ == Key::Instance) topo_.instance = ascii_lower(s);
      else return key_ == Key::Other;
      return true;
    case Frame::Node:
      if (key_ == Key::Name) node_name_ = std::move(s);
      else if (key_ == Key::Kind) node_kind_ = std::move(s);
      else return key_ == Key::Other;
      return true;
    case Frame::Link: {
      PendingLink& l = links_.back();
      switch (key_) {
        case Key::A: l.a = std::move(s); break;
        case Key::B: l.b = std::move(s); break;
        case Key::Type: {
          const auto type = link_type_from(s);
          if (!type) return false;
          l.type = *type;
          l.type_name = std::move(s);
          break;
        }
        case Key::Bw: l.bw = parse_bandwidth(s, ""); break;
        case Key::Latency: l.latency = latency_text(s); break;
        case Key::Source: l.source = std::move(s); break;
        default: return key_ == Key::Other;
      }
      l.seen |= bit(key_);
      return true;
    }
    case Frame::LinkType:
      if (key_ == Key::Bw) link_type_.bw = parse_bandwidth(s, "");
      else if (key_ == Key::Latency) link_type_.latency = latency_text(s);
      else if (key_ == Key::Source) link_type_.source = std::move(s);
      else return key_ == Key::Other;
      return true;
    case Frame::Path: paths_.back().push_back(std::move(s)); return true;
    case Frame::Structure:
      if (key_ == Key::Kind) structure_kind_ = std::move(s);
      else return key_ == Key::Other;
      return true;
    default: return in_object() && key_ == Key::Other;
  }
}

// Numbers go through the walk's own field readers (a JsonValue around the one number): they are rare in
// files, and their rules (whole doubles, ranges, the bandwidth's text round trip) stay in one place.
bool Reader::number(const json& v) {
  if (skip_ > 0) return true;
  if (depth_ == 0) return false;
  const JsonValue value(v, std::string{});
  const Frame f = top();
  if (f == Frame::Dims) {
    dims_.push_back(static_cast<int>(value.as_int(1, 1 << 24)));
    return true;
  }
  if (f == Frame::Link) {
    PendingLink& l = links_.back();
    if (key_ == Key::Bw) l.bw = json_fields::bw_field(value);
    else if (key_ == Key::Latency) l.latency = json_fields::latency_field(value);
    else if (key_ == Key::Lanes) l.lanes = static_cast<int>(value.as_int(1, kMaxLanes));
    else return key_ == Key::Other;
    l.seen |= bit(key_);
    return true;
  }
  if (f == Frame::LinkType && key_ == Key::Bw) link_type_.bw = json_fields::bw_field(value);
  else if (f == Frame::LinkType && key_ == Key::Latency) link_type_.latency = json_fields::latency_field(value);
  else return in_object() && key_ == Key::Other;
  return true;
}

// An object (or, with !object, an array) opens: where it may, what it is, or a skipped value under an unread key.
bool Reader::open(bool object) {
  if (skip_ > 0) return ++skip_, true;
  if (depth_ == 0) return object && push(Frame::Root);
  switch (top()) {
    case Frame::Nodes:
      if (!object) return false;
      node_name_.clear(), node_kind_.clear();
      return push(Frame::Node);
    case Frame::Links:
      if (!object) return false;
      links_.emplace_back();
      return push(Frame::Link);
    case Frame::Routes:
      if (!object) return false;
      paths_.emplace_back();
      return push(Frame::Route);
    case Frame::LinkTypes:
      if (!object) return false;
      link_type_ = {};
      return push(Frame::LinkType);
    default: break;
  }
  if (!in_object()) return false; // a list or object inside "path" or "dims"
  const Frame f = top();
  if (f == Frame::Root && !object && key_ == Key::Nodes) return push(Frame::Nodes);
  if (f == Frame::Root && !object && key_ == Key::Links) return push(Frame::Links);
  if (f == Frame::Root && !object && key_ == Key::Routes) return push(Frame::Routes);
  if (f == Frame::Root && object && key_ == Key::LinkTypes) return push(Frame::LinkTypes);
  if (f == Frame::Root && object && key_ == Key::Structure) return push(Frame::Structure);
  if (f == Frame::Route && !object && key_ == Key::Path) return push(Frame::Path);
  if (f == Frame::Structure && !object && key_ == Key::Dims) return has_dims_ = true, push(Frame::Dims);
  if (key_ != Key::Other) return false;
  skip_ = 1;
  return true;
}

bool Reader::start_object(std::size_t) { return open(true); }
bool Reader::start_array(std::size_t) { return open(false); }

bool Reader::end_node() {
  if (!(seen_[depth_ - 1] & bit(Key::Name)) || !(seen_[depth_ - 1] & bit(Key::Kind))) return false;
  const auto kind = node_kind_from(node_kind_);
  if (!kind) return false; // a repeated name is found in finish()
  topo_.add_node(std::move(node_name_), *kind);
  return true;
}

bool Reader::end_link_type() {
  if (!link_type_from(link_type_name_)) return false;
  link_types_.emplace(std::move(link_type_name_), std::move(link_type_));
  return true;
}

bool Reader::end_object() {
  if (skip_ > 0) return --skip_, true;
  bool ok = true;
  switch (top()) {
    case Frame::Root: done_ = true; break;
    case Frame::Node: ok = end_node(); break;
    case Frame::Link: {
      const unsigned needed = bit(Key::A) | bit(Key::B) | bit(Key::Type);
      ok = (links_.back().seen & needed) == needed;
      break;
    }
    case Frame::LinkType: ok = end_link_type(); break;
    case Frame::Route: ok = paths_.back().size() >= 2; break; // also false without a "path"
    default: break;
  }
  --depth_;
  return ok;
}

bool Reader::end_array() {
  if (skip_ > 0) return --skip_, true;
  --depth_;
  return true;
}

bool Reader::finish() {
  const unsigned root = seen_[0];
  if (!done_ || !(root & bit(Key::Nodes)) || !(root & bit(Key::Links))) return false;
  if (!(root & bit(Key::Name))) topo_.name = std::filesystem::path(topo_.origin).stem().string();
  NameIndex names;
  if (!names.build(topo_.nodes)) return false; // two nodes of one name
  for (PendingLink& l : links_) {
    const auto a = names.find(l.a), b = names.find(l.b);
    if (!a || !b || *a == *b) return false;
    const auto d = link_types_.find(l.type_name);
    const LinkDefaults* defaults = d == link_types_.end() ? nullptr : &d->second;
    if (!l.bw && defaults) l.bw = defaults->bw;
    if (!l.latency && defaults) l.latency = defaults->latency;
    if (!l.bw || !l.latency) return false;
    std::string source = l.source ? std::move(*l.source) : defaults ? defaults->source : std::string{};
    const int link = topo_.add_link(*a, *b, l.type, *l.bw, *l.latency, l.lanes, std::move(source));
    topo_.links[static_cast<std::size_t>(link)].host_staged = l.host_staged;
  }
  for (const auto& path : paths_) {
    Topology::RouteOverride ro;
    for (const auto& name : path) {
      const auto id = names.find(name);
      if (!id) return false;
      ro.path.push_back(*id);
    }
    ro.src = ro.path.front();
    ro.dst = ro.path.back();
    topo_.route_overrides.push_back(std::move(ro));
  }
  if (root & bit(Key::Structure)) {
    const std::string kind = structure_kind_.value_or("general");
    if (kind == "crossbar") topo_.structure.kind = Structure::Kind::Crossbar;
    else if (kind == "torus") {
      if (!has_dims_) return false;
      topo_.structure.kind = Structure::Kind::Torus;
      topo_.structure.dims = dims_;
    } else if (kind != "general") return false;
  }
  return true;
}

} // namespace

std::optional<FastTopology> read_topology_fast(std::string_view text, const std::string& origin) {
  Reader reader(origin);
  try {
    if (!json::sax_parse(text.data(), text.data() + text.size(), &reader) || !reader.finish()) return std::nullopt;
  } catch (const Error&) { // a field the walk would refuse: it will say why
    return std::nullopt;
  }
  return reader.take();
}

std::optional<Topology> finish_fast(std::optional<FastTopology> fast, const std::string& origin) {
  if (!fast) return std::nullopt;
  refuse_parallel_links(fast->topo, origin);
  fast->topo.validate(); // as topology_from_json does after its walk: same topology, same message
  if (fast->sharp) set_sharp(fast->topo, *fast->sharp, printable(origin));
  return std::move(fast->topo);
}

Topology topology_from_json_text(std::string_view text, const std::string& origin) {
  if (auto t = finish_fast(read_topology_fast(text, origin), origin)) return std::move(*t);
  return topology_from_json(parse_json_text(text, origin), origin);
}

} // namespace ccsim::topology
