// ccsim compare's output: measured beside predicted, per row, as a table, CSV or JSON.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "sim/model/compare.hpp"

namespace ccsim::report {

nlohmann::ordered_json compare_json(const model::CompareResult& r, const model::CompareMeta& m);
std::string compare_table(const model::CompareResult& r, const model::CompareMeta& m);
std::string compare_csv(const model::CompareResult& r, const model::CompareMeta& m);
std::string compare_markdown(const model::CompareResult& r, const model::CompareMeta& m);

} // namespace ccsim::report
