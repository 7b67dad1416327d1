// --links rendered: as text after the table, or JSON under "links".
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "sim/observe/link_report.hpp"

namespace ccsim::report {

// Lines start with '#', as the table's header does, so nccl-tests parsers still read the rows.
std::string link_report_text(const observe::LinkReport& r, const topology::Topology& topo, const observe::Recording* rec);
nlohmann::ordered_json link_report_json(const observe::LinkReport& r, const topology::Topology& topo,
                                        const observe::Recording* rec);

} // namespace ccsim::report
