// `ccsim sweep`'s result table: one row per (point, size), the point's parameters first, then every
// output column of the main command, then the point's error (empty when it ran). Rendered as CSV or as
// JSON lines from plain cells, so rows finished by any thread, rank or earlier run print byte for byte
// the same.
#pragma once
#include <string>
#include <vector>

#include "sim/report/report.hpp"
#include "sim/scenario/run.hpp"

namespace ccsim::report {

// One point's output cells: one vector per size, in sweep_output_columns() order.
using SweepCells = std::vector<std::vector<std::string>>;

enum class SweepFormat { Csv, Jsonl };
SweepFormat sweep_format_from(const std::string& s); // throws Error naming --format

// The output columns after the parameters ("topology", "ranks", ..., "error").
const std::vector<std::string>& sweep_output_columns();
// A run's rows as cells (numbers formatted as the main command's CSV formats them).
SweepCells sweep_cells(const RunHeader& h, const std::vector<metrics::Row>& rows);
// A training-scenario point (`ccsim scenario` flags): one row per step the scenario runs.
SweepCells sweep_scenario_cells(const scenario::Report& rep);
// A point that failed: one row, every output empty but the error.
SweepCells sweep_error_cells(const std::string& message);

// Whether a row read back from an earlier run's output or journal (resuming) can be printed again: every column,
// a number or nothing in each numeric one, an object's text or a line in `checked`. A hand-edited or foreign table
// may hold anything; its point runs again instead.
bool sweep_row_readable(const std::vector<std::string>& row);

// The header line (CSV) or nothing (JSON lines), then one line per cell row.
std::string sweep_header(SweepFormat f, const std::vector<std::string>& params);
// `values` holds the point's parameter values aligned with `params` ("" = not set for this point).
std::string sweep_lines(SweepFormat f, std::size_t point, const std::vector<std::string>& params,
                        const std::vector<std::string>& values, const SweepCells& cells);

} // namespace ccsim::report
