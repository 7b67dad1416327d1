// The typed fields of a topology file that both of its readers take (topology_json.cpp's walk over the JSON
// tree and topology_json_fast.cpp's SAX state machine), so a link's bandwidth or latency is one rule.
#pragma once
#include "sim/core/json_file.hpp"
#include "sim/core/units.hpp"

namespace ccsim::topology::json_fields {

// A link latency above one second is a typo (links take microseconds); the bound also keeps every
// simulated time far inside 64-bit picoseconds.
inline constexpr Time kMaxLinkLatency = kPsPerSec;

// Numbers in files may be strings with units ("25GB/s") or plain numbers (bytes/s, microseconds).
Bandwidth bw_field(const JsonValue& v);
Time latency_field(const JsonValue& v);

} // namespace ccsim::topology::json_fields
