#include "sim/core/json_io.hpp"

#include <istream>

#include <nlohmann/json.hpp>

namespace ccsim {

nlohmann::json json_parse(std::string_view text) { return nlohmann::json::parse(text); }
nlohmann::json json_parse(std::istream& in) { return nlohmann::json::parse(in); }
nlohmann::json json_parse_or_discarded(std::string_view text) { return nlohmann::json::parse(text, nullptr, false); }
nlohmann::ordered_json ordered_json_parse(std::string_view text) { return nlohmann::ordered_json::parse(text); }
nlohmann::ordered_json ordered_json_parse_or_discarded(std::string_view text) {
  return nlohmann::ordered_json::parse(text, nullptr, false);
}
std::string json_dump(const nlohmann::json& j, int indent) { return j.dump(indent); }
std::string json_dump(const nlohmann::ordered_json& j, int indent) { return j.dump(indent); }

} // namespace ccsim
