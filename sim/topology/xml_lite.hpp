// A bounded, non-recursive reader for the XML subset NCCL writes (elements, attributes, comments):
// no entities beyond the five predefined, no DTDs. Enough for NCCL_TOPO_DUMP_FILE output.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ccsim::topology::import_detail {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attrs;
  int parent = -1; // index into the element list
  int line = 0;
  const std::string* attr(std::string_view key) const {
    for (const auto& [k, v] : attrs)
      if (k == key) return &v;
    return nullptr;
  }
};

struct XmlDocument {
  std::vector<XmlElement> elements; // document order
  std::vector<std::string> comments;
};

// Throws Error "<file> line N: ..." on malformed input.
XmlDocument parse_xml(std::string_view text, const std::string& file);

} // namespace ccsim::topology::import_detail
