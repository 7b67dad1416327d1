#include "sim/report/nccl_graph_xml.hpp"

#include <fmt/format.h>

namespace ccsim::report {

std::string nccl_graph_xml(const NcclRingGraph& g) {
  std::string out;
  // "--" may not appear inside an XML comment.
  std::string comment = g.comment;
  for (std::size_t p; (p = comment.find("--")) != std::string::npos;) comment.replace(p, 2, "- -");
  if (!comment.empty()) out += fmt::format("<!-- {} -->\n", comment);
  out += "<graphs version=\"1\">\n"; // NCCL_GRAPH_XML_VERSION (src/graph/xml.h)
  // pattern 4 = NCCL_TOPO_PATTERN_RING (src/include/graph.h); id 0 = the ring graph (src/init.cc ringGraph->id).
  // One node: no NIC ends the chain, so crossnic 0 and typeinter is NCCL's starting value, PIX (ncclTopoCompute).
  out += fmt::format("  <graph id=\"0\" pattern=\"4\" crossnic=\"0\" nchannels=\"{}\" speedintra=\"{:g}\" speedinter=\"{:g}\" "
                     "latencyinter=\"0\" typeintra=\"{}\" typeinter=\"PIX\" samechannels=\"0\">\n",
                     g.rings.size(), g.speed_GBps, g.speed_GBps, g.type_intra);
  for (const auto& ring : g.rings) {
    out += "    <channel>\n";
    // NCCL reads dev with strtol base 16 (v2.29.2-1; base 0 in v2.18.3-1): "0x" and hex read right in both, as NCCL
    // writes it (xmlSetAttrLong, "%#lx").
    for (int dev : ring) out += dev == 0 ? "      <gpu dev=\"0\"/>\n" : fmt::format("      <gpu dev=\"{:#x}\"/>\n", dev);
    out += "    </channel>\n";
  }
  out += "  </graph>\n</graphs>\n";
  return out;
}

std::string nccl_rings_env(const std::vector<std::vector<int>>& rank_rings) {
  std::string out;
  for (const auto& ring : rank_rings) {
    if (!out.empty()) out += '|';
    for (std::size_t i = 0; i < ring.size(); ++i) out += fmt::format("{}{}", i ? " " : "", ring[i]);
  }
  return out;
}

} // namespace ccsim::report
