#include "sim/topology/xml_lite.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace ccsim::topology::import_detail {
namespace {

constexpr std::size_t kMaxElements = 200000;
constexpr std::size_t kMaxDepth = 64;

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == ':' || c == '.';
}

std::string unescape(std::string_view v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '&') {
      out += v[i];
      continue;
    }
    static const std::pair<std::string_view, char> kEntities[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool done = false;
    for (const auto& [e, c] : kEntities)
      if (v.substr(i, e.size()) == e) {
        out += c;
        i += e.size() - 1;
        done = true;
        break;
      }
    if (!done) out += '&';
  }
  return out;
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& file) : s_(text), file_(file) {}
  XmlDocument read() {
    XmlDocument doc;
    std::vector<int> open;
    while (true) {
      const auto lt = s_.find('<', pos_);
      if (lt == std::string_view::npos) break;
      advance(lt);
      if (s_.substr(pos_, 4) == "<!--") {
        const auto end = s_.find("-->", pos_ + 4);
        if (end == std::string_view::npos) fail("{} line {}: unterminated comment", file_, line_);
        doc.comments.emplace_back(s_.substr(pos_ + 4, end - pos_ - 4));
        advance(end + 3);
      } else if (s_.substr(pos_, 2) == "<?" || s_.substr(pos_, 2) == "<!") {
        const auto end = s_.find('>', pos_);
        if (end == std::string_view::npos) fail("{} line {}: unterminated <{}", file_, line_, s_.substr(pos_ + 1, 1));
        advance(end + 1);
      } else if (s_.substr(pos_, 2) == "</") {
        advance(pos_ + 2);
        const std::string name = read_name();
        skip_ws();
        expect('>');
        if (open.empty() || doc.elements[static_cast<std::size_t>(open.back())].name != name)
          fail("{} line {}: </{}> closes {}", file_, line_, name,
               open.empty() ? std::string("nothing") : "<" + doc.elements[static_cast<std::size_t>(open.back())].name + ">");
        open.pop_back();
      } else {
        advance(pos_ + 1);
        XmlElement e;
        e.line = line_;
        e.name = read_name();
        e.parent = open.empty() ? -1 : open.back();
        bool self_closing = read_attrs(e);
        if (doc.elements.size() >= kMaxElements) fail("{} line {}: more than {} elements", file_, line_, kMaxElements);
        doc.elements.push_back(std::move(e));
        if (!self_closing) {
          if (open.size() >= kMaxDepth) fail("{} line {}: nested deeper than {}", file_, line_, kMaxDepth);
          open.push_back(static_cast<int>(doc.elements.size() - 1));
        }
      }
    }
    if (!open.empty())
      fail("{} line {}: <{}> is never closed (a truncated file?)", file_, doc.elements[static_cast<std::size_t>(open.back())].line,
           doc.elements[static_cast<std::size_t>(open.back())].name);
    return doc;
  }

 private:
  void advance(std::size_t to) {
    line_ += static_cast<int>(std::count(s_.begin() + static_cast<long>(pos_), s_.begin() + static_cast<long>(to), '\n'));
    pos_ = to;
  }
  void skip_ws() {
    std::size_t p = pos_;
    while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\n' || s_[p] == '\r')) ++p;
    advance(p);
  }
  void expect(char c) {
    if (pos_ >= s_.size() || s_[pos_] != c) fail("{} line {}: expected '{}'", file_, line_, c);
    advance(pos_ + 1);
  }
  std::string read_name() {
    std::size_t p = pos_;
    while (p < s_.size() && name_char(s_[p])) ++p;
    if (p == pos_) fail("{} line {}: expected a name after '<'", file_, line_);
    std::string n(s_.substr(pos_, p - pos_));
    advance(p);
    return n;
  }
  bool read_attrs(XmlElement& e) {
    while (true) {
      skip_ws();
      if (pos_ >= s_.size()) fail("{} line {}: <{}> is cut off", file_, line_, e.name);
      if (s_.substr(pos_, 2) == "/>") {
        advance(pos_ + 2);
        return true;
      }
      if (s_[pos_] == '>') {
        advance(pos_ + 1);
        return false;
      }
      std::string key = read_name();
      skip_ws();
      expect('=');
      skip_ws();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) fail("{} line {}: attribute {} needs a quoted value", file_, line_, key);
      const char q = s_[pos_];
      const auto end = s_.find(q, pos_ + 1);
      if (end == std::string_view::npos) fail("{} line {}: attribute {} is never closed", file_, line_, key);
      e.attrs.emplace_back(std::move(key), unescape(s_.substr(pos_ + 1, end - pos_ - 1)));
      advance(end + 1);
      if (e.attrs.size() > 64) fail("{} line {}: <{}> has more than 64 attributes", file_, line_, e.name);
    }
  }

  std::string_view s_;
  const std::string& file_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

} // namespace

XmlDocument parse_xml(std::string_view text, const std::string& file) { return Reader(text, file).read(); }

} // namespace ccsim::topology::import_detail
