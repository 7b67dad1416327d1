#include <doctest/doctest.h>

#include <string>

#include "sim/report/nccl_graph_xml.hpp"

using namespace ccsim::report;

// NVIDIA/nccl v2.29.2-1 src/graph/search.cc ncclTopoGetChannelFromXml reads a <gpu>'s dev with strtol(str, NULL, 16),
// and NCCL_GRAPH_DUMP_FILE writes it with xmlSetAttrLong's "%#lx" (src/graph/xml.h): 0 is "0", 10 is "0xa", 16 is
// "0x10". Decimal "10" would read back as GPU 16, so a ring over 16 GPUs must be written in hex (a DGX-1's 0-7 read
// the same either way).
TEST_CASE("NCCL graph XML: GPU devs at and above 10 are written in hex, as NCCL writes and reads them") {
  NcclRingGraph g;
  g.rings = {{0, 9, 10, 15, 16}};
  g.speed_GBps = 20;
  g.type_intra = "NVL";
  const std::string xml = nccl_graph_xml(g);
  CHECK(xml.find("<gpu dev=\"0\"/>") != std::string::npos);
  CHECK(xml.find("<gpu dev=\"0x9\"/>") != std::string::npos);
  CHECK(xml.find("<gpu dev=\"0xa\"/>") != std::string::npos);
  CHECK(xml.find("<gpu dev=\"0xf\"/>") != std::string::npos);
  CHECK(xml.find("<gpu dev=\"0x10\"/>") != std::string::npos);
  CHECK(xml.find("dev=\"10\"") == std::string::npos);
}

// NCCL_RINGS (NCCL 2.4.8 and older, src/misc/rings.cc parseRings): ranks separated by spaces, rings by '|'.
TEST_CASE("NCCL_RINGS: ranks by spaces, rings by a bar") {
  CHECK(nccl_rings_env({{0, 3, 2, 1}, {1, 2, 3, 0}}) == "0 3 2 1|1 2 3 0");
  CHECK(nccl_rings_env({{0, 1}}) == "0 1");
}
