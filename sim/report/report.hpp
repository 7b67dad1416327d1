// Printing a sweep: a table shaped like nccl-tests' output, CSV, or JSON with stable keys.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/metrics/sweep.hpp"
#include "sim/model/evidence.hpp"

namespace ccsim::report {

struct RunHeader {
  std::string topology, topology_origin, algo, model, redop, dtype;
  std::string model_detail; // what the model derived from the machine (NCCL: its graph), or ""
  bool weighed = false;     // --why: also print each row's weighed pairs (engine::Choice::weighed)
  // --model nccl: the measured runs ccsim ships for the machine's class (models/evidence.json), or none.
  std::optional<model::Checked> checked;

  schedule::Op op = schedule::Op::AllReduce;
  int ranks = 0, root = 0;
  std::vector<std::vector<int>> placements;
  Bytes min_bytes = 0, max_bytes = 0;
  double factor = 2;
};

enum class Format { Table, Csv, Json, Markdown }; // Markdown: a GitHub/Jira-pasteable table (a ticket)
Format format_from(const std::string& s); // throws Error

void write(std::ostream& out, Format f, const RunHeader& h, const std::vector<metrics::Row>& rows);
// A row's model choice in one word-group ("ring/LL128 ch=16 loops=2"), "" for the plain models.
std::string choice_text(const engine::Choice& c);
// A ring's or rank order's GPUs for a header line, readable at any size: up to 32 GPUs listed as they are;
// beyond, "0..255 in order", one block of a node repeated on every node ("1-7 0, then the same +8 on each of
// the next 31 blocks of 8"), or else every GPU with runs collapsed ("0-7 15 8-14"). Nothing is left out: an
// order that is none of these is printed whole. `sep` joins the listed GPUs. JSON keeps the full list.
std::string gpu_order_text(const std::vector<int>& gpus, std::string_view sep = " ");
// Text for a Markdown table cell or caption: '|' escaped so it cannot split the row.
std::string markdown_cell(std::string_view s);
// The reduction and root a row prints, as nccl-tests does: "none" and -1 where the op has none (every output).
std::string redop_of(const RunHeader& h);
int root_of(const RunHeader& h);
// The checked line's fields for --format json (README "Output for scripts": `checked`).
nlohmann::ordered_json checked_json(const model::Checked& c);

} // namespace ccsim::report
