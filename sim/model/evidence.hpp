// Where a prediction is guessing (issue 14, "A user can check every number"): the measured runs ccsim ships for the
// machine's class and regime, read from models/evidence.json. That file is generated (scripts/evidence.py) from the
// rows of the generated tables, models/VALIDATION.md (the "other machines" column: what a user gets for a class the
// default was not fitted on), models/HOLDOUT.md and the wild table of sim/trace/README.md; never written by hand.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sim/schedule/collective.hpp"
#include "sim/topology/topology.hpp"

namespace ccsim::model {

// A machine's class as the checked line keys it: from the description ccsim built, never from a file name.
struct EvidenceClass {
  std::string gpu;     // Topology::gpu_kind ("h100"), else its NVLink generation's SXM part (a preset), else empty
  int hosts = 1;       // hosts with GPUs (topology::host_map): 1 is one node / one NVLink domain
  std::string network; // the network's link type ("ib", "roce", ...) when hosts > 1, else empty
  std::string op;      // "allreduce"
  int ranks = 0;
};
EvidenceClass evidence_class(const topology::Topology& t, schedule::Op op, int ranks);

// One measured run of a generated table.
struct EvidenceRun {
  std::string table; // "models/VALIDATION.md", "models/HOLDOUT.md", "wild table"
  std::string file;  // the trace, "[run k]" for one run of a multi-run file
  EvidenceClass cls;
  std::optional<double> err_ge_1MiB; // median |busbw error| %, sizes >= 1 MiB (none when the run has no such size)
  std::optional<double> err_all;     // over all sizes
};

// models/evidence.json's runs; `where` names the file in the one-line error a malformed file gets.
std::vector<EvidenceRun> parse_evidence(const std::string& text, const std::string& where);

// What the checked line says, and the same as fields for --format json.
struct Checked {
  EvidenceClass cls;                   // the class asked about
  bool checked = false;
  int runs = 0;                        // measured runs of the class (GPU kind, one host or across hosts over
                                       // the network kind, op) and inside their host / rank range when checked
  std::optional<double> median_ge_1MiB; // their median of the tables' median |err| >= 1 MiB
  std::vector<std::string> tables;     // where those runs are
  std::string nearest;                 // when not checked: the nearest measured run, its file and class in words
  std::string line;                    // "checked: ..." or "not checked: ..." (one line)
};
Checked check(const EvidenceClass& c, const std::vector<EvidenceRun>& runs);

// The shipped evidence (data_dir()/models/evidence.json) checked for the class; a missing file says so in the line.
Checked check_shipped(const EvidenceClass& c);

} // namespace ccsim::model
